/* Compute: the workflow filters and the pipeline -> run -> step -> tool rows. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "convert.h"
#include "pipelines.h"
#include "tooltable.h"

int pipelines_listed(const char *list, const char *name)
{
	size_t l = strlen(name);

	if (!list || !*list)
		return 1;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == l && strncmp(p, name, l) == 0)
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

int pipelines_match(const struct job *j, const char *pipelines, const char *runs)
{
	for (size_t i = 0; i < j->nunits; i++)
		if ((!pipelines || (j->units[i].pipeline[0] &&
				    pipelines_listed(pipelines, j->units[i].pipeline))) &&
		    (!runs || (j->units[i].run[0] && pipelines_listed(runs, j->units[i].run))))
			return 1;
	return 0;
}

size_t pipelines_filter(struct report *rep, const char *pipelines, const char *runs)
{
	size_t k = 0, dropped = 0;

	if (!pipelines && !runs)
		return 0;
	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		if (pipelines_match(j, pipelines, runs)) {
			if (k != i)
				rep->jobs[k] = *j;
			k++;
		} else {
			report_job_free(j);
			dropped++;
		}
	}
	rep->n = k;
	return dropped;
}

/* ---- grouping */

struct acc {
	struct row r;
	long up[WF_TOOL];	/* the pipeline, run and step rows above (-1: none) */
	size_t last_job;	/* the last job counted, + 1 */
	struct exit_counts ec;	/* exit statuses of a tool */
	struct state_counts sc; /* its jobs' states */
};

struct accs {
	struct acc *a;
	size_t n, cap;
};

/* add "v" to a ';'-separated list of distinct values */
static void add_distinct(char *list, size_t len, const char *v)
{
	size_t l = strlen(v), at = strlen(list);

	if (!l)
		return;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ";");

		if (n == l && strncmp(p, v, l) == 0)
			return;
		p += n;
		if (*p == ';')
			p++;
	}
	if (at + l + 2 < len)
		snprintf(list + at, len - at, "%s%s", at ? ";" : "", v);
	else if (at + 5 < len && strcmp(list + at - 3, "...") != 0)
		snprintf(list + at, len - at, ";...");
}

/* the row of this level and labels (created at first use); -1 on ENOMEM */
static long find(struct accs *s, int level, const char *pipeline, const char *run, const char *step,
		 const char *tool, const long *up)
{
	struct acc *a;

	for (size_t i = 0; i < s->n; i++) {
		const struct row *r = &s->a[i].r;

		if (r->wf_level == level && !strcmp(r->pipeline, pipeline) &&
		    (level < WF_RUN || !strcmp(r->run, run)) &&
		    (level < WF_STEP || !strcmp(r->step, step)) &&
		    (level < WF_TOOL || !strcmp(r->tool, tool)))
			return (long)i;
	}
	if (s->n == s->cap) {
		struct acc *nv = realloc(s->a, (s->cap = s->cap ? 2 * s->cap : 32) * sizeof(*nv));

		if (!nv)
			return -1;
		s->a = nv;
	}
	a = &s->a[s->n];
	memset(a, 0, sizeof(*a));
	row_init(&a->r, ROW_WF);
	a->r.wf_level = level;
	a->r.njobs = 0;
	a->r.f.nunits = 1;
	a->r.f.nprocs = 0;
	a->r.cpu_ns = a->r.user_ns = a->r.sys_ns = 0;
	snprintf(a->r.pipeline, sizeof(a->r.pipeline), "%s", pipeline);
	if (level >= WF_RUN)
		snprintf(a->r.run, sizeof(a->r.run), "%s", run);
	if (level >= WF_STEP)
		snprintf(a->r.step, sizeof(a->r.step), "%s", step);
	if (level >= WF_TOOL)
		snprintf(a->r.tool, sizeof(a->r.tool), "%s", tool);
	for (int l = 0; l < WF_TOOL; l++)
		a->up[l] = l < level ? up[l] : -1;
	return (long)s->n++;
}

