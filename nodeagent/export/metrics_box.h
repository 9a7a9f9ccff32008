/* The mailbox between the event loop, which takes a snapshot of the running units' figures
 * every OtlpMetricsInterval (metrics.h), and the export thread, which posts it to /v1/metrics.
 * One snapshot at most waits: a new one replaces the one not taken yet, as a gauge of the past
 * is not worth sending late. Metrics are therefore not spooled in the store, and the box costs
 * one snapshot's memory whatever the backend does. Both sides may call from their own thread. */
#ifndef TRACER_METRICS_BOX_H
#define TRACER_METRICS_BOX_H

#include <stdint.h>

#include "metrics_snapshot.h"

struct metrics_box;

int metrics_box_new(struct metrics_box **out);
/* Frees the box and the snapshot waiting in it */
void metrics_box_free(struct metrics_box *b);
/* Hand s over: the box owns it now. The snapshot it replaces, not taken yet, is freed. */
void metrics_box_put(struct metrics_box *b, struct metrics_snapshot *s);
/* The latest snapshot put, the caller's to free (metrics_snapshot_free); NULL when none waits */
struct metrics_snapshot *metrics_box_take(struct metrics_box *b);

struct metrics_box_stats {
	uint64_t put;	   /* snapshots put since the start */
	uint64_t replaced; /* of them, replaced before they were taken */
};
void metrics_box_stats(struct metrics_box *b, struct metrics_box_stats *out);

#endif
