/* struct exporter: export.c (the loop's side: start, stop, snapshots) and export_run.c (the
 * thread's side) only. */
#ifndef TRACER_EXPORT_INTERNAL_H
#define TRACER_EXPORT_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "export.h"
#include "export_config.h"
#include "metrics_box.h"
#include "otlp.h"
#include "source.h"

#define EXPORT_BATCH_ITEMS 512 /* items of one request at most */
#define EXPORT_BODY_MAX                                                           \
	(4u << 20)	    /* bytes of one request body (before gzip) at most: a \
			       larger batch is read again at half the items */
#define EXPORT_IDLE_MS 1000 /* a look at the store when nothing waits */
#define EXPORT_RESOURCE_ATTRS 5

/* What status shows of a signal: the thread writes it, the loop copies it, under lock */
struct export_signal_status {
	int64_t cursor;
	int64_t behind;		 /* store records after the cursor (any signal's); -1 unknown */
	uint64_t oldest_ns;	 /* when the oldest record not delivered was written; 0 none */
	int64_t last_success_ns; /* unix ns */
	int64_t last_error_ns;
	char last_error[768]; /* a delivery's error, the collector's reason or the TLS files */
	int64_t retry_at_ms;  /* monotonic ms of the next try after a failure; 0 none */
	int idle; /* metrics: the latest snapshot had no running unit, nothing to send */
	uint64_t sent, batches, retries, resent, refused, rejected;
};

struct exporter {
	struct export_settings set;
	char store_path[PATH_MAX], cursor_path[PATH_MAX];
	/* each signal's endpoint as its cursor names it: as shown (otlp_url_shown), so that no
	 * secret is written there and a rotated credential is the same collector still */
	char cursor_url[EXPORT_SIGNALS][OTLP_URL_MAX];
	char host[256], node[64], cluster[64];
	struct otlp_attr res_attrs[EXPORT_RESOURCE_ATTRS];
	struct otlp_resource res;
	pthread_t thread;
	volatile int stop; /* set by the loop; read by the thread and libcurl's callback */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct metrics_box *metrics; /* the loop puts snapshots, the thread takes; NULL: none */
	/* the store's export head as the loop last said it (exporter_set_head), atomic; -1 never
	 * said: every look reads the store */
	int64_t head;
	/* under lock */
	struct export_signal_status st[EXPORT_TARGETS];
};

/* The thread's body */
void *export_run(void *arg);

#endif
