/* --timeline's rows: a job's intervals, the series of each step (and of the job) from its
 * units' points (unit_detail.points), each interval a row. Pure. */
#ifndef JOBSTAT_TIMELINE_ROWS_H
#define JOBSTAT_TIMELINE_ROWS_H

#include "report.h"
#include "timeline.h"

#define TL_DOWN_MAX 8 /* windows of tracerd's absence told per series */

/* What a series knows beyond its cells: when it ran, on how many nodes, what it lacks. */
struct tl_span {
	int64_t start_ns, end_ns; /* its units' first start and last end (now while running) */
	int nnodes;		  /* nodes its units are on */
	int nmissing;		  /* of them, nodes whose samples could not be had */
	struct {
		int64_t start_ns, end_ns;
	} down[TL_DOWN_MAX]; /* tracerd was away while a unit ran */
	size_t ndown;
};

/* The intervals of job j (tl_grid_choose): from its units' first start to their last end,
 * now_ns for a unit still running. Returns as tl_grid_choose does; -ENOENT for a job without
 * units. */
int tl_job_grid(const struct job *j, int64_t sample_ns, int64_t want_ns, int64_t now_ns,
		struct tl_grid *g);

/* The series of step row s of j (the run's row of a traced run: all its units) into cells
 * (g->n of them, zeroed by the caller), and its span. 0, or -ENOMEM. */
int tl_step_cells(const struct job *j, const struct row *s, const struct tl_grid *g, int64_t now_ns,
		  struct tl_cell *cells, struct tl_span *sp);

/* A series' span over all its steps' (the job's). */
void tl_span_merge(struct tl_span *into, const struct tl_span *from);

/* Interval i of a series as row r of s's (its JobID, allocated CPUs, memory share), with l
 * its own figures (r->tl points to l). 0 when the series did not run in that interval. */
int tl_row_of(const struct tl_grid *g, size_t i, const struct tl_cell *cells,
	      const struct tl_span *sp, const struct row *s, struct row *r, struct tl_line *l);

#endif
