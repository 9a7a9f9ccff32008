/* The store as the export's spool (nodeagent/store/store_export.c): pruning by StoreRetention
 * waits for the slowest export cursor, StoreMaxSize does not and counts what it takes as
 * dropped, and the export thread's connection reads the highest sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "stmt.h"
#include "store.h"
#include "testagent.h"
#include "testlib.h"

#define BOOT "0b1d7a44-0000-4000-8000-0000000000e1"
#define OFFSET 1700000000000000000ll

static char dir[64];

/* Unit id, finished at id seconds, with one process: the unit takes sequence 2 id - 1, its
 * process 2 id. */
static void finished_unit(struct store *s, uint64_t id)
{
	struct unit u;
	struct proc p;

	memset(&u, 0, sizeof(u));
	u.id = id;
	snprintf(u.name, sizeof(u.name), "u%llu", (unsigned long long)id);
	snprintf(u.kind, sizeof(u.kind), "local");
	u.uid = 1000;
	u.step_id = STEP_NONE;
	u.task_id = -1;
	u.start_ns = OFFSET;
	u.end_ns = OFFSET + 1000000000ll * (int64_t)id;
	u.state = UNIT_COMPLETED;
	u.exit_status = 0;
	assert_int_equal(store_put_unit(s, &u), 0);
	memset(&p, 0, sizeof(p));
	p.pid = 100 + (uint32_t)id;
	p.ppid = 1;
	p.uid = 1000;
	p.start_ns = 7000 + id;
	p.unit = id;
	p.flags = PROC_FINISHED;
	p.exit.h.type = EVENT_EXIT;
	p.exit.h.pid = p.pid;
	p.exit.h.start_ns = p.start_ns;
	p.exit.h.time_ns = p.start_ns + 1000;
	assert_int_equal(store_add_process(s, &p, OFFSET), 0);
}

static int64_t units_left(struct store *s)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	assert_int_equal(sqlite3_open_v2(store_file(s), &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM units", -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	stmt_close_db(db);
	return n;
}

static void test_floor(void **state)
{
	struct store *s;
	sqlite3 *db;
	int64_t latest = -1;
	unsigned n;

	(void)state;
	assert_int_equal(ta_store_open("test_store_export", BOOT, dir, &s), 0);
	for (uint64_t id = 1; id <= 4; id++)
		finished_unit(s, id);
	assert_int_equal(store_commit(s), 0);

	/* the export thread's own connection sees the highest number */
	assert_int_equal(sqlite3_open_v2(store_file(s), &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(store_export_latest(db, &latest), 0);
	stmt_close_db(db);
	assert_int_equal(latest, 8);

	/* delivered up to 4: units 1 and 2 whole; 3 and 4 wait, however old */
	store_set_export_floor(s, 4);
	assert_int_equal(store_prune(s, OFFSET + 100000000000ll, 0, 100, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(units_left(s), 2);
	assert_int_equal(store_export_dropped(s), 0);
	/* a unit whose own row was delivered but not its process waits too */
	store_set_export_floor(s, 5);
	assert_int_equal(store_prune(s, OFFSET + 100000000000ll, 0, 100, &n), 0);
	assert_int_equal(n, 0);
	/* StoreMaxSize forces them out: 2 units and their 2 processes, said dropped but for
	 * the unit row of 3 that was delivered */
	assert_int_equal(store_prune(s, 0, 1, 100, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(units_left(s), 0);
	assert_int_equal(store_export_dropped(s), 3);
	/* no export: no floor, nothing counted */
	finished_unit(s, 5);
	store_set_export_floor(s, -1);
	assert_int_equal(store_prune(s, OFFSET + 100000000000ll, 0, 100, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(store_export_dropped(s), 3);
	/* every row gone: the highest number given is still known */
	assert_int_equal(units_left(s), 0);
	assert_int_equal(sqlite3_open_v2(store_file(s), &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(store_export_latest(db, &latest), 0);
	stmt_close_db(db);
	assert_int_equal(latest, 10);
	store_close(s);
	tl_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
