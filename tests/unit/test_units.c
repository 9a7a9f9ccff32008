/* Unit tests for nodeagent/units.c, housekeeping.c (agent_tick) and rediscover.c without a
 * kernel: what of a unit's life needs no BPF collector (new, admitted, ended again, dropped and
 * reaped), the tick's heartbeat, flush and pruning, and a restart finding its running units in
 * the store. The agent is put together by hand (agent_new would load BPF): nothing here may
 * reach the collector, so no running unit is ended and none has a cgroup or a live root. */
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

#include "testlib.h"

#include "agent_internal.h" /* the agent is put together by hand */
#include "clock.h"
#include "log.h"
#include "procfs.h"
#include "units.h"

#define BOOT "5e1f7e57-0000-4000-8000-0000000000a1"
#define OLD_BOOT "5e1f7e57-0000-4000-8000-0000000000a0"
#define SEC 1000000000ll
#define LONG_AGO 1700000000000000000ll /* unix ns: a finished unit's end, long before now */

static char dir[64], path[128];

static int setup(void **state)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct tracer_config d;

	if (!a)
		return -1;
	config_defaults(&d);
	snprintf(dir, sizeof(dir), "/tmp/test_units.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/node", dir);
	snprintf(a->boot_id, sizeof(a->boot_id), BOOT);
	snprintf(a->node, sizeof(a->node), "node");
	a->tick_ns = procfs_tick_ns();
	a->offset_ns = clock_unix_ns() - (int64_t)clock_boot_ns();
	a->slurm_uid = (uid_t)-1;
	a->next_unit_id = 1;
	a->cfg.store_unit_max_bytes = 256ull << 20; /* config.c's defaults */
	a->cfg.max_units_per_user = 64;
	a->cfg.unit_rate_per_user = 10;
	a->cfg.housekeeping_ms = d.housekeeping_ms;
	a->cfg.orphan_after_ms = d.orphan_after_ms;
	if (proctable_init(&a->procs, a->tick_ns))
		return -1;
	*state = a;
	return 0;
}

/* The store is opened by each test: a restart's test writes another boot's rows first. */
static void open_store(struct agent *a)
{
	assert_int_equal(store_open(&a->store, path, a->boot_id), 0);
	agent_hook_store(a);
}

static int teardown(void **state)
{
	struct agent *a = *state;

	if (a->store)
		store_close(a->store);
	proctable_free(&a->procs);
	units_free(a);
	free(a);
	return tl_rmtree(dir);
}

/* A unit as the store holds it. */
static struct unit stored_unit(uint64_t id, const char *kind, enum unit_state state,
			       int64_t start_ns, int64_t end_ns)
{
	struct unit u = { .id = id, .state = state, .start_ns = start_ns, .end_ns = end_ns };

	snprintf(u.name, sizeof(u.name), "unit-%llu", (unsigned long long)id);
	snprintf(u.kind, sizeof(u.kind), "%s", kind);
	u.uid = u.owner_uid = 1000;
	u.exit_status = end_ns ? 0 : -1;
	u.task_id = -1;
	u.array_task_id = -1;
	return u;
}

static void put(struct store *s, const struct unit *u)
{
	assert_int_equal(store_put_unit(s, u), 0);
}

/* ---- units.c */

/* A new unit is running, named after its id unless named, and the list's newest. */
static void test_new(void **state)
{
	struct agent *a = *state;
	int64_t before = clock_unix_ns();
	struct unit *u, *v;

	open_store(a);
	a->next_unit_id = 5;
	u = units_new(a, UNIT_KIND_LOCAL, NULL, 1000, 1001);
	assert_non_null(u);
	assert_int_equal(u->id, 5);
	assert_string_equal(u->name, "run-5");
	assert_string_equal(u->kind, UNIT_KIND_LOCAL);
	assert_int_equal(u->uid, 1000);
	assert_int_equal(u->owner_uid, 1000); /* until a run of a user namespace says whose */
	assert_int_equal(u->gid, 1001);
	assert_int_equal(u->state, UNIT_RUNNING);
	assert_int_equal(u->exit_status, -1);
	assert_int_equal(u->task_id, -1);
	assert_int_equal(u->array_task_id, -1);
	assert_int_equal(u->step_id, STEP_NONE);
	assert_int_equal(u->sample_peak_mcores, -1); /* no process sampled twice yet */
	assert_true(u->start_ns >= before && u->start_ns <= clock_unix_ns());
	assert_int_equal(u->idle_since_ns, u->start_ns);
	assert_int_equal(u->end_ns, 0);

	v = units_new(a, UNIT_KIND_SLURM, "4242.0", 1000, 1001);
	assert_non_null(v);
	assert_int_equal(v->id, 6);
	assert_string_equal(v->name, "4242.0");
	assert_ptr_equal(a->units, v); /* newest first */
	assert_ptr_equal(units_find(a, 5), u);
	assert_ptr_equal(units_find(a, 6), v);
	assert_null(units_find(a, 7));
	assert_int_equal(units_running(a), 2);
}

