/* Unit tests for nodeagent/store/store_boot.c: the boot's key in the rows of processes, kept
 * across restarts, a new one for a new boot, the id itself for a boot whose rows an earlier
 * tracerd wrote under it (an upgrade: its processes replaced, not doubled), and the id given
 * back to what needs it (STORE_BOOT_ID, the export's span ids). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"
#include <sqlite3.h>

#include "store.h"
#include "store_internal.h"

#define BOOT_A "0b1d7a44-0000-4000-8000-00000000000a"
#define BOOT_B "0b1d7a44-0000-4000-8000-00000000000b"
#define BOOT_C "0b1d7a44-0000-4000-8000-00000000000c"
#define OFFSET 1700000000000000000ll

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_store_boot.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return tl_rmtree(dir);
}

static struct store *open_boot(const char *boot)
{
	struct store *s = NULL;

	assert_int_equal(store_open(&s, dir, boot), 0);
	return s;
}

/* A finished process of unit 1, recorded and committed */
static void record(struct store *s, uint32_t pid, uint64_t start)
{
	struct proc p;

	memset(&p, 0, sizeof(p));
	p.pid = pid;
	p.ppid = 1;
	p.start_ns = start;
	p.unit = 1;
	p.flags = PROC_FINISHED;
	p.exit.h.type = EVENT_EXIT;
	p.exit.h.pid = pid;
	p.exit.h.start_ns = start;
	p.exit.h.time_ns = start + 1000;
	assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	assert_int_equal(store_commit(s), 0);
}

static int64_t number(struct store *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_short_key_kept_and_given_back(void **state)
{
	struct store *s;

	(void)state;
	s = open_boot(BOOT_A);
	assert_string_equal(s->boot_key, "1");
	record(s, 100, 5000);
	/* the row holds the key, and gives the id back */
	assert_int_equal(number(s, "SELECT COUNT(*) FROM processes WHERE boot_id = '1'"), 1);
	assert_int_equal(number(s, "SELECT COUNT(*) FROM processes WHERE " STORE_BOOT_ID(
					   "boot_id") " = '" BOOT_A "'"),
			 1);
	store_close(s);

	/* a restart of the same boot: the same key, the same row replaced */
	s = open_boot(BOOT_A);
	assert_string_equal(s->boot_key, "1");
	record(s, 100, 5000);
	assert_int_equal(number(s, "SELECT COUNT(*) FROM processes"), 1);
	store_close(s);

	/* a new boot: a key of its own, the earlier boot's rows still give theirs */
	s = open_boot(BOOT_B);
	assert_string_equal(s->boot_key, "2");
	record(s, 100, 5000);
	assert_int_equal(number(s, "SELECT COUNT(*) FROM processes"), 2);
	assert_int_equal(
		number(s, "SELECT COUNT(DISTINCT " STORE_BOOT_ID("boot_id") ") FROM processes"), 2);
	store_close(s);
}

static void test_earlier_rows_keep_the_id(void **state)
{
	struct store *s;

	(void)state;
	/* a store an earlier tracerd wrote during this boot: its rows hold the id itself */
	s = open_boot(BOOT_A);
	store_close(s);
	s = open_boot(BOOT_A);
	assert_int_equal(sqlite3_exec(s->db,
				      "INSERT INTO processes(boot_id, pid, start_boot_ns, unit)"
				      " VALUES('" BOOT_C "', 200, 7000, 1)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	store_close(s);

	s = open_boot(BOOT_C);
	assert_string_equal(s->boot_key, BOOT_C);
	record(s, 200, 7000); /* its events sent again after the upgrade: the same row */
	record(s, 201, 8000);
	assert_int_equal(number(s, "SELECT COUNT(*) FROM processes WHERE boot_id = '" BOOT_C "'"),
			 2);
	assert_int_equal(number(s, "SELECT COUNT(*) FROM processes WHERE " STORE_BOOT_ID(
					   "boot_id") " = '" BOOT_C "'"),
			 2);
	store_close(s);
	/* and keeps it at the next restart; a later boot's key is still new */
	s = open_boot(BOOT_C);
	assert_string_equal(s->boot_key, BOOT_C);
	store_close(s);
	s = open_boot(BOOT_B);
	assert_string_equal(s->boot_key, "3");
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_short_key_kept_and_given_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_earlier_rows_keep_the_id, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
