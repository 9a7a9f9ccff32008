/* A job's samples into intervals (timeline.h). Pure. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "aggregate.h"
#include "flatrow.h"
#include "timeline.h"

#define NS 1000000000LL

int tl_point_from_flat(struct flat_row *r, struct tl_point *p)
{
	struct tl_point t;

	t.pid = flat_int(r, "pid");
	t.start_boot_ns = flat_int(r, "start_boot_ns");
	t.time_ns = flat_int(r, "time_ns");
	if (t.pid == JS_NONE || t.start_boot_ns == JS_NONE || t.time_ns == JS_NONE)
		return -EINVAL;
	t.start_ns = flat_int(r, "start_ns");
	t.cpu_ns = flat_int(r, "cpu_ns");
	t.rss_kb = flat_int(r, "rss_kb");
	t.read_bytes = flat_int(r, "read_bytes");
	t.write_bytes = flat_int(r, "write_bytes");
	t.cpu_wait_ns = flat_int(r, "cpu_wait_ns");
	t.iowait_ns = flat_int(r, "iowait_ns");
	t.exit = flat_int(r, "exit") == 1;
	*p = t;
	return 0;
}

int tl_point_from_json(struct json_object *o, struct tl_point *p)
{
	struct flat_row r;
	int err;

	flat_row_init(&r);
	err = flat_from_json(o, &r);
	if (!err)
		err = tl_point_from_flat(&r, p);
	flat_row_free(&r);
	return err;
}

/* ---- the intervals */

/* Widths a reader counts in: seconds, minutes, hours, then whole days */
static const int64_t round_widths[] = { 1,   2,	  5,	10,   15,   30,	   60,	  120,	 300,
					600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400 };

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a / b + (a % b != 0);
}

static int64_t round_width(int64_t min_ns)
{
	size_t n = sizeof(round_widths) / sizeof(*round_widths);

	for (size_t i = 0; i < n; i++)
		if (round_widths[i] * NS >= min_ns)
			return round_widths[i] * NS;
	return ceil_div(min_ns, 86400 * NS) * 86400 * NS;
}

int tl_grid_choose(int64_t start_ns, int64_t end_ns, int64_t sample_ns, int64_t want_ns,
		   size_t rows, struct tl_grid *g)
{
	int64_t span = end_ns - start_ns, width, fewest;
	int widened = 0;

	if (span <= 0 || !rows)
		return -EINVAL;
	fewest = ceil_div(span, TL_MAX_CELLS);
	if (want_ns > 0) {
		width = want_ns;
		if (width < sample_ns || width < fewest) {
			width = round_width(sample_ns > fewest ? sample_ns : fewest);
			widened = 1;
		}
	} else {
		width = round_width(ceil_div(span, (int64_t)rows));
		if (width < sample_ns)
			width = round_width(sample_ns);
		if (width < fewest)
			width = round_width(fewest);
	}
	*g = (struct tl_grid){ start_ns, width, (size_t)ceil_div(span, width) };
	return widened;
}

long tl_cell_of(const struct tl_grid *g, int64_t time_ns)
{
	int64_t i;

	if (time_ns < g->origin_ns)
		return -1;
	i = (time_ns - g->origin_ns) / g->width_ns;
	return i < (int64_t)g->n ? (long)i : -1;
}

/* ---- one node's points */

static int cmp64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* A process is its pid and its start to a clock tick: one that tracerd found again in /proc
 * after a restart knows its start only to a tick (USER_HZ, 100 on Linux), its points before
 * to the ns */
#define TICK_NS 10000000LL

static int64_t start_tick(const struct tl_point *p)
{
	return p->start_boot_ns / TICK_NS;
}

static int same_process(const struct tl_point *a, const struct tl_point *b)
{
	return a->pid == b->pid && start_tick(a) == start_tick(b);
}

/* a process's points in time order, its exit last */
static int by_process(const void *a, const void *b)
{
	const struct tl_point *x = a, *y = b;
	int c = cmp64(x->pid, y->pid);

	c = c ? c : cmp64(start_tick(x), start_tick(y));
	c = c ? c : cmp64(x->exit, y->exit);
	return c ? c : cmp64(x->time_ns, y->time_ns);
}

static int by_time(const void *a, const void *b)
{
	const struct tl_point *x = a, *y = b;

	return cmp64(x->time_ns, y->time_ns);
}

/* d (counters' growth over [t1, t2]) into the cells it overlaps, in proportion; all of it in
 * t2's interval when t1 == t2 */
static void spread(const struct tl_grid *g, int64_t t1, int64_t t2, const double *d, int waits,
		   struct tl_cell *cells)
{
	int64_t end = g->origin_ns + (int64_t)g->n * g->width_ns;
	long first, last;

	if (t2 < t1 || t2 < g->origin_ns || t1 >= end)
		return;
	if (t1 == t2) {
		first = last = tl_cell_of(g, t2);
	} else {
		first = tl_cell_of(g, t1 < g->origin_ns ? g->origin_ns : t1);
		last = tl_cell_of(g, t2 >= end ? end - 1 : t2);
	}
	for (long i = first; i >= 0 && i <= last; i++) {
		int64_t b0 = g->origin_ns + i * g->width_ns, b1 = b0 + g->width_ns;
		int64_t lo = t1 > b0 ? t1 : b0, hi = t2 < b1 ? t2 : b1;
		double share = t1 == t2 ? 1.0 : (double)(hi - lo) / (double)(t2 - t1);

		if (share <= 0 && t1 != t2)
			continue;
		for (int k = 0; k < TL_COUNTERS; k++)
			cells[i].c[k] += d[k] * share;
		cells[i].waits |= waits;
		cells[i].filled = 1;
	}
}

