/* tracer-jobstat: efficiency formulas, rightsizing suggestions and the notes block. */
#include <errno.h>
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
#include "convert.h"
#include "effic.h"
#include "failures.h"
#include "notes.h"

#define MIB 1024 /* in kB */

static void near(double v, double want)
{
	assert_true(v > want - 0.01 && v < want + 0.01);
}

static void test_formulas(void **state)
{
	(void)state;
	/* CPUEff = TotalCPU / (Elapsed x AllocCPUS) */
	near(eff_cpu(60 * 1000000000LL, 60, 2), 50.0);
	near(eff_cpu(120 * 1000000000LL, 60, 2), 100.0);
	assert_true(eff_cpu(1, 0, 2) < 0);
	assert_true(eff_cpu(1, 60, 0) < 0);
	assert_true(eff_cpu(JS_NONE, 60, 2) < 0);
	/* MemEff = peak / requested */
	near(eff_mem(300 * MIB, 4096), 7.32);
	near(eff_mem(1024 * MIB, 1024), 100.0);
	assert_true(eff_mem(JS_NONE, 4096) < 0);
	assert_true(eff_mem(300, JS_NONE) < 0);
	/* TimeEff = Elapsed / Timelimit */
	near(eff_time(1800, 60), 50.0);
	assert_true(eff_time(1800, TL_UNLIMITED) < 0);
	assert_true(eff_time(1800, JS_NONE) < 0);
}

static void test_row_effs_running(void **state)
{
	struct row r;

	(void)state;
	row_init(&r, ROW_JOB);
	r.cpu_ns = 60 * 1000000000LL;
	r.elapsed = 60;
	r.alloc_cpus = 1;
	r.timelimit = 2;
	r.peak_mem_kb = 512 * MIB;
	r.req_mem_share_mb = 1024;
	near(row_cpu_eff(&r), 100.0);
	near(row_mem_eff(&r), 50.0);
	near(row_time_eff(&r), 50.0);
	/* a running job: every efficiency unknown */
	r.running = 1;
	assert_true(row_cpu_eff(&r) < 0);
	assert_true(row_mem_eff(&r) < 0);
	assert_true(row_time_eff(&r) < 0);
	/* a step has no TimeEff */
	r.running = 0;
	r.kind = ROW_STEP;
	assert_true(row_time_eff(&r) < 0);
}

static void test_peak_memory_sources(void **state)
{
	struct figures f;
	const char *src;

	(void)state;
	figures_init(&f);
	assert_int_equal(eff_peak_memory(&f, 1, &src), JS_NONE);
	f.nunits = 2;
	f.ntasks = 2;
	f.nprocs = 10;
	f.maxrss_kb = 100 * MIB;
	/* only per-process RSS: the largest, times the tasks (reportseff's scaling) */
	assert_int_equal(eff_peak_memory(&f, 2, &src), 200 * MIB);
	assert_string_equal(src, "maxrss");
	/* live samples beat it: the largest summed RSS of one task, times the tasks */
	f.task_peak_rss_kb = 150 * MIB;
	assert_int_equal(eff_peak_memory(&f, 2, &src), 300 * MIB);
	assert_string_equal(src, "sampled");
	/* the step cgroup beats both, as it is */
	f.cgroup_mem_peak_kb = 260 * MIB;
	assert_int_equal(eff_peak_memory(&f, 2, &src), 260 * MIB);
	assert_string_equal(src, "cgroup");
	/* without Slurm's task count, the task units tracer saw */
	f.cgroup_mem_peak_kb = JS_NONE;
	assert_int_equal(eff_peak_memory(&f, JS_NONE, &src), 300 * MIB);
}

static void test_cores(void **state)
{
	struct figures f;
	const char *src;

	(void)state;
	figures_init(&f);
	f.nunits = 1;
	f.ntasks = 1;
	/* too short for samples: CPU time over wall time */
	near(eff_cores(&f, 9 * 1000000000LL, 10 * 1000000000LL, 1, &src), 0.9);
	assert_string_equal(src, "average");
	near(eff_cores(&f, 20 * 1000000000LL, 10 * 1000000000LL, 2, &src), 1.0);
	/* samples: the most busy at once in one task */
	f.task_peak_cores = 3.02;
	near(eff_cores(&f, 1, 10, 1, &src), 3.02);
	assert_string_equal(src, "sampled");
	figures_init(&f);
	assert_true(eff_cores(&f, JS_NONE, 10, 1, &src) < 0);
}