/* MaxUnitsPerUser counts the user's running traced runs only: not Slurm's units, not ended
 * ones, not those dropped; UnitRatePerUser refuses a burst past it. */
static void test_admit(void **state)
{
	struct agent *a = *state;
	struct unit *run, *job, *gone;
	char err[160];

	/* each admitted case its own user: an admission takes from the user's rate too */
	open_store(a);
	a->cfg.max_units_per_user = 1;
	run = units_new(a, UNIT_KIND_LOCAL, "run", 1000, 1000);
	job = units_new(a, UNIT_KIND_SLURM, "7.0", 1001, 1001);
	gone = units_new(a, UNIT_KIND_LOCAL, "gone", 1002, 1002);
	assert_true(run && job && gone);
	assert_int_equal(units_admit(a, 1000, err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "MaxUnitsPerUser"));
	assert_int_equal(units_admit(a, 1001, err, sizeof(err)), 0); /* a job is not a run */
	run->state = UNIT_COMPLETED;
	assert_int_equal(units_admit(a, 1000, err, sizeof(err)), 0);
	assert_int_equal(units_admit(a, 1002, err, sizeof(err)), -EAGAIN);
	units_drop(a, gone);
	assert_int_equal(units_admit(a, 1002, err, sizeof(err)), 0);

	/* the rate: a burst of as many as may run at once, then no more this second */
	a->cfg.max_units_per_user = 2;
	a->cfg.unit_rate_per_user = 1;
	assert_int_equal(units_admit(a, 2000, err, sizeof(err)), 0);
	assert_int_equal(units_admit(a, 2000, err, sizeof(err)), 0);
	assert_int_equal(units_admit(a, 2000, err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "UnitRatePerUser"));
}

/* A unit ended already (a step's further task, LOST at a restart) is ended again without the
 * collector: its state and status stay, its record is written at once. */
static void test_end_again(void **state)
{
	struct agent *a = *state;
	struct unit t = stored_unit(3, UNIT_KIND_SLURM, UNIT_FAILED, LONG_AGO, LONG_AGO + SEC), *u,
		    got;

	open_store(a);
	t.exit_status = 1 << 8;
	u = units_adopt(a, &t);
	assert_non_null(u);
	assert_int_equal(units_end(a, u, 0, UNIT_COMPLETED), 0);
	assert_int_equal(u->state, UNIT_FAILED);
	assert_int_equal(u->exit_status, 1 << 8);
	assert_int_equal(u->end_ns, LONG_AGO + SEC);
	assert_false(u->dirty);
	assert_int_equal(store_settle(a->store), 0);  /* the commit handed over */
	assert_int_equal(store_pending(a->store), 0); /* committed */
	assert_int_equal(store_get_unit(a->store, 3, &got), 0);
	assert_int_equal(got.state, UNIT_FAILED);
	assert_int_equal(got.exit_status, 1 << 8);
}

static int count_unit(struct unit *u, void *ctx)
{
	(void)u;
	++*(unsigned *)ctx;
	return 0;
}

/* A dropped unit is out of sight at once and freed by units_reap; one whose record waits to be
 * written stays until units_flush has written it. */
static void test_drop_and_reap(void **state)
{
	struct agent *a = *state;
	struct unit *u, *v, *w;
	unsigned seen = 0;

	open_store(a);
	u = units_new(a, UNIT_KIND_LOCAL, "a", 1000, 1000);
	v = units_new(a, UNIT_KIND_LOCAL, "b", 1000, 1000);
	w = units_new(a, UNIT_KIND_LOCAL, "c", 1000, 1000);
	assert_true(u && v && w);
	units_drop(a, v);
	assert_null(units_find(a, v->id));
	assert_int_equal(a->ndropped, 1);
	assert_int_equal(units_running(a), 2);
	units_foreach(a, count_unit, &seen);
	assert_int_equal(seen, 2);
	assert_ptr_equal(w->next, v); /* not freed under a handler */
	units_reap(a);
	assert_int_equal(a->ndropped, 0);
	assert_ptr_equal(w->next, u);

	/* its record not written yet: kept, and dropped once units_flush writes it */
	w->state = UNIT_COMPLETED;
	w->end_ns = clock_unix_ns();
	w->dirty = 1;
	units_drop(a, w);
	assert_ptr_equal(units_find(a, w->id), w);
	units_flush(a);
	assert_false(w->dirty);
	assert_ptr_equal(units_find(a, w->id), w); /* written, not committed yet */
	assert_int_equal(store_commit(a->store), 0);
	assert_null(units_find(a, w->id));
	units_reap(a);
	assert_ptr_equal(a->units, u);
	assert_null(u->next);
	/* a running unit flushed stays */
	u->dirty = 1;
	units_flush(a);
	assert_ptr_equal(units_find(a, u->id), u);
}

