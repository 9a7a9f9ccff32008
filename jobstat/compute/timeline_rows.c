/* --timeline's rows from a job's units and their points (timeline_rows.h). Pure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_rows.h"

#define NS 1000000000.0

static int64_t unit_end(const struct unit_rec *u, int64_t now_ns)
{
	return unit_running(u) || u->end_ns == JS_NONE ? now_ns : u->end_ns;
}

int tl_job_grid(const struct job *j, int64_t sample_ns, int64_t want_ns, int64_t now_ns,
		struct tl_grid *g)
{
	int64_t start = JS_NONE, end = JS_NONE;

	for (size_t k = 0; k < j->nunits; k++) {
		const struct unit_rec *u = &j->units[k];

		if (u->start_ns == JS_NONE || u->start_ns <= 0)
			continue;
		fig_min(&start, u->start_ns);
		fig_max(&end, unit_end(u, now_ns));
	}
	if (start == JS_NONE)
		return -ENOENT;
	if (end <= start) /* a unit that ended as it began: one interval */
		end = start + 1;
	return tl_grid_choose(start, end, sample_ns, want_ns, TL_ROWS, g);
}

static void span_add_down(struct tl_span *sp, int64_t start, int64_t end)
{
	for (size_t i = 0; i < sp->ndown; i++)
		if (sp->down[i].start_ns == start && sp->down[i].end_ns == end)
			return; /* the same absence, told by each unit of the node */
	if (sp->ndown < TL_DOWN_MAX) {
		sp->down[sp->ndown].start_ns = start;
		sp->down[sp->ndown].end_ns = end;
		sp->ndown++;
	}
}

static int seen_node(const struct job *j, const size_t *idx, size_t upto, int node)
{
	for (size_t i = 0; i < upto; i++)
		if (j->units[idx[i]].node == node)
			return 1;
	return 0;
}

