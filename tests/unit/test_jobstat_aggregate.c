/* tracer-jobstat: tracerd's units (one per task per node) into step rows and job rows,
 * and job arrays into min/median/max. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aggregate.h"
#include "arrays.h"
#include "fields.h"
#include "convert.h"
#include "daemons.h"
#include "effic.h"
#include "jobids.h"
#include "output.h"
#include "procs.h"
#include "report.h"

#define S 1000000000LL
#define T0 1795320000LL

/* a task unit of job 50 as tracerd's "units" reply has it */
static void unit(struct unit_rec *u, int node, int64_t id, int64_t step, int64_t task,
		 int64_t cpu_s, int64_t maxrss_kb, int64_t sampled_kb, double peak_cores,
		 int64_t cg_kb)
{
	char text[2048];
	struct json_object *o;
	int n = snprintf(
		text, sizeof(text),
		"{\"id\":%lld,\"name\":\"50.%lld\",\"kind\":\"slurm\",\"uid\":0,\"job_id\":50,"
		"\"array_job_id\":0,\"array_task_id\":-1,\"step_id\":%lld,\"task_id\":%lld,"
		"\"job_name\":\"mpi\",\"alloc_cpus\":2,\"alloc_cores\":\"0-1\",\"alloc_mem_mb\":"
		"1000,"
		"\"start_ns\":%lld,\"end_ns\":%lld,\"state\":\"COMPLETED\",\"exit_status\":0,"
		"\"lost_events\":0,\"pipeline\":\"wf\"",
		(long long)id, (long long)step, (long long)step, (long long)task,
		(long long)(T0 * S), (long long)((T0 + 10) * S));

	if (cg_kb)
		n += snprintf(text + n, sizeof(text) - n,
			      ",\"cgroup_cpu_ns\":%lld,\"cgroup_mem_peak_kb\":%lld",
			      (long long)(cpu_s * S), (long long)cg_kb);
	n += snprintf(
		text + n, sizeof(text) - n,
		",\"totals\":{\"nprocs\":3,\"cpu_ns\":%lld,\"user_ns\":%lld,\"sys_ns\":%lld,"
		"\"maxrss_kb\":%lld,\"read_bytes\":100,\"write_bytes\":10,\"rchar\":1000,\"wchar\":"
		"100,"
		"\"oom_kills\":0,\"first_start_ns\":%lld,\"last_end_ns\":%lld,\"sample_rounds\":3",
		(long long)(cpu_s * S), (long long)(cpu_s * S * 3 / 4), (long long)(cpu_s * S / 4),
		(long long)maxrss_kb, (long long)(T0 * S), (long long)((T0 + 10) * S));
	if (sampled_kb)
		n += snprintf(text + n, sizeof(text) - n, ",\"peak_sampled_rss_kb\":%lld",
			      (long long)sampled_kb);
	if (peak_cores >= 0)
		n += snprintf(text + n, sizeof(text) - n, ",\"peak_cores\":%.2f", peak_cores);
	snprintf(text + n, sizeof(text) - n, "}}");
	o = json_tokener_parse(text);
	assert_non_null(o);
	assert_int_equal(unit_from_json(o, node, u), 0);
	json_object_put(o);
}

static void test_from_json_defensive(void **state)
{
	struct unit_rec u;
	struct json_object *o;

	(void)state;
	o = json_tokener_parse(
		"{\"id\":3,\"name\":7,\"job_id\":\"x\",\"totals\":{\"cpu_ns\":\"lots\"}}");
	assert_int_equal(unit_from_json(o, 0, &u), 0);
	assert_string_equal(u.name, "");
	assert_int_equal(u.job_id, JS_NONE);
	assert_true(u.have_totals);
	assert_int_equal(u.t.cpu_ns, JS_NONE);
	assert_true(u.t.peak_cores < 0);
	assert_true(unit_running(&u)); /* no end: still running */
	json_object_put(o);
	/* Slurm's NO_VAL as array task: not an array task */
	o = json_tokener_parse("{\"id\":4,\"array_job_id\":120,\"array_task_id\":4294967294}");
	assert_int_equal(unit_from_json(o, 0, &u), 0);
	assert_int_equal(u.array_task_id, -1);
	json_object_put(o);
	o = json_tokener_parse("{\"name\":\"no id\"}");
	assert_int_equal(unit_from_json(o, 0, &u), -EINVAL);
	json_object_put(o);
	o = json_tokener_parse("[1,2]");
	assert_int_equal(unit_from_json(o, 0, &u), -EINVAL);
	json_object_put(o);
	assert_int_equal(unit_from_json(NULL, 0, &u), -EINVAL);
}

