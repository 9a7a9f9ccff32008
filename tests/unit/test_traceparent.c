/* W3C traceparent validation and derivation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "traceparent.h"

static void test_valid(void **state)
{
	(void)state;
	assert_true(traceparent_valid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
	assert_true(traceparent_valid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"));
}

static void test_invalid(void **state)
{
	(void)state;
	assert_false(traceparent_valid(NULL));
	assert_false(traceparent_valid(""));
	/* upper case, wrong version, zero ids, bad separators, wrong length, trailing junk */
	assert_false(traceparent_valid("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"));
	assert_false(traceparent_valid("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
	assert_false(traceparent_valid("00-00000000000000000000000000000000-00f067aa0ba902b7-01"));
	assert_false(traceparent_valid("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"));
	assert_false(traceparent_valid("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
	assert_false(traceparent_valid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1"));
	assert_false(traceparent_valid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"));
	assert_false(traceparent_valid("00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"));
}

static void test_derive_deterministic(void **state)
{
	char a[TRACEPARENT_LEN + 1], b[TRACEPARENT_LEN + 1], c[TRACEPARENT_LEN + 1], id1[33],
		id2[33];

	(void)state;
	traceparent_derive("tracertest", 42, 0, a);
	traceparent_derive("tracertest", 42, 0, b);
	assert_string_equal(a, b);
	assert_true(traceparent_valid(a));
	/* same job, other step: same trace, other span */
	traceparent_derive("tracertest", 42, 0xfffffffb, c);
	assert_true(traceparent_valid(c));
	traceparent_trace_id(a, id1);
	traceparent_trace_id(c, id2);
	assert_string_equal(id1, id2);
	assert_string_not_equal(a, c);
	/* other job or cluster: other trace */
	traceparent_derive("tracertest", 43, 0, b);
	traceparent_trace_id(b, id2);
	assert_string_not_equal(id1, id2);
	traceparent_derive("other", 42, 0, b);
	traceparent_trace_id(b, id2);
	assert_string_not_equal(id1, id2);
	traceparent_derive(NULL, 0, 0, b);
	assert_true(traceparent_valid(b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_derive_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
