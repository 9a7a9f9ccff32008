/* Compute: the rows of jobs, steps and traced runs from what collect gathered. */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "convert.h"
#include "effic.h"
#include "jobids.h"
#include "procs.h" /* the layout of the process records it frees */
#include "report.h"

void sjob_id(const struct sjob *j, char *out, size_t len)
{
	if (j->array_task_id != SJ_NO_TASK && j->array_job_id)
		snprintf(out, len, "%u_%u", j->array_job_id, j->array_task_id);
	else if (j->array_job_id && j->array_task_str[0])
		snprintf(out, len, "%u_%s", j->array_job_id, j->array_task_str);
	else if (j->het_job_id && j->het_job_offset != SJ_NO_TASK)
		snprintf(out, len, "%u+%u", j->het_job_id, j->het_job_offset);
	else
		snprintf(out, len, "%u", j->job_id);
}

static struct job *new_job(struct report *rep)
{
	struct job *j;

	if (rep->n == rep->cap) {
		struct job *nv =
			realloc(rep->jobs, (rep->cap = rep->cap ? 2 * rep->cap : 16) * sizeof(*nv));

		if (!nv)
			return NULL;
		rep->jobs = nv;
	}
	j = &rep->jobs[rep->n++];
	memset(j, 0, sizeof(*j));
	j->array_task_id = -1;
	return j;
}

static struct row *new_step(struct job *j)
{
	struct row *nv = realloc(j->steps, (j->nsteps + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	j->steps = nv;
	row_init(&j->steps[j->nsteps], ROW_STEP);
	return &j->steps[j->nsteps++];
}

static void user_name(char *out, size_t len, int64_t uid)
{
	struct passwd *pw = uid >= 0 && uid != JS_NONE ? getpwuid((uid_t)uid) : NULL;

	if (pw)
		snprintf(out, len, "%s", pw->pw_name);
	else if (uid != JS_NONE)
		snprintf(out, len, "%" PRId64, uid);
}

/* labels every unit of the row carries (the first non-empty one) */
static void labels_from(struct row *r, const struct unit_rec *const *u, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!r->pipeline[0] && u[i]->pipeline[0])
			snprintf(r->pipeline, sizeof(r->pipeline), "%s", u[i]->pipeline);
		if (!r->run[0] && u[i]->run[0])
			snprintf(r->run, sizeof(r->run), "%s", u[i]->run);
		if (!r->step[0] && u[i]->step_name[0])
			snprintf(r->step, sizeof(r->step), "%s", u[i]->step_name);
		if (!r->wildcards[0] && u[i]->wildcards[0])
			snprintf(r->wildcards, sizeof(r->wildcards), "%s", u[i]->wildcards);
		if (!r->tag[0] && u[i]->tag[0])
			snprintf(r->tag, sizeof(r->tag), "%s", u[i]->tag);
		if (!r->alloc_cores[0] && u[i]->alloc_cores[0])
			snprintf(r->alloc_cores, sizeof(r->alloc_cores), "%s", u[i]->alloc_cores);
	}
}

/* the units with this step id (STEP_NONE: the allocation unit) */
static size_t units_of_step(const struct job *j, int64_t step, const struct unit_rec **out,
			    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < j->nunits && n < max; i++)
		if (j->units[i].step_id == step)
			out[n++] = &j->units[i];
	return n;
}

size_t report_step_units(const struct job *j, const struct row *s, size_t *idx, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < j->nunits && n < max; i++)
		if (s->kind == ROW_LOCAL || j->units[i].step_id == s->step_id)
			idx[n++] = i;
	return n;
}

static void step_figures(struct job *j, struct row *r)
{
	const struct unit_rec **u = malloc((j->nunits + 1) * sizeof(*u));
	size_t n;

	if (!u)
		return;
	n = units_of_step(j, r->step_id, u, j->nunits);
	figures_add_units(&r->f, u, n);
	labels_from(r, u, n);
	free(u);
}

static void step_jobid(const struct job *j, struct row *r, uint32_t step)
{
	char buf[16];

	snprintf(r->jobid, sizeof(r->jobid), "%.100s.%.20s", j->row.jobid,
		 slurm_step_name(step, buf, sizeof(buf)));
}