static void test_tasks_one_node(void **state)
{
	struct unit_rec u[2];
	const struct unit_rec *p[2] = { &u[0], &u[1] };
	struct figures f;

	(void)state;
	/* two tasks of step 0 on one node: the step cgroup's counters are the same for both */
	unit(&u[0], 0, 10, 0, 0, 4, 100 * 1024, 150 * 1024, 1.0, 400 * 1024);
	unit(&u[1], 0, 11, 0, 1, 6, 120 * 1024, 160 * 1024, 0.98, 400 * 1024);
	figures_init(&f);
	figures_add_units(&f, p, 2);
	assert_int_equal(f.nunits, 2);
	assert_int_equal(f.ntasks, 2);
	assert_int_equal(f.nnodes, 1);
	assert_int_equal(f.nprocs, 6);
	assert_int_equal(f.cpu_ns, 10 * S);
	assert_int_equal(f.maxrss_kb, 120 * 1024);
	assert_int_equal(f.task_peak_rss_kb, 160 * 1024);
	assert_int_equal(f.cgroup_mem_peak_kb, 400 * 1024); /* not doubled */
	assert_true(f.peak_cores > 1.97 && f.peak_cores < 1.99);
	assert_true(f.task_peak_cores > 0.99 && f.task_peak_cores < 1.01);
	assert_int_equal(f.read_bytes, 200);
	assert_false(f.running);
	assert_int_equal(f.unit_end_ns - f.unit_start_ns, 10 * S);
}

static void test_tasks_two_nodes(void **state)
{
	struct unit_rec u[2];
	const struct unit_rec *p[2] = { &u[0], &u[1] };
	struct figures f;

	(void)state;
	/* one task on each of two nodes: each node's step cgroup counts, summed */
	unit(&u[0], 0, 10, 0, 0, 4, 100 * 1024, 0, -1, 300 * 1024);
	unit(&u[1], 1, 10, 0, 1, 6, 120 * 1024, 0, -1, 350 * 1024);
	figures_init(&f);
	figures_add_units(&f, p, 2);
	assert_int_equal(f.nnodes, 2);
	assert_int_equal(f.cgroup_mem_peak_kb, 650 * 1024);
	assert_true(f.peak_cores < 0); /* no samples */
	assert_int_equal(f.task_peak_rss_kb, JS_NONE);
}

