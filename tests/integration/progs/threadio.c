/* THREADS threads (ARGV[2]) each write MIB MiB (ARGV[3]) to FILE.N (ARGV[1]), synced, then all
 * sleep HOLD seconds (ARGV[4]) before the process ends: its threads' I/O while they live. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static const char *base;
static long mib, hold;

static void *writer(void *arg)
{
	static char buf[1 << 16];
	char path[4096];
	long n = (long)arg;
	int fd;

	snprintf(path, sizeof(path), "%s.%ld", base, n);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		exit(1);
	for (long done = 0; done < mib << 20; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			exit(1);
	if (fsync(fd) || close(fd))
		exit(1);
	sleep((unsigned)hold);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	long n;

	if (argc != 5)
		return 2;
	base = argv[1];
	n = atol(argv[2]);
	mib = atol(argv[3]);
	hold = atol(argv[4]);
	if (n < 1 || n > 64 || mib < 0 || hold < 0)
		return 2;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, writer, (void *)i))
			return 1;
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
