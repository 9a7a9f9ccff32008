/* The one bounded file reader. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readfile.h"

int readfile(const char *path, size_t max, unsigned flags, char **out, size_t *len, char *err,
	     size_t errlen)
{
	return readfile_at(AT_FDCWD, path, max, flags, NULL, out, len, err, errlen);
}

int readfile_at(int dirfd, const char *path, size_t max, unsigned flags, struct stat *stp,
		char **out, size_t *len, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO at the path must not hang the reader (it is refused below);
	 * it changes nothing for a regular file. */
	int fd, oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, ret = 0;
	size_t n = 0, want = flags & READFILE_PREFIX ? max : max + 1;
	struct stat st;
	char *buf = NULL;
	ssize_t r;

	if (!path || !out || !len || max == (size_t)-1)
		return -EINVAL;
	if (flags & READFILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	if ((fd = openat(dirfd, path, oflags)) < 0) {
		ret = -errno;
		goto fail;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto cleanup;
	}
	if (stp)
		*stp = st;
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto cleanup;
	}
	/* Read to EOF rather than trusting st_size (the file may grow), but never past the
	 * cap: one byte more than max tells a file that is too long. */
	if (!(buf = malloc(want + 1))) {
		ret = -ENOMEM;
		goto cleanup;
	}
	while (n < want) {
		r = read(fd, buf + n, want - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto cleanup;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		ret = -EFBIG;
		goto cleanup;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	buf = NULL;
cleanup:
	free(buf);
	close(fd);
fail:
	if (ret == -EINVAL && err && errlen)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (ret == -EFBIG && err && errlen)
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
	else if (ret < 0 && err && errlen)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}
