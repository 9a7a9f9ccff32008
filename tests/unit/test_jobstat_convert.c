/* tracer-jobstat: sacct's value formats, unit conversions, time windows, host and CPU lists. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "convert.h"
#include "jobstat.h"

static char buf[256];

static void test_elapsed(void **state)
{
	(void)state;
	fmt_elapsed(buf, sizeof(buf), 0);
	assert_string_equal(buf, "00:00:00");
	fmt_elapsed(buf, sizeof(buf), 3723);
	assert_string_equal(buf, "01:02:03");
	fmt_elapsed(buf, sizeof(buf), 86400 + 7384);
	assert_string_equal(buf, "1-02:03:04");
	fmt_elapsed(buf, sizeof(buf), JS_NONE);
	assert_string_equal(buf, "---");
	fmt_elapsed(buf, sizeof(buf), -5);
	assert_string_equal(buf, "---");
}

/* durations in words, as the notes say them */
static void test_duration(void **state)
{
	(void)state;
	fmt_duration(buf, sizeof(buf), 45);
	assert_string_equal(buf, "45 s");
	fmt_duration(buf, sizeof(buf), 12 * 60 + 5);
	assert_string_equal(buf, "12 min 5 s");
	fmt_duration(buf, sizeof(buf), 2 * 3600 + 59);
	assert_string_equal(buf, "2 h 0 min");
}

static void test_cputime(void **state)
{
	(void)state;
	/* sacct: MM:SS.mmm below an hour, whole seconds as 00:MM:SS, HH:MM:SS above */
	fmt_cputime(buf, sizeof(buf), 939000);
	assert_string_equal(buf, "00:00.939");
	fmt_cputime(buf, sizeof(buf), 0);
	assert_string_equal(buf, "00:00:00");
	fmt_cputime(buf, sizeof(buf), 65500000);
	assert_string_equal(buf, "01:05.500");
	fmt_cputime(buf, sizeof(buf), 60000000);
	assert_string_equal(buf, "00:01:00");
	fmt_cputime(buf, sizeof(buf), (int64_t)3725 * 1000000 + 5000);
	assert_string_equal(buf, "01:02:05");
	fmt_cputime(buf, sizeof(buf), (int64_t)90000 * 1000000);
	assert_string_equal(buf, "1-01:00:00");
	fmt_cputime(buf, sizeof(buf), 999); /* below a millisecond: sacct drops it */
	assert_string_equal(buf, "00:00:00");
}

static void test_timelimit(void **state)
{
	(void)state;
	conv_timelimit(buf, sizeof(buf), 60);
	assert_string_equal(buf, "01:00:00");
	conv_timelimit(buf, sizeof(buf), 1);
	assert_string_equal(buf, "00:01:00");
	conv_timelimit(buf, sizeof(buf), 2 * 1440 + 30);
	assert_string_equal(buf, "2-00:30:00");
	conv_timelimit(buf, sizeof(buf), TL_UNLIMITED);
	assert_string_equal(buf, "UNLIMITED");
	conv_timelimit(buf, sizeof(buf), TL_PARTITION);
	assert_string_equal(buf, "Partition_Limit");
	conv_timelimit(buf, sizeof(buf), JS_NONE);
	assert_string_equal(buf, "");
}

static void test_size_exact(void **state)
{
	(void)state;
	/* ReqMem as sacct prints it: divided while a whole multiple of 512 */
	fmt_size(buf, sizeof(buf), 400, U_M, -1, 1);
	assert_string_equal(buf, "400M");
	fmt_size(buf, sizeof(buf), 4096, U_M, -1, 1);
	assert_string_equal(buf, "4G");
	fmt_size(buf, sizeof(buf), 4000, U_M, -1, 1);
	assert_string_equal(buf, "4000M");
	fmt_size(buf, sizeof(buf), 1536, U_M, -1, 1);
	assert_string_equal(buf, "1.50G");
	fmt_size(buf, sizeof(buf), 1000, U_M, -1, 1);
	assert_string_equal(buf, "1000M");
	fmt_size(buf, sizeof(buf), 0, U_M, -1, 1);
	assert_string_equal(buf, "0");
}

static void test_size_aggressive_and_units(void **state)
{
	(void)state;
	fmt_size(buf, sizeof(buf), 376, U_K, -1, 0);
	assert_string_equal(buf, "376K");
	fmt_size(buf, sizeof(buf), 307712, U_K, -1, 0);
	assert_string_equal(buf, "300.50M");
	fmt_size(buf, sizeof(buf), 512, U_NONE, -1, 0);
	assert_string_equal(buf, "512");
	fmt_size(buf, sizeof(buf), 90112, U_NONE, -1, 0);
	assert_string_equal(buf, "88K");
	fmt_size(buf, sizeof(buf), 3.0 * 1024 * 1024 * 1024 * 1024, U_NONE, -1, 0);
	assert_string_equal(buf, "3T");
	/* --units: always that unit, two decimals when not whole */
	fmt_size(buf, sizeof(buf), 400, U_M, U_K, 1);
	assert_string_equal(buf, "409600K");
	fmt_size(buf, sizeof(buf), 376, U_K, U_M, 0);
	assert_string_equal(buf, "0.37M");
	fmt_size(buf, sizeof(buf), 4096, U_M, U_G, 1);
	assert_string_equal(buf, "4G");
	fmt_size(buf, sizeof(buf), 1024 * 1024, U_NONE, U_K, 0);
	assert_string_equal(buf, "1024K");
	assert_int_equal(conv_units_opt("K"), U_K);
	assert_int_equal(conv_units_opt("g"), U_G);
	assert_int_equal(conv_units_opt("T"), U_T);
	assert_int_equal(conv_units_opt("X"), -1);
	assert_int_equal(conv_units_opt("KB"), -1);
	assert_int_equal(conv_units_opt(""), -1);
}

