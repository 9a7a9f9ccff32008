/* Unit tests for the store's fairness between units and users: processes of a unit past its cap
 * folded into per-tool rows (nodeagent/store/store_fold.c) that totals and tool tables still count,
 * and pruning over StoreMaxSize from the user who holds the most (store_prune.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testagent.h"
#include "testlib.h"
#include <sqlite3.h>

#include "store.h"
#include "store_internal.h"

#define BOOT "0b1d7a44-0000-4000-8000-0000000000f0"
#define OFFSET 1700000000000000000ll
#define SEC 1000000000ll

static char dir[64];

static int setup(void **state)
{
	struct store *s = NULL;

	if (ta_store_open("test_store_fairness", BOOT, dir, &s) < 0)
		return -1;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	store_close(*state);
	return tl_rmtree(dir);
}

static struct proc mkproc(uint64_t unit, uint32_t pid, const char *tool, int status)
{
	struct proc p;

	memset(&p, 0, sizeof(p));
	p.pid = pid;
	p.ppid = 1;
	p.uid = 1000;
	p.start_ns = (uint64_t)pid * SEC;
	p.unit = unit;
	p.flags = PROC_FINISHED | PROC_EXECED;
	snprintf(p.comm, sizeof(p.comm), "%s", tool);
	snprintf(p.tool.name, sizeof(p.tool.name), "%s", tool);
	p.exit.h.type = EVENT_EXIT;
	p.exit.h.pid = pid;
	p.exit.h.start_ns = p.start_ns;
	p.exit.h.time_ns = p.start_ns + SEC;
	p.exit.status = status;
	p.exit.runtime_ns = 10;
	p.exit.read_bytes = 100;
	p.exit.peak_rss_kb = pid; /* the largest pid's is the peak */
	return p;
}

static json_object *tool_row(json_object *tools, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(tools); i++) {
		json_object *t = json_object_array_get_idx(tools, i);

		if (!strcmp(gets_(t, "tool"), name))
			return t;
	}
	fail_msg("no tool row %s", name);
	return NULL;
}

/* Folded rows the store made, per unit (store_on_folded) */
static unsigned made[8];
static void folded(void *ctx, uint64_t unit, unsigned rows, size_t bytes)
{
	(void)ctx;
	assert_true(unit < 8 && bytes > 0);
	made[unit] += rows;
}

/* Folded processes: counted in totals and tools with their sums, peaks and exit statuses; one
 * row per tool and status however many they are; never listed. */
static void test_fold(void **state)
{
	struct store *s = *state;
	json_object *t, *tools, *rows;
	struct proc p;
	int i;

	memset(made, 0, sizeof(made));
	store_on_folded(s, folded, NULL);
	for (i = 1; i <= 2; i++) {
		p = mkproc(5, i, "bwa", 0);
		assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	}
	for (i = 3; i <= 5; i++) { /* three more of bwa exiting 0: one row */
		p = mkproc(5, i, "bwa", 0);
		assert_int_equal(store_fold_process(s, &p, OFFSET, 0), 0);
	}
	p = mkproc(5, 9, "bwa", 256); /* exit 1: a row of its own */
	assert_int_equal(store_fold_process(s, &p, OFFSET, 0), 0);
	p = mkproc(5, 6, "samtools", 0);
	p.flags |= PROC_OOM_KILLED;
	assert_int_equal(store_fold_process(s, &p, OFFSET, 0), 0);
	p = mkproc(5, 7, "gzip", 0); /* a unit with too many tools: one row for the rest */
	assert_int_equal(store_fold_process(s, &p, OFFSET, 1), 0);
	p = mkproc(5, 8, "xz", 0);
	assert_int_equal(store_fold_process(s, &p, OFFSET, 1), 0);
	p = mkproc(6, 10, "bwa", 0); /* another unit's is its own */
	assert_int_equal(store_fold_process(s, &p, OFFSET, 0), 0);
	assert_int_equal(store_commit(s), 0);
	/* rows made, said once written: bwa exiting 0 and 1, samtools, the other tools; unit 6's */
	assert_int_equal(made[5], 4);
	assert_int_equal(made[6], 1);

	assert_int_equal(store_unit_totals(s, 5, &t), 0);
	assert_int_equal(geti(t, "nprocs"), 9);
	assert_int_equal(geti(t, "cpu_ns"), 90);
	assert_int_equal(geti(t, "read_bytes"), 900);
	assert_int_equal(geti(t, "maxrss_kb"), 9);
	assert_int_equal(geti(t, "oom_kills"), 1);
	assert_int_equal(geti(t, "first_start_ns"), OFFSET + SEC);
	assert_int_equal(geti(t, "last_end_ns"), OFFSET + 10 * SEC);
	json_object_put(t);

	assert_int_equal(store_unit_tools(s, 5, &tools), 0);
	t = tool_row(tools, "bwa");
	assert_int_equal(geti(t, "nprocs"), 6);
	assert_int_equal(geti(t, "cpu_ns"), 60);
	assert_string_equal(gets_(t, "status_counts"), "0:5,256:1");
	assert_int_equal(geti(tool_row(tools, "samtools"), "oom_kills"), 1);
	assert_int_equal(geti(tool_row(tools, "(other tools)"), "nprocs"), 2);
	json_object_put(tools);

	/* listed: the two stored one by one */
	assert_int_equal(store_unit_processes(s, 5, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 2);
	json_object_put(rows);
}

/* A unit of uid counted as owner's (a user namespace's subordinate uid, subuid.h) */
static void put_owned(struct store *s, uint64_t id, uint32_t uid, uint32_t owner, int64_t end_s,
		      uint64_t bytes)
{
	struct unit u;
	struct proc p;

	memset(&u, 0, sizeof(u));
	u.id = id;
	snprintf(u.name, sizeof(u.name), "u%llu", (unsigned long long)id);
	snprintf(u.kind, sizeof(u.kind), "local");
	u.uid = uid;
	u.owner_uid = owner;
	u.task_id = -1;
	u.exit_status = 0;
	u.start_ns = OFFSET;
	u.end_ns = end_s ? OFFSET + end_s * SEC : 0;
	u.state = end_s ? UNIT_COMPLETED : UNIT_RUNNING;
	u.stored_bytes = bytes;
	assert_int_equal(store_put_unit(s, &u), 0);
	p = mkproc(id, 1000 + (uint32_t)id, "x", 0);
	assert_int_equal(store_add_process(s, &p, OFFSET), 0);
}

static void put_unit(struct store *s, uint64_t id, uint32_t uid, int64_t end_s, uint64_t bytes)
{
	put_owned(s, id, uid, uid, end_s, bytes);
}

static int64_t count(struct store *s, const char *sql)
{
	int64_t n = -1;

	assert_int_equal(store_query_int(s, sql, "count", &n), 0);
	return n;
}

/* A key that hashing a folded row's unit, tool, subcommand and kind (FNV-1a) gives: a tool's
 * name is the user's to choose, and such a key may be another unit's. */
static int64_t hashed_key(uint64_t unit, const char *tool, int32_t status)
{
	const unsigned char zero[3] = { 0 };
	const void *parts[] = { &unit, tool, "", &status, zero };
	size_t lens[] = { sizeof(unit), strlen(tool) + 1, 1, sizeof(status), sizeof(zero) };
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < 5; i++)
		for (size_t j = 0; j < lens[i]; j++)
			h = (h ^ ((const unsigned char *)parts[i])[j]) * 0x100000001b3ull;
	return -(int64_t)(h >> 2) - 1;
}

