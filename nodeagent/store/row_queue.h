/* Rows waiting for the committing thread (store_commit.c): each row of a record
 * (process_row.h's struct rec_row) copied into one growing buffer, its strings with it, so that
 * the process or unit it came from may go at once. Only the columns a row sets are kept. */
#ifndef TRACER_ROW_QUEUE_H
#define TRACER_ROW_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include "process_row.h"

/* What the thread does with a row */
enum row_op {
	ROW_UNIT,	 /* the units table's (INSERT OR REPLACE) */
	ROW_PROCESS,	 /* the processes table's */
	ROW_SAMPLE,	 /* the samples table's */
	ROW_FOLD,	 /* added into its unit's folded row of its tool (store_fold.c) */
	ROW_FOLD_OTHER,	 /* the same, into "(other tools)" when its tool has no row yet */
	ROW_STALL_START, /* the stall_starts table's */
};

/* A count per unit, for the first UNIT_COUNTS units; the others' summed in rest */
#define UNIT_COUNTS 64
struct unit_counts {
	struct {
		uint64_t unit, n;
	} u[UNIT_COUNTS];
	unsigned n;
	uint64_t rest;
};
void unit_counts_add(struct unit_counts *c, uint64_t unit, uint64_t n);

struct row_queue {
	uint8_t *buf;
	size_t len, cap;
	unsigned n;		  /* rows */
	struct unit_counts procs; /* its processes (ROW_PROCESS, ROW_FOLD*) per unit */
};

struct rec_table;
/* Copy r, a row of t (the columns it sets), to the end of q, with op and the unit it counts
 * for. 0 or -ENOMEM (q unchanged). */
int row_queue_put(struct row_queue *q, enum row_op op, uint64_t unit, const struct rec_table *t,
		  const struct rec_row *r);
/* The row at *at (0 for the first) into r, whose strings then point into q; *at moves to the
 * next. 1 when a row was read, 0 at the end, -EINVAL when what is there does not read as a row. */
int row_queue_next(const struct row_queue *q, size_t *at, enum row_op *op, uint64_t *unit,
		   struct rec_row *r);
void row_queue_clear(struct row_queue *q); /* empty, its buffer kept */
void row_queue_free(struct row_queue *q);

#endif
