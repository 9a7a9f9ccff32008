/* Idle windows of a unit: see activity.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "activity.h"

#define IDLE_SHARE 20 /* a round is idle below 1/IDLE_SHARE of a core busy */

void activity_add(struct activity *a, uint64_t work_ns)
{
	a->work_ns += work_ns;
}

void activity_exit(struct activity *a, uint64_t t, uint64_t work_ns)
{
	a->work_ns += work_ns;
	if (work_ns && t > a->last_exit_ns)
		a->last_exit_ns = t;
}

/* Keep the window if long enough: the shortest kept one gives way to a longer one. */
static void keep(struct activity *a, uint64_t start, uint64_t end, uint64_t min_ns)
{
	unsigned i, shortest = 0;

	if (end <= start || end - start < min_ns)
		return;
	a->idle_ns += end - start;
	if (a->n < IDLE_WINDOWS_MAX) {
		a->w[a->n++] = (struct idle_window){ start, end };
		return;
	}
	for (i = 1; i < a->n; i++)
		if (a->w[i].end_ns - a->w[i].start_ns <
		    a->w[shortest].end_ns - a->w[shortest].start_ns)
			shortest = i;
	if (end - start > a->w[shortest].end_ns - a->w[shortest].start_ns)
		a->w[shortest] = (struct idle_window){ start, end };
}

void activity_round(struct activity *a, uint64_t now_ns, uint64_t min_ns)
{
	uint64_t prev = a->round_ns, before = a->prev_round_ns;

	a->prev_round_ns = prev;
	a->round_ns = now_ns;
	if (!prev || now_ns <= prev) { /* the first round only marks the start */
		a->work_ns = 0;
		return;
	}
	if (a->work_ns * IDLE_SHARE >= now_ns - prev) {
		/* working again: the window ends where this round began, at the latest */
		if (a->idle_since_ns)
			keep(a, a->idle_since_ns, prev, min_ns);
		a->idle_since_ns = 0;
	} else if (!a->idle_since_ns) {
		/* the work stopped with the exit of the last process that did any, in this round
		 * or the one before (whose work may be that exit's), or when this round began */
		a->idle_since_ns =
			a->last_exit_ns > (before ? before : prev) ? a->last_exit_ns : prev;
	}
	a->work_ns = 0;
}

void activity_end(struct activity *a, uint64_t end_ns, uint64_t min_ns)
{
	if (a->idle_since_ns)
		keep(a, a->idle_since_ns, end_ns, min_ns);
	a->idle_since_ns = 0;
}

void activity_windows_text(const struct activity *a, int64_t offset_ns, char *out, size_t len)
{
	struct idle_window w[IDLE_WINDOWS_MAX];
	size_t at = 0;
	unsigned i, j;

	memcpy(w, a->w, sizeof(w));
	for (i = 1; i < a->n; i++) /* in time order: a handful, insertion sort */
		for (j = i; j > 0 && w[j].start_ns < w[j - 1].start_ns; j--) {
			struct idle_window t = w[j];

			w[j] = w[j - 1];
			w[j - 1] = t;
		}
	out[0] = 0;
	for (i = 0; i < a->n && at < len; i++) {
		int n = snprintf(out + at, len - at, "%s%" PRId64 "-%" PRId64, i ? "," : "",
				 (int64_t)w[i].start_ns + offset_ns,
				 (int64_t)w[i].end_ns + offset_ns);

		if (n < 0 || (size_t)n >= len - at) {
			out[at] = 0;
			break;
		}
		at += n;
	}
}