static int has_step_row(const struct job *j, int64_t step)
{
	for (size_t i = 0; i < j->nsteps; i++)
		if (j->steps[i].step_id == step)
			return 1;
	return 0;
}

/* step rows for units whose step the accounting does not list (yet) */
static int steps_from_units(struct job *j)
{
	for (size_t i = 0; i < j->nunits; i++) {
		const struct unit_rec *u = &j->units[i];
		struct row *r;

		if (u->step_id == JS_NONE || u->step_id == (int64_t)STEP_NONE ||
		    has_step_row(j, u->step_id))
			continue;
		if (!(r = new_step(j)))
			return -ENOMEM;
		r->step_id = u->step_id;
		step_jobid(j, r, (uint32_t)u->step_id);
		snprintf(r->state, sizeof(r->state), "%s", u->state);
		r->alloc_cpus = u->alloc_cpus > 0 ? u->alloc_cpus : JS_NONE;
		if (u->step_id == (int64_t)STEP_BATCH)
			snprintf(r->jobname, sizeof(r->jobname), "batch");
	}
	return 0;
}

int report_add_slurm(struct report *rep, const struct sjob *sj, struct unit_rec *units,
		     size_t nunits, const char *missing)
{
	struct job *j = new_job(rep);
	struct row *r;
	unsigned base;
	int err;

	if (!j) {
		free(units);
		return -ENOMEM;
	}
	j->units = units;
	j->nunits = nunits;
	snprintf(j->missing, sizeof(j->missing), "%s", missing);
	j->slurm = 1;
	j->uid = sj->uid;
	j->array_job_id = sj->array_task_id != SJ_NO_TASK ? sj->array_job_id : 0;
	j->array_task_id = sj->array_task_id != SJ_NO_TASK ? (int64_t)sj->array_task_id : -1;
	r = &j->row;
	row_init(r, ROW_JOB);
	sjob_id(sj, r->jobid, sizeof(r->jobid));
	snprintf(r->jobname, sizeof(r->jobname), "%s", sj->name);
	snprintf(r->user, sizeof(r->user), "%s", sj->user);
	conv_job_state(r->state, sizeof(r->state), sj->state, sj->requid);
	snprintf(r->nodelist, sizeof(r->nodelist), "%s", sj->nodes);
	snprintf(r->partition, sizeof(r->partition), "%s", sj->partition);
	snprintf(r->account, sizeof(r->account), "%s", sj->account);
	snprintf(r->qos, sizeof(r->qos), "%s", sj->qos);
	r->submit = sj->submit;
	/* sacct's Reserved: from eligible to start (to now while pending) */
	if (sj->eligible > 0)
		r->reserved = (sj->start > 0 ? sj->start : (int64_t)time(NULL)) - sj->eligible;
	r->nnodes = sj->nnodes;
	r->start = sj->start;
	r->end = sj->end;
	r->elapsed = sj->elapsed;
	r->timelimit = sj->timelimit;
	r->alloc_cpus = sj->alloc_cpus == JS_NONE ? 0 : sj->alloc_cpus;
	r->req_mem_mb = sj->req_mem_mb;
	r->req_mem_node_mb = sj->req_mem_node_mb;
	r->req_mem_per_cpu_mb = sj->req_mem_per_cpu_mb;
	r->exit_status = sj->exitcode;
	base = sj->state & 0xff;
	r->running = base == 0 || base == 1 || base == 2; /* pending, running, suspended */
	r->slurm_cpu_us = sj->tot_cpu_us;
	r->slurm_user_us = sj->user_cpu_us;
	r->slurm_sys_us = sj->sys_cpu_us;
	units_fill_labels(j->units, j->nunits);
	if (sj->step_only) { /* the other steps' units are not asked for */
		size_t k = 0;

		for (size_t i = 0; i < j->nunits; i++)
			for (size_t s = 0; s < sj->nsteps; s++)
				if (j->units[i].step_id == (int64_t)sj->steps[s].step_id) {
					j->units[k++] = j->units[i];
					break;
				}
		j->nunits = k;
		j->step_only = 1;
	}
	for (size_t i = 0; i < sj->nsteps; i++) {
		const struct sstep *s = &sj->steps[i];
		struct row *sr = new_step(j);

		if (!sr)
			return -ENOMEM;
		sr->step_id = s->step_id;
		step_jobid(j, sr, s->step_id);
		memcpy(sr->account, r->account, sizeof(sr->account)); /* as sacct shows steps */
		snprintf(sr->jobname, sizeof(sr->jobname), "%s", s->name);
		conv_job_state(sr->state, sizeof(sr->state), s->state, s->requid);
		snprintf(sr->nodelist, sizeof(sr->nodelist), "%s", s->nodes);
		sr->nnodes = s->nnodes;
		sr->ntasks = s->ntasks;
		sr->start = s->start;
		sr->end = s->end;
		sr->elapsed = s->elapsed;
		sr->alloc_cpus = s->alloc_cpus == JS_NONE ? 0 : s->alloc_cpus;
		sr->exit_status = s->exitcode;
		sr->running = (s->state & 0xff) <= 2;
		sr->slurm_cpu_us = s->tot_cpu_us;
		sr->slurm_user_us = s->user_cpu_us;
		sr->slurm_sys_us = s->sys_cpu_us;
	}
	if ((err = steps_from_units(j)) < 0)
		return err;
	for (size_t i = 0; i < j->nsteps; i++)
		step_figures(j, &j->steps[i]);
	report_resolve(j);
	return 0;
}

