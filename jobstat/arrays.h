/* --array-summary: one row per job array with the min/median/max of each figure. Pure: the
 * figures are the numbers behind the fields (cell_number). */
#ifndef JOBSTAT_ARRAYS_H
#define JOBSTAT_ARRAYS_H

#include <stddef.h>
#include <json-c/json.h>

#include "fields.h"
#include "report.h"

struct array_stats {
	int64_t njobs;
	char states[160];  /* "FAILED:1,COMPLETED:9": failures first */
	char suggest[160]; /* one advice for its tasks (notes_arrays) */
	struct {
		size_t n;
		double min, median, max;
	} v[F_COUNT];
};

/* Group the report's array tasks by array; each group gives a ROW_ARRAY row pointing at its
 * stats. Returns the number of arrays (*rows and *stats: caller frees), -ENOMEM. */
int arrays_build(const struct report *rep, struct row **rows, struct array_stats **stats);
/* min, median (the mean of the middle two for an even count) and max of v[0..n), sorted in
 * place. */
void arrays_stats(double *v, size_t n, double *min, double *median, double *max);
/* Count one job of state ("CANCELLED by 0" counts as CANCELLED) into states, a list
 * "COMPLETED:2,FAILED:1" of at most len bytes (a state that does not fit is left out). */
void arrays_count_state(char *states, size_t len, const char *state);
/* "COMPLETED:2,FAILED:1,OUT_OF_MEMORY:1" in place as "OUT_OF_MEMORY:1,FAILED:1,COMPLETED:2":
 * failures first, the worst first, COMPLETED last. */
void arrays_order_states(char *states, size_t len);
/* Their cells, as text and JSON, are in fields.h (array_cell, array_json). */

#endif
