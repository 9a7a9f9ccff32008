/* The OTLP exporter: a thread of its own that reads what the store holds after each signal's
 * cursor (through a read-only connection of its own), sends it to the collector, and moves
 * the cursor on once the collector took it. The event loop never waits on it: it starts and
 * stops the thread, takes the slowest cursor for pruning, and a snapshot of the numbers for
 * status, each under a mutex held for a copy. */
#ifndef TRACER_EXPORT_H
#define TRACER_EXPORT_H

#include <stdint.h>
#include <json-c/json.h>

#include "config.h"

/* How long stopping waits for the thread: a post under way is abandoned at once (its
 * progress callback sees the stop), so this is a bound, not a wait */
#define EXPORTER_STOP_MS 3000

struct exporter;

/* Export the store at store_path (StateDir/NODE/tracer.db; the cursors go next to it) to the
 * collector that cfg and the environment (OTEL_EXPORTER_OTLP_*) name. A collector that was
 * never delivered to (no cursor, or one of another endpoint) begins after head, the store's
 * export sequence now (store_export_head): what is recorded from then on. 0 with *out NULL
 * when no endpoint is set: export is off. 0 with *out running, or -errno (-EINVAL: a bad
 * setting, or a TLS file named that is no readable regular file), said in the log. */
int exporter_start(struct exporter **out, const struct tracer_config *cfg, const char *node,
		   const char *store_path, int64_t head);
/* Warn when the configuration file at path (which users' tools read) is readable by every
 * user and holds a secret of the export's (export_conf_has_secret). */
void exporter_check_conf(const char *path, const struct tracer_config *cfg);
/* Stop and free: the thread is told, a post under way abandoned, and the thread joined for
 * EXPORTER_STOP_MS at most (past it, left to the exit). NULL: nothing to do. */
void exporter_stop(struct exporter *e);
/* SIGHUP: the settings resolved again; a change is said to wait for a restart. */
void exporter_reload(struct exporter *e, const struct tracer_config *cfg);
/* Are metrics exported (a metrics endpoint, OtlpMetricsInterval above 0)? 0 for NULL. */
int exporter_metrics_on(const struct exporter *e);
/* Hand a snapshot of the running units' figures to the thread (which owns it now), to be sent
 * once; one not sent yet is replaced (metrics_box.h). Frees s when metrics are off. */
struct metrics_snapshot;
void exporter_put_metrics(struct exporter *e, struct metrics_snapshot *s);
/* The store's export head (store_export_head) after a commit, from the loop: a signal whose
 * cursor has reached it has nothing to read, and the thread spares itself that look at the store
 * (a read transaction and six queries a second per signal on an idle node). Never said (an
 * exporter of a store that another process writes): every look reads. NULL: nothing. */
void exporter_set_head(struct exporter *e, int64_t head);
/* The slowest exported signal's cursor (store_set_export_floor's floor); -1 for NULL. */
int64_t exporter_floor(struct exporter *e);
/* For status: {"signals":[{signal, endpoint, cursor, behind, oldest_ns, last_success_ns,
 * last_error, last_error_ns, retry_in_ms, sent, batches, retries, resent, refused,
 * rejected}]}, and for metrics nothing_to_send (no unit ran at the latest snapshot);
 * {"enabled":false} for NULL. behind counts store records after the cursor, which traces and
 * logs read alike (a record makes a span and up to 4 log records). */
struct json_object *exporter_status_json(struct exporter *e);
/* The Prometheus endpoint's view of each signal's delivery (metrics.h's metrics_export_fn,
 * ctx the exporter): from the event loop, a copy under the lock. */
struct metrics_export;
size_t exporter_metrics(void *ctx, struct metrics_export *out, size_t max);

#endif