static int64_t secs(int64_t ns)
{
	return ns == JS_NONE || ns <= 0 ? 0 : ns / 1000000000;
}

static int64_t elapsed_of(int64_t start_ns, int64_t end_ns)
{
	if (start_ns == JS_NONE || start_ns <= 0)
		return JS_NONE;
	if (end_ns == JS_NONE || end_ns <= 0)
		end_ns = (int64_t)time(NULL) * 1000000000;
	return (end_ns - start_ns + 500000000) / 1000000000;
}

int report_add_traced_job(struct report *rep, const struct unit_rec *units, size_t n)
{
	const struct unit_rec *alloc = NULL;
	struct job *j;
	struct row *r;
	int err;

	if (!n)
		return 0;
	if (!(j = new_job(rep)))
		return -ENOMEM;
	j->units = malloc(n * sizeof(*units));
	if (!j->units)
		return -ENOMEM;
	memcpy(j->units, units, n * sizeof(*units));
	j->nunits = n;
	units_fill_labels(j->units, j->nunits);
	j->uid = units[0].uid;
	r = &j->row;
	row_init(r, ROW_JOB);
	for (size_t i = 0; i < n; i++) {
		if (units[i].step_id == (int64_t)STEP_NONE && !alloc)
			alloc = &units[i];
		if (units[i].array_job_id > 0 && units[i].array_task_id >= 0) {
			j->array_job_id = units[i].array_job_id;
			j->array_task_id = units[i].array_task_id;
		}
		if (units[i].alloc_cpus > r->alloc_cpus)
			r->alloc_cpus = units[i].alloc_cpus;
		if (units[i].alloc_mem_mb > r->req_mem_mb)
			r->req_mem_mb = r->req_mem_node_mb = units[i].alloc_mem_mb;
		if (!r->jobname[0])
			snprintf(r->jobname, sizeof(r->jobname), "%s", units[i].job_name);
		/* as the job's environment gave them to tracerd */
		if (!r->account[0])
			snprintf(r->account, sizeof(r->account), "%s", units[i].account);
		if (!r->partition[0])
			snprintf(r->partition, sizeof(r->partition), "%s", units[i].partition);
	}
	if (j->array_task_id >= 0)
		snprintf(r->jobid, sizeof(r->jobid), "%" PRId64 "_%" PRId64, j->array_job_id,
			 j->array_task_id);
	else
		snprintf(r->jobid, sizeof(r->jobid), "%" PRId64, units[0].job_id);
	user_name(r->user, sizeof(r->user), j->uid);
	if ((err = steps_from_units(j)) < 0)
		return err;
	for (size_t i = 0; i < j->nsteps; i++) {
		struct row *s = &j->steps[i];

		step_figures(j, s);
		s->start = secs(s->f.unit_start_ns);
		s->end = secs(s->f.unit_end_ns);
		s->elapsed = elapsed_of(s->f.unit_start_ns, s->f.unit_end_ns);
		s->running = s->f.running;
		s->ntasks = s->f.ntasks;
		s->nnodes = s->f.nnodes;
	}
	{
		struct figures all;
		const struct unit_rec **u = malloc(n * sizeof(*u));

		if (!u)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			u[i] = &units[i];
		figures_init(&all);
		figures_add_units(&all, u, n);
		free(u);
		r->start = secs(alloc ? alloc->start_ns : all.unit_start_ns);
		r->end = secs(alloc ? (unit_running(alloc) ? 0 : alloc->end_ns) : all.unit_end_ns);
		r->elapsed = alloc ? elapsed_of(alloc->start_ns,
						unit_running(alloc) ? JS_NONE : alloc->end_ns)
				   : elapsed_of(all.unit_start_ns, all.unit_end_ns);
		r->running = alloc ? unit_running(alloc) : all.running;
		r->nnodes = all.nnodes;
		if (r->req_mem_node_mb != JS_NONE &&
		    all.nnodes > 1) /* ReqMem is the job's, over its nodes */
			r->req_mem_mb = r->req_mem_node_mb * all.nnodes;
		snprintf(r->state, sizeof(r->state), "%s",
			 alloc	       ? alloc->state
			 : all.running ? "RUNNING"
				       : "COMPLETED");
		r->exit_status = alloc ? alloc->exit_status : JS_NONE;
	}
	report_resolve(j);
	return 0;
}