static void test_suggest_rounding(void **state)
{
	char b[32];

	(void)state;
	/* cores: up, a sampling jitter of 5 % of a core forgiven, at least one */
	assert_int_equal(suggest_cpus(1.0), 1);
	assert_int_equal(suggest_cpus(1.04), 1);
	assert_int_equal(suggest_cpus(1.2), 2);
	assert_int_equal(suggest_cpus(0.01), 1);
	assert_int_equal(suggest_cpus(0), 1);
	assert_int_equal(suggest_cpus(7.5), 8);
	assert_int_equal(suggest_cpus(-1), -1);
	/* memory: ceil(1.2 x peak) in MiB; GiB from 10 GiB on */
	assert_int_equal(suggest_mem_mb(300 * MIB), 360);
	assert_int_equal(suggest_mem_mb(1), 1);
	assert_int_equal(suggest_mem_mb(JS_NONE), -1);
	suggest_mem_text(b, sizeof(b), 360);
	assert_string_equal(b, "360M");
	suggest_mem_text(b, sizeof(b), 9000);
	assert_string_equal(b, "9000M");
	suggest_mem_text(b, sizeof(b), 12289);
	assert_string_equal(b, "13G");
	suggest_mem_text(b, sizeof(b), 10240);
	assert_string_equal(b, "10G");
	/* time: 1.2 x elapsed, whole minutes below an hour, quarters below a day, hours after */
	assert_int_equal(suggest_time_min(0), 1);
	assert_int_equal(suggest_time_min(25), 1);
	assert_int_equal(suggest_time_min(60), 2);
	assert_int_equal(suggest_time_min(50 * 60), 60);
	assert_int_equal(suggest_time_min(51 * 60), 75);
	assert_int_equal(suggest_time_min(10 * 3600), 12 * 60);
	assert_int_equal(suggest_time_min(10 * 3600 + 60), 12 * 60 + 15);
	assert_int_equal(suggest_time_min(30 * 3600), 36 * 60);
	assert_int_equal(suggest_time_min(30 * 3600 + 1), 37 * 60);
	assert_int_equal(suggest_time_min(JS_NONE), -1);
}

/* the acceptance case: 2 CPUs and 4G asked, one busy core and 300 MiB used */
static void acceptance_job(struct job *j)
{
	struct row *r = &j->row;

	memset(j, 0, sizeof(*j));
	row_init(r, ROW_JOB);
	snprintf(r->jobid, sizeof(r->jobid), "77");
	snprintf(r->jobname, sizeof(r->jobname), "hold300");
	snprintf(r->state, sizeof(r->state), "COMPLETED");
	r->alloc_cpus = 2;
	r->req_mem_mb = r->req_mem_share_mb = 4096;
	r->elapsed = 25;
	r->timelimit = 60;
	r->f.nunits = 2;
	r->f.ntasks = 1;
	r->f.nprocs = 2;
	r->cpu_ns = 24 * 1000000000LL;
	r->peak_cores = 1.01;
	r->cores_per_task = 1.01;
	r->cores_src = "sampled";
	r->peak_mem_kb = r->node_peak_mem_kb = 300 * MIB;
	r->peak_src = "cgroup";
	r->nnodes = 1;
	r->req_mem_node_mb = 4096;
}

static void test_acceptance_suggestion(void **state)
{
	struct job j;
	char b[160];

	(void)state;
	acceptance_job(&j);
	row_suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "--cpus-per-task=1 --mem=360M --time=00:01:00");
	/* a job that failed gets no --time */
	snprintf(j.row.state, sizeof(j.row.state), "FAILED");
	row_suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "--cpus-per-task=1 --mem=360M");
	/* a running one nothing; a step never */
	j.row.running = 1;
	row_suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "");
	j.row.running = 0;
	j.row.kind = ROW_STEP;
	row_suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "");
}

