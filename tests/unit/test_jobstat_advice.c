/* tracer-jobstat: rightsizing that learns from failure — OOM kills, TIMEOUT, per-node memory,
 * --mem-per-cpu, the floor, one advice per array. */
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
#include "wfadvice.h"

#define MIB 1024 /* in kB */

/* a finished one-node job of one task that used one core */
static void job(struct job *j, const char *state, int64_t req_mb, int64_t node_peak_kb)
{
	struct row *r = &j->row;

	memset(j, 0, sizeof(*j));
	j->array_task_id = -1;
	row_init(r, ROW_JOB);
	snprintf(r->jobid, sizeof(r->jobid), "12");
	snprintf(r->state, sizeof(r->state), "%s", state);
	r->alloc_cpus = 1;
	r->nnodes = 1;
	r->req_mem_mb = r->req_mem_share_mb = r->req_mem_node_mb = req_mb;
	r->elapsed = 100;
	r->timelimit = 10;
	r->f.nunits = 2;
	r->f.ntasks = 1;
	r->f.nprocs = 2;
	r->f.oom_kills = 0;
	r->f.maxrss_kb = node_peak_kb - MIB;
	r->cores_per_task = r->peak_cores = 1.0;
	r->cores_src = "sampled";
	r->peak_mem_kb = r->node_peak_mem_kb = node_peak_kb;
	r->peak_src = "cgroup";
}

static void suggest(const struct row *r, char *b, size_t len)
{
	row_suggest(r, b, len);
}

static void test_oom_raises_the_limit(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN], b[160];
	struct advice a;
	struct job j;
	size_t n;

	(void)state;
	/* killed at --mem=60M: the cgroup peak is the limit, so 1.2 x peak (72M) would fail
	 * again; at least twice the limit */
	job(&j, "OUT_OF_MEMORY", 60, 60 * MIB);
	j.row.f.oom_kills = 1;
	row_advice(&j.row, &a);
	assert_true(a.oom);
	assert_int_equal(a.mem_mb, 120);
	assert_int_equal(a.mem_why, MEM_OOM);
	assert_int_equal(a.time_min, -1); /* it did not complete */
	suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "--cpus-per-task=1 --mem=120M");
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "killed by the OOM killer at its 60M limit"));
	assert_true(has_line(lines, n, "it needed more than the limit"));
	assert_true(has_line(lines, n, "--mem=120M (2x the limit)"));
	assert_false(has_line(lines, n, "peak memory"));
	/* Slurm's state alone says so too (no oom_kills from the kernel) */
	j.row.f.oom_kills = 0;
	row_advice(&j.row, &a);
	assert_int_equal(a.mem_mb, 120);
	/* a process killed in a job that ended FAILED */
	snprintf(j.row.state, sizeof(j.row.state), "FAILED");
	j.row.f.oom_kills = 2;
	row_advice(&j.row, &a);
	assert_int_equal(a.mem_mb, 120);
	/* where the figures show more than twice the limit (a limit not enforced): those */
	j.row.node_peak_mem_kb = j.row.peak_mem_kb = 200 * MIB;
	row_advice(&j.row, &a);
	assert_int_equal(a.mem_mb, 240);
	assert_int_equal(a.mem_why, MEM_PEAK);
	/* no request known: twice the peak it was stopped at */
	job(&j, "OUT_OF_MEMORY", JS_NONE, 50 * MIB);
	row_advice(&j.row, &a);
	assert_int_equal(a.mem_mb, 100);
}

static void test_timeout_raises_the_time(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN], b[160];
	struct job j;
	size_t n;

	(void)state;
	job(&j, "TIMEOUT", 100, 40 * MIB);
	j.row.timelimit = 1;
	j.row.elapsed = 65;
	suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "--cpus-per-task=1 --mem=48M --time=00:02:00");
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(
		has_line(lines, n, "hit its 00:01:00 time limit after 00:01:05: it needed more"));
	assert_true(has_line(lines, n, "--time=00:02:00 (2x the limit)"));
	/* rounding as for completed jobs: 2 x 45 minutes is 1:30 */
	j.row.timelimit = 45;
	suggest(&j.row, b, sizeof(b));
	assert_non_null(strstr(b, "--time=01:30:00"));
	/* an unknown limit: twice what it ran */
	j.row.timelimit = TL_PARTITION;
	j.row.elapsed = 600;
	suggest(&j.row, b, sizeof(b));
	assert_non_null(strstr(b, "--time=00:20:00"));
	/* cancelled: no time advice */
	snprintf(j.row.state, sizeof(j.row.state), "CANCELLED by 0");
	suggest(&j.row, b, sizeof(b));
	assert_null(strstr(b, "--time"));
}

