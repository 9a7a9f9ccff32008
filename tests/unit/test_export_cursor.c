/* The export cursors' file (nodeagent/export/cursor.c): written whole, read back, and a file
 * that does not read as cursors refused rather than trusted. */
#include <errno.h>
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

#include "cursor.h"
#include "testlib.h"

static char dir[64], file[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_export_cursor.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/" CURSOR_FILE, dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tl_rmtree(dir);
}

static void write_text(const char *text)
{
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_round_trip(void **state)
{
	int64_t seq[EXPORT_SIGNALS] = { 77, 77 }, back[EXPORT_SIGNALS];
	static char url[EXPORT_SIGNALS][CURSOR_URL_MAX];
	const char *const urls[EXPORT_SIGNALS] = { "http://c:4318/v1/traces", "" };
	struct stat st;
	char tmp[160];
	(void)state;

	unlink(file);
	assert_int_equal(cursor_load(file, seq, url), -ENOENT);
	assert_int_equal(seq[EXPORT_TRACES], 0);
	assert_int_equal(seq[EXPORT_LOGS], 0);
	seq[EXPORT_TRACES] = 123456789012345;
	seq[EXPORT_LOGS] = 42;
	assert_int_equal(cursor_save(file, seq, urls), 0);
	assert_int_equal(cursor_load(file, back, url), 0);
	assert_memory_equal(seq, back, sizeof(seq));
	/* each cursor with the endpoint it is of; none named, none read */
	assert_string_equal(url[EXPORT_TRACES], "http://c:4318/v1/traces");
	assert_string_equal(url[EXPORT_LOGS], "");
	/* the daemon's alone, and no temporary file left behind */
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	assert_int_equal(access(tmp, F_OK), -1);
	/* written again: the new values whole */
	seq[EXPORT_LOGS] = 43;
	assert_int_equal(cursor_save(file, seq, urls), 0);
	assert_int_equal(cursor_load(file, back, url), 0);
	assert_int_equal(back[EXPORT_LOGS], 43);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"traces x\n",	  "traces -1\n",
		"metrics 5\n",	  "traces 1 2\n",
		"traces\n",	  "traces 99999999999999999999999\n",
		"traces 12abc\n", "traces 1 http://a b\n",
	};
	int64_t seq[EXPORT_SIGNALS] = { 5, 6 };
	static char url[EXPORT_SIGNALS][CURSOR_URL_MAX];
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		write_text(bad[i]);
		if (cursor_load(file, seq, url) != -EINVAL)
			fail_msg("<<%s>> was taken", bad[i]);
		assert_int_equal(seq[0], 5);
		assert_int_equal(seq[1], 6);
	}
	/* a signal missing is at 0: everything of it is sent */
	write_text("logs 9\n");
	assert_int_equal(cursor_load(file, seq, url), 0);
	assert_int_equal(seq[EXPORT_TRACES], 0);
	assert_int_equal(seq[EXPORT_LOGS], 9);
	/* too long to be cursors */
	{
		char big[1024];

		memset(big, '1', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		write_text(big);
		assert_true(cursor_load(file, seq, url) < 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
