/* What a collector's answer means, and the waits between tries (retry.h). */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "retry.h"

enum retry_verdict retry_verdict_of(long http, size_t rows)
{
	if (http >= 200 && http < 300)
		return RETRY_DELIVERED;
	if (http == 413 && rows > 1)
		return RETRY_SMALLER;
	switch (http) {
	case 401: /* unauthorized: a key expired or not yet set */
	case 403: /* forbidden: a tenant not yet allowed */
	case 404: /* a wrong path, a tenant not yet made */
	case 407: /* a proxy's credentials */
	case 408:
	case 421: /* a misdirected request: a proxy or a name set wrong */
	case 429:
		return RETRY_AGAIN;
	}
	if (http >= 400 && http < 500)
		return RETRY_REFUSED;
	return RETRY_AGAIN;
}

uint32_t retry_backoff_ms(unsigned attempt, uint32_t max_ms, uint32_t random)
{
	uint64_t d = RETRY_BASE_MS, half;

	if (max_ms > OTLP_WAIT_MAX_MS) /* no wait is longer (tracer.conf bounds it too) */
		max_ms = OTLP_WAIT_MAX_MS;
	for (unsigned i = 1; i < attempt && d < max_ms; i++)
		d *= 2;
	if (d > max_ms)
		d = max_ms;
	half = d / 2;
	return (uint32_t)(half + (uint64_t)random % (d - half + 1));
}

/* The formats RFC 9110 says a recipient accepts */
static const char *const date_formats[] = {
	"%a, %d %b %Y %H:%M:%S GMT", /* IMF-fixdate */
	"%A, %d-%b-%y %H:%M:%S GMT", /* RFC 850 */
	"%a %b %e %H:%M:%S %Y",	     /* asctime */
};

int retry_after_parse(const char *v, time_t now, uint32_t *ms)
{
	struct tm tm;
	time_t at;
	size_t i, n;
	uint64_t secs = 0;

	while (*v == ' ' || *v == '\t')
		v++;
	n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (!n || n > 64)
		return -EINVAL;
	if (isdigit((unsigned char)v[0])) {
		for (i = 0; i < n; i++) {
			if (!isdigit((unsigned char)v[i]))
				return -EINVAL;
			if (secs < OTLP_WAIT_MAX_MS)
				secs = secs * 10 + (uint64_t)(v[i] - '0');
		}
		*ms = secs * 1000 > OTLP_WAIT_MAX_MS ? OTLP_WAIT_MAX_MS : (uint32_t)(secs * 1000);
		return 0;
	}
	for (i = 0; i < sizeof(date_formats) / sizeof(*date_formats); i++) {
		char copy[65];
		const char *end;

		memcpy(copy, v, n);
		copy[n] = 0;
		memset(&tm, 0, sizeof(tm));
		end = strptime(copy, date_formats[i], &tm);
		if (!end || *end)
			continue;
		at = timegm(&tm);
		if (at == (time_t)-1)
			return -EINVAL;
		if (at <= now)
			*ms = 0;
		else
			*ms = (uint64_t)(at - now) * 1000 > OTLP_WAIT_MAX_MS
				      ? OTLP_WAIT_MAX_MS
				      : (uint32_t)((at - now) * 1000);
		return 0;
	}
	return -EINVAL;
}

uint32_t retry_wait_ms(unsigned attempt, uint32_t max_ms, uint32_t random, int has_retry_after,
		       uint32_t retry_after_ms)
{
	uint32_t d = retry_backoff_ms(attempt, max_ms, random);

	return has_retry_after && retry_after_ms > d ? retry_after_ms : d;
}
