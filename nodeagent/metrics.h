/* The running units' figures, taken as a snapshot (metrics_snapshot.h) for whoever says them,
 * and what the Prometheus endpoint says: the node's health and those figures, as one text
 * exposition (promtext.h) built from memory on each scrape (metrics_prom.c). A running unit's
 * figures are its totals as `tracerctl status` and the listings give them: its processes
 * stored while tracerd held it (struct unit's done) and its live ones (live.h), each figure
 * decided by process_row.c. Series carry no pid and end with their unit; a unit's counters
 * never go back while it runs. */
#ifndef TRACER_METRICS_H
#define TRACER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "metrics_snapshot.h"
#include "promtext.h"

/* A scrape's reply at most: the series above and the node's fit well within it */
#define METRICS_REPLY_MAX (4u << 20)

/* What the serving side knows: the control socket's clients and the endpoint's own scrapers. */
struct metrics_serving {
	unsigned clients;	  /* connected to the control socket and TCP port now */
	uint64_t client_refusals; /* refused since the start (limits, malformed, timeouts) */
	unsigned scrapers;	  /* connected to this endpoint now */
	uint64_t scrape_refusals; /* refused or cut off since the start */
};

/* The hook of the export stage: the delivery of one signal as its exporter knows it. An
 * exporter registers export_fn (metrics_set_export); without one these families are left out,
 * as there is nothing true to say of them. */
struct metrics_export {
	const char *signal;	      /* "traces", "logs", "metrics" */
	uint64_t backlog;	      /* records stored and not delivered yet */
	int64_t oldest_unix_ns;	      /* when the oldest of them was written, 0 none */
	int64_t last_success_unix_ns; /* the last delivery accepted, 0 never */
	uint64_t failures;	      /* deliveries refused or failed since the start */
};
/* Fill out[0..max) with each signal's delivery, return how many. From the event loop: reads
 * only what the exporter keeps in memory. */
typedef size_t (*metrics_export_fn)(void *ctx, struct metrics_export *out, size_t max);
void metrics_set_export(metrics_export_fn fn, void *ctx);

/* The running units' figures now, into *out (metrics_snapshot_free it): each unit and tool
 * within METRICS_UNITS_MAX and METRICS_TOOLS_MAX, the rest counted in cut. From the event
 * loop. 0 or -ENOMEM, *out untouched. */
int metrics_snapshot_take(struct agent *a, struct metrics_snapshot **out);

/* The whole exposition into out (prom_init'ed by the caller). 0, or -errno (out of memory; a
 * reply over its bound is cut at a family's series and counted in tracer_metrics_series_cut). */
int metrics_render(struct agent *a, const struct metrics_serving *serving, struct prom_buf *out);

#endif
