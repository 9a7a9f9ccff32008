/* Unit tests for nodeagent/registry.c without a kernel: events of a task registered in the
 * kernel carry its key (bpf/process.h's unit_key) before tracerd knows its unit; what they
 * leave in the store and the process table becomes the unit's when its registration names the
 * key, is held to its bounds meanwhile, and is given up on when no registration comes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testagent.h"
#include "testlib.h"

#include "agent_internal.h" /* the agent is put together by hand */
#include "registry.h"
#include "store_internal.h" /* counts rows by unit */
#include "units.h"

#define TICK 10000000ull
#define BOOT "5e1f7e57-0000-4000-8000-000000000002"

static char dir[64];

static int setup(void **state)
{
	struct agent *a = ta_agent_new("test_registry", BOOT, dir);

	if (!a)
		return -1;
	a->registry_pinned = 1; /* as registry_open leaves it */
	*state = a;
	return 0;
}

static int teardown(void **state)
{
	return ta_agent_free(*state, dir);
}

static void exec_ev(struct agent *a, uint32_t pid, uint64_t unit)
{
	struct exec_event *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->h = (struct event_header){ .type = EVENT_EXEC,
				      .pid = pid,
				      .start_ns = pid * TICK,
				      .unit = unit,
				      .time_ns = pid * TICK };
	e->uid = 1000;
	snprintf(e->comm, sizeof(e->comm), "true");
	snprintf(e->path, sizeof(e->path), "/bin/true");
	assert_int_equal(agent_on_event(a, e, offsetof(struct exec_event, argv)), 0);
	free(e);
}

static void exit_ev(struct agent *a, uint32_t pid, uint64_t unit)
{
	struct exit_event e = { .h = { .type = EVENT_EXIT,
				       .pid = pid,
				       .start_ns = pid * TICK,
				       .unit = unit,
				       .time_ns = pid * TICK + 1 } };

	snprintf(e.comm, sizeof(e.comm), "true");
	assert_int_equal(agent_on_event(a, &e, sizeof(e)), 0);
}

static int64_t rows_of(struct agent *a, int64_t unit)
{
	char sql[96];
	int64_t n = -1;

	store_commit(a->store);
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM processes WHERE unit=%lld",
		 (long long)unit);
	assert_int_equal(store_query_int(a->store, sql, "count", &n), 0);
	return n;
}

static struct unit *registered(struct agent *a, uint64_t id, uint64_t key)
{
	struct unit t = { .id = id, .state = UNIT_RUNNING, .exit_status = -1 }, *u;

	snprintf(t.name, sizeof(t.name), "42.batch");
	snprintf(t.kind, sizeof(t.kind), "slurm");
	u = units_adopt(a, &t);
	assert_non_null(u);
	u->kernel_key = key;
	u->done_whole = 1; /* a new registration's, as units_new makes it */
	registry_adopt(a, u);
	return u;
}

/* Before the registration: stored under the key; after it, the unit's, with the one still
 * running; later events under the key go to the unit straight away. */
static void test_linked(void **state)
{
	struct agent *a = *state;
	uint64_t key = unit_key(100, 12345);
	struct unit *u;
	struct proc *p;
	int i;

	assert_true(key & UNIT_KEY_BIT);
	assert_int_equal(unit_key_start_ticks(key), 12345);
	assert_int_equal(key & UNIT_KEY_PID_MASK, 100);
	for (i = 0; i < 5; i++) {
		exec_ev(a, 100 + i, key);
		exit_ev(a, 100 + i, key);
	}
	exec_ev(a, 200, key); /* still running */
	assert_int_equal(rows_of(a, (int64_t)key), 5);
	u = registered(a, 9, key);
	assert_int_equal(rows_of(a, (int64_t)key), 0);
	assert_int_equal(rows_of(a, 9), 5);
	assert_int_equal(u->finished, 5);
	assert_false(u->done_whole); /* its totals need the rows stored under the key */
	assert_int_equal(u->live, 1);
	p = proctable_find_pid(&a->procs, 200);
	assert_non_null(p);
	assert_int_equal(p->unit, 9);
	exit_ev(a, 200, key);
	exec_ev(a, 201, key);
	exit_ev(a, 201, key);
	assert_int_equal(rows_of(a, 9), 7);
	assert_int_equal(a->nkeys, 0);
	assert_int_equal(agent_unit_of_key(a, key), 9);
	assert_int_equal(agent_unit_of_key(a, unit_key(101, 12345)), 0);
	assert_int_equal(agent_unit_of_key(a, 9), 0); /* not a key */
}

/* Rows of keys are held to a sixteenth of StoreMaxSize; what is refused is the unit's Lost. */
static void test_bounded(void **state)
{
	struct agent *a = *state;
	uint64_t key = unit_key(300, 1);
	struct unit *u;
	int i;

	a->cfg.store_max_bytes = 16 * 4096; /* keys: 4 KiB in all */
	for (i = 0; i < 200; i++) {
		exec_ev(a, 1000 + i, key);
		exit_ev(a, 1000 + i, key);
	}
	assert_true(rows_of(a, (int64_t)key) > 0);
	assert_true(rows_of(a, (int64_t)key) < 200);
	assert_true(a->keys_bytes <= 4096 + 1024);
	u = registered(a, 10, key);
	assert_int_equal(rows_of(a, 10) + (int64_t)u->unstored, 200);
	assert_true(u->unstored > 0);
	assert_int_equal(a->keys_bytes, 0);
}

/* A key whose registration never comes: its rows go after REGISTRY_WAIT_MS, and its processes
 * still running are not stored (no new wait for it either). */
static void test_expired(void **state)
{
	struct agent *a = *state;
	uint64_t key = unit_key(400, 7);

	exec_ev(a, 400, key);
	exit_ev(a, 400, key);
	exec_ev(a, 401, key);
	assert_int_equal(rows_of(a, (int64_t)key), 1);
	assert_int_equal(a->nkeys, 1);
	registry_sweep(a); /* not yet */
	assert_int_equal(rows_of(a, (int64_t)key), 1);
	a->keys[0].seen_ns -= (uint64_t)REGISTRY_WAIT_MS * 1000000 + 1;
	registry_sweep(a);
	assert_int_equal(rows_of(a, (int64_t)key), 0);
	assert_int_equal(a->nkeys, 0);
	exit_ev(a, 401, 0); /* still under the key given up on: not stored */
	exec_ev(a, 402, key);
	exit_ev(a, 402, key);
	assert_int_equal(rows_of(a, (int64_t)key), 0);
	assert_int_equal(a->nkeys, 0);
	assert_true(a->unstored >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_linked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expired, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
