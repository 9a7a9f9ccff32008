/* tracer-jobstat's failure and waste signals (signals.c): the job's idle stretches are when all
 * its units were idle at once; a stall is named with its interval; CPU wait, memory near the
 * limit; a step slower than the median of its history, for the right reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

#include "aggregate.h"
#include "effic.h"
#include "signals.h"

#define NS 1000000000LL
#define T0 1795400000LL /* unix seconds */

static void unit(struct unit_rec *u, int64_t id, int64_t step, int64_t start_s, int64_t end_s)
{
	memset(u, 0, sizeof(*u));
	u->id = id;
	u->job_id = 7;
	u->step_id = step;
	u->task_id = 0;
	u->start_ns = (T0 + start_s) * NS;
	u->end_ns = (T0 + end_s) * NS;
	snprintf(u->state, sizeof(u->state), "COMPLETED");
	u->idle_ns = 0;
	u->stall_ns = u->stall_start_ns = u->stalls = JS_NONE;
	u->mem_pressure_us = JS_NONE;
	u->have_totals = 1;
	u->t.nprocs = step == STEP_NONE ? 0 : 1;
	u->t.cpu_ns = u->t.cpu_wait_ns = u->t.iowait_ns = u->t.offcpu_ns = JS_NONE;
	u->t.stalled_pid = JS_NONE;
}

static void windows(struct unit_rec *u, int64_t a_s, int64_t b_s)
{
	snprintf(u->idle_windows, sizeof(u->idle_windows), "%lld-%lld",
		 (long long)((T0 + a_s) * NS), (long long)((T0 + b_s) * NS));
	u->idle_ns = (b_s - a_s) * NS;
}

static void job_of(struct job *j, struct unit_rec *units, size_t n)
{
	memset(j, 0, sizeof(*j));
	row_init(&j->row, ROW_JOB);
	j->units = units;
	j->nunits = n;
}

static void test_idle_when_all_units_idle(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct unit_rec u[3];
	struct job j;
	size_t n;

	(void)state;
	/* the allocation (no processes: idle all along), the batch step working for 10 s and
	 * then idle while step 0 works from 10 to 70 s: the job idle from 70 s to its end */
	unit(&u[0], 1, STEP_NONE, 0, 130);
	windows(&u[0], 0, 130);
	unit(&u[1], 2, STEP_BATCH, 0, 130);
	windows(&u[1], 10, 130);
	unit(&u[2], 3, 0, 10, 70);
	job_of(&j, u, 3);
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "idle 1 min 0 s of 2 min 10 s, since"));
	/* a step that works to the end leaves no idle stretch worth a note */
	u[2].end_ns = (T0 + 130) * NS;
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_false(has_line(lines, n, "idle "));
}

static void test_stall_named(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct unit_rec u;
	struct job j;
	size_t n;

	(void)state;
	unit(&u, 1, 0, 0, 100);
	u.stalls = 1;
	u.stall_start_ns = (T0 + 10) * NS;
	u.stall_ns = 30 * NS;
	snprintf(u.stall_tool, sizeof(u.stall_tool), "samtools");
	snprintf(u.stall_reason, sizeof(u.stall_reason), "blocked on I/O");
	job_of(&j, &u, 1);
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "samtools stalled "));
	assert_true(has_line(lines, n, "(blocked on I/O), 30 s with no CPU"));
	/* running: the stall under way only */
	u.stall_ns = 0;
	u.t.stalled_pid = 42;
	u.t.stalled_since_ns = (T0 + 50) * NS;
	snprintf(u.t.stalled_tool, sizeof(u.t.stalled_tool), "cat");
	snprintf(u.t.stalled_reason, sizeof(u.t.stalled_reason), "waiting on a pipe or FIFO");
	n = signals_notes(&j, -1, 1, lines, NOTES_MAX);
	assert_int_equal(n, 1);
	assert_true(has_line(lines, n, "cat (pid 42) stalled since"));
	/* a sentence that ends */
	assert_true(has_line(lines, n,
			     "(waiting on a pipe or FIFO): no CPU, I/O or network since then"));
}

