/* What the store holds, as OTLP items in the order of a cursor: the spans of finished processes
 * and units, and the log records of what went wrong (OOM kills, failures, stalls, losses).
 *
 * The cursor is the store's export sequence (store.h: every process row and every unit's
 * finish takes the next number, never reused, even across restarts and pruning), so one
 * number per signal says what has been delivered. Ids are deterministic (from the node's boot
 * id, pid, start time and unit), so an item sent twice replaces itself at the backend. */
#ifndef TRACER_EXPORT_SOURCE_H
#define TRACER_EXPORT_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "otlp.h"

/* The signals the store spools (EXPORT_SIGNALS of them, a cursor each), then metrics, which
 * it does not: a snapshot of the running units' figures is sent as it is taken
 * (export_metrics.h), EXPORT_TARGETS signals in all */
enum export_signal {
	EXPORT_TRACES,
	EXPORT_LOGS,
	EXPORT_SIGNALS,
	EXPORT_METRICS = EXPORT_SIGNALS,
	EXPORT_TARGETS
};

struct export_batch;

/* A batch for the exporter of node (the Slurm node name: an allocation's span is the job's on
 * that node). */
int export_batch_new(struct export_batch **out, const char *node);
void export_batch_free(struct export_batch *b);

/* Read the items of signal whose sequence is above cursor, at most max of them, from db (a
 * read-only connection of the exporter's own, in a read transaction of the caller's), into b
 * (emptied first). *next: the sequence past the last row read (cursor when none); rows that
 * make no item (a folded row) still move it. 0 or -errno. */
int export_source_read(sqlite3 *db, enum export_signal signal, int64_t cursor, size_t max,
		       struct export_batch *b, int64_t *next);
/* Items in b (spans or log records) */
size_t export_batch_count(const struct export_batch *b);
/* Store rows read into b: what a batch is made smaller by (a row makes up to 4 log records) */
size_t export_batch_rows(const struct export_batch *b);
/* Encode b's items as one request body of its signal, appended to out. */
int export_batch_encode(const struct export_batch *b, enum otlp_format f,
			const struct otlp_resource *res, struct otlp_buf *out);
/* The lowest sequence the store holds that is above cursor, and the time (Unix ns) it was
 * written, for the age of the backlog: 0 and *seq = 0 when nothing waits. */
int export_source_oldest(sqlite3 *db, enum export_signal signal, int64_t cursor, int64_t *seq,
			 uint64_t *written_unix_ns);

#endif