static void test_exitcode_percent(void **state)
{
	(void)state;
	conv_exitcode(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0:0");
	conv_exitcode(buf, sizeof(buf), 3 << 8);
	assert_string_equal(buf, "3:0");
	conv_exitcode(buf, sizeof(buf), 9);
	assert_string_equal(buf, "0:9");
	conv_exitcode(buf, sizeof(buf), JS_NONE);
	assert_string_equal(buf, "---");
	conv_percent(buf, sizeof(buf), 45.678);
	assert_string_equal(buf, "45.7%");
	conv_percent(buf, sizeof(buf), -1);
	assert_string_equal(buf, "---");
}

static time_t at(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900,
			 .tm_mon = mo - 1,
			 .tm_mday = d,
			 .tm_hour = h,
			 .tm_min = mi,
			 .tm_sec = s,
			 .tm_isdst = -1 };

	return mktime(&tm);
}

static void test_parse_time(void **state)
{
	time_t now = at(2026, 11, 22, 10, 30, 0), t;

	(void)state;
	assert_int_equal(conv_parse_time("2026-11-20", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 20, 0, 0, 0));
	assert_int_equal(conv_parse_time("2026-11-20T08:15", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 20, 8, 15, 0));
	assert_int_equal(conv_parse_time("2026-11-20T08:15:42", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 20, 8, 15, 42));
	assert_int_equal(conv_parse_time("1120", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 20, 0, 0, 0));
	assert_int_equal(conv_parse_time("112025", now, &t), 0);
	assert_int_equal(t, at(2025, 11, 20, 0, 0, 0));
	assert_int_equal(conv_parse_time("11/20", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 20, 0, 0, 0));
	assert_int_equal(conv_parse_time("11/20/25", now, &t), 0);
	assert_int_equal(t, at(2025, 11, 20, 0, 0, 0));
	assert_int_equal(conv_parse_time("11.20.25-13:00", now, &t), 0);
	assert_int_equal(t, at(2025, 11, 20, 13, 0, 0));
	assert_int_equal(conv_parse_time("08:00", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 22, 8, 0, 0));
	assert_int_equal(conv_parse_time("08:00PM", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 22, 20, 0, 0));
	/* an hour of one digit, AM/PM in either case */
	assert_int_equal(conv_parse_time("3:18PM", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 22, 15, 18, 0));
	assert_int_equal(conv_parse_time("9:05:07am", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 22, 9, 5, 7));
	assert_int_equal(conv_parse_time("12:00AM", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 22, 0, 0, 0));
	assert_int_equal(conv_parse_time("11/20-3:00", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 20, 3, 0, 0));
	assert_int_equal(conv_parse_time("2026-11-20T8:15", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 20, 8, 15, 0));
	assert_int_equal(conv_parse_time("now", now, &t), 0);
	assert_int_equal(t, now);
	assert_int_equal(conv_parse_time("now-2hours", now, &t), 0);
	assert_int_equal(t, now - 7200);
	assert_int_equal(conv_parse_time("now-3days", now, &t), 0);
	assert_int_equal(t, now - 3 * 86400);
	assert_int_equal(conv_parse_time("now+30", now, &t), 0);
	assert_int_equal(t, now + 30);
	assert_int_equal(conv_parse_time("now-1w", now, &t), 0);
	assert_int_equal(t, now - 604800);
	assert_int_equal(conv_parse_time("today", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 22, 0, 0, 0));
	assert_int_equal(conv_parse_time("midnight", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 23, 0, 0, 0));
	assert_int_equal(conv_parse_time("noon", now, &t), 0);
	assert_int_equal(t, at(2026, 11, 22, 12, 0, 0));
	assert_int_equal(conv_parse_time("1795320235", now, &t), 0);
	assert_int_equal(t, 1795320235);
	assert_int_equal(conv_midnight(now), at(2026, 11, 22, 0, 0, 0));
	/* nonsense is refused, never guessed */
	assert_int_equal(conv_parse_time("yesterday-ish", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time("2026-13-01", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time("25:00", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time("13:00PM", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time("3:1PM", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time(":18", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time("now-2parsecs", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time("2026-11-20T", now, &t), -EINVAL);
	assert_int_equal(conv_parse_time("", now, &t), -EINVAL);
}

static void test_states(void **state)
{
	(void)state;
	assert_int_equal(conv_state_parse("CD"), 3);
	assert_int_equal(conv_state_parse("completed"), 3);
	assert_int_equal(conv_state_parse("F"), 5);
	assert_int_equal(conv_state_parse("OOM"), 11);
	assert_int_equal(conv_state_parse("OUT_OF_MEMORY"), 11);
	assert_int_equal(conv_state_parse("CA"), 4);
	assert_int_equal(conv_state_parse("bogus"), -1);
	conv_job_state(buf, sizeof(buf), 3, 0xffffffffu);
	assert_string_equal(buf, "COMPLETED");
	conv_job_state(buf, sizeof(buf), 4, 1001);
	assert_string_equal(buf, "CANCELLED by 1001");
	conv_job_state(buf, sizeof(buf), 4, 0xffffffffu);
	assert_string_equal(buf, "CANCELLED");
	conv_job_state(buf, sizeof(buf), 0 | (1u << 10), 0);
	assert_string_equal(buf, "REQUEUED");
	assert_string_equal(conv_state_name(99), "UNKNOWN");
}

static void test_tres(void **state)
{
	(void)state;
	assert_int_equal(conv_tres("1=2,2=4096,4=1,5=2", 1), 2);
	assert_int_equal(conv_tres("1=2,2=4096,4=1,5=2", 2), 4096);
	assert_int_equal(conv_tres("1=2,2=4096,4=1,5=2", 4), 1);
	assert_int_equal(conv_tres("1=2,4=1", 2), JS_NONE);
	assert_int_equal(conv_tres("", 1), JS_NONE);
	assert_int_equal(conv_tres(NULL, 1), JS_NONE);
	assert_int_equal(conv_tres("1=x", 1), JS_NONE);
	assert_int_equal(conv_tres("11=5,1=3", 1), 3);
}

static void test_hostlist(void **state)
{
	char **v;
	int n;

	(void)state;
	n = conv_hostlist("n[1-2]", &v, 100);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "n1");
	assert_string_equal(v[1], "n2");
	conv_strv_free(v, n);
	n = conv_hostlist("gpu[01-03,10]-ib,login1", &v, 100);
	assert_int_equal(n, 5);
	assert_string_equal(v[0], "gpu01-ib");
	assert_string_equal(v[2], "gpu03-ib");
	assert_string_equal(v[3], "gpu10-ib");
	assert_string_equal(v[4], "login1");
	conv_strv_free(v, n);
	n = conv_hostlist("n8,n[9-10]", &v, 100);
	assert_int_equal(n, 3);
	assert_string_equal(v[2], "n10");
	conv_strv_free(v, n);
	assert_int_equal(conv_hostlist("n[1-", &v, 100), -EINVAL);
	assert_int_equal(conv_hostlist("n[3-1]", &v, 100), -EINVAL);
	assert_int_equal(conv_hostlist("n[1-1000]", &v, 10), -EINVAL);
	assert_int_equal(conv_hostlist("a[1-2]b[1-2]", &v, 100), -EINVAL);
}

static void test_cpulist_numa(void **state)
{
	unsigned char m[16];
	const char *two[] = { "0-7", "8-15" };
	const char *one[] = { "0-1" };

	(void)state;
	assert_int_equal(conv_cpulist("0-3,8,10-11", m, 128), 7);
	assert_true(m[1] & 1);
	assert_int_equal(conv_cpulist("0,0,1", m, 128), 2);
	assert_int_equal(conv_cpulist("3-1", m, 128), -EINVAL);
	assert_int_equal(conv_cpulist("0-200", m, 128), -EINVAL);
	assert_int_equal(conv_cpulist("a", m, 128), -EINVAL);
	assert_int_equal(conv_cpulist("", m, 128), 0);
	assert_int_equal(conv_numa_span("0-3", two, 2), 1);
	assert_int_equal(conv_numa_span("6-9", two, 2), 2);
	assert_int_equal(conv_numa_span("12", two, 2), 1);
	assert_int_equal(conv_numa_span("0-1", one, 1), 1);
	assert_int_equal(conv_numa_span("x", two, 2), -EINVAL);
}

static void test_rounding(void **state)
{
	(void)state;
	assert_int_equal(conv_ceil(1.0), 1);
	assert_int_equal(conv_ceil(1.0001), 2);
	assert_int_equal(conv_ceil(0.2), 1);
	assert_int_equal(conv_ceil(-0.5), 0);
	assert_int_equal(conv_round(2.5), 3);
	assert_int_equal(conv_round(2.49), 2);
	assert_int_equal(conv_round(-2.5), -3);
	assert_true(fmt_whole(4.0));
	assert_false(fmt_whole(4.5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elapsed),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_cputime),
		cmocka_unit_test(test_timelimit),
		cmocka_unit_test(test_size_exact),
		cmocka_unit_test(test_size_aggressive_and_units),
		cmocka_unit_test(test_exitcode_percent),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_tres),
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_cpulist_numa),
		cmocka_unit_test(test_rounding),
	};

	setenv("TZ", "UTC", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