/* ---- housekeeping.c */

/* A tick writes the heartbeat and the units waiting to be written; a traced run with no
 * process is not ended before OrphanAfter, nor ever is a Slurm unit by it. */
static void test_tick(void **state)
{
	struct agent *a = *state;
	struct unit *run, *job, got;
	int64_t before = clock_unix_ns(), alive = 0;

	open_store(a);
	run = units_new(a, UNIT_KIND_LOCAL, "fresh", 1000, 1000);
	job = units_new(a, UNIT_KIND_SLURM, "8.0", 1000, 1000);
	assert_true(run && job);
	job->idle_since_ns = 0; /* no process for ever: Slurm ends it, not the tick */
	run->dirty = job->dirty = 1;
	agent_tick(a);
	assert_int_equal(store_settle(a->store), 0); /* the tick's commit, handed over */
	assert_int_equal(store_last_alive(a->store, &alive), 0);
	assert_true(alive >= before && alive <= clock_unix_ns());
	assert_false(run->dirty);
	assert_int_equal(store_get_unit(a->store, run->id, &got), 0);
	assert_string_equal(got.name, "fresh");
	assert_int_equal(run->state, UNIT_RUNNING);
	assert_int_equal(job->state, UNIT_RUNNING);
	assert_true(a->housekept_ns >= before); /* the first tick housekeeps */
	assert_int_equal(store_pending(a->store), 0);
}

/* HousekeepingInterval and OrphanAfter as set: a tick housekeeps once the interval has passed
 * since the last round, and a traced run idle past the default's 10 s stays while within a
 * longer OrphanAfter (ending one needs the kernel's counters: not here). */
static void test_tick_intervals(void **state)
{
	struct agent *a = *state;
	struct unit *run;
	int64_t now;

	open_store(a);
	run = units_new(a, UNIT_KIND_LOCAL, "idle", 1000, 1000);
	assert_non_null(run);
	a->cfg.orphan_after_ms = 3600 * 1000;
	run->idle_since_ns = clock_unix_ns() - 30 * SEC;

	now = clock_unix_ns();
	a->housekept_ns = now - SEC;
	a->cfg.housekeeping_ms = 5000; /* not passed yet: no round */
	agent_tick(a);
	assert_int_equal(store_settle(a->store), 0);
	assert_int_equal(a->housekept_ns, now - SEC);
	assert_int_equal(run->state, UNIT_RUNNING);

	a->cfg.housekeeping_ms = 500; /* passed: a round */
	agent_tick(a);
	assert_int_equal(store_settle(a->store), 0);
	assert_true(a->housekept_ns >= now);
	assert_int_equal(run->state, UNIT_RUNNING);
}

/* StoreRetention: finished units ended before it go, running ones and recent ones stay; a
 * full batch of them goes on at the next tick, housekeeping period or not. */
static void test_tick_prunes(void **state)
{
	struct agent *a = *state;
	const unsigned old = 250; /* more than a round's batch */
	struct unit u, got;
	int64_t now = clock_unix_ns();

	open_store(a);
	a->cfg.store_retention_ms = 24 * 3600 * 1000u;
	for (unsigned i = 0; i < old; i++) {
		u = stored_unit(100 + i, UNIT_KIND_LOCAL, UNIT_COMPLETED, LONG_AGO, LONG_AGO + i);
		put(a->store, &u);
	}
	u = stored_unit(1, UNIT_KIND_SLURM, UNIT_RUNNING, LONG_AGO, 0);
	put(a->store, &u);
	u = stored_unit(2, UNIT_KIND_LOCAL, UNIT_COMPLETED, now - SEC, now);
	put(a->store, &u);
	assert_int_equal(store_commit(a->store), 0);

	agent_tick(a);
	assert_true(store_busy(a->store)); /* the round runs on the store's thread */
	assert_int_equal(store_settle(a->store), 0);
	assert_true(store_prune_backlog(a->store));
	assert_int_equal(store_get_unit(a->store, 100, &got), -ENOENT); /* the oldest first */
	assert_int_equal(store_get_unit(a->store, 100 + old - 1, &got), 0);
	agent_tick(a); /* within the housekeeping period: the backlog goes on */
	assert_int_equal(store_settle(a->store), 0);
	assert_false(store_prune_backlog(a->store));
	assert_int_equal(store_get_unit(a->store, 100 + old - 1, &got), -ENOENT);
	assert_int_equal(store_get_unit(a->store, 1, &got), 0);
	assert_int_equal(store_get_unit(a->store, 2, &got), 0);
}

