/* Subordinate uid ranges (nodeagent/subuid.c): owners by name and by uid, lines left out,
 * files not read, a changed file read again and a missing one keeping what was read. */
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

#include "subuid.h"
#include "testlib.h"

static char dir[] = "/tmp/test-subuid.XXXXXX", path[64];

static void write_file(const char *text, mode_t mode)
{
	char tmp[80];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(tmp, mode), 0);
	assert_int_equal(rename(tmp, path), 0); /* a new inode: seen as changed at once */
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/subuid", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tl_rmtree(dir);
}

static void test_owners(void **state)
{
	struct subuids s;

	(void)state;
	write_file("# comment\n"
		   "root:100000:65536\n"
		   "1234:200000:10\r\n"
		   "\n"
		   "nosuchuser-xyz:300000:10\n" /* no such user: left out */
		   "root:400000:0\n"		/* empty */
		   "root:4294967290:10\n"	/* past the last uid */
		   "root:x:10\n"
		   "root:500000\n"
		   ":600000:10\n"
		   "1234:700000:5",
		   0644);
	subuids_init(&s, path);
	assert_int_equal(s.n, 3);
	assert_int_equal(subuids_owner(&s, 100000), 0);
	assert_int_equal(subuids_owner(&s, 165535), 0);
	assert_int_equal(subuids_owner(&s, 165536), 165536);
	assert_int_equal(subuids_owner(&s, 200009), 1234);
	assert_int_equal(subuids_owner(&s, 200010), 200010);
	assert_int_equal(subuids_owner(&s, 300001), 300001);
	assert_int_equal(subuids_owner(&s, 700004), 1234); /* the last line, without newline */
	assert_int_equal(subuids_owner(&s, 1001), 1001);
	subuids_fini(&s);
}

static void test_not_read(void **state)
{
	struct subuids s;

	(void)state;
	/* others may write it: whoever can could charge their connections to another user */
	write_file("1234:100000:10\n", 0666);
	subuids_init(&s, path);
	assert_int_equal(s.n, 0);
	assert_int_equal(subuids_owner(&s, 100001), 100001);
	subuids_fini(&s);
	/* not root's */
	write_file("1234:100000:10\n", 0644);
	assert_int_equal(chown(path, 1, 1), 0);
	subuids_init(&s, path);
	assert_int_equal(s.n, 0);
	subuids_fini(&s);
	/* absent: no ranges */
	unlink(path);
	subuids_init(&s, path);
	assert_int_equal(s.n, 0);
	assert_int_equal(subuids_owner(&s, 100001), 100001);
	subuids_fini(&s);
}

static void test_changed(void **state)
{
	struct subuids s;

	(void)state;
	write_file("1234:100000:10\n", 0644);
	subuids_init(&s, path);
	assert_int_equal(subuids_owner(&s, 100001), 1234);
	write_file("1234:500000:10\n", 0644);
	usleep(1100 * 1000); /* looked at once a second */
	assert_int_equal(subuids_owner(&s, 500001), 1234);
	assert_int_equal(subuids_owner(&s, 100001), 100001);
	/* gone, or made writable by others: the ranges read before stay */
	unlink(path);
	usleep(1100 * 1000);
	assert_int_equal(subuids_owner(&s, 500001), 1234);
	write_file("1234:600000:10\n", 0666);
	usleep(1100 * 1000);
	assert_int_equal(subuids_owner(&s, 500001), 1234);
	assert_int_equal(subuids_owner(&s, 600001), 600001);
	subuids_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_not_read),
		cmocka_unit_test(test_changed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
