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
/* An id from a seed and a name (FNV-1a, 64 bits): stable across builds and hosts, never 0. What
 * every derived trace and span id is made of. */
uint64_t traceparent_id(uint64_t seed, const char *name);
#define TRACEPARENT_SEED 0xcbf29ce484222325ull /* FNV's offset basis */
#define TRACEPARENT_SEED2 0x84222325cbf29ce4ull
/* A Slurm job's trace id (two halves, high first), and the span id of one of its steps:
 * what traceparent_derive() writes. */
void traceparent_job_trace(const char *cluster, uint64_t job_id, uint64_t trace[2]);
uint64_t traceparent_step_span(const char *cluster, uint64_t job_id, uint32_t step_id);
/* Copy the 32-hex trace id out of a valid traceparent. */
void traceparent_trace_id(const char *traceparent, char out[33]);

#endif
