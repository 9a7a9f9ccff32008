/* `tracerctl status`: the lines of the OTLP export. */
#ifndef TRACER_TRACERCTL_STATUS_EXPORT_H
#define TRACER_TRACERCTL_STATUS_EXPORT_H

#include <json-c/json.h>

/* Per exported signal: where to, how far behind and since when, the last success and error,
 * and the counters; one line "off" when export is off. Nothing for a tracerd without it. */
void print_export(struct json_object *reply);

#endif