int report_add_local(struct report *rep, const struct unit_rec *u)
{
	struct job *j = new_job(rep);
	const struct unit_rec *p = u;
	struct row *r;

	if (!j)
		return -ENOMEM;
	j->units = malloc(sizeof(*u));
	if (!j->units)
		return -ENOMEM;
	j->units[0] = *u;
	j->nunits = 1;
	j->uid = u->uid;
	r = &j->row;
	row_init(r, ROW_LOCAL);
	snprintf(r->jobid, sizeof(r->jobid), "r%" PRId64, u->id); /* its name is JobName */
	snprintf(r->jobname, sizeof(r->jobname), "%s", u->step_name[0] ? u->step_name : u->name);
	user_name(r->user, sizeof(r->user), u->uid);
	snprintf(r->state, sizeof(r->state), "%s", u->state);
	r->start = secs(u->start_ns);
	r->end = unit_running(u) ? 0 : secs(u->end_ns);
	r->elapsed = elapsed_of(u->start_ns, unit_running(u) ? JS_NONE : u->end_ns);
	r->running = unit_running(u);
	r->exit_status = u->exit_status;
	r->ntasks = 1;
	if (u->alloc_cpus > 0)
		r->alloc_cpus = u->alloc_cpus;
	if (u->alloc_mem_mb > 0)
		r->req_mem_mb = r->req_mem_node_mb = u->alloc_mem_mb;
	figures_add_units(&r->f, &p, 1);
	labels_from(r, &p, 1);
	report_resolve(j);
	return 0;
}

/* The row's wall time to the nanosecond: its finished units' span by tracer's clock (their
 * processes ran within it), else Slurm's Elapsed, in whole seconds */
static int64_t wall_ns(const struct row *r)
{
	if (r->f.nunits && !r->f.running && r->f.unit_start_ns != JS_NONE &&
	    r->f.unit_end_ns != JS_NONE && r->f.unit_end_ns > r->f.unit_start_ns)
		return r->f.unit_end_ns - r->f.unit_start_ns;
	return r->elapsed == JS_NONE || r->elapsed < 0 ? JS_NONE : r->elapsed * 1000000000;
}