static void test_job_from_units(void **state)
{
	struct unit_rec u[4];
	struct report rep = {};
	struct job *j;
	const struct row *s0, *sb;

	(void)state;
	/* the batch step (8 s CPU, 1 core busy at peak, cgroup 300 MiB), step 0 with two
	 * tasks on two nodes without cgroup counters (sampled 150 and 160 MiB), and the
	 * allocation unit */
	unit(&u[0], 0, 20, STEP_BATCH, 0, 8, 200 * 1024, 250 * 1024, 1.0, 300 * 1024);
	unit(&u[1], 0, 21, 0, 0, 4, 100 * 1024, 150 * 1024, 0.5, 0);
	unit(&u[2], 1, 21, 0, 1, 6, 120 * 1024, 160 * 1024, 0.7, 0);
	unit(&u[3], 0, 19, STEP_NONE, -1, 0, 0, 0, -1, 0);
	u[3].have_totals = 0;
	u[3].alloc_cpus = 0;
	assert_int_equal(report_add_traced_job(&rep, u, 4), 0);
	assert_int_equal(rep.n, 1);
	j = &rep.jobs[0];
	assert_string_equal(j->row.jobid, "50");
	assert_string_equal(j->row.jobname, "mpi");
	assert_int_equal(j->nsteps, 2);
	sb = &j->steps[0];
	s0 = &j->steps[1];
	assert_string_equal(sb->jobid, "50.batch");
	assert_string_equal(s0->jobid, "50.0");
	assert_int_equal(s0->ntasks, 2);
	assert_int_equal(s0->nnodes, 2);
	/* step rows: their units' sums */
	assert_int_equal(sb->cpu_ns, 8 * S);
	assert_int_equal(s0->cpu_ns, 10 * S);
	assert_int_equal(s0->f.nprocs, 6);
	/* peaks: the batch step's cgroup; step 0's largest sampled task, times its 2 tasks */
	assert_int_equal(sb->peak_mem_kb, 300 * 1024);
	assert_string_equal(sb->peak_src, "cgroup");
	assert_int_equal(s0->peak_mem_kb, 320 * 1024);
	assert_string_equal(s0->peak_src, "sampled");
	/* the job: CPU summed over steps, peak memory its steps' added (they ran at once, in
	 * one job cgroup), cores per task the most any step needed */
	assert_int_equal(j->row.cpu_ns, 18 * S);
	assert_int_equal(j->row.f.nprocs, 9);
	assert_int_equal(j->row.peak_mem_kb, 620 * 1024);
	assert_string_equal(j->row.peak_src, "steps");
	assert_int_equal(j->row.node_peak_mem_kb, 300 * 1024 + 160 * 1024);
	assert_true(j->row.cores_per_task > 0.99 && j->row.cores_per_task < 1.01);
	assert_int_equal(j->row.alloc_cpus, 2);
	/* the plugin's memory is per node (S_STEP_NONE_MEM): ReqMem the job's over its 2 nodes */
	assert_int_equal(j->row.req_mem_node_mb, 1000);
	assert_int_equal(j->row.req_mem_mb, 2000);
	assert_int_equal(j->row.elapsed, 10);
	assert_string_equal(j->row.state, "COMPLETED");
	assert_string_equal(j->row.pipeline, "wf");
	report_free(&rep);

	/* one after the other, their peaks are not added: the job's is the larger */
	unit(&u[0], 0, 20, STEP_BATCH, 0, 8, 200 * 1024, 250 * 1024, 1.0, 300 * 1024);
	unit(&u[1], 0, 21, 0, 0, 4, 100 * 1024, 150 * 1024, 0.5, 0);
	u[1].start_ns += 20 * S;
	u[1].end_ns += 20 * S;
	assert_int_equal(report_add_traced_job(&rep, u, 2), 0);
	assert_int_equal(rep.jobs[0].row.peak_mem_kb, 300 * 1024);
	report_free(&rep);

	/* at once but on two nodes: the job's total adds them, its highest node holds one */
	unit(&u[0], 0, 20, STEP_BATCH, 0, 8, 200 * 1024, 250 * 1024, 1.0, 300 * 1024);
	unit(&u[1], 1, 21, 0, 0, 4, 100 * 1024, 150 * 1024, 0.5, 280 * 1024);
	assert_int_equal(report_add_traced_job(&rep, u, 2), 0);
	assert_int_equal(rep.jobs[0].row.peak_mem_kb, 580 * 1024);
	assert_int_equal(rep.jobs[0].row.node_peak_mem_kb, 300 * 1024);
	assert_int_equal(rep.jobs[0].row.f.node_mem_peak_node, 0);
	report_free(&rep);

	/* the job cgroup's own peak, where a task's end read it, is the job's on its node */
	unit(&u[0], 0, 20, STEP_BATCH, 0, 8, 200 * 1024, 250 * 1024, 1.0, 300 * 1024);
	unit(&u[1], 0, 21, 0, 0, 4, 100 * 1024, 150 * 1024, 0.5, 0);
	u[0].job_mem_peak_kb = 410 * 1024;
	u[1].job_mem_peak_kb = 380 * 1024; /* read earlier: the job's peak came later */
	assert_int_equal(report_add_traced_job(&rep, u, 2), 0);
	assert_int_equal(rep.jobs[0].row.peak_mem_kb, 410 * 1024);
	assert_int_equal(rep.jobs[0].row.node_peak_mem_kb, 410 * 1024);
	assert_string_equal(rep.jobs[0].row.peak_src, "jobcgroup");
	report_free(&rep);
}

static void test_local_run(void **state)
{
	struct unit_rec u;
	struct report rep = {};
	struct row *r;

	(void)state;
	unit(&u, 0, 99, STEP_NONE, -1, 9, 50 * 1024, 0, -1, 0);
	snprintf(u.kind, sizeof(u.kind), "local");
	snprintf(u.name, sizeof(u.name), "align");
	u.job_id = 0;
	u.alloc_cpus = u.alloc_mem_mb = JS_NONE;
	assert_int_equal(report_add_local(&rep, &u), 0);
	r = &rep.jobs[0].row;
	assert_int_equal(r->kind, ROW_LOCAL);
	assert_string_equal(r->jobid, "r99"); /* a run's id, never a Slurm job's */
	assert_string_equal(r->jobname, "align");
	assert_int_equal(r->cpu_ns, 9 * S);
	assert_int_equal(r->peak_mem_kb, 50 * 1024); /* only process RSS known */
	assert_string_equal(r->peak_src, "maxrss");
	/* 9 s of CPU in 10 s of wall: one core */
	assert_true(r->cores_per_task > 0.89 && r->cores_per_task < 0.91);
	assert_int_equal(r->alloc_cpus, JS_NONE);
	assert_true(row_cpu_eff(r) < 0); /* nothing allocated to compare with */
	report_free(&rep);
}

