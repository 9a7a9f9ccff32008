/* W3C Trace Context `traceparent` values: accepted from a job's environment, or derived
 * deterministically from the Slurm job so every node and step of a job agree on it. */
#ifndef TRACER_TRACEPARENT_H
#define TRACER_TRACEPARENT_H

#include <stddef.h>
#include <stdint.h>

#define TRACEPARENT_LEN 55 /* "00-" 32 "-" 16 "-" 2 */

/* Is s a valid version-00 traceparent (lowercase hex, ids not all zero)? */
int traceparent_valid(const char *s);
/* Derive "00-<trace>-<span>-01": the trace id from (cluster, job), the span id from the step. */
void traceparent_derive(const char *cluster, uint64_t job_id, uint32_t step_id,
			char out[TRACEPARENT_LEN + 1]);
/* Copy the 32-hex trace id out of a valid traceparent. */
void traceparent_trace_id(const char *traceparent, char out[33]);

#endif