/* v, at most limit_mb (unknown: no limit), at least floor */
static int64_t at_most(int64_t v, int64_t limit_mb, int64_t floor)
{
	if (v == JS_NONE || limit_mb == JS_NONE || limit_mb <= 0 || v <= limit_mb * 1024)
		return v;
	return floor != JS_NONE && floor > limit_mb * 1024 ? floor : limit_mb * 1024;
}

/* a step or run row from its own figures */
static void resolve_leaf(struct row *r, int64_t job_req_mb, int64_t job_nnodes)
{
	int64_t w = r->wall_ns = wall_ns(r);

	if (r->f.nunits) {
		r->cpu_ns = r->f.cpu_ns;
		r->user_ns = r->f.user_ns;
		r->sys_ns = r->f.sys_ns;
	} else if (r->slurm_cpu_us != JS_NONE) {
		r->cpu_ns = r->slurm_cpu_us * 1000;
		r->user_ns = r->slurm_user_us * 1000;
		r->sys_ns = r->slurm_sys_us * 1000;
	}
	r->peak_mem_kb = eff_peak_memory(&r->f, r->ntasks, &r->peak_src);
	r->own_peak_kb = eff_own_peak(&r->f, r->ntasks);
	r->node_peak_mem_kb = eff_node_peak_memory(&r->f, r->ntasks, r->nnodes);
	r->cores_per_task =
		r->f.nunits ? eff_cores(&r->f, r->f.cpu_ns, w, r->ntasks, &r->cores_src) : -1;
	if (r->f.peak_cores >= 0)
		r->peak_cores = r->f.peak_cores;
	else if (r->f.nunits && w != JS_NONE && w > 0)
		r->peak_cores = (double)r->f.cpu_ns / (double)w;
	r->req_mem_share_mb = job_req_mb;
	if (job_req_mb != JS_NONE && job_nnodes != JS_NONE && job_nnodes > 1 &&
	    r->nnodes != JS_NONE && r->nnodes > 0 && r->nnodes < job_nnodes)
		r->req_mem_share_mb = job_req_mb * r->nnodes / job_nnodes;
}

/* A step's time span in ns, by its units (a step with a figure has units); an end not yet
 * known is open. */
static void step_span(const struct row *s, int64_t *from, int64_t *to)
{
	*from = s->f.unit_start_ns != JS_NONE ? s->f.unit_start_ns : 0;
	*to = !s->running && !s->f.running && s->f.unit_end_ns != JS_NONE ? s->f.unit_end_ns
									  : INT64_MAX;
}

/* Did step s run on node (an index of the report's nodes; -1: any)? */
static int step_on_node(const struct job *j, const struct row *s, int node)
{
	for (size_t i = 0; node >= 0 && i < j->nunits; i++)
		if (j->units[i].node == node && j->units[i].step_id == s->step_id)
			return 1;
	return node < 0;
}

struct span_event {
	int64_t at, delta;
};

static int by_time(const void *a, const void *b)
{
	const struct span_event *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->delta < y->delta ? 1 : x->delta > y->delta ? -1 : 0; /* starts first */
}

/* The most of a figure (at offset off in struct row) held by the job's steps at once, of
 * those that ran on node (-1: all): their peaks added over the steps whose spans overlap
 * (steps that ran at once on a node hold their memory at once, in one job cgroup). An upper
 * bound, as each step's peak may come at another moment; JS_NONE when no step has it. */
static int64_t steps_at_once(const struct job *j, size_t off, int node)
{
	struct span_event *ev = malloc((2 * j->nsteps + 1) * sizeof(*ev));
	int64_t now = 0, most = JS_NONE;
	size_t n = 0;

	if (!ev)
		return JS_NONE;
	for (size_t i = 0; i < j->nsteps; i++) {
		int64_t v = *(const int64_t *)((const char *)&j->steps[i] + off), from, to;

		if (v == JS_NONE || v <= 0 || !step_on_node(j, &j->steps[i], node))
			continue;
		step_span(&j->steps[i], &from, &to);
		ev[n++] = (struct span_event){ from, v };
		ev[n++] = (struct span_event){ to, -v };
	}
	qsort(ev, n, sizeof(*ev), by_time);
	for (size_t i = 0; i < n; i++) {
		now += ev[i].delta;
		fig_max(&most, now);
	}
	free(ev);
	return most;
}

