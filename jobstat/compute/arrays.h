/* --array-summary: one row per job array with the min/median/max of each figure. Pure: the
 * figures are the numbers behind the fields (cell_number). */
#ifndef JOBSTAT_ARRAYS_H
#define JOBSTAT_ARRAYS_H

#include <stddef.h>
#include <stdint.h>
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
/* Jobs counted by state ("CANCELLED by 0" counts as CANCELLED); states past STATE_KINDS
 * distinct ones are counted as "other". */
#define STATE_KINDS 16
struct state_count {
	char name[24];
	int64_t n;
};
struct state_counts {
	struct state_count k[STATE_KINDS];
	size_t n;
	int64_t other;
};
void arrays_count_state(struct state_counts *c, const char *state);
/* "OUT_OF_MEMORY:1,FAILED:1,COMPLETED:2": failures first, the worst first, COMPLETED last;
 * whole entries only, ",..." where the rest does not fit in len. */
void arrays_states_text(const struct state_counts *c, char *out, size_t len);
/* Their cells, as text and JSON, are in fields.h (array_cell, array_json). */

#endif
