/* tracer-jobstat: what no report may ever say, over many generated jobs and runs whose
 * figures are physically possible (a process's CPU within its unit's span times its CPUs;
 * a cgroup's peak at least what its processes held, within its limit): PeakMem is never
 * below the largest MaxRSS (but for shared pages a cgroup held to its limit could not have
 * been charged for), the node's peak never below it either, MemEff never above 100 % of a
 * limit the kernel enforced, CPUEff never above 100 % of the cores the job had, the job's memory
 * advice never below what its steps held at once, and a job's peak never below one of its steps'.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "aggregate.h"
#include "effic.h"
#include "report.h"

#define S 1000000000LL
#define T0 1795320000LL
#define JOBS 3000

static uint64_t seed = 88172645463325252ULL;
static uint64_t rnd(uint64_t n) /* xorshift: the same jobs every run */
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return n ? seed % n : 0;
}

/* one unit as tracerd's "units" reply has it; figures within what its span allows */
static void unit(struct unit_rec *u, int64_t id, int node, int64_t step, int64_t start_ns,
		 int64_t end_ns, int cpus, int64_t job_peak_kb, int64_t limit_mb, int cgroups)
{
	struct json_object *o = json_object_new_object(), *t = json_object_new_object();
	int64_t span = end_ns - start_ns, maxrss = 1024 + (int64_t)rnd(400 * 1024);
	int64_t cpu = (int64_t)((double)span * cpus * (double)rnd(1001) / 1000.0);
	int64_t sampled = rnd(3) ? (int64_t)rnd((uint64_t)maxrss * 2) : 0;

	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "name", json_object_new_string("u"));
	json_object_object_add(o, "kind", json_object_new_string("slurm"));
	json_object_object_add(o, "uid", json_object_new_int(1000));
	json_object_object_add(o, "job_id", json_object_new_int(70));
	json_object_object_add(o, "step_id", json_object_new_int64(step));
	json_object_object_add(o, "task_id", json_object_new_int(0));
	json_object_object_add(o, "alloc_cpus", json_object_new_int(cpus));
	json_object_object_add(o, "alloc_mem_mb", json_object_new_int64(limit_mb));
	json_object_object_add(o, "start_ns", json_object_new_int64(start_ns));
	json_object_object_add(o, "end_ns", json_object_new_int64(end_ns));
	json_object_object_add(o, "state", json_object_new_string("COMPLETED"));
	json_object_object_add(o, "exit_status", json_object_new_int(0));
	/* the step cgroup holds its largest process, within the limit the kernel enforces
	 * (a process's RSS may pass it: shared pages charged to another cgroup); Slurm's cgroup
	 * plugin holds every step of a job, or none */
	if (cgroups) {
		int64_t cg = maxrss + (int64_t)rnd(100 * 1024);

		json_object_object_add(
			o, "cgroup_mem_peak_kb",
			json_object_new_int64(cg < limit_mb * 1024 ? cg : limit_mb * 1024));
	}
	if (job_peak_kb > 0)
		json_object_object_add(o, "job_mem_peak_kb", json_object_new_int64(job_peak_kb));
	json_object_object_add(t, "nprocs", json_object_new_int(1 + (int)rnd(50)));
	json_object_object_add(t, "cpu_ns", json_object_new_int64(cpu));
	json_object_object_add(t, "user_ns", json_object_new_int64(cpu / 2));
	json_object_object_add(t, "sys_ns", json_object_new_int64(cpu - cpu / 2));
	json_object_object_add(t, "maxrss_kb", json_object_new_int64(maxrss));
	if (sampled)
		json_object_object_add(t, "peak_sampled_rss_kb", json_object_new_int64(sampled));
	json_object_object_add(t, "oom_kills", json_object_new_int(0));
	json_object_object_add(o, "totals", t);
	assert_int_equal(unit_from_json(o, node, u), 0);
	json_object_put(o);
}

/* the properties of one resolved row; limit_mb: its job's, per node (one node here); held:
 * a cgroup held it (or, for a job, one of its steps) to that limit */
