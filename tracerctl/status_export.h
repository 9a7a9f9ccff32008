/* `tracerctl status`: the lines of the OTLP export and of the Prometheus endpoint. */
#ifndef TRACER_TRACERCTL_STATUS_EXPORT_H
#define TRACER_TRACERCTL_STATUS_EXPORT_H

#include <json-c/json.h>

/* Per exported signal: where to, how far behind and since when, the last success and error,
 * and the counters; one line "off" when export is off. Nothing for a tracerd without it. */
void print_export(struct json_object *reply);
/* The Prometheus endpoint: listening on where, or not listening, why and when it tries again;
 * "off" when MetricsListen is unset. Nothing for a tracerd that does not say it. */
void print_metrics(struct json_object *reply);

#endif