/* A folded row is found by what it stands for, never by a key another unit's row may hold: a
 * row of unit 6 under the key unit 5's bwa would hash to is left alone, and a row of unit 5
 * under any key (an older store's) is added into. */
static void test_fold_keys(void **state)
{
	struct store *s = *state;
	char sql[512];
	json_object *t;
	struct proc p;

	memset(made, 0, sizeof(made));
	store_on_folded(s, folded, NULL);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO processes(boot_id, pid, start_boot_ns, unit, tool, status, flags,"
		 " tool_excluded, tool_wrapper, cpu_ns, folded)"
		 " VALUES('%s', 0, %lld, 6, 'bwa', 0, 0, 0, 0, 1000, 1),"
		 " ('%s', 0, -7, 5, 'samtools', 0, 0, 0, 0, 20, 2)",
		 s->boot_key, (long long)hashed_key(5, "bwa", 0), s->boot_key); /* this boot's */
	assert_int_equal(sqlite3_exec(s->db, sql, NULL, NULL, NULL), SQLITE_OK);
	p = mkproc(5, 1, "bwa", 0);
	assert_int_equal(store_fold_process(s, &p, OFFSET, 0), 0);
	p = mkproc(5, 2, "samtools", 0);
	assert_int_equal(store_fold_process(s, &p, OFFSET, 0), 0);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(made[5], 1); /* bwa's of its own; samtools added into the one there */

	assert_int_equal(store_unit_totals(s, 6, &t), 0);
	assert_int_equal(geti(t, "nprocs"), 1);
	assert_int_equal(geti(t, "cpu_ns"), 1000);
	json_object_put(t);
	assert_int_equal(store_unit_totals(s, 5, &t), 0);
	assert_int_equal(geti(t, "nprocs"), 4);
	assert_int_equal(geti(t, "cpu_ns"), 40);
	json_object_put(t);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM processes WHERE unit=5 AND pid=0"), 2);
	/* the new row's key is below every other folded row's */
	assert_int_equal(count(s, "SELECT COUNT(*) FROM processes WHERE unit=5 AND tool='bwa'"
				  " AND start_boot_ns < (SELECT MIN(start_boot_ns) FROM processes"
				  " WHERE unit=6)"),
			 1);
}

/* Over StoreMaxSize: the oldest finished units of the user who holds the most go first, and a
 * lighter user's older history stays; a running unit is never pruned, and its user, holding
 * the most with nothing finished, does not make anyone else's go first. */
