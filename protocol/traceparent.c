/* traceparent parsing and derivation. */
#include <stdio.h>
#include <string.h>

#include "traceparent.h"

static int all_hex(const char *s, size_t n, int *nonzero)
{
	size_t i;

	*nonzero = 0;
	for (i = 0; i < n; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		*nonzero |= s[i] != '0';
	}
	return 1;
}

int traceparent_valid(const char *s)
{
	int nz;

	if (!s || strlen(s) != TRACEPARENT_LEN || strncmp(s, "00-", 3) || s[35] != '-' ||
	    s[52] != '-')
		return 0;
	if (!all_hex(s + 3, 32, &nz) || !nz)
		return 0;
	if (!all_hex(s + 36, 16, &nz) || !nz)
		return 0;
	return all_hex(s + 53, 2, &nz);
}

uint64_t traceparent_id(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h ? h : 1; /* ids must not be all zero */
}

/* The names ids are derived from: the job's, and its step's under it */
static void job_name(const char *cluster, uint64_t job_id, char *out, size_t len)
{
	snprintf(out, len, "tracer/%s/%llu", cluster ? cluster : "", (unsigned long long)job_id);
}

void traceparent_job_trace(const char *cluster, uint64_t job_id, uint64_t trace[2])
{
	char job[160];

	job_name(cluster, job_id, job, sizeof(job));
	trace[0] = traceparent_id(TRACEPARENT_SEED, job);
	trace[1] = traceparent_id(TRACEPARENT_SEED2, job);
}

uint64_t traceparent_step_span(const char *cluster, uint64_t job_id, uint32_t step_id)
{
	char job[160], step[192];

	job_name(cluster, job_id, job, sizeof(job));
	snprintf(step, sizeof(step), "%s/%u", job, step_id);
	return traceparent_id(TRACEPARENT_SEED, step);
}

void traceparent_derive(const char *cluster, uint64_t job_id, uint32_t step_id,
			char out[TRACEPARENT_LEN + 1])
{
	uint64_t trace[2];

	traceparent_job_trace(cluster, job_id, trace);
	snprintf(out, TRACEPARENT_LEN + 1, "00-%016llx%016llx-%016llx-01",
		 (unsigned long long)trace[0], (unsigned long long)trace[1],
		 (unsigned long long)traceparent_step_span(cluster, job_id, step_id));
}

void traceparent_trace_id(const char *traceparent, char out[33])
{
	memcpy(out, traceparent + 3, 32);
	out[32] = 0;
}