/* With neither StoreRetention nor StoreMaxSize nothing is pruned, and the users' shares are
 * counted all the same (status shows them). */
static void test_tick_without_bounds(void **state)
{
	struct agent *a = *state;
	struct unit u = stored_unit(9, UNIT_KIND_LOCAL, UNIT_COMPLETED, LONG_AGO, LONG_AGO + 1),
		    got;
	struct json_object *shares;

	open_store(a);
	put(a->store, &u);
	assert_int_equal(store_commit(a->store), 0);
	assert_null(store_shares(a->store, ANY_UID, 10));
	agent_tick(a);
	assert_null(store_shares(a->store, ANY_UID, 10)); /* counted on the store's thread */
	assert_int_equal(store_settle(a->store), 0);
	assert_int_equal(store_get_unit(a->store, 9, &got), 0);
	shares = store_shares(a->store, ANY_UID, 10);
	assert_non_null(shares);
	assert_int_equal(json_object_array_length(key(shares, "users")), 1);
	json_object_put(shares);
}

/* ---- rediscover.c */

/* A restart: this boot's running units come back into memory with the time tracerd was away
 * (from its last heartbeat) in their record; an earlier boot's are LOST; finished ones stay in
 * the store only. A root pid that is another process now is not adopted. */
static void test_rediscover(void **state)
{
	struct agent *a = *state;
	struct store *old;
	struct unit u, got, *back;
	int64_t now = clock_unix_ns(), alive = now - 60 * SEC;

	assert_int_equal(store_open(&old, path, OLD_BOOT), 0);
	u = stored_unit(1, UNIT_KIND_SLURM, UNIT_RUNNING, LONG_AGO, 0);
	put(old, &u);
	store_close(old);

	open_store(a);
	u = stored_unit(2, UNIT_KIND_SLURM, UNIT_RUNNING, now - 3600 * SEC, 0);
	u.root_pid = (uint32_t)getpid(); /* this test, but not started then: a reused pid */
	u.root_start_ns = a->tick_ns;
	put(a->store, &u);
	u = stored_unit(3, UNIT_KIND_LOCAL, UNIT_RUNNING, now - 30 * SEC, 0); /* began since */
	put(a->store, &u);
	u = stored_unit(4, UNIT_KIND_LOCAL, UNIT_COMPLETED, LONG_AGO, LONG_AGO + SEC);
	put(a->store, &u);
	assert_int_equal(store_set_alive(a->store, alive), 0);
	assert_int_equal(store_commit(a->store), 0);

	assert_int_equal(agent_rediscover(a), 0);
	assert_int_equal(a->last_alive_ns, alive);
	assert_int_equal(store_get_unit(a->store, 1, &got), 0);
	assert_int_equal(got.state, UNIT_LOST);
	assert_int_equal(got.end_ns, LONG_AGO); /* its start: its end was never known */
	assert_null(units_find(a, 1));
	assert_null(units_find(a, 4));

	back = units_find(a, 2);
	assert_non_null(back);
	assert_int_equal(back->state, UNIT_RUNNING);
	assert_int_equal(back->live, 0); /* its root is not the process it was */
	assert_int_equal(back->down_start_ns, alive);
	assert_true(back->down_end_ns >= now);
	assert_int_equal(store_get_unit(a->store, 2, &got), 0);
	assert_int_equal(got.down_start_ns, alive);
	assert_int_equal(got.down_end_ns, back->down_end_ns);

	back = units_find(a, 3);
	assert_non_null(back);
	assert_int_equal(back->down_start_ns, 0); /* it began after the heartbeat */
	assert_int_equal(units_running(a), 2);
}

/* A store that never had a heartbeat: no time away is written. */
static void test_rediscover_first_start(void **state)
{
	struct agent *a = *state;
	struct unit u = stored_unit(5, UNIT_KIND_LOCAL, UNIT_RUNNING, LONG_AGO, 0), *back;

	open_store(a);
	put(a->store, &u);
	assert_int_equal(store_commit(a->store), 0);
	assert_int_equal(agent_rediscover(a), 0);
	assert_int_equal(a->last_alive_ns, 0);
	back = units_find(a, 5);
	assert_non_null(back);
	assert_int_equal(back->down_start_ns, 0);
	assert_int_equal(back->down_end_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop_and_reap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tick_intervals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tick_prunes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tick_without_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rediscover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rediscover_first_start, setup, teardown),
	};

	/* units LOST and rediscovered are logged: keep the output to errors */
	log_open("test_units", 1, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