/* a point's counters, in TL_* order */
static const size_t counter_off[TL_COUNTERS] = {
	[TL_CPU] = offsetof(struct tl_point, cpu_ns),
	[TL_READ] = offsetof(struct tl_point, read_bytes),
	[TL_WRITE] = offsetof(struct tl_point, write_bytes),
	[TL_CPUWAIT] = offsetof(struct tl_point, cpu_wait_ns),
	[TL_IOWAIT] = offsetof(struct tl_point, iowait_ns),
};

static int64_t *counter(struct tl_point *p, int k)
{
	return (int64_t *)((char *)p + counter_off[k]);
}

static int64_t counter_of(const struct tl_point *p, int k)
{
	return *(const int64_t *)((const char *)p + counter_off[k]);
}

/* what grew from a to b (a NULL: from nothing, at the process's start); an unknown or
 * shrinking counter adds nothing */
static int growth(const struct tl_point *a, const struct tl_point *b, double *d)
{
	int waits = 1;

	for (int k = 0; k < TL_COUNTERS; k++) {
		int64_t from = a ? counter_of(a, k) : 0, to = counter_of(b, k);
		int known = from != JS_NONE && to != JS_NONE;

		d[k] = known && to > from ? (double)(to - from) : 0;
		if (!known && (k == TL_CPUWAIT || k == TL_IOWAIT))
			waits = 0;
	}
	return waits;
}

/* The points of one process (pts[0..n), its exit last if any) made to count its work once: a
 * sample never above its exit, which counts everything, nor below an earlier point. A sample
 * can read more (an older tracerd read /proc/PID/io, which adds the I/O of the children the
 * process reaped: theirs already) or less (a thread that ended leaves the threads' sum); a
 * counter that fell and rose again would add the rise twice. */
static void even_process(struct tl_point *pts, size_t n)
{
	const struct tl_point *exit = n && pts[n - 1].exit ? &pts[n - 1] : NULL;

	for (int k = 0; k < TL_COUNTERS; k++) {
		int64_t top = exit ? counter_of(exit, k) : JS_NONE, last = JS_NONE;

		for (size_t i = 0; i < n; i++) {
			int64_t *v = counter(&pts[i], k);

			if (*v == JS_NONE)
				continue;
			if (top != JS_NONE && *v > top)
				*v = top;
			if (last != JS_NONE && *v < last)
				*v = last;
			last = *v;
		}
	}
}

/* the sampling rounds of the node (points of one time), the largest of each interval's */
static void rounds(const struct tl_grid *g, struct tl_point *pts, size_t n, struct tl_cell *node)
{
	qsort(pts, n, sizeof(*pts), by_time);
	for (size_t i = 0; i < n;) {
		int64_t rss = 0, procs = 0, t = pts[i].time_ns;
		long c;

		for (; i < n && pts[i].time_ns == t; i++) {
			if (pts[i].exit)
				continue;
			procs++;
			if (pts[i].rss_kb != JS_NONE)
				rss += pts[i].rss_kb;
		}
		if (!procs || (c = tl_cell_of(g, t)) < 0)
			continue;
		if (rss > node[c].rss_kb)
			node[c].rss_kb = rss;
		if (procs > node[c].nprocs)
			node[c].nprocs = procs;
		node[c].rounds++;
	}
}

int tl_add_node(const struct tl_grid *g, struct tl_point *pts, size_t n, struct tl_cell *cells)
{
	struct tl_cell *node = calloc(g->n ? g->n : 1, sizeof(*node));
	double d[TL_COUNTERS];

	if (!node)
		return -ENOMEM;
	qsort(pts, n, sizeof(*pts), by_process);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && same_process(&pts[i], &pts[j]); j++)
			;
		even_process(&pts[i], j - i);
	}
	for (size_t i = 0; i < n; i++) {
		const struct tl_point *p = &pts[i];
		int same = i && same_process(&pts[i - 1], p);

		int waits;

		if (same) { /* from its previous point */
			waits = growth(&pts[i - 1], p, d);
			spread(g, pts[i - 1].time_ns, p->time_ns, d, waits, cells);
		} else if (p->start_ns != JS_NONE && p->start_ns <= p->time_ns) { /* its start */
			waits = growth(NULL, p, d);
			spread(g, p->start_ns, p->time_ns, d, waits, cells);
		}
	}
	rounds(g, pts, n, node);
	for (size_t i = 0; i < g->n; i++) {
		if (!node[i].rounds)
			continue;
		cells[i].rss_kb += node[i].rss_kb;
		cells[i].nprocs += node[i].nprocs;
		cells[i].rounds += node[i].rounds;
		cells[i].nnodes++;
		cells[i].filled = 1;
	}
	free(node);
	return 0;
}

void tl_sum(struct tl_cell *into, const struct tl_cell *from, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < TL_COUNTERS; k++)
			into[i].c[k] += from[i].c[k];
		into[i].waits |= from[i].waits;
		into[i].rss_kb += from[i].rss_kb;
		into[i].nprocs += from[i].nprocs;
		into[i].rounds += from[i].rounds;
		/* steps on the same nodes: the most of one step's, not their sum */
		if (from[i].nnodes > into[i].nnodes)
			into[i].nnodes = from[i].nnodes;
		into[i].filled |= from[i].filled;
	}
}
