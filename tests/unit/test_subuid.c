/* Subordinate uid ranges (nodeagent/subuid.c): owners by name and by uid, looked up only when
 * asked, lines left out, ranges out of order and overlapping, files and directories not
 * trusted, a changed file read again and a missing one keeping what was read. The files must
 * be root's: run as root, else skipped. */
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
	if (geteuid() != 0)
		skip();
	write_file("# comment\n"
		   "root:100000:65536\n"
		   "1234:200000:10\r\n"
		   "\n"
		   "nosuchuser-xyz:300000:10\n" /* no such user: its own uids */
		   "root:400000:0\n"		/* empty */
		   "root:4294967290:10\n"	/* past the last uid */
		   "root:x:10\n"
		   "root:500000\n"
		   ":600000:10\n"
		   "1234:700000:5",
		   0644);
	subuids_init(&s, path);
	/* read without a lookup: the unknown user's range is kept, its name not looked up yet */
	assert_int_equal(s.n, 4);
	assert_int_equal(s.r[0].start, 100000);
	assert_int_equal(s.r[0].looked, 0);
	assert_int_equal(subuids_owner(&s, 100000), 0);
	assert_int_equal(s.r[0].looked, 1);
	assert_int_equal(s.r[2].looked, 0);
	assert_int_equal(subuids_owner(&s, 165535), 0);
	assert_int_equal(subuids_owner(&s, 165536), 165536);
	assert_int_equal(subuids_owner(&s, 200009), 1234);
	assert_int_equal(subuids_owner(&s, 200010), 200010);
	assert_int_equal(subuids_owner(&s, 300001), 300001);
	assert_int_equal(s.r[2].looked, -1); /* looked up once, and so remembered */
	assert_int_equal(subuids_owner(&s, 300002), 300002);
	assert_int_equal(subuids_owner(&s, 700004), 1234); /* the last line, without newline */
	assert_int_equal(subuids_owner(&s, 1001), 1001);
	subuids_fini(&s);
}

/* lines in any order are searched in order; overlapping ones keep the uids they share with
 * the range that starts first, or with the earlier line when they start together */
static void test_order(void **state)
{
	struct subuids s;

	(void)state;
	if (geteuid() != 0)
		skip();
	write_file("1003:900000:10\n"
		   "1001:100000:100\n"
		   "1002:100050:100\n" /* its first 50 are 1001's */
		   "1004:100060:10\n"  /* wholly within: left out */
		   "1005:100000:5\n"   /* starts with 1001's: the earlier line wins */
		   "1006:500000:10\n",
		   0644);
	subuids_init(&s, path);
	assert_int_equal(s.n, 4);
	for (size_t i = 1; i < s.n; i++)
		assert_true(s.r[i - 1].start + s.r[i - 1].count <= s.r[i].start);
	assert_int_equal(subuids_owner(&s, 100000), 1001);
	assert_int_equal(subuids_owner(&s, 100004), 1001);
	assert_int_equal(subuids_owner(&s, 100065), 1001);
	assert_int_equal(subuids_owner(&s, 100099), 1001);
	assert_int_equal(subuids_owner(&s, 100100), 1002);
	assert_int_equal(subuids_owner(&s, 100149), 1002);
	assert_int_equal(subuids_owner(&s, 100150), 100150);
	assert_int_equal(subuids_owner(&s, 500009), 1006);
	assert_int_equal(subuids_owner(&s, 900000), 1003);
	assert_int_equal(subuids_owner(&s, 99999), 99999);
	assert_int_equal(subuids_owner(&s, 4294967294u), 4294967294u);
	subuids_fini(&s);
}