static void test_cpu_wait(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct unit_rec u;
	struct job j;
	size_t n;

	(void)state;
	unit(&u, 1, 0, 0, 100);
	snprintf(u.step_name, sizeof(u.step_name), "align");
	u.alloc_cpus = 2;
	u.t.cpu_ns = 200 * NS;	    /* 2 cores busy all along */
	u.t.cpu_wait_ns = 600 * NS; /* and 6 more threads waiting */
	job_of(&j, &u, 1);
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_true(
		has_line(lines, n,
			 "75 % of align's time was spent waiting for a CPU: 8.0 runnable threads "
			 "on 2 allocated cores; ask for --cpus-per-task=8"));
}

static struct json_object *history_run(int64_t secs, int64_t cpu_ns, int64_t iowait_ns)
{
	struct json_object *run = json_object_new_object(), *t = json_object_new_object();

	json_object_object_add(run, "start_ns", json_object_new_int64(T0 * NS));
	json_object_object_add(run, "end_ns", json_object_new_int64((T0 + secs) * NS));
	json_object_object_add(t, "cpu_ns", json_object_new_int64(cpu_ns));
	json_object_object_add(t, "iowait_ns", json_object_new_int64(iowait_ns));
	json_object_object_add(run, "totals", t);
	return run;
}

static void test_slower_than_usual(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct unit_detail d = { 0 };
	struct unit_rec u;
	struct job j;
	size_t n;

	(void)state;
	unit(&u, 1, 0, 0, 24);
	snprintf(u.step_name, sizeof(u.step_name), "align");
	u.t.cpu_ns = 10 * NS;
	u.t.iowait_ns = 12 * NS;
	d.history = json_object_new_array();
	json_object_array_add(d.history, history_run(10, 10 * NS, NS));
	json_object_array_add(d.history, history_run(9, 10 * NS, 2 * NS));
	json_object_array_add(d.history, history_run(11, 9 * NS, NS / 2));
	job_of(&j, &u, 1);
	j.detail = &d;
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_true(has_line(
		lines, n,
		"align took 2.4\xc3\x97 its median of the last 3 runs (24.0 s against 10.0 s); "
		"CPU the same, I/O wait 12.0\xc3\x97"));
	/* as usual: nothing said */
	u.end_ns = (T0 + 11) * NS;
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_false(has_line(lines, n, "its median"));
	json_object_put(d.history);
}

static void test_memory_near_limit(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct unit_rec u;
	struct job j;
	size_t n;

	(void)state;
	unit(&u, 1, 0, 0, 100);
	job_of(&j, &u, 1);
	j.row.peak_mem_kb = 3994 * 1024;
	j.row.req_mem_share_mb = 4096;
	j.row.f.oom_kills = 0;
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "memory near the limit: peak 3.90G of --mem=4G (98 %)"));
	/* the step cgroup's peak, of which its processes held little: page cache */
	j.row.peak_src = "cgroup";
	j.row.f.nprocs = 3;
	j.row.f.maxrss_kb = 8 * 1024;
	j.row.own_peak_kb = eff_own_peak(&j.row.f, 1);
	j.row.f.rchar = 0;
	j.row.f.wchar = (int64_t)4 << 30; /* 4 GiB written through the cache */
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_false(has_line(lines, n, "memory near the limit"));
	assert_true(has_line(lines, n,
			     "memory at the limit is page cache: the step cgroup's peak 3.90G of "
			     "--mem=4G (98 %) is mostly files read and written, its processes' own "
			     "peak 8M; the kernel reclaims cache at the limit"));
	/* processes that held most of it themselves */
	j.row.f.maxrss_kb = 3500 * 1024;
	j.row.own_peak_kb = eff_own_peak(&j.row.f, 1);
	n = signals_notes(&j, -1, 0, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "memory near the limit: peak 3.90G of --mem=4G (98 %)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_when_all_units_idle),
		cmocka_unit_test(test_stall_named),
		cmocka_unit_test(test_cpu_wait),
		cmocka_unit_test(test_slower_than_usual),
		cmocka_unit_test(test_memory_near_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
