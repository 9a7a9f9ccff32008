/* Reading a small file whole, with a bound: tracer.conf, tools.rules and a job's batch script
 * are read by root from paths that others may influence, so every read refuses what is not a
 * regular file, never blocks on a FIFO, and stops at a size cap. */
#ifndef TRACER_READFILE_H
#define TRACER_READFILE_H

#include <stddef.h>
#include <sys/stat.h>

#define READFILE_NOFOLLOW 1u /* refuse a symbolic link in the last component (-ELOOP) */
#define READFILE_PREFIX 2u   /* a longer file gives its first max bytes, not -EFBIG */

/* Read the regular file at path, at most max bytes, into a new buffer with a NUL after the
 * data (which may itself hold NULs). Returns 0 with *out (caller frees) and *len, or -errno:
 * open(2)'s or read(2)'s error, -EINVAL when it is not a regular file, -EFBIG when it is longer
 * than max (unless READFILE_PREFIX), -ENOMEM; err (may be NULL) then says "PATH: what".
 * *out and *len are untouched on failure. */
int readfile(const char *path, size_t max, unsigned flags, char **out, size_t *len, char *err,
	     size_t errlen);
/* The same for path relative to directory dirfd (or AT_FDCWD), with the file's fstat of the
 * descriptor read in *st (when st is not NULL and the file was opened): what is checked about
 * the file is then what was read. */
int readfile_at(int dirfd, const char *path, size_t max, unsigned flags, struct stat *st,
		char **out, size_t *len, char *err, size_t errlen);

#endif