static void test_evicts_heaviest_user(void **state)
{
	struct store *s = *state;
	json_object *sh, *users;
	unsigned n;
	int i;

	for (i = 1; i <= 3; i++) /* the victim's: the oldest units in the store */
		put_unit(s, i, 1002, i, 1000);
	for (i = 4; i <= 9; i++) /* the attacker's flood, after them */
		put_unit(s, i, 1001, 10 + i, 100000);
	put_unit(s, 10, 1003, 0, 1000000000); /* a storm still running */
	assert_int_equal(store_commit(s), 0);

	assert_int_equal(store_prune(s, 0, 1, 4, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM units WHERE uid=1002"), 3);
	assert_int_equal(count(s, "SELECT MIN(id) FROM units WHERE uid=1001"), 8);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM processes WHERE unit < 8 AND unit > 3"), 0);
	/* the attacker still holds more than the victim */
	assert_int_equal(store_prune(s, 0, 1, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM units WHERE uid=1001"), 0);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM units WHERE uid=1002"), 3);
	/* then the victim's, oldest first; the running unit stays */
	assert_int_equal(store_prune(s, 0, 1, 1, &n), 0);
	assert_int_equal(count(s, "SELECT MIN(id) FROM units WHERE uid=1002"), 2);
	assert_int_equal(store_prune(s, 0, 1, 100, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM units"), 1);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM units WHERE uid=1003"), 1);

	/* the shares status shows: the heaviest first, a user's own alone */
	sh = store_shares(s, ANY_UID, 5);
	assert_non_null(sh);
	users = key(sh, "users");
	assert_int_equal(json_object_array_length(users), 1);
	assert_int_equal(geti(json_object_array_get_idx(users, 0), "uid"), 1003);
	assert_int_equal(geti(json_object_array_get_idx(users, 0), "bytes"), 1000000000);
	assert_int_equal(geti(sh, "max_bytes"), 1);
	json_object_put(sh);
	sh = store_shares(s, 1002, 5);
	assert_int_equal(json_object_array_length(key(sh, "users")), 0);
	assert_false(has(sh, "more_users"));
	json_object_put(sh);
}

/* Units of a user's subordinate uids are that user's: six runs under six uids of one owner
 * outweigh a victim's three heavier ones, and go first; the shares count them as the owner's. */
static void test_evicts_by_owner(void **state)
{
	struct store *s = *state;
	json_object *sh, *users;
	unsigned n;
	int i;

	for (i = 1; i <= 3; i++) /* the victim's, the oldest: 4500 bytes */
		put_unit(s, i, 1002, i, 1500);
	for (i = 4; i <= 9; i++) /* 6000 bytes, 1000 a uid */
		put_owned(s, i, 100000 + i, 1001, 10 + i, 1000);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(store_prune(s, 0, 1, 1, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(count(s, "SELECT COUNT(*) FROM units WHERE uid=1002"), 3);
	assert_int_equal(count(s, "SELECT MIN(id) FROM units WHERE owner_uid=1001"), 5);
	sh = store_shares(s, ANY_UID, 5);
	assert_non_null(sh);
	users = key(sh, "users");
	assert_int_equal(json_object_array_length(users), 2);
	assert_int_equal(geti(json_object_array_get_idx(users, 0), "uid"), 1001);
	assert_int_equal(geti(json_object_array_get_idx(users, 0), "bytes"), 5000);
	assert_int_equal(geti(json_object_array_get_idx(users, 0), "units"), 5);
	json_object_put(sh);
}

/* The shares are counted without pruning too (StoreRetention and StoreMaxSize 0), a user far
 * from the top still sees their own, and more_users counts every user left out. Pruning reads a
 * user's units through an index. */
static void test_shares(void **state)
{
	struct store *s = *state;
	json_object *sh, *users;
	int64_t n;
	unsigned i, pruned;

	assert_null(store_shares(s, ANY_UID, 5));
	for (i = 1; i <= 300; i++)
		put_unit(s, i, 2000 + i, (int64_t)i, 1000 * i);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(store_prune(s, 0, 0, 1, &pruned), 0); /* no limit: counts them alone */
	assert_int_equal(pruned, 0);
	sh = store_shares(s, ANY_UID, 5);
	assert_non_null(sh);
	users = key(sh, "users");
	assert_int_equal(json_object_array_length(users), 5);
	assert_int_equal(geti(json_object_array_get_idx(users, 0), "uid"), 2300);
	assert_int_equal(geti(sh, "more_users"), 295);
	json_object_put(sh);
	sh = store_shares(s, 2001, 5); /* the lightest of 300 */
	users = key(sh, "users");
	assert_int_equal(json_object_array_length(users), 1);
	assert_int_equal(geti(json_object_array_get_idx(users, 0), "bytes"), 1000);
	json_object_put(sh);
	assert_int_equal(store_query_int(s,
					 "SELECT COUNT(*) FROM sqlite_master WHERE type='index'"
					 " AND name='units_owner_end'",
					 "index", &n),
			 0);
	assert_int_equal(n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fold_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evicts_heaviest_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evicts_by_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shares, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