static void check_row(const struct row *r, int64_t cores, int64_t limit_mb, int held)
{
	double e = row_cpu_eff(r), m = row_mem_eff(r);

	if (r->f.nunits && r->f.maxrss_kb != JS_NONE && r->f.nprocs > 0) {
		/* never below the largest process, but what a cgroup could not have been
		 * charged for (above its limit) */
		int64_t least =
			held && r->f.maxrss_kb > limit_mb * 1024 ? limit_mb * 1024 : r->f.maxrss_kb;

		assert_true(r->peak_mem_kb != JS_NONE);
		if (r->peak_mem_kb < least || r->node_peak_mem_kb < least)
			fail_msg("%s: PeakMem %lld, node %lld, below MaxRSS %lld (limit %lld M)",
				 r->jobid, (long long)r->peak_mem_kb,
				 (long long)r->node_peak_mem_kb, (long long)r->f.maxrss_kb,
				 (long long)limit_mb);
	}
	/* a cgroup held within its limit never shows above 100 % of it */
	if (m >= 0 && held && m > 100.0 + 1e-6)
		fail_msg("%s: MemEff %.2f %% of a limit its cgroup was held to (peak %lld, share "
			 "%lld M, cgroup %lld, maxrss %lld, src %s, kind %d)",
			 r->jobid, m, (long long)r->peak_mem_kb, (long long)r->req_mem_share_mb,
			 (long long)r->f.cgroup_mem_peak_kb, (long long)r->f.maxrss_kb,
			 r->peak_src ? r->peak_src : "-", r->kind);
	if (e >= 0 && cores > 0) {
		if (e > 100.0 * (double)cores / (double)r->alloc_cpus + 1e-6)
			fail_msg("%s: CPUEff %.3f %% of %lld CPUs (cpu %lld ns, wall %lld ns)",
				 r->jobid, e, (long long)r->alloc_cpus, (long long)r->cpu_ns,
				 (long long)r->wall_ns);
	}
}

static void test_generated_jobs(void **state)
{
	(void)state;
	for (int n = 0; n < JOBS; n++) {
		struct unit_rec u[8];
		struct report rep = {};
		int nsteps = 1 + (int)rnd(4), cpus = 1 + (int)rnd(4), nu = 0,
		    nodes = 1 + (int)rnd(2);
		int64_t limit = 100 + (int64_t)rnd(1900); /* --mem, per node */
		int held = 0, cgroups = (int)rnd(2);
		int64_t at = T0 * S + (int64_t)rnd(1000) * S, job_peak = 0;
		struct advice a;
		struct job *j;

		/* steps one after the other or at once, a task on each of the job's nodes, each
		 * with its share of the CPUs (a job's cgroup bounds them all together);
		 * whole-second and sub-second spans */
		for (int s = 0; s < nsteps; s++) {
			int64_t start = at + (int64_t)rnd(3) * S + (int64_t)rnd(S);
			int64_t end =
				start + (rnd(4) ? (int64_t)rnd(40) * S : 0) + 1 + (int64_t)rnd(S);

			for (int node = 0; node < nodes; node++) {
				unit(&u[nu], 100 + nu, node, s == 0 ? (int64_t)STEP_BATCH : s - 1,
				     start, end, cpus, 0, limit, cgroups);
				/* the job's CPUs: of all its nodes, as AllocCPUS counts them */
				u[nu++].alloc_cpus = cpus * nodes;
				/* at most cpus busy at once: each unit's CPU within its share */
				u[nu - 1].t.cpu_ns /= nsteps;
				u[nu - 1].t.user_ns = u[nu - 1].t.cpu_ns / 2;
				u[nu - 1].t.sys_ns = u[nu - 1].t.cpu_ns - u[nu - 1].t.user_ns;
			}
			if (rnd(2))
				at = end; /* the next one after it */
		}
		/* the job cgroup's peak on each node: its steps there at once, within its limit */
		for (int node = 0; rnd(2) && node < nodes; node++) {
			job_peak = 0;
			for (int k = 0; k < nu; k++)
				if (u[k].node == node)
					job_peak += u[k].cgroup_mem_peak_kb != JS_NONE
							    ? u[k].cgroup_mem_peak_kb
							    : u[k].t.maxrss_kb;
			if (job_peak > limit * 1024)
				job_peak = limit * 1024;
			for (int k = 0; k < nu; k++)
				if (u[k].node == node)
					u[k].job_mem_peak_kb = job_peak - (int64_t)rnd(2) * 1024;
		}
		assert_int_equal(report_add_traced_job(&rep, u, (size_t)nu), 0);
		j = &rep.jobs[0];
		for (size_t s = 0; s < j->nsteps; s++)
			held |= j->steps[s].f.cgroup_mem_peak_kb != JS_NONE;
		check_row(&j->row, j->row.alloc_cpus, limit, held || job_peak > 0);
		for (size_t s = 0; s < j->nsteps; s++) {
			check_row(&j->steps[s], j->row.alloc_cpus, limit, held || job_peak > 0);
			/* the job holds each of its steps */
			assert_true(j->row.peak_mem_kb >= j->steps[s].peak_mem_kb);
			assert_true(j->row.node_peak_mem_kb >= j->steps[s].node_peak_mem_kb);
		}
		/* the advice covers the job's peak on its node */
		row_advice(&j->row, &a);
		assert_true(a.mem_mb * 1024 >= j->row.node_peak_mem_kb);
		report_free(&rep);

		/* a traced run: one unit */
		unit(&u[0], 1, 0, (int64_t)STEP_NONE, T0 * S, T0 * S + 1 + (int64_t)rnd(5 * S),
		     cpus, 0, limit, 0);
		assert_int_equal(report_add_local(&rep, &u[0]), 0);
		rep.jobs[0].row.alloc_cpus = cpus;
		check_row(&rep.jobs[0].row, cpus, limit, 0);
		report_free(&rep);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