/* the job (index ji in the report) counts once per row */
static void count_job(struct acc *a, size_t ji, const struct job *j, const struct unit_rec *u)
{
	size_t at;

	if (a->r.wf_level >= WF_STEP) {
		add_distinct(a->r.wildcards, sizeof(a->r.wildcards), u->wildcards);
		add_distinct(a->r.tag, sizeof(a->r.tag), u->tag);
	}
	if (a->last_job == ji + 1)
		return;
	a->last_job = ji + 1;
	a->r.njobs++;
	arrays_count_state(&a->sc, j->row.state);
	at = strlen(a->r.jobid);
	if (at + strlen(j->row.jobid) + 5 < sizeof(a->r.jobid))
		snprintf(a->r.jobid + at, sizeof(a->r.jobid) - at, "%s%s", at ? "," : "",
			 j->row.jobid);
	else if (at + 5 < sizeof(a->r.jobid) && strcmp(a->r.jobid + at - 3, "..."))
		snprintf(a->r.jobid + at, sizeof(a->r.jobid) - at, ",...");
}

/* a unit's totals into a pipeline, run or step row */
static void add_unit(struct acc *a, const struct unit_rec *u, int64_t now_ns)
{
	struct figures *f = &a->r.f;

	fig_min(&f->first_start_ns, u->start_ns > 0 ? u->start_ns : JS_NONE);
	if (unit_running(u)) {
		f->running = 1;
		fig_max(&f->last_end_ns, now_ns);
	} else {
		fig_max(&f->last_end_ns, u->end_ns);
	}
	fig_sum(&f->lost, u->lost_events); /* each unit counts its own losses */
	fig_sum(&f->unlisted, u->procs_folded);
	if (!u->have_totals)
		return;
	figures_add_totals(f, &u->t);
	fig_sum(&a->r.cpu_ns, u->t.cpu_ns);
	fig_sum(&a->r.user_ns, u->t.user_ns);
	fig_sum(&a->r.sys_ns, u->t.sys_ns);
	if (u->start_ns == JS_NONE || u->start_ns <= 0)
		fig_min(&f->first_start_ns,
			u->t.first_start_ns > 0 ? u->t.first_start_ns : JS_NONE);
}

int pipelines_unit_has_tools(const struct unit_rec *u)
{
	return unit_labelled(u) && !(u->have_totals && u->t.nprocs != JS_NONE && u->t.nprocs <= 0);
}

static int add_tools(struct accs *s, const long *up, const struct unit_rec *u, size_t ji,
		     const struct job *j, pipelines_tools_fn fetch, void *ctx)
{
	struct json_object *tools;

	if (!fetch || !pipelines_unit_has_tools(u))
		return 0;
	if (fetch(ctx, u, &tools) < 0)
		return 0; /* the node is named in the warnings */
	for (size_t k = 0; k < json_object_array_length(tools); k++) {
		struct json_object *t = json_object_array_get_idx(tools, k);
		char tool[sizeof(s->a->r.tool)];
		long i;

		if (tooltable_record_name(t, tool, sizeof(tool)) < 0)
			continue;
		if ((i = find(s, WF_TOOL, u->pipeline, u->run, u->step_name, tool, up)) < 0) {
			json_object_put(tools);
			return -ENOMEM;
		}
		count_job(&s->a[i], ji, j, u);
		tooltable_record_add(&s->a[i].r, &s->a[i].ec, t);
	}
	json_object_put(tools);
	return 0;
}

static const struct acc *sort_accs;

static long ancestor(long i, int level)
{
	const struct acc *a = &sort_accs[i];

	if (a->r.wf_level == level)
		return i;
	return a->r.wf_level < level ? -1 : a->up[level];
}