/* the points of the step's units on node into one array, then into cells */
static int add_node(const struct job *j, const size_t *idx, size_t n, int node,
		    const struct tl_grid *g, struct tl_cell *cells, int *missing)
{
	struct tl_point *pts;
	size_t count = 0, at = 0;
	int err;

	*missing = 0;
	for (size_t i = 0; i < n; i++) {
		const struct unit_detail *ud = &j->detail[idx[i]];

		if (j->units[idx[i]].node != node)
			continue;
		count += ud->npoints;
		if (!ud->points_fetched)
			*missing = 1;
	}
	if (!count)
		return 0;
	if (!(pts = malloc(count * sizeof(*pts))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct unit_detail *ud = &j->detail[idx[i]];

		if (j->units[idx[i]].node == node && ud->npoints) {
			memcpy(pts + at, ud->points, ud->npoints * sizeof(*pts));
			at += ud->npoints;
		}
	}
	err = tl_add_node(g, pts, count, cells);
	free(pts);
	return err;
}

int tl_step_cells(const struct job *j, const struct row *s, const struct tl_grid *g, int64_t now_ns,
		  struct tl_cell *cells, struct tl_span *sp)
{
	size_t *idx = malloc((j->nunits + 1) * sizeof(*idx)), n;
	int err = 0, missing;

	if (!idx)
		return -ENOMEM;
	memset(sp, 0, sizeof(*sp));
	sp->start_ns = sp->end_ns = JS_NONE;
	n = report_step_units(j, s, idx, j->nunits);
	for (size_t i = 0; i < n && !err; i++) {
		const struct unit_rec *u = &j->units[idx[i]];

		if (u->start_ns != JS_NONE && u->start_ns > 0) {
			fig_min(&sp->start_ns, u->start_ns);
			fig_max(&sp->end_ns, unit_end(u, now_ns));
		}
		if (u->down_start_ns != JS_NONE)
			span_add_down(sp, u->down_start_ns,
				      u->down_end_ns != JS_NONE ? u->down_end_ns : now_ns);
		if (!j->detail || seen_node(j, idx, i, u->node))
			continue;
		sp->nnodes++;
		err = add_node(j, idx, n, u->node, g, cells, &missing);
		sp->nmissing += missing;
	}
	free(idx);
	return err;
}

void tl_span_merge(struct tl_span *into, const struct tl_span *from)
{
	fig_min(&into->start_ns, from->start_ns);
	fig_max(&into->end_ns, from->end_ns);
	if (from->nnodes > into->nnodes)
		into->nnodes = from->nnodes;
	if (from->nmissing > into->nmissing)
		into->nmissing = from->nmissing;
	for (size_t i = 0; i < from->ndown; i++)
		span_add_down(into, from->down[i].start_ns, from->down[i].end_ns);
}

/* what a reader must know of an interval's figures */
static void line_note(const struct tl_cell *c, const struct tl_span *sp, int64_t lo, int64_t hi,
		      struct tl_line *l)
{
	size_t at = 0;
	int away = 0;

	l->note[0] = 0;
	for (size_t i = 0; i < sp->ndown; i++)
		away |= sp->down[i].start_ns < hi && sp->down[i].end_ns > lo;
	if (away)
		at += snprintf(l->note, sizeof(l->note), "tracerd away: spread over the gap");
	else if (!c->filled)
		at += snprintf(l->note, sizeof(l->note), "no samples");
	if (sp->nmissing && at < sizeof(l->note))
		snprintf(l->note + at, sizeof(l->note) - at, "%s%d of %d nodes' samples missing",
			 at ? "; " : "", sp->nmissing, sp->nnodes);
}

int tl_row_of(const struct tl_grid *g, size_t i, const struct tl_cell *cells,
	      const struct tl_span *sp, const struct row *s, struct row *r, struct tl_line *l)
{
	const struct tl_cell *c = &cells[i];
	int64_t b0 = g->origin_ns + (int64_t)i * g->width_ns, b1 = b0 + g->width_ns;
	int64_t lo, hi;
	double secs;

	if (sp->start_ns == JS_NONE)
		return 0;
	lo = sp->start_ns > b0 ? sp->start_ns : b0;
	hi = sp->end_ns < b1 ? sp->end_ns : b1;
	if (hi < lo || (hi == lo && !c->filled))
		return 0;
	row_init(r, ROW_TIMELINE);
	snprintf(r->jobid, sizeof(r->jobid), "%s", s->jobid);
	r->alloc_cpus = s->alloc_cpus;
	r->req_mem_share_mb = s->req_mem_share_mb;
	memset(l, 0, sizeof(*l));
	l->begin_ns = b0;
	l->since_ns = b0 - g->origin_ns;
	l->span_ns = hi - lo;
	l->cores = l->cpu_util = l->mem_util = l->read_rate = l->write_rate = -1;
	l->rss_kb = JS_NONE;
	r->tl = l;
	line_note(c, sp, lo, hi, l);
	if (!c->filled)
		return 1; /* every figure unknown */
	r->f.nunits = 1;
	secs = (double)(hi > lo ? hi - lo : 1) / NS;
	r->cpu_ns = (int64_t)(c->c[TL_CPU] + 0.5);
	l->cores = c->c[TL_CPU] / NS / secs;
	if (s->alloc_cpus != JS_NONE && s->alloc_cpus > 0)
		l->cpu_util = 100.0 * l->cores / (double)s->alloc_cpus;
	r->f.read_bytes = (int64_t)(c->c[TL_READ] + 0.5);
	r->f.write_bytes = (int64_t)(c->c[TL_WRITE] + 0.5);
	l->read_rate = c->c[TL_READ] / secs;
	l->write_rate = c->c[TL_WRITE] / secs;
	if (c->waits) {
		r->f.cpu_wait_ns = (int64_t)(c->c[TL_CPUWAIT] + 0.5);
		r->f.iowait_ns = (int64_t)(c->c[TL_IOWAIT] + 0.5);
	}
	r->f.nprocs = JS_NONE;
	if (c->rounds) {
		l->rss_kb = c->rss_kb;
		r->f.nprocs = c->nprocs;
		r->nnodes = c->nnodes;
		if (s->req_mem_share_mb != JS_NONE && s->req_mem_share_mb > 0)
			l->mem_util =
				100.0 * (double)c->rss_kb / ((double)s->req_mem_share_mb * 1024);
	}
	return 1;
}
