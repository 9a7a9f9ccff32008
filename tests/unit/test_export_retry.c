/* When the export tries again (nodeagent/export/retry.c): what each answer means, the
 * backoff and its jitter, Retry-After in both its forms, and the caps a backend cannot pass. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "retry.h"

static void test_verdicts(void **state)
{
	static const struct {
		long http;
		size_t items;
		enum retry_verdict want;
	} cases[] = {
		{ 200, 512, RETRY_DELIVERED },
		{ 202, 1, RETRY_DELIVERED },
		{ 204, 512, RETRY_DELIVERED },
		{ 0, 512, RETRY_AGAIN },
		{ 408, 512, RETRY_AGAIN },
		{ 429, 512, RETRY_AGAIN },
		{ 500, 512, RETRY_AGAIN },
		{ 502, 512, RETRY_AGAIN },
		{ 503, 512, RETRY_AGAIN },
		{ 504, 512, RETRY_AGAIN },
		{ 301, 512, RETRY_AGAIN },
		{ 307, 512, RETRY_AGAIN },
		/* the setup is wrong, not the batch: kept until it is set right */
		{ 401, 512, RETRY_AGAIN },
		{ 403, 512, RETRY_AGAIN },
		{ 404, 512, RETRY_AGAIN },
		{ 407, 512, RETRY_AGAIN },
		{ 421, 512, RETRY_AGAIN },
		{ 401, 1, RETRY_AGAIN },
		/* the batch is: refused and skipped, not a stall for ever */
		{ 400, 512, RETRY_REFUSED },
		{ 402, 512, RETRY_REFUSED },
		{ 405, 512, RETRY_REFUSED },
		{ 409, 512, RETRY_REFUSED },
		{ 415, 512, RETRY_REFUSED },
		{ 422, 512, RETRY_REFUSED },
		{ 499, 512, RETRY_REFUSED },
		{ 413, 512, RETRY_SMALLER },
		{ 413, 2, RETRY_SMALLER },
		{ 413, 1, RETRY_REFUSED },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		if (retry_verdict_of(cases[i].http, cases[i].items) != cases[i].want)
			fail_msg("HTTP %ld for %zu items: verdict %d, not %d", cases[i].http,
				 cases[i].items, retry_verdict_of(cases[i].http, cases[i].items),
				 cases[i].want);
}

/* Doubling from RETRY_BASE_MS, within [half, whole] of each step, capped at max */
static void check_backoff(uint32_t max)
{
	static const uint32_t randoms[] = { 0, 1, 12345, 0x7fffffff, 0xffffffff };

	for (unsigned attempt = 1; attempt < 40; attempt++) {
		uint64_t d = RETRY_BASE_MS;

		for (unsigned i = 1; i < attempt && d < max; i++)
			d *= 2;
		if (d > max)
			d = max;
		for (size_t i = 0; i < sizeof(randoms) / sizeof(*randoms); i++) {
			uint32_t w = retry_backoff_ms(attempt, max, randoms[i]);

			if (w < d / 2 || w > d || w > max)
				fail_msg("attempt %u, cap %u, random %u: %u, not within %u..%u",
					 attempt, max, randoms[i], w, (unsigned)(d / 2),
					 (unsigned)d);
		}
	}
}

static void test_backoff(void **state)
{
	const uint32_t max = OTLP_BACKOFF_MAX_DEFAULT_MS;
	(void)state;

	check_backoff(max);
	/* the jitter spreads: two randoms, two waits */
	assert_int_not_equal(retry_backoff_ms(5, max, 1), retry_backoff_ms(5, max, 9999));
	assert_int_equal(retry_backoff_ms(1, max, 0), RETRY_BASE_MS / 2);
	assert_int_equal(retry_backoff_ms(100, max, 0xffffffff) <= max, 1);
	assert_int_equal(retry_backoff_ms(100, max, 0xffffffff) >= max / 2, 1);
}

/* OtlpBackoffMax: a small cap (tests set one) is reached at once and kept; the least, 1 s,
 * keeps every wait to the first one's; none passes OTLP_WAIT_MAX_MS, whatever is asked */