/* one core is "core": "used 1 of 1 allocated core", "used 1 core" */
static void test_notes_singular(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct job j;
	size_t n;

	(void)state;
	acceptance_job(&j);
	j.row.alloc_cpus = 1;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "used 1 of 1 allocated core ("));
	j.row.alloc_cpus = JS_NONE;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "used 1 core ("));
}

static void test_notes(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct job j;
	size_t n;

	(void)state;
	acceptance_job(&j);
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "used 1 of 2 allocated cores"));
	assert_true(has_line(lines, n, "--cpus-per-task=1"));
	assert_true(has_line(
		lines, n, "peak memory 300M (step cgroup peak) of 4G requested, 7.3%: --mem=360M"));
	assert_true(has_line(lines, n, "ran 00:00:25 of a 01:00:00 limit, 0.7%: --time=00:01:00"));
	assert_true(has_line(lines, n, "next time: --cpus-per-task=1 --mem=360M --time=00:01:00"));
	assert_false(has_line(lines, n, "NUMA"));
	assert_false(has_line(lines, n, "more runnable threads"));
	/* 8 cores asked, one used, across two NUMA nodes, more threads than cores elsewhere */
	j.row.alloc_cpus = 8;
	j.row.numa_span = 2;
	snprintf(j.row.alloc_cores, sizeof(j.row.alloc_cores), "6-13");
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "used 1 of 8 allocated cores"));
	assert_true(has_line(lines, n, "allocation spans 2 NUMA nodes (cores 6-13)"));
	j.row.alloc_cpus = 2;
	j.row.peak_cores = 3.4;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n,
			     "more runnable threads than allocated cores: 3.40 cores busy at peak, "
			     "2 allocated"));
	/* lost events, OOM kills, missing nodes are said */
	j.row.f.lost = 12;
	j.row.f.oom_kills = 1;
	snprintf(j.missing, sizeof(j.missing), "n2");
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "incomplete: 12 of its kernel events were lost"));
	/* a gap while tracerd was away: from-to, the date said once on the same day */
	j.row.f.down_start_ns = 1700000000ll * 1000000000;
	j.row.f.down_end_ns = 1700000105ll * 1000000000;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	{
		char from[32], to[32], want[96];

		conv_datetime(from, sizeof(from), 1700000000);
		conv_datetime(to, sizeof(to), 1700000105);
		snprintf(want, sizeof(want), "incomplete: tracerd was down %s-%s", from, to + 11);
		assert_true(has_line(lines, n, want));
	}
	j.row.f.down_start_ns = j.row.f.down_end_ns = JS_NONE;
	assert_true(has_line(lines, n, "killed by the OOM killer at its 4G limit"));
	assert_true(has_line(lines, n, "no figures from node(s) n2"));
	/* running: no advice yet; tracer knowing nothing: said so */
	j.row.running = 1;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "still running"));
	assert_false(has_line(lines, n, "next time"));
	j.row.running = 0;
	j.row.f.nunits = 0;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "tracer recorded nothing"));
	assert_false(has_line(lines, n, "next time"));
}

static void test_notes_average_cores(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct job j;
	size_t n;

	(void)state;
	acceptance_job(&j);
	j.row.cores_per_task = 0.96;
	j.row.peak_cores = 0.96;
	j.row.cores_src = "average";
	n = notes_build(&j, U_M, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "0.96 busy on average per task"));
	assert_true(has_line(lines, n, "--cpus-per-task=1"));
	/* --units applies to the sizes */
	assert_true(has_line(lines, n, "peak memory 300M (step cgroup peak) of 4096M requested"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formulas),
		cmocka_unit_test(test_row_effs_running),
		cmocka_unit_test(test_peak_memory_sources),
		cmocka_unit_test(test_cores),
		cmocka_unit_test(test_suggest_rounding),
		cmocka_unit_test(test_acceptance_suggestion),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_notes_singular),
		cmocka_unit_test(test_notes_average_cores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
