/* Unit tests for util/config.c's keys of tracerd's own intervals: HousekeepingInterval,
 * OrphanAfter, MetricsRetryInterval and OtlpBackoffMax (test_config.c has the rest): their
 * defaults, good values in each unit, a bad unit and each bound, with the file:line message and
 * the caller's config untouched. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "testconfig.h"

static void test_defaults(void **state)
{
	struct tracer_config c;

	(void)state;
	config_defaults(&c);
	assert_int_equal(c.housekeeping_ms, 10000);
	assert_int_equal(c.orphan_after_ms, 10000);
	assert_int_equal(c.metrics_retry_ms, 60000);
	assert_int_equal(c.otlp_backoff_max_ms, 30000);
	assert_int_equal(c.otlp_backoff_max_ms, OTLP_BACKOFF_MAX_DEFAULT_MS);
	/* an empty file is the defaults */
	assert_int_equal(ok("").housekeeping_ms, 10000);
	assert_int_equal(ok("").orphan_after_ms, 10000);
	assert_int_equal(ok("").metrics_retry_ms, 60000);
	assert_int_equal(ok("").otlp_backoff_max_ms, 30000);
}

/* 100ms to 1h: tests shorten it to see pruning within seconds */
static void test_housekeeping_interval(void **state)
{
	(void)state;
	assert_int_equal(ok("HousekeepingInterval = 100ms\n").housekeeping_ms, 100);
	assert_int_equal(ok("HousekeepingInterval = 2\n").housekeeping_ms, 2000);
	assert_int_equal(ok("HousekeepingInterval = 30s\n").housekeeping_ms, 30000);
	assert_int_equal(ok("housekeepinginterval = 5m\n").housekeeping_ms, 300000);
	assert_int_equal(ok("HousekeepingInterval = 1h\n").housekeeping_ms, 3600000);
	assert_int_equal(ok("HousekeepingInterval = 60m\n").housekeeping_ms, 3600000);
	bad("HousekeepingInterval = 10y\n", "t.conf:1: HousekeepingInterval: bad value \"10y\": "
					    "unknown duration unit (use ms, s, m, h or d)");
	bad("HousekeepingInterval = 1.5s\n", "t.conf:1: HousekeepingInterval: bad value \"1.5s\": "
					     "unknown duration unit (use ms, s, m, h or d)");
	bad("HousekeepingInterval = -1\n", "t.conf:1: HousekeepingInterval: bad value \"-1\": "
					   "expected a duration like 500ms, 10s or 5m");
	bad("HousekeepingInterval = 99ms\n", "t.conf:1: HousekeepingInterval: bad value \"99ms\": "
					     "must be between 100ms and 1h");
	bad("HousekeepingInterval = 0\n", "t.conf:1: HousekeepingInterval: bad value \"0\": must "
					  "be between 100ms and 1h");
	bad("HousekeepingInterval = 61m\n", "t.conf:1: HousekeepingInterval: bad value \"61m\": "
					    "must be between 100ms and 1h");
	bad("HousekeepingInterval = 4294967396ms\n",
	    "t.conf:1: HousekeepingInterval: bad value \"4294967396ms\": must be between 100ms and "
	    "1h");
}

/* 1s to 24h, as the other timeouts */
static void test_orphan_after(void **state)
{
	(void)state;
	assert_int_equal(ok("OrphanAfter = 1s\n").orphan_after_ms, 1000);
	assert_int_equal(ok("OrphanAfter = 1500ms\n").orphan_after_ms, 1500);
	assert_int_equal(ok("OrphanAfter = 3\n").orphan_after_ms, 3000);
	assert_int_equal(ok("OrphanAfter = 24h\n").orphan_after_ms, 86400000);
	assert_int_equal(ok("OrphanAfter = 1d\n").orphan_after_ms, 86400000);
	bad("OrphanAfter = 2w\n", "t.conf:1: OrphanAfter: bad value \"2w\": unknown duration unit "
				  "(use ms, s, m, h or d)");
	bad("OrphanAfter = 999ms\n",
	    "t.conf:1: OrphanAfter: bad value \"999ms\": must be between 1s and 24h");
	bad("OrphanAfter = 0\n",
	    "t.conf:1: OrphanAfter: bad value \"0\": must be between 1s and 24h");
	bad("OrphanAfter = 25h\n",
	    "t.conf:1: OrphanAfter: bad value \"25h\": must be between 1s and 24h");
	bad("OrphanAfter = 2d\n",
	    "t.conf:1: OrphanAfter: bad value \"2d\": must be between 1s and 24h");
}

