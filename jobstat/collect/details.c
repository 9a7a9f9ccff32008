/* Collect: processes, tool records and topology for the views, from the nodes' tracerds. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slower.h"
#include "details.h"
#include "flatrow.h"
#include "pipelines.h"
#include "procs.h"
#include "timeline.h"

/* ---- processes */

/* a growing array of n records of size each: room for one more, or -ENOMEM */
static int room_for_one(void **arr, size_t n, size_t *cap, size_t size)
{
	void *more;

	if (n < *cap)
		return 0;
	if (!(more = realloc(*arr, (*cap ? *cap * 2 : 64) * size)))
		return -ENOMEM;
	*arr = more;
	*cap = *cap ? *cap * 2 : 64;
	return 0;
}

struct procs_in {
	struct unit_detail *ud;
	const char *node;
	int64_t task;
	size_t cap;
};

static int proc_row(void *ctx, struct flat_row *row)
{
	struct procs_in *in = ctx;
	struct unit_detail *ud = in->ud;
	struct proc_rec *p;

	if (room_for_one((void **)&ud->procs, ud->nprocs, &in->cap, sizeof(*ud->procs)))
		return -ENOMEM;
	p = &ud->procs[ud->nprocs];
	if (proc_from_flat(row, p) < 0)
		return -ENOMEM;
	snprintf(p->node, sizeof(p->node), "%s", in->node);
	p->task = in->task;
	ud->nprocs++;
	return 0;
}

int details_procs(struct job *j, size_t k, struct daemons *d)
{
	struct unit_detail *ud = &j->detail[k];
	const struct unit_rec *unit = &j->units[k];
	struct procs_in in = { .ud = ud,
			       .node = d->nodes[unit->node].name,
			       .task = unit->task_id >= 0 ? unit->task_id : JS_NONE };

	int r;

	if (ud->procs_fetched)
		return 0;
	ud->procs_fetched = 1;
	r = daemons_processes(d, unit->node, unit->id, proc_row, &in);
	if (r < 0) { /* none of a reply that failed; the node is named in the warnings */
		for (size_t i = 0; i < ud->nprocs; i++)
			free(ud->procs[i].cmd);
		free(ud->procs);
		ud->procs = NULL;
		ud->nprocs = 0;
	}
	return r == -ENOMEM ? r : 0;
}

/* ---- the timeline's points */

struct points_in {
	struct unit_detail *ud;
	size_t cap;
};

static int point_row(void *ctx, struct flat_row *row)
{
	struct points_in *in = ctx;
	struct unit_detail *ud = in->ud;

	if (room_for_one((void **)&ud->points, ud->npoints, &in->cap, sizeof(*ud->points)))
		return -ENOMEM;
	if (tl_point_from_flat(row, &ud->points[ud->npoints]) == 0)
		ud->npoints++;
	return 0;
}

/* the points of unit k of job j, once */
static int fetch_samples(struct job *j, size_t k, struct daemons *d)
{
	struct unit_detail *ud = &j->detail[k];
	struct points_in in = { .ud = ud };
	int r;

	if (ud->points_fetched)
		return 0;
	r = daemons_samples(d, j->units[k].node, j->units[k].id, point_row, &in);
	if (r == -ENOMEM)
		return r;
	if (r < 0) { /* the node is named in the warnings, its intervals in their notes */
		free(ud->points);
		ud->points = NULL;
		ud->npoints = 0;
		return 0;
	}
	ud->points_fetched = 1;
	return 0;
}

/* ---- tool records */

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	if (v != JS_NONE)
		json_object_object_add(o, key, json_object_new_int64(v));
}

/* a tracerd without the "tools" query: one record per process that is not shell plumbing,
 * or that failed */
static int record_of_process(void *ctx, struct flat_row *row)
{
	struct json_object *out = ctx, *o;
	struct proc_rec p;
	char counts[32];

	if (proc_from_flat(row, &p) < 0)
		return -ENOMEM;
	if ((!p.excluded || (p.status != JS_NONE && p.status != 0)) &&
	    (o = json_object_new_object())) {
		json_object_object_add(o, "tool", json_object_new_string(p.tool));
		json_object_object_add(o, "nprocs", json_object_new_int64(1));
		add_int(o, "cpu_ns", p.cpu_ns);
		add_int(o, "user_ns", p.user_ns);
		add_int(o, "sys_ns", p.sys_ns);
		add_int(o, "maxrss_kb", p.maxrss_kb);
		add_int(o, "read_bytes", p.read_bytes);
		add_int(o, "write_bytes", p.write_bytes);
		add_int(o, "rchar", p.rchar);
		add_int(o, "wchar", p.wchar);
		add_int(o, "first_start_ns", p.start_ns);
		add_int(o, "last_end_ns", p.end_ns);
		add_int(o, "oom_kills", p.flags != JS_NONE && (p.flags & PROC_OOM_KILLED) ? 1 : 0);
		if (p.status != JS_NONE)
			snprintf(counts, sizeof(counts), "%" PRId64 ":1", p.status);
		else
			snprintf(counts, sizeof(counts), ":1");
		json_object_object_add(o, "status_counts", json_object_new_string(counts));
		json_object_array_add(out, o);
	}
	free(p.cmd);
	return 0;
}

