/* Render: --timeline, each job's intervals per step, and for the whole job when more than one
 * step has samples (timeline_rows.h works them out; this prints them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "safetext.h"
#include "timeline_rows.h"
#include "views.h"

/* the rows of one series, in interval order */
static void emit_series(struct viewctx *v, const struct tl_grid *g, const struct tl_cell *cells,
			const struct tl_span *sp, const struct row *s)
{
	struct row r;
	struct tl_line l;

	for (size_t i = 0; i < g->n; i++) {
		if (!tl_row_of(g, i, cells, sp, s, &r, &l))
			continue;
		emit_header(&v->e);
		emit_row(&v->e, &r);
		v->rows++;
	}
}

static int series_filled(const struct tl_cell *cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cells[i].filled)
			return 1;
	return 0;
}

/* one job: its steps' series (the run's for a traced run), the job's first when more than one
 * step has samples; -ENOMEM */
static int job_timeline(struct viewctx *v, const struct report *rep, const struct job *j,
			int64_t now_ns, int *widened)
{
	struct tl_grid g;
	struct tl_cell *cells = NULL, *total;
	struct tl_span *spans = NULL, job_sp = { .start_ns = JS_NONE, .end_ns = JS_NONE };
	size_t nsteps = j->row.kind == ROW_LOCAL ? 1 : j->nsteps, filled = 0;
	int r = tl_job_grid(j, rep->sample_ns, v->o->interval_ns, now_ns, &g), err = -ENOMEM;

	if (r < 0)
		return 0; /* no unit: nothing tracer saw */
	*widened |= r;
	cells = calloc(g.n * (nsteps + 1), sizeof(*cells));
	spans = calloc(nsteps + 1, sizeof(*spans));
	if (!cells || !spans)
		goto out;
	total = cells + g.n * nsteps;
	for (size_t k = 0; k < nsteps; k++) {
		const struct row *s = j->row.kind == ROW_LOCAL ? &j->row : &j->steps[k];

		if (!s->f.nunits)
			continue;
		if (tl_step_cells(j, s, &g, now_ns, cells + g.n * k, &spans[k]) < 0)
			goto out;
		filled += series_filled(cells + g.n * k, g.n);
		tl_sum(total, cells + g.n * k, g.n);
		tl_span_merge(&job_sp, &spans[k]);
	}
	if (filled > 1)
		emit_series(v, &g, total, &job_sp, &j->row);
	for (size_t k = 0; k < nsteps; k++) {
		const struct row *s = j->row.kind == ROW_LOCAL ? &j->row : &j->steps[k];

		/* a step that ran no process has no figure to show: not a gap in every interval
		 * (the extern step without PrologFlags=Contain) */
		if (s->f.nunits && (s->f.nprocs != 0 || series_filled(cells + g.n * k, g.n)))
			emit_series(v, &g, cells + g.n * k, &spans[k], s);
	}
	err = 0;
out:
	free(cells);
	free(spans);
	return err;
}

size_t view_timeline(struct viewctx *v, struct report *rep)
{
	struct timespec now;
	int widened = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	for (size_t i = 0; i < rep->n; i++)
		if (job_timeline(v, rep, &rep->jobs[i],
				 (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, &widened) < 0) {
			fputs(JS_PROG ": out of memory for the timeline of ", stderr);
			safe_text_fputs(rep->jobs[i].row.jobid, stderr);
			fputc('\n', stderr);
		}
	if (widened) {
		char msg[160];

		snprintf(msg, sizeof(msg),
			 "--interval widened: never finer than SampleInterval, nor more than %d "
			 "intervals per job",
			 TL_MAX_CELLS);
		fprintf(stderr, JS_PROG ": %s\n", msg);
		if (v->warnings)
			json_object_array_add(v->warnings, json_object_new_string(msg));
	}
	return v->rows;
}