/* 1s to 1h: tests shorten it to see the endpoint come up once its port is free */
static void test_metrics_retry_interval(void **state)
{
	(void)state;
	assert_int_equal(ok("MetricsRetryInterval = 1s\n").metrics_retry_ms, 1000);
	assert_int_equal(ok("MetricsRetryInterval = 2500ms\n").metrics_retry_ms, 2500);
	assert_int_equal(ok("MetricsRetryInterval = 90\n").metrics_retry_ms, 90000);
	assert_int_equal(ok("MetricsRetryInterval = 1h\n").metrics_retry_ms, 3600000);
	/* whether or not the endpoint is on */
	assert_int_equal(ok("MetricsListen = 9464\nMetricsRetryInterval = 5s\n").metrics_retry_ms,
			 5000);
	bad("MetricsRetryInterval = 5 s\n", "t.conf:1: MetricsRetryInterval: bad value \"5 s\": "
					    "unknown duration unit (use ms, s, m, h or d)");
	bad("MetricsRetryInterval = 500ms\n", "t.conf:1: MetricsRetryInterval: bad value "
					      "\"500ms\": must be between 1s and 1h");
	bad("MetricsRetryInterval = 0\n",
	    "t.conf:1: MetricsRetryInterval: bad value \"0\": must be between 1s and 1h");
	bad("MetricsRetryInterval = 3601s\n",
	    "t.conf:1: MetricsRetryInterval: bad value \"3601s\": must be between 1s and 1h");
	bad("MetricsRetryInterval = 1d\n",
	    "t.conf:1: MetricsRetryInterval: bad value \"1d\": must be between 1s and 1h");
}

/* 1s to OTLP_WAIT_MAX_MS (5m), which no wait between tries passes */
static void test_otlp_backoff_max(void **state)
{
	(void)state;
	assert_int_equal(ok("OtlpBackoffMax = 1s\n").otlp_backoff_max_ms, 1000);
	assert_int_equal(ok("OtlpBackoffMax = 2000ms\n").otlp_backoff_max_ms, 2000);
	assert_int_equal(ok("OtlpBackoffMax = 10\n").otlp_backoff_max_ms, 10000);
	assert_int_equal(ok("OtlpBackoffMax = 5m\n").otlp_backoff_max_ms, 300000);
	assert_int_equal(ok("OtlpBackoffMax = 5m\n").otlp_backoff_max_ms, OTLP_WAIT_MAX_MS);
	bad("OtlpBackoffMax = 30sec\n", "t.conf:1: OtlpBackoffMax: bad value \"30sec\": unknown "
					"duration unit (use ms, s, m, h or d)");
	bad("OtlpBackoffMax = 999ms\n",
	    "t.conf:1: OtlpBackoffMax: bad value \"999ms\": must be between 1s and 5m");
	bad("OtlpBackoffMax = 0\n",
	    "t.conf:1: OtlpBackoffMax: bad value \"0\": must be between 1s and 5m");
	bad("OtlpBackoffMax = 301s\n",
	    "t.conf:1: OtlpBackoffMax: bad value \"301s\": must be between 1s and 5m");
	bad("OtlpBackoffMax = 1h\n",
	    "t.conf:1: OtlpBackoffMax: bad value \"1h\": must be between 1s and 5m");
}

/* All four in one file, as a test's tracer.conf sets them; the line of a bad one is named */
static void test_together(void **state)
{
	struct tracer_config c;

	(void)state;
	c = ok("HousekeepingInterval = 200ms\nOrphanAfter = 2s\n"
	       "MetricsRetryInterval = 2s # the test frees the port\nOtlpBackoffMax = \"1s\"\n");
	assert_int_equal(c.housekeeping_ms, 200);
	assert_int_equal(c.orphan_after_ms, 2000);
	assert_int_equal(c.metrics_retry_ms, 2000);
	assert_int_equal(c.otlp_backoff_max_ms, 1000);
	assert_int_equal(c.commit_interval_ms, 1000); /* the others keep their defaults */
	bad("HousekeepingInterval = 200ms\nOrphanAfter = 2s\nOtlpBackoffMax = 1ms\n",
	    "t.conf:3: OtlpBackoffMax: bad value \"1ms\": must be between 1s and 5m");
	bad("OrphanAfter = 2s\norphanafter = 3s\n",
	    "t.conf:2: duplicate key OrphanAfter (first set on line 1)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_housekeeping_interval),
		cmocka_unit_test(test_orphan_after),
		cmocka_unit_test(test_metrics_retry_interval),
		cmocka_unit_test(test_otlp_backoff_max),
		cmocka_unit_test(test_together),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
