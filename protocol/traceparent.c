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

/* FNV-1a, 64 bits, from a seed: stable across builds and hosts */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h ? h : 1; /* ids must not be all zero */
}

void traceparent_derive(const char *cluster, uint64_t job_id, uint32_t step_id,
			char out[TRACEPARENT_LEN + 1])
{
	char job[160], step[192];

	snprintf(job, sizeof(job), "tracer/%s/%llu", cluster ? cluster : "",
		 (unsigned long long)job_id);
	snprintf(step, sizeof(step), "%s/%u", job, step_id);
	snprintf(out, TRACEPARENT_LEN + 1, "00-%016llx%016llx-%016llx-01",
		 (unsigned long long)fnv1a(0xcbf29ce484222325ull, job),
		 (unsigned long long)fnv1a(0x84222325cbf29ce4ull, job),
		 (unsigned long long)fnv1a(0xcbf29ce484222325ull, step));
}

void traceparent_trace_id(const char *traceparent, char out[33])
{
	memcpy(out, traceparent + 3, 32);
	out[32] = 0;
}