static void test_mem_per_node(void **state)
{
	struct figures f;
	struct unit_rec u[3];
	const struct unit_rec *p[3] = { &u[0], &u[1], &u[2] };
	char lines[NOTES_MAX][NOTE_LEN], b[160];
	struct job j;
	size_t n;

	(void)state;
	/* two nodes of about 61M each: the step's peak is their sum, --mem the highest node's */
	memset(u, 0, sizeof(u));
	for (int i = 0; i < 3; i++) {
		u[i].node = i < 2 ? i : 1;
		u[i].step_id = 0;
		u[i].start_ns = 1;
		u[i].end_ns = 2;
		snprintf(u[i].state, sizeof(u[i].state), "COMPLETED");
		u[i].lost_events = u[i].cgroup_cpu_ns = JS_NONE;
		u[i].have_totals = 1;
		u[i].t.nprocs = 1;
		u[i].t.maxrss_kb = 60 * MIB;
		u[i].t.peak_cores = -1;
		u[i].t.first_start_ns = u[i].t.last_end_ns = JS_NONE;
		u[i].t.peak_sampled_rss_kb = JS_NONE;
	}
	u[0].cgroup_mem_peak_kb = 61 * MIB;
	u[1].cgroup_mem_peak_kb = u[2].cgroup_mem_peak_kb = 62 * MIB; /* two tasks of one node */
	figures_init(&f);
	figures_add_units(&f, p, 3);
	assert_int_equal(f.cgroup_mem_peak_kb, 123 * MIB);
	assert_int_equal(f.node_mem_peak_kb, 62 * MIB);
	assert_int_equal(f.node_mem_peak_node, 1); /* MaxRSSNode */
	assert_int_equal(eff_node_peak_memory(&f, 3, 2), 62 * MIB);
	/* without the cgroup: a task's figure times the tasks of the fullest node */
	f.node_mem_peak_kb = JS_NONE;
	assert_int_equal(eff_node_peak_memory(&f, 3, 2), 120 * MIB);
	f.task_peak_rss_kb = 50 * MIB;
	assert_int_equal(eff_node_peak_memory(&f, 4, 2), 100 * MIB);
	/* never below the largest process */
	f.node_mem_peak_kb = 10 * MIB;
	assert_int_equal(eff_node_peak_memory(&f, 4, 2), 60 * MIB);
	figures_init(&f);
	assert_int_equal(eff_node_peak_memory(&f, 1, 1), JS_NONE);

	/* the job: -N2 --mem=100M, ReqMem 200M in all, 122M summed, 61M on the highest node */
	job(&j, "COMPLETED", 200, 61 * MIB);
	j.row.nnodes = 2;
	j.row.req_mem_node_mb = 100;
	j.row.peak_mem_kb = 122 * MIB;
	suggest(&j.row, b, sizeof(b));
	assert_non_null(strstr(b, "--mem=74M")); /* 1.2 x 61M, not 1.2 x 122M */
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(
		has_line(lines, n,
			 "peak memory 122M (step cgroup peak) over 2 nodes, 61M on the highest, "
			 "of 100M requested per node, 61.0%: --mem=74M"));
}

static void test_mem_per_cpu(void **state)
{
	char b[160];
	struct job j;

	(void)state;
	/* -c 4 --mem-per-cpu=100M, one core busy, 50M used: per CPU of the one CPU advised */
	job(&j, "COMPLETED", 400, 50 * MIB);
	j.row.alloc_cpus = 4;
	j.row.req_mem_per_cpu_mb = 100;
	j.row.tasks_per_node = 1;
	suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "--cpus-per-task=1 --mem-per-cpu=60M --time=00:02:00");
	/* two busy cores and two tasks per node: the node's need over their four CPUs */
	j.row.cores_per_task = 2.0;
	j.row.tasks_per_node = 2;
	j.row.node_peak_mem_kb = j.row.peak_mem_kb = 200 * MIB;
	suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "--cpus-per-task=2 --mem-per-cpu=60M --time=00:02:00");
	/* no CPU advice: the CPUs it had on a node */
	j.row.cores_per_task = -1;
	suggest(&j.row, b, sizeof(b));
	assert_string_equal(b, "--mem-per-cpu=60M --time=00:02:00");
}

