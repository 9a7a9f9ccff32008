/* The samples of a job over time (--timeline): each process's points as tracerd sends them
 * (the "samples" query: its live samples, then its exit), put into intervals of one width from
 * the job's start, one node at a time, then added up over the nodes of a step and over the
 * steps of a job. Pure: numbers in, numbers out. */
#ifndef JOBSTAT_TIMELINE_H
#define JOBSTAT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define TL_ROWS 30	  /* the width chosen fits a job in about this many intervals */
#define TL_MAX_CELLS 2000 /* intervals of one job at most: a finer width is widened */

/* One point of a process: what it had done from its fork until time_ns. */
struct tl_point {
	int64_t pid, start_boot_ns; /* the process, on its node */
	int64_t start_ns;	    /* its start (unix ns), JS_NONE unknown */
	int64_t time_ns;
	/* so far; JS_NONE unknown (rss_kb: an exit has none) */
	int64_t cpu_ns, rss_kb, read_bytes, write_bytes, cpu_wait_ns, iowait_ns;
	int exit; /* its exit, not a live sample: no resident set, no sampling round */
};

/* The intervals: [origin + i * width, origin + (i + 1) * width) for i < n. */
struct tl_grid {
	int64_t origin_ns, width_ns;
	size_t n;
};

/* What an interval's counters add up: the work done in it. */
enum { TL_CPU, TL_READ, TL_WRITE, TL_CPUWAIT, TL_IOWAIT, TL_COUNTERS };

/* One interval of a series: a step on one node, a step, a job. A counter's growth between two
 * points of a process is spread over the time between them, in proportion. */
struct tl_cell {
	double c[TL_COUNTERS]; /* ns of CPU and of waits, bytes */
	int waits;	       /* the wait counters were known for some of it */
	int64_t rss_kb;	       /* the largest sum of resident sets in one sampling round of a
				* node, summed over the nodes */
	int64_t nprocs;	       /* the most processes in one round of a node, likewise */
	int64_t rounds;	       /* sampling rounds in it, over the nodes */
	int nnodes;	       /* nodes that had a round in it */
	int filled;	       /* a counter grew in it or a round was in it */
};

/* An interval of a series as a row shows it (jobstat.h's row.tl): where it begins, how much of
 * it the series ran, and the figures the timeline's own fields show. */
struct tl_line {
	int64_t begin_ns, since_ns, span_ns; /* unix; from the job's start; ran in it */
	double cores, cpu_util, mem_util;    /* < 0 unknown; shares in percent */
	double read_rate, write_rate;	     /* bytes/s, < 0 unknown */
	int64_t rss_kb;			     /* JS_NONE unknown */
	char note[128];
};

/* A point from an element of a "samples" reply: -EINVAL when it is no object or lacks the
 * process's identity or its time. */
int tl_point_from_json(struct json_object *o, struct tl_point *p);
/* The same of a flat row (flatrow.h) */
struct flat_row;
int tl_point_from_flat(struct flat_row *r, struct tl_point *p);

/* The intervals of a job that ran from start_ns to end_ns: of want_ns when given (> 0), else of
 * a round width (1 s, 2 s, 5 s, ..., 1 h, ..., days) that fits it in about rows intervals;
 * never finer than sample_ns (the sampling interval, 0 unknown) nor than makes TL_MAX_CELLS
 * intervals. Returns 1 when want_ns was widened for that, 0 when not, -EINVAL for an empty
 * span. */
int tl_grid_choose(int64_t start_ns, int64_t end_ns, int64_t sample_ns, int64_t want_ns,
		   size_t rows, struct tl_grid *g);

/* The interval time_ns falls in, or -1 outside the grid. */
long tl_cell_of(const struct tl_grid *g, int64_t time_ns);

/* Add the points of one node's units of a series (in any order: pts is sorted here, and a
 * process's samples evened to count its work once) into cells (g->n of them): counters spread
 * between a process's points (from its start for its first, when known); resident sets and
 * processes summed per sampling round, the largest of the interval's rounds. 0 or -ENOMEM. */
int tl_add_node(const struct tl_grid *g, struct tl_point *pts, size_t n, struct tl_cell *cells);

/* Add series from into series into (n cells each): a job's from its steps'. */
void tl_sum(struct tl_cell *into, const struct tl_cell *from, size_t n);

#endif