/* the directory the file is in must be root's alone; a link to the file is followed to it */
static void test_directory(void **state)
{
	struct subuids s;
	char sub[96], link[128], target[128];
	FILE *f;

	(void)state;
	if (geteuid() != 0)
		skip();
	write_file("1234:100000:10\n", 0644);
	assert_int_equal(chmod(dir, 0777), 0);
	subuids_init(&s, path);
	assert_int_equal(s.n, 0);
	subuids_fini(&s);
	assert_int_equal(chmod(dir, 01777), 0); /* sticky does not make it the file's own */
	subuids_init(&s, path);
	assert_int_equal(s.n, 0);
	subuids_fini(&s);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chown(dir, 1, 1), 0);
	subuids_init(&s, path);
	assert_int_equal(s.n, 0);
	subuids_fini(&s);
	assert_int_equal(chown(dir, 0, 0), 0);
	subuids_init(&s, path);
	assert_int_equal(s.n, 1);
	subuids_fini(&s);
	/* through a link from a directory anyone writes: the file's own directory is checked */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	assert_int_equal(mkdir(sub, 01777), 0);
	assert_int_equal(chmod(sub, 01777), 0);
	snprintf(link, sizeof(link), "%s/subuid", sub);
	assert_int_equal(symlink(path, link), 0);
	subuids_init(&s, link);
	assert_int_equal(s.n, 1);
	subuids_fini(&s);
	unlink(link);
	snprintf(target, sizeof(target), "%s/real", sub);
	rename(path, target);
	assert_int_equal(symlink(target, path), 0);
	subuids_init(&s, path);
	assert_int_equal(s.n, 0);
	subuids_fini(&s);
	unlink(path);
	unlink(target);
	rmdir(sub);
	/* every directory above it is checked too: one anyone may write (not sticky) could have
	 * the file's own directory swapped for another */
	snprintf(sub, sizeof(sub), "%s/etc", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(target, sizeof(target), "%s/subuid", sub);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("1234:100000:10\n", f);
	fclose(f);
	assert_int_equal(chmod(target, 0644), 0);
	subuids_init(&s, target);
	assert_int_equal(s.n, 1);
	subuids_fini(&s);
	assert_int_equal(chmod(dir, 0777), 0);
	subuids_init(&s, target);
	assert_int_equal(s.n, 0);
	assert_int_equal(subuids_owner(&s, 100001), 100001);
	subuids_fini(&s);
	assert_int_equal(chmod(dir, 01777), 0); /* sticky above: what is in it stays root's */
	subuids_init(&s, target);
	assert_int_equal(s.n, 1);
	subuids_fini(&s);
	assert_int_equal(chmod(dir, 0700), 0);
	unlink(target);
	rmdir(sub);
}

static void test_not_read(void **state)
{
	struct subuids s;

	(void)state;
	if (geteuid() != 0)
		skip();
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
	if (geteuid() != 0)
		skip();
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

/* For the kernel side: names looked up a few at a time, from the lowest range, each a change */
static void test_update(void **state)
{
	struct subuids s;
	uint64_t gen;

	(void)state;
	write_file("root:200:10\nno-such-user-here:300:10\nroot:100:10\n", 0644);
	subuids_init(&s, path);
	gen = s.gen;
	assert_int_equal(s.n, 3);
	assert_int_equal(subuids_update(&s, 1), gen + 1);
	assert_int_equal(s.r[0].looked, 1);
	assert_int_equal(s.r[0].owner, 0);
	assert_int_equal(s.r[1].looked, 0);
	assert_int_equal(subuids_update(&s, 5), gen + 3);
	assert_int_equal(s.r[1].looked, 1);
	assert_int_equal(s.r[2].looked, -1);
	assert_int_equal(subuids_update(&s, 5), gen + 3); /* nothing left to look up */
	/* a connection's lookup is a change too */
	write_file("root:100:10\n", 0644);
	usleep(1100 * 1000);
	gen = subuids_update(&s, 0);
	assert_int_equal(s.r[0].looked, 0);
	assert_int_equal(subuids_owner(&s, 105), 0);
	assert_int_equal(subuids_update(&s, 0), gen + 1);
	subuids_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owners),	  cmocka_unit_test(test_order),
		cmocka_unit_test(test_directory), cmocka_unit_test(test_not_read),
		cmocka_unit_test(test_changed),	  cmocka_unit_test(test_update),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
