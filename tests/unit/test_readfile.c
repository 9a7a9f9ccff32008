/* The bounded file reader (util/readfile.c): what it refuses, and where it stops. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "readfile.h"

static char dir[64];

static void path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *text, size_t len)
{
	char p[128];
	FILE *f;

	path(p, sizeof(p), name);
	assert_non_null(f = fopen(p, "w"));
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_readfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_whole(void **state)
{
	char p[128], *buf;
	size_t len;

	(void)state;
	write_file("a", "one\0two", 7);
	path(p, sizeof(p), "a");
	assert_int_equal(readfile(p, 7, 0, &buf, &len, NULL, 0), 0);
	assert_int_equal(len, 7);
	assert_memory_equal(buf, "one\0two", 8); /* NUL kept, and one after the data */
	free(buf);
	write_file("empty", "", 0);
	path(p, sizeof(p), "empty");
	assert_int_equal(readfile(p, 0, 0, &buf, &len, NULL, 0), 0);
	assert_int_equal(len, 0);
	assert_int_equal(buf[0], 0);
	free(buf);
}

static void test_cap(void **state)
{
	char p[128], err[256], want[256], *buf = (char *)"untouched";
	size_t len = 99;

	(void)state;
	write_file("b", "0123456789", 10);
	path(p, sizeof(p), "b");
	assert_int_equal(readfile(p, 9, 0, &buf, &len, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: larger than 9 bytes", p);
	assert_string_equal(err, want);
	assert_string_equal(buf, "untouched");
	assert_int_equal(len, 99);
	/* a prefix of max bytes where a prefix is all the caller wants */
	assert_int_equal(readfile(p, 4, READFILE_PREFIX, &buf, &len, NULL, 0), 0);
	assert_int_equal(len, 4);
	assert_string_equal(buf, "0123");
	free(buf);
	assert_int_equal(readfile(p, 64, READFILE_PREFIX, &buf, &len, NULL, 0), 0);
	assert_int_equal(len, 10);
	free(buf);
}

static void test_refused(void **state)
{
	char p[128], link[128], err[256], want[256], *buf = NULL;
	size_t len = 0;

	(void)state;
	/* a directory, a FIFO (without blocking), a missing file */
	assert_int_equal(readfile(dir, 64, 0, &buf, &len, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file", dir);
	assert_string_equal(err, want);
	path(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(readfile(p, 64, 0, &buf, &len, NULL, 0), -EINVAL);
	path(p, sizeof(p), "missing");
	assert_int_equal(readfile(p, 64, 0, &buf, &len, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", p);
	assert_string_equal(err, want);
	/* a symbolic link: followed unless told not to */
	write_file("target", "x", 1);
	path(p, sizeof(p), "target");
	path(link, sizeof(link), "link");
	assert_int_equal(symlink(p, link), 0);
	assert_int_equal(readfile(link, 64, READFILE_NOFOLLOW, &buf, &len, NULL, 0), -ELOOP);
	assert_null(buf);
	assert_int_equal(readfile(link, 64, 0, &buf, &len, NULL, 0), 0);
	assert_string_equal(buf, "x");
	free(buf);
	buf = NULL;
	assert_int_equal(readfile(NULL, 64, 0, &buf, &len, NULL, 0), -EINVAL);
	assert_int_equal(readfile(p, 64, 0, NULL, &len, NULL, 0), -EINVAL);
	assert_int_equal(readfile(p, (size_t)-1, 0, &buf, &len, NULL, 0), -EINVAL);
	assert_null(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