#define JOB_NODES_MAX 256
/* The nodes the job's units ran on (indexes of the report's nodes), at most max. */
static size_t job_nodes(const struct job *j, int *nodes, size_t max)
{
	size_t nn = 0, k;

	for (size_t i = 0; i < j->nunits; i++) {
		for (k = 0; k < nn && nodes[k] != j->units[i].node; k++)
			;
		if (k == nn && nn < max)
			nodes[nn++] = j->units[i].node;
	}
	return nn;
}

/* The job cgroup's own peak on each of its nodes[nn] (each task's end reads it): the highest
 * node's, and their sum over the nodes, JS_NONE when Slurm gave none. Returns the nodes that
 * had one. */
static size_t job_cgroup_peaks(const struct job *j, const int *nodes, size_t nn, int64_t *node_peak,
			       int64_t *sum, int *node)
{
	size_t measured = 0;

	*node_peak = *sum = JS_NONE;
	for (size_t k = 0; k < nn; k++) {
		int64_t peak = JS_NONE;

		for (size_t i = 0; i < j->nunits; i++)
			if (j->units[i].node == nodes[k] && j->units[i].job_mem_peak_kb > 0)
				fig_max(&peak, j->units[i].job_mem_peak_kb);
		if (peak == JS_NONE)
			continue;
		measured++;
		fig_sum(sum, peak);
		if (peak > *node_peak) {
			*node_peak = peak;
			*node = nodes[k];
		}
	}
	return measured;
}

/* Was the job held to its --mem by Slurm's cgroup plugin (a step or the job measured in its
 * cgroup: ConstrainRAMSpace holds every step of a node's jobs, or none)? */
static int job_held(const struct job *j)
{
	for (size_t i = 0; i < j->nsteps; i++)
		if (j->steps[i].f.cgroup_mem_peak_kb > 0)
			return 1;
	for (size_t i = 0; i < j->nunits; i++)
		if (j->units[i].job_mem_peak_kb > 0)
			return 1;
	return 0;
}

/* A cgroup is charged only for the pages it was the first to touch: a process's RSS also
 * counts shared file pages (an interpreter's libraries) charged to another cgroup. So where
 * a cgroup held a row to a limit, a figure from RSS goes no higher than that limit (a cgroup
 * measured above it, where it was not enforced, keeps its own peak). */
static void hold_to_limit(struct row *r, int64_t limit_mb, int64_t node_limit_mb, int64_t cgroup,
			  int64_t node_cgroup)
{
	r->peak_mem_kb = at_most(r->peak_mem_kb, limit_mb, cgroup);
	r->node_peak_mem_kb = at_most(r->node_peak_mem_kb, node_limit_mb, node_cgroup);
}

/* The job's memory: what its cgroup held on each node (what --mem limits, all its steps at
 * once), else its steps' peaks added where they ran at once on one node; never below one
 * step's. held: job_held. */