static void test_array_stats(void **state)
{
	double v[] = { 5, 1, 3 }, w[] = { 4, 1, 3, 2 }, mn, md, mx;
	struct report rep = {};
	struct row *rows;
	struct array_stats *st;
	struct cellctx cc = { .units = -1 };
	char b[128];

	(void)state;
	arrays_stats(v, 3, &mn, &md, &mx);
	assert_true(mn == 1 && md == 3 && mx == 5);
	arrays_stats(w, 4, &mn, &md, &mx);
	assert_true(mn == 1 && md == 2.5 && mx == 4);
	/* three tasks of array 40, elapsed 10, 20 and 60 s */
	for (int t = 1; t <= 3; t++) {
		struct job *j;

		rep.jobs = realloc(rep.jobs, (rep.n + 1) * sizeof(*rep.jobs));
		j = &rep.jobs[rep.n++];
		memset(j, 0, sizeof(*j));
		row_init(&j->row, ROW_JOB);
		j->array_job_id = 40;
		j->array_task_id = t;
		snprintf(j->row.state, sizeof(j->row.state), t == 3 ? "FAILED" : "COMPLETED");
		j->row.elapsed = t == 3 ? 60 : t * 10;
	}
	assert_int_equal(arrays_build(&rep, &rows, &st), 1);
	assert_string_equal(rows[0].jobid, "40_[1-3]");
	assert_int_equal(st[0].njobs, 3);
	assert_string_equal(st[0].states, "FAILED:1,COMPLETED:2"); /* failures lead */
	cell_text(F_ELAPSED, &rows[0], &cc, b, sizeof(b));
	assert_string_equal(b, "00:00:10/00:00:20/00:01:00");
	{
		static const char *const jobs[] = { "COMPLETED",     "CANCELLED by 0", "FAILED",
						    "OUT_OF_MEMORY", "TIMEOUT",	       "TIMEOUT",
						    "COMPLETED",     "TIMEOUT" };
		struct state_counts sc = { 0 };

		for (size_t i = 0; i < sizeof(jobs) / sizeof(*jobs); i++)
			arrays_count_state(&sc, jobs[i]);
		arrays_states_text(&sc, b, sizeof(b));
		assert_string_equal(b,
				    "OUT_OF_MEMORY:1,FAILED:1,TIMEOUT:3,CANCELLED:1,COMPLETED:2");
		/* whole entries only where the text is short: never a cut count */
		for (int i = 0; i < 1000; i++)
			arrays_count_state(&sc, "COMPLETED");
		arrays_states_text(&sc, b, 40);
		assert_string_equal(b, "OUT_OF_MEMORY:1,FAILED:1,TIMEOUT:3,...");
		/* more distinct states than are kept: the rest counted as other, last */
		memset(&sc, 0, sizeof(sc));
		for (int i = STATE_KINDS + 1; i >= 0; i--) {
			char name[16];

			snprintf(name, sizeof(name), "S%02d", i);
			arrays_count_state(&sc, name);
		}
		arrays_count_state(&sc, "FAILED");
		arrays_states_text(&sc, b, sizeof(b));
		assert_int_equal(strncmp(b, "S02:1,S03:1,", 12), 0);
		assert_non_null(strstr(b, ",S17:1,other:3"));
		assert_int_equal(sc.n, STATE_KINDS);
	}
	cell_text(F_NPROCS, &rows[0], &cc, b, sizeof(b));
	assert_string_equal(b, "---");
	cell_text(F_NJOBS, &rows[0], &cc, b, sizeof(b));
	assert_string_equal(b, "3");
	free(rows);
	free(st);
	report_free(&rep);
}

static void proc(struct proc_rec *p, const char *json)
{
	struct json_object *o = json_tokener_parse(json);

	assert_non_null(o);
	assert_int_equal(proc_from_json(o, p), 0);
	json_object_put(o);
}