static void test_floor(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN], b[160];
	struct job j;
	size_t n;

	(void)state;
	/* a job of a 3.8M shell asked --mem=2M: never 5M, Slurm's smallest limit */
	job(&j, "COMPLETED", 2, 3 * MIB + 800);
	suggest(&j.row, b, sizeof(b));
	assert_non_null(strstr(b, "--mem=30M"));
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "--mem=30M (Slurm's smallest memory limit)"));
	/* the largest process counts even where the cgroup's peak is lower */
	job(&j, "COMPLETED", 100, 20 * MIB);
	j.row.f.maxrss_kb = 50 * MIB;
	j.row.f.node_mem_peak_kb = 20 * MIB;
	j.row.node_peak_mem_kb = eff_node_peak_memory(&j.row.f, 1, 1);
	suggest(&j.row, b, sizeof(b));
	assert_int_equal(j.row.node_peak_mem_kb, 50 * MIB);
	assert_non_null(strstr(b, "--mem=60M"));
}

static void test_page_cache_left_out(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN], b[160];
	struct job j;
	size_t n;

	(void)state;
	/* a step cgroup at its 500M limit with 12M of processes: 1 GiB written through the cache */
	job(&j, "COMPLETED", 500, 495 * MIB);
	j.row.f.maxrss_kb = 12 * MIB;
	j.row.own_peak_kb = eff_own_peak(&j.row.f, 1);
	/* with little I/O, the rest was the processes' (many at once, between samples) */
	j.row.f.wchar = 100 * MIB * 1024;
	j.row.f.rchar = 0;
	suggest(&j.row, b, sizeof(b));
	assert_non_null(strstr(b, "--mem=594M"));
	j.row.f.wchar = 1024 * MIB * 1024; /* 1 GiB written */
	suggest(&j.row, b, sizeof(b));
	assert_non_null(strstr(b, "--mem=30M"));
	j.row.f.maxrss_kb = 100 * MIB;
	j.row.own_peak_kb = eff_own_peak(&j.row.f, 1);
	suggest(&j.row, b, sizeof(b));
	assert_non_null(strstr(b, "--mem=120M"));
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n,
			     "--mem=120M (its processes' own peak: the rest was page cache)"));
	/* processes that held most of it: the cgroup's peak is the need */
	j.row.f.maxrss_kb = 400 * MIB;
	j.row.own_peak_kb = eff_own_peak(&j.row.f, 1);
	suggest(&j.row, b, sizeof(b));
	assert_null(strstr(b, "--mem=480M"));
	assert_non_null(strstr(b, "--mem=594M"));
}

static void test_array_one_advice(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct report rep = {};
	struct job jobs[3];
	size_t n;

	(void)state;
	/* three tasks of array 40 with 10, 20 and 31 MiB: one advice from the highest */
	for (int i = 0; i < 3; i++) {
		job(&jobs[i], "COMPLETED", 50, (int64_t)(i == 2 ? 31 : 10 * (i + 1)) * MIB);
		jobs[i].array_job_id = 40;
		jobs[i].array_task_id = i + 1;
	}
	jobs[0].row.elapsed = 500; /* the longest */
	jobs[1].row.cores_per_task = 1.5;
	rep.jobs = jobs;
	rep.n = 3;
	notes_arrays(&rep);
	assert_int_equal(jobs[0].array_ntasks, 3);
	assert_false(jobs[0].array_last);
	assert_true(jobs[2].array_last);
	assert_string_equal(jobs[2].array_suggest, "--cpus-per-task=2 --mem=38M --time=00:10:00");
	/* the tasks keep their figures; only the last gives the advice, once */
	n = notes_build(&jobs[0], -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "peak memory 10M"));
	assert_false(has_line(lines, n, "next time"));
	n = notes_build(&jobs[2], -1, lines, NOTES_MAX);
	assert_true(has_line(
		lines, n,
		"next time, for every task of array 40 (from the highest needs of its 3 tasks): "
		"--cpus-per-task=2 --mem=38M --time=00:10:00"));
	/* a lone task of an array is advised as a job */
	rep.n = 1;
	notes_arrays(&rep);
	n = notes_build(&jobs[0], -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "next time: "));
}

static void test_advice_merge(void **state)
{
	struct advice a, b;
	char t[160];

	(void)state;
	memset(&a, 0, sizeof(a));
	a.cpus = 1, a.mem_mb = 100, a.mem_per_cpu_mb = -1, a.time_min = 5, a.limit_mb = 60;
	b = a;
	b.cpus = 3, b.mem_mb = 40, b.time_min = -1, b.oom = 1;
	advice_merge(&a, &b);
	assert_int_equal(a.cpus, 3);
	assert_int_equal(a.mem_mb, 100);
	assert_int_equal(a.time_min, 5);
	assert_true(a.oom);
	advice_text(&a, t, sizeof(t));
	assert_string_equal(t, "--cpus-per-task=3 --mem=100M --time=00:05:00");
	a.cpus = -1, a.mem_mb = -1, a.time_min = -1;
	advice_text(&a, t, sizeof(t));
	assert_string_equal(t, "");
}