static void job_memory(struct job *j, int held)
{
	struct row *r = &j->row;
	int64_t node_peak = JS_NONE, sum, jc_node, jc_sum;
	int node = -1, jc_at = -1, nodes[JOB_NODES_MAX];
	size_t nn = job_nodes(j, nodes, JOB_NODES_MAX),
	       measured = job_cgroup_peaks(j, nodes, nn, &jc_node, &jc_sum, &jc_at);

	r->own_peak_kb = steps_at_once(j, offsetof(struct row, own_peak_kb), -1);
	/* on every node of the job (a node whose kernel keeps no memory.peak, or whose
	 * tracerd is older, has none: the steps' peaks say more there) */
	if (measured && measured >= (size_t)(r->f.nnodes > 1 ? r->f.nnodes : 1)) {
		if (jc_node >= r->node_peak_mem_kb) {
			r->node_peak_mem_kb = jc_node;
			r->f.node_mem_peak_node = jc_at;
		}
		if (jc_sum >= r->peak_mem_kb) {
			r->peak_mem_kb = jc_sum;
			r->peak_src = "jobcgroup";
		}
		hold_to_limit(r, r->req_mem_mb, r->req_mem_node_mb, jc_sum, jc_node);
		return;
	}
	/* per node, the steps that ran there at once; summed over nodes, all that ran at once */
	for (size_t k = 0; k < nn; k++) {
		int64_t v = steps_at_once(j, offsetof(struct row, node_peak_mem_kb), nodes[k]);

		if (v != JS_NONE && v > node_peak) {
			node_peak = v;
			node = nodes[k];
		}
	}
	sum = steps_at_once(j, offsetof(struct row, peak_mem_kb), -1);
	/* steps held within the job's limit were held there together (no lower than one
	 * step's own peak, where the limit was not enforced) */
	if (held) {
		node_peak = at_most(node_peak, r->req_mem_node_mb, r->node_peak_mem_kb);
		sum = at_most(sum, r->req_mem_mb, r->peak_mem_kb);
	}
	if (jc_node > node_peak) { /* what the nodes that had one measured */
		node_peak = jc_node;
		node = jc_at;
	}
	if (node_peak > r->node_peak_mem_kb) {
		r->node_peak_mem_kb = node_peak;
		if (node >= 0)
			r->f.node_mem_peak_node = node;
	}
	if (sum > r->peak_mem_kb) {
		r->peak_mem_kb = sum;
		r->peak_src = "steps";
	}
}

/* a label of the job's steps that they all agree on (those that have one): a job that runs
 * one workflow step, as Snakemake's and Nextflow's Slurm executors submit them */
static void job_label(char *out, size_t len, const struct job *j, size_t off)
{
	const char *v = NULL;

	for (size_t i = 0; i < j->nsteps; i++) {
		const char *s = (const char *)&j->steps[i] + off;

		if (!*s)
			continue;
		if (v && strcmp(v, s) != 0)
			return;
		v = s;
	}
	if (v && !*out)
		snprintf(out, len, "%s", v);
}

void report_resolve(struct job *j)
{
	struct row *r = &j->row;
	const struct unit_rec **alloc;
	struct figures af;
	int64_t cpu = 0, user = 0, sys = 0;
	int any = 0, held;

	if (r->kind == ROW_LOCAL) {
		resolve_leaf(r, r->req_mem_mb, JS_NONE);
		return;
	}
	figures_init(&r->f);
	held = job_held(j);
	for (size_t i = 0; i < j->nsteps; i++) {
		struct row *s = &j->steps[i];

		resolve_leaf(s, r->req_mem_mb, r->nnodes);
		if (held)
			hold_to_limit(s, s->req_mem_share_mb, r->req_mem_node_mb,
				      s->f.cgroup_mem_peak_kb, s->f.node_mem_peak_kb);
		figures_merge(&r->f, &s->f);
		if (s->cpu_ns != JS_NONE) {
			cpu += s->cpu_ns;
			user += s->user_ns == JS_NONE ? 0 : s->user_ns;
			sys += s->sys_ns == JS_NONE ? 0 : s->sys_ns;
			any = 1;
		}
		if (s->peak_mem_kb != JS_NONE &&
		    (r->peak_mem_kb == JS_NONE || s->peak_mem_kb > r->peak_mem_kb)) {
			r->peak_mem_kb = s->peak_mem_kb;
			r->peak_src = s->peak_src;
		}
		fig_max(&r->node_peak_mem_kb, s->node_peak_mem_kb);
		if (s->ntasks != JS_NONE && s->ntasks > 0)
			fig_max(&r->tasks_per_node, (s->ntasks + (s->nnodes > 1 ? s->nnodes : 1) -
						     1) / (s->nnodes > 1 ? s->nnodes : 1));
		if (s->cores_per_task > r->cores_per_task) {
			r->cores_per_task = s->cores_per_task;
			r->cores_src = s->cores_src;
		}
		if (s->peak_cores > r->peak_cores)
			r->peak_cores = s->peak_cores;
		if (!r->alloc_cores[0] && s->alloc_cores[0])
			snprintf(r->alloc_cores, sizeof(r->alloc_cores), "%s", s->alloc_cores);
		if (!r->pipeline[0])
			snprintf(r->pipeline, sizeof(r->pipeline), "%s", s->pipeline);
		if (!r->run[0])
			snprintf(r->run, sizeof(r->run), "%s", s->run);
	}
	job_memory(j, held);
	job_label(r->step, sizeof(r->step), j, offsetof(struct row, step));
	job_label(r->wildcards, sizeof(r->wildcards), j, offsetof(struct row, wildcards));
	job_label(r->tag, sizeof(r->tag), j, offsetof(struct row, tag));
	/* processes of the allocation itself (outside any step) count for the job */
	alloc = malloc((j->nunits + 1) * sizeof(*alloc));
	if (alloc) {
		size_t n = units_of_step(j, STEP_NONE, alloc, j->nunits);

		figures_init(&af);
		figures_add_units(&af, alloc, n);
		if (af.nunits && af.nprocs > 0) {
			figures_merge(&r->f, &af);
			cpu += af.cpu_ns;
			user += af.user_ns;
			sys += af.sys_ns;
			any = 1;
		} else if (af.nunits) {
			r->f.nunits += af.nunits;
		}
		free(alloc);
	}
	if (any) {
		r->cpu_ns = cpu;
		r->user_ns = user;
		r->sys_ns = sys;
	} else if (r->slurm_cpu_us != JS_NONE) {
		r->cpu_ns = r->slurm_cpu_us * 1000;
		r->user_ns = r->slurm_user_us * 1000;
		r->sys_ns = r->slurm_sys_us * 1000;
	}
	r->req_mem_share_mb = r->req_mem_mb;
	r->wall_ns = wall_ns(r);
}