static void test_processes(void **state)
{
	struct proc_rec p[5];
	long parent[5];

	(void)state;
	/* the tool: tracerd's identity when given, else argv[0]'s base name, else comm */
	proc(&p[0], "{\"pid\":10,\"ppid\":1,\"start_ns\":100,\"comm\":\"python3\",\"argv\":["
		    "\"python3\",\"x.py\"],"
		    "\"tool\":\"samtools\",\"subcommand\":\"sort\",\"status\":0,\"flags\":0}");
	assert_string_equal(p[0].tool, "samtools sort");
	assert_string_equal(p[0].cmd, "python3 x.py");
	proc(&p[1], "{\"pid\":11,\"ppid\":10,\"start_ns\":200,\"comm\":\"bash\",\"argv\":[\"-"
		    "bash\"],\"flags\":4}");
	assert_string_equal(p[1].tool, "bash");
	assert_string_equal(p[1].cmd, "-bash..."); /* argv truncated by tracerd */
	proc(&p[2], "{\"pid\":12,\"ppid\":11,\"start_ns\":300,\"comm\":\"gzip\",\"argv\":[\"/usr/"
		    "bin/gzip\",\"-1\"]}");
	assert_string_equal(p[2].tool, "gzip");
	proc(&p[3], "{\"pid\":11,\"ppid\":10,\"start_ns\":400,\"comm\":\"sle\\nep\"}");
	assert_string_equal(p[3].tool, "sle\nep"); /* no argv: comm, escaped when printed */
	assert_int_equal(p[3].status, JS_NONE);
	/* pid 11 was used twice: a child started at 450 belongs to the second one */
	proc(&p[4], "{\"pid\":13,\"ppid\":11,\"start_ns\":450,\"comm\":\"true\"}");
	assert_int_equal(procs_parents(p, 5, parent), 0);
	assert_int_equal(parent[0], -1);
	assert_int_equal(parent[1], 0);
	assert_int_equal(parent[2], 1);
	assert_int_equal(parent[3], 0);
	assert_int_equal(parent[4], 3);
	for (int i = 0; i < 5; i++)
		free(p[i].cmd);
}

/* PIDs of two nodes are different processes: a parent is found on the child's own node; a
 * live process (tracerd's "running") is RUNNING, ended ones by their wait status */
static void test_processes_nodes_and_states(void **state)
{
	struct proc_rec p[4];
	long parent[4];

	(void)state;
	proc(&p[0], "{\"pid\":10,\"ppid\":1,\"start_ns\":100,\"comm\":\"sh\",\"status\":256}");
	proc(&p[1], "{\"pid\":10,\"ppid\":1,\"start_ns\":50,\"comm\":\"sh\",\"running\":true}");
	proc(&p[2], "{\"pid\":11,\"ppid\":10,\"start_ns\":200,\"comm\":\"a\",\"status\":9}");
	proc(&p[3],
	     "{\"pid\":12,\"ppid\":10,\"start_ns\":300,\"comm\":\"b\",\"status\":0,\"flags\":8}");
	strcpy(p[0].node, "n1");
	strcpy(p[1].node, "n2");
	strcpy(p[2].node, "n2");
	strcpy(p[3].node, "n1");
	assert_int_equal(procs_parents(p, 4, parent), 0);
	assert_int_equal(parent[0], -1);
	assert_int_equal(parent[1], -1);
	assert_int_equal(parent[2], 1); /* n2's pid 10, though n1's started later and closer */
	assert_int_equal(parent[3], 0);
	assert_string_equal(procs_state(&p[0]), "FAILED");
	assert_string_equal(procs_state(&p[1]), "RUNNING");
	assert_int_equal(p[1].running, 1);
	assert_int_equal(p[0].running, 0);
	assert_string_equal(procs_state(&p[2]), "CANCELLED");
	assert_string_equal(procs_state(&p[3]), "OUT_OF_MEMORY");
	p[3].flags = 0;
	assert_string_equal(procs_state(&p[3]), "COMPLETED");
	p[3].status = JS_NONE;
	assert_string_equal(procs_state(&p[3]), "");
	for (int i = 0; i < 4; i++)
		free(p[i].cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_json_defensive),
		cmocka_unit_test(test_tasks_one_node),
		cmocka_unit_test(test_tasks_two_nodes),
		cmocka_unit_test(test_job_from_units),
		cmocka_unit_test(test_local_run),
		cmocka_unit_test(test_array_stats),
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_processes_nodes_and_states),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