static void test_backoff_cap(void **state)
{
	(void)state;

	check_backoff(2000);
	check_backoff(1000);
	check_backoff(OTLP_WAIT_MAX_MS);
	for (unsigned attempt = 2; attempt < 40; attempt++) {
		assert_int_equal(retry_backoff_ms(attempt, 2000, 0), 1000);
		assert_int_equal(retry_backoff_ms(attempt, 2000, 1000), 2000);
		assert_int_equal(retry_backoff_ms(attempt, 1000, 500), 1000);
	}
	assert_int_equal(retry_backoff_ms(1, 1000, 0), RETRY_BASE_MS / 2);
	assert_int_equal(retry_backoff_ms(100, 5000, 0xffffffff) <= 5000, 1);
	assert_int_equal(retry_backoff_ms(100, UINT32_MAX, 0xffffffff) <= OTLP_WAIT_MAX_MS, 1);
	assert_int_equal(retry_backoff_ms(100, UINT32_MAX, 0), OTLP_WAIT_MAX_MS / 2);
	/* Retry-After still wins when longer than the small cap */
	assert_int_equal(retry_wait_ms(9, 2000, 0, 1, 30000), 30000);
	assert_int_equal(retry_wait_ms(9, 2000, 0, 1, 10), 1000);
}

static void test_retry_after_seconds(void **state)
{
	uint32_t ms = 7;
	(void)state;

	assert_int_equal(retry_after_parse("120", 0, &ms), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(retry_after_parse(" 0 ", 0, &ms), 0);
	assert_int_equal(ms, 0);
	/* a backend cannot park delivery for longer than the cap, however large its number */
	assert_int_equal(retry_after_parse("86400", 0, &ms), 0);
	assert_int_equal(ms, OTLP_WAIT_MAX_MS);
	assert_int_equal(retry_after_parse("99999999999999999999999999999999", 0, &ms), 0);
	assert_int_equal(ms, OTLP_WAIT_MAX_MS);
	ms = 7;
	assert_int_equal(retry_after_parse("-5", 0, &ms), -EINVAL);
	assert_int_equal(retry_after_parse("5s", 0, &ms), -EINVAL);
	assert_int_equal(retry_after_parse("1.5", 0, &ms), -EINVAL);
	assert_int_equal(retry_after_parse("", 0, &ms), -EINVAL);
	assert_int_equal(retry_after_parse("soon", 0, &ms), -EINVAL);
	assert_int_equal(ms, 7); /* untouched on failure */
}

static void test_retry_after_dates(void **state)
{
	/* Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example) */
	const time_t at = 784111777;
	uint32_t ms = 0;
	(void)state;

	assert_int_equal(retry_after_parse("Sun, 06 Nov 1994 08:49:37 GMT", at - 30, &ms), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(retry_after_parse("Sunday, 06-Nov-94 08:49:37 GMT", at - 2, &ms), 0);
	assert_int_equal(ms, 2000);
	assert_int_equal(retry_after_parse("Sun Nov  6 08:49:37 1994", at - 1, &ms), 0);
	assert_int_equal(ms, 1000);
	/* past: at once */
	assert_int_equal(retry_after_parse("Sun, 06 Nov 1994 08:49:37 GMT", at + 100, &ms), 0);
	assert_int_equal(ms, 0);
	/* far ahead: capped */
	assert_int_equal(retry_after_parse("Fri, 01 Jan 2100 00:00:00 GMT", at, &ms), 0);
	assert_int_equal(ms, OTLP_WAIT_MAX_MS);
	assert_int_equal(retry_after_parse("Sun, 06 Nov 1994 08:49:37 GMT junk", at, &ms), -EINVAL);
	assert_int_equal(retry_after_parse("Sun, 06 Nov 1994", at, &ms), -EINVAL);
}

static void test_wait(void **state)
{
	const uint32_t max = OTLP_BACKOFF_MAX_DEFAULT_MS;
	(void)state;

	/* Retry-After when longer than the backoff, the backoff otherwise */
	assert_int_equal(retry_wait_ms(1, max, 0, 1, 30000), 30000);
	assert_int_equal(retry_wait_ms(1, max, 0, 1, 10), RETRY_BASE_MS / 2);
	assert_int_equal(retry_wait_ms(1, max, 0, 0, 30000), RETRY_BASE_MS / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_backoff_cap),
		cmocka_unit_test(test_retry_after_seconds),
		cmocka_unit_test(test_retry_after_dates),
		cmocka_unit_test(test_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
