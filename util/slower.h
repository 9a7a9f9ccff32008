/* "Slower than usual": a finished step against the median time of its own earlier runs (which
 * runs are the same step is the store's rule, nodeagent/store/store_history.c). The one rule,
 * for tracer-jobstat's note and for the log record tracerd exports at the step's end. */
#ifndef TRACER_SLOWER_H
#define TRACER_SLOWER_H

#include <stddef.h>
#include <stdint.h>

#define SLOWER_RUNS 5			 /* the earlier runs compared with, at most */
#define SLOWER_FACTOR 1.5		 /* slower: this many times the median... */
#define SLOWER_MIN_NS (2 * 1000000000LL) /* ...and this much longer */

/* Is a unit compared at all: a step (not a job's allocation), by its first task (one per step
 * is enough). task_id -1: a step without tasks of its own. */
int slower_compared(int64_t step_id, int64_t task_id);
/* The median of v[0..n), sorted in place; n must be above 0 */
int64_t slower_median(int64_t *v, size_t n);
/* Did a run of took_ns take longer than usual, usual_ns being its earlier runs' median? */
int slower_than_usual(int64_t took_ns, int64_t usual_ns);

#endif
