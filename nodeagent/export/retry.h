/* When a delivery is tried again, and whether at all: what a collector's answer means for the
 * batch (the OTLP/HTTP specification's retryable codes), the exponential backoff with jitter,
 * and Retry-After. Pure: the caller gives the time, the randomness and the backoff's cap. */
#ifndef TRACER_EXPORT_RETRY_H
#define TRACER_EXPORT_RETRY_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "otlp_settings.h"

#define RETRY_BASE_MS 1000 /* the first wait */

enum retry_verdict {
	RETRY_DELIVERED, /* 2xx: the cursor moves on */
	RETRY_AGAIN,	 /* 408, 429, 5xx, a timeout, no connection; 401, 403, 404, 407 and 421,
			    which say the setup is wrong (a key expired, a path or a tenant
			    wrong), not the batch, and get set right: nothing is lost meanwhile,
			    the store keeps the backlog (StoreMaxSize bounds it, counting what it
			    prunes); and a redirect (none is followed: the endpoint is wrong): the
			    same batch later, with the backoff */
	RETRY_REFUSED,	 /* 400 and any other 4xx: the batch itself is refused (a poison batch);
			    said, counted, and skipped, or one batch a backend cannot take would
			    stall delivery for ever */
	RETRY_SMALLER, /* 413 for more than one store row: the batch is too large for the collector
			  (a proxy's body limit), not its items bad: sent again at once in
			  halves, or one user's long command lines would cost everyone's items
			  in the same batch */
};

/* http: the status the reply had, 0 when none came (transport failure, timeout); rows: the
 * store rows the batch was made of (a 413 for one row's items refuses them). */
enum retry_verdict retry_verdict_of(long http, size_t rows);

/* The wait before try number attempt (1 for the first retry): RETRY_BASE_MS doubled each
 * time, capped at max_ms (OtlpBackoffMax; itself at most OTLP_WAIT_MAX_MS), of which random
 * (any 32 bits) takes between a half and the whole ("equal jitter": nodes that failed together
 * do not retry together). */
uint32_t retry_backoff_ms(unsigned attempt, uint32_t max_ms, uint32_t random);

/* A Retry-After value: delay-seconds or an HTTP date (IMF-fixdate, RFC 850 or asctime) as of
 * now, into *ms, capped at OTLP_WAIT_MAX_MS; a date past is 0. -EINVAL for anything else. */
int retry_after_parse(const char *v, time_t now, uint32_t *ms);

/* The wait after a failed try: the backoff (capped at max_ms), or Retry-After's when it is
 * longer. */
uint32_t retry_wait_ms(unsigned attempt, uint32_t max_ms, uint32_t random, int has_retry_after,
		       uint32_t retry_after_ms);

#endif