/* one advice per Snakemake rule and Nextflow process: the highest need of its jobs */
static void test_workflow_advice(void **state)
{
	struct unit_rec units[4] = {};
	struct report rep = {};
	struct wf_advice *w;
	struct job jobs[4];
	char text[1024];
	long n;

	(void)state;
	for (int i = 0; i < 4; i++) {
		job(&jobs[i], "COMPLETED", 1000, (int64_t)(100 + 20 * i) * MIB);
		jobs[i].slurm = 1;
		jobs[i].units = &units[i];
		jobs[i].nunits = 1;
		snprintf(units[i].engine, sizeof(units[i].engine),
			 i < 3 ? "snakemake" : "nextflow");
		snprintf(jobs[i].row.pipeline, sizeof(jobs[i].row.pipeline), "wf");
		snprintf(jobs[i].row.step, sizeof(jobs[i].row.step), "%s",
			 i < 2	  ? "bwa_index"
			 : i == 2 ? "sort"
				  : "MAIN:ALIGN");
	}
	jobs[0].row.elapsed = 600; /* bwa_index's longer job */
	jobs[1].row.cores_per_task = 2.0;
	rep.jobs = jobs;
	rep.n = 4;
	n = wfadvice_build(&rep, &w);
	assert_int_equal(n, 3);
	assert_int_equal(w[0].njobs, 2);
	/* bwa_index: 1.2 x its larger job's 120M peak, the 2 threads of one job, the time of
	 * the other */
	wfadvice_text(w, (size_t)n, &w[0], text, sizeof(text));
	assert_string_equal(text, "snakemake --set-threads bwa_index=2 sort=1 --set-resources "
				  "bwa_index:mem_mb=144 bwa_index:runtime=12 sort:mem_mb=168 "
				  "sort:runtime=2");
	assert_true(wfadvice_same_group(&w[1], &w[0]));
	assert_false(wfadvice_same_group(&w[2], &w[0]));
	wfadvice_text(w, (size_t)n, &w[2], text, sizeof(text));
	assert_string_equal(text,
			    "process {\nwithName: 'MAIN:ALIGN' { cpus = 1; memory = '192 MB'; "
			    "time = '2m' }\n}");
	/* a short buffer: the whole length, as snprintf gives it, never a cut line to paste */
	assert_int_equal(wfadvice_text(w, (size_t)n, &w[0], text, 20), 131);
	assert_int_equal(wfadvice_text(w, (size_t)n, &w[0], NULL, 0), 131);
	free(w);
	/* another user's jobs of a rule of the same name never size this user's */
	jobs[1].uid = 2000;
	n = wfadvice_build(&rep, &w);
	assert_int_equal(n, 4);
	assert_false(wfadvice_same_group(&w[1], &w[0]));
	wfadvice_text(w, (size_t)n, &w[0], text, sizeof(text));
	assert_string_equal(text, "snakemake --set-threads bwa_index=1 sort=1 --set-resources "
				  "bwa_index:mem_mb=120 bwa_index:runtime=12 sort:mem_mb=168 "
				  "sort:runtime=2");
	free(w);
	jobs[1].uid = 0;
	/* a --mem-per-cpu job whose cores are unknown: the task's memory is the node's need,
	 * not one CPU's share of it */
	jobs[3].row.req_mem_per_cpu_mb = 50;
	jobs[3].row.alloc_cpus = 4;
	jobs[3].row.cores_per_task = -1;
	n = wfadvice_build(&rep, &w);
	assert_int_equal(n, 3);
	wfadvice_text(w, (size_t)n, &w[2], text, sizeof(text));
	assert_string_equal(text, "process {\nwithName: 'MAIN:ALIGN' { memory = '192 MB'; "
				  "time = '2m' }\n}");
	free(w);
	/* a step name that is no rule name is never pasted into a command line */
	snprintf(jobs[2].row.step, sizeof(jobs[2].row.step), "sort; rm -rf ~");
	n = wfadvice_build(&rep, &w);
	assert_int_equal(n, 2);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oom_raises_the_limit),
		cmocka_unit_test(test_timeout_raises_the_time),
		cmocka_unit_test(test_mem_per_node),
		cmocka_unit_test(test_mem_per_cpu),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_page_cache_left_out),
		cmocka_unit_test(test_array_one_advice),
		cmocka_unit_test(test_advice_merge),
		cmocka_unit_test(test_workflow_advice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