static int by_tree(const void *pa, const void *pb)
{
	long a = *(const long *)pa, b = *(const long *)pb;

	for (int l = WF_PIPELINE; l <= WF_TOOL; l++) {
		long x = ancestor(a, l), y = ancestor(b, l);
		const struct row *rx, *ry;
		int c;

		if (x == y)
			continue;
		if (x < 0 || y < 0)
			return x < 0 ? -1 : 1; /* the row of the level above first */
		rx = &sort_accs[x].r;
		ry = &sort_accs[y].r;
		if (l == WF_TOOL && rx->cpu_ns != ry->cpu_ns)
			return rx->cpu_ns > ry->cpu_ns ? -1 : 1;
		if (l < WF_TOOL && rx->f.first_start_ns != ry->f.first_start_ns) {
			if (rx->f.first_start_ns == JS_NONE || ry->f.first_start_ns == JS_NONE)
				return rx->f.first_start_ns == JS_NONE ? 1 : -1;
			return rx->f.first_start_ns < ry->f.first_start_ns ? -1 : 1;
		}
		c = l == WF_TOOL   ? strcmp(rx->tool, ry->tool)
		    : l == WF_STEP ? strcmp(rx->step, ry->step)
		    : l == WF_RUN  ? strcmp(rx->run, ry->run)
				   : strcmp(rx->pipeline, ry->pipeline);
		if (c)
			return c;
		return x < y ? -1 : 1;
	}
	return 0;
}

/* what a finished row shows */
static void finish(struct acc *a)
{
	struct row *r = &a->r;

	if (r->f.first_start_ns != JS_NONE && r->f.last_end_ns != JS_NONE &&
	    r->f.last_end_ns >= r->f.first_start_ns)
		r->elapsed = (r->f.last_end_ns - r->f.first_start_ns + 500000000) / 1000000000;
	if (r->f.running)
		r->f.last_end_ns = JS_NONE; /* End: Unknown, as for a running job */
	if (!r->pipeline[0])
		snprintf(r->pipeline, sizeof(r->pipeline), JS_UNKNOWN);
	if (r->wf_level >= WF_RUN && !r->run[0])
		snprintf(r->run, sizeof(r->run), JS_UNKNOWN);
	if (r->wf_level >= WF_STEP && !r->step[0])
		snprintf(r->step, sizeof(r->step), JS_UNKNOWN);
	exit_counts_format(&a->ec, 0, r->exit_codes, sizeof(r->exit_codes));
	arrays_states_text(&a->sc, r->state, sizeof(r->state)); /* failed jobs first */
}

long pipelines_build(const struct report *rep, pipelines_tools_fn fetch, void *ctx, int64_t now_ns,
		     struct row **rows)
{
	struct accs s = {};
	long *order = NULL, ret = -ENOMEM;
	struct row *out = NULL;

	*rows = NULL;
	for (size_t ji = 0; ji < rep->n; ji++) {
		const struct job *j = &rep->jobs[ji];

		for (size_t k = 0; k < j->nunits; k++) {
			const struct unit_rec *u = &j->units[k];
			long up[WF_TOOL];

			if (!unit_labelled(u))
				continue;
			if ((up[0] = find(&s, WF_PIPELINE, u->pipeline, "", "", "", up)) < 0 ||
			    (up[1] = find(&s, WF_RUN, u->pipeline, u->run, "", "", up)) < 0 ||
			    (up[2] = find(&s, WF_STEP, u->pipeline, u->run, u->step_name, "", up)) <
				    0)
				goto out;
			for (int l = 0; l < WF_TOOL; l++) {
				count_job(&s.a[up[l]], ji, j, u);
				add_unit(&s.a[up[l]], u, now_ns);
			}
			if (add_tools(&s, up, u, ji, j, fetch, ctx) < 0)
				goto out;
		}
	}
	if (!s.n) {
		ret = 0;
		goto out;
	}
	order = malloc(s.n * sizeof(*order));
	out = malloc(s.n * sizeof(*out));
	if (!order || !out)
		goto out;
	for (size_t i = 0; i < s.n; i++) {
		order[i] = (long)i;
		finish(&s.a[i]);
	}
	sort_accs = s.a;
	qsort(order, s.n, sizeof(*order), by_tree);
	for (size_t i = 0; i < s.n; i++)
		out[i] = s.a[order[i]].r;
	*rows = out;
	out = NULL;
	ret = (long)s.n;
out:
	free(out);
	free(order);
	free(s.a);
	return ret;
}