static int records_from_processes(struct daemons *d, const struct unit_rec *u,
				  struct json_object **tools)
{
	struct json_object *out = json_object_new_array();
	int r;

	if (!out)
		return -ENOMEM;
	if ((r = daemons_processes(d, u->node, u->id, record_of_process, out)) < 0) {
		json_object_put(out);
		return r;
	}
	*tools = out;
	return 0;
}

/* the tool records of unit k of job j, once: grouped in tracerd's store, or from an older
 * tracerd, one per process */
static int fetch_tools(struct job *j, size_t k, struct daemons *d)
{
	struct unit_detail *ud = &j->detail[k];
	const struct unit_rec *u = &j->units[k];
	int r;

	if (ud->tools)
		return 0;
	r = daemons_tools(d, u->node, u->id, &ud->tools);
	if (r == -EREMOTEIO)
		r = records_from_processes(d, u, &ud->tools);
	if (r < 0)
		ud->tools = NULL;
	return r == -ENOMEM ? r : 0; /* a node that cannot be asked is named in the warnings */
}

/* the earlier runs of unit k's step, for "slower than usual" (slower.h) */
static int fetch_history(struct job *j, size_t k, struct daemons *d)
{
	struct unit_detail *ud = &j->detail[k];
	const struct unit_rec *u = &j->units[k];

	if (ud->history || unit_running(u) || !slower_compared(u->step_id, u->task_id))
		return 0;
	if (daemons_history(d, u->node, u->id, &ud->history) < 0)
		ud->history = NULL; /* an older tracerd: no comparison */
	return 0;
}

/* ---- per job */

typedef int (*fetch_fn)(struct job *j, size_t k, struct daemons *d);

/* fetch for every unit of step (or run) row s */
static int fetch_step(struct job *j, const struct row *s, struct daemons *d, fetch_fn fetch)
{
	size_t *idx = malloc((j->nunits + 1) * sizeof(*idx)), n;
	int err = 0;

	if (!idx)
		return -ENOMEM;
	n = report_step_units(j, s, idx, j->nunits);
	for (size_t u = 0; u < n && !err; u++)
		err = fetch(j, idx[u], d);
	free(idx);
	return err;
}

/* fetch for the run, or for each step with units (and processes, when ran) */
static int fetch_steps(struct job *j, struct daemons *d, fetch_fn fetch, int ran)
{
	int err = 0;

	if (j->row.kind == ROW_LOCAL)
		return ran && j->row.f.nprocs == 0 ? 0 : fetch_step(j, &j->row, d, fetch);
	for (size_t i = 0; i < j->nsteps && !err; i++)
		if (j->steps[i].f.nunits && !(ran && j->steps[i].f.nprocs == 0))
			err = fetch_step(j, &j->steps[i], d, fetch);
	return err;
}

static int job_details(struct job *j, struct daemons *d, const struct details_wanted *w)
{
	int err = 0;

	if (!j->detail && !(j->detail = calloc(j->nunits + 1, sizeof(*j->detail))))
		return -ENOMEM;
	if (w->failed_procs && report_job_failed(j))
		err = fetch_steps(j, d, details_procs, 0);
	if (!err && w->step_procs)
		err = fetch_steps(j, d, details_procs, 0);
	if (!err && w->step_samples)
		err = fetch_steps(j, d, fetch_samples, 0);
	if (!err && (w->step_tools || w->step_tools_ran))
		err = fetch_steps(j, d, fetch_tools, !w->step_tools);
	for (size_t k = 0; k < j->nunits && !err; k++) {
		const struct unit_rec *u = &j->units[k];

		if (w->unit_tools && pipelines_unit_has_tools(u))
			err = fetch_tools(j, k, d);
		if (w->history)
			err = fetch_history(j, k, d);
		if (w->topology && u->alloc_cores[0])
			daemons_topology(d, u->node); /* kept by the node until nodes_record */
	}
	return err;
}

/* every node asked, by the index units carry */
static int nodes_record(struct report *rep, struct daemons *d)
{
	if (!d->n)
		return 0;
	if (!(rep->nodes = calloc(d->n, sizeof(*rep->nodes))))
		return -ENOMEM;
	rep->nnodes = d->n;
	for (size_t i = 0; i < d->n; i++) {
		struct node_info *n = &rep->nodes[i];
		const struct node_conn *c = &d->nodes[i];
		struct json_object *topo;

		snprintf(n->name, sizeof(n->name), "%s", c->name);
		snprintf(n->error, sizeof(n->error), "%s", c->error);
		n->failed = c->failed;
		if (c->status && json_object_object_get_ex(c->status, "topology", &topo))
			n->topology = json_object_get(topo);
	}
	return 0;
}

int details_collect(struct report *rep, struct daemons *d, const struct details_wanted *w)
{
	int err = 0;

	rep->sample_ns = (int64_t)d->cfg.sample_interval_ms * 1000000;
	for (size_t i = 0; i < rep->n && !err; i++)
		err = job_details(&rep->jobs[i], d, w);
	if (!err)
		err = nodes_record(rep, d);
	return err;
}