void report_nodes(struct job *j, const struct report *rep)
{
	for (size_t i = 0; i <= j->nsteps; i++) {
		struct row *r = i < j->nsteps ? &j->steps[i] : &j->row;
		int k = r->f.node_mem_peak_node;

		if (k >= 0 && (size_t)k < rep->nnodes)
			snprintf(r->maxrss_node, sizeof(r->maxrss_node), "%s", rep->nodes[k].name);
	}
}

void report_numa(struct job *j, const struct report *rep)
{
	for (size_t i = 0; i < j->nunits; i++) {
		const struct unit_rec *u = &j->units[i];
		struct json_object *topo, *numa;
		const char *cpus[256];
		size_t n = 0;
		int span;

		if (!u->alloc_cores[0] || u->node < 0 || (size_t)u->node >= rep->nnodes ||
		    !(topo = rep->nodes[u->node].topology) ||
		    !json_object_object_get_ex(topo, "numa", &numa) ||
		    !json_object_is_type(numa, json_type_array))
			continue;
		for (size_t k = 0; k < json_object_array_length(numa) && n < 256; k++) {
			struct json_object *c;

			if (json_object_object_get_ex(json_object_array_get_idx(numa, k), "cpus",
						      &c) &&
			    json_object_is_type(c, json_type_string))
				cpus[n++] = json_object_get_string(c);
		}
		span = conv_numa_span(u->alloc_cores, cpus, n);
		if (span > j->row.numa_span)
			j->row.numa_span = span;
	}
}

int report_job_failed(const struct job *j)
{
	int ok = strcmp(j->row.state, "COMPLETED") == 0 && !(j->row.f.oom_kills > 0);

	return !j->row.running && !ok && j->row.f.nunits;
}

void report_job_free(struct job *j)
{
	for (size_t i = 0; j->detail && i < j->nunits; i++) {
		struct unit_detail *d = &j->detail[i];

		for (size_t k = 0; k < d->nprocs; k++)
			free(d->procs[k].cmd);
		free(d->procs);
		json_object_put(d->tools);
		json_object_put(d->history);
		free(d->points);
	}
	free(j->detail);
	free(j->steps);
	free(j->units);
}

void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		report_job_free(&rep->jobs[i]);
	for (size_t i = 0; i < rep->nnodes; i++)
		json_object_put(rep->nodes[i].topology);
	free(rep->nodes);
	free(rep->jobs);
	memset(rep, 0, sizeof(*rep));
}
