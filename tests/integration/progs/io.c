/* Write then read back a known amount through FILE (ARGV[1]), then print /proc/self/io as the
 * last I/O. The read of /proc/self/io and the write of it to stdout happen after the values
 * were taken: the caller adds their size to rchar/wchar and 1 to syscr/syscw. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	size_t total = 8 << 20, done;
	int fd = open(argc > 1 ? argv[1] : "io.dat", O_CREAT | O_TRUNC | O_RDWR, 0600), io;
	ssize_t n;

	if (fd < 0)
		return 1;
	memset(buf, 'x', sizeof(buf));
	for (done = 0; done < total; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return 1;
	fsync(fd);
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	io = open("/proc/self/io", O_RDONLY);
	n = read(io, buf, sizeof(buf));
	if (n <= 0 || write(1, buf, n) != n)
		return 1;
	return 0;
}
