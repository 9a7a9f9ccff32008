/* Unit tests for nodeagent/quota.c: a token bucket per uid, full at its burst, refilled with
 * time; a bounded table in which the quietest uid gives way. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "quota.h"

#define SEC 1000000000ll

static void test_bucket(void **state)
{
	struct quota q = {};
	int i;

	(void)state;
	for (i = 0; i < 8; i++) /* a burst */
		assert_int_equal(quota_take(&q, 1001, 5, 8, SEC), 0);
	assert_int_equal(quota_take(&q, 1001, 5, 8, SEC), -EAGAIN);
	assert_int_equal(quota_take(&q, 1002, 5, 8, SEC), 0); /* another uid's is its own */
	assert_int_equal(quota_take(&q, 1001, 5, 8, SEC + SEC / 10), -EAGAIN);
	assert_int_equal(quota_take(&q, 1001, 5, 8, SEC + SEC / 5),
			 0); /* a fifth of a second: one */
	assert_int_equal(quota_take(&q, 1001, 5, 8, SEC + SEC / 5), -EAGAIN);
	for (i = 0; i < 8; i++) /* never more than full, however long it waited */
		assert_int_equal(quota_take(&q, 1001, 5, 8, 100 * SEC), 0);
	assert_int_equal(quota_take(&q, 1001, 5, 8, 100 * SEC), -EAGAIN);
}

/* A drained bucket refills at rate, not back to its burst once it holds more than a second's worth.
 */
static void test_refill_capped(void **state)
{
	struct quota q = {};
	int i, n = 0;

	(void)state;
	for (i = 0; i < 64; i++)
		assert_int_equal(quota_take(&q, 1001, 20, 64, SEC), 0);
	assert_int_equal(quota_take(&q, 1001, 20, 64, SEC), -EAGAIN);
	while (quota_take(&q, 1001, 20, 64, SEC + SEC * 11 / 10) == 0)
		n++;
	assert_in_range(n, 21, 22); /* 1.1 s at 20 a second */
}

static void test_table_bounded(void **state)
{
	struct quota q = {};
	uint32_t uid;

	(void)state;
	assert_int_equal(quota_take(&q, 1, 1, 1, SEC), 0);
	assert_int_equal(quota_take(&q, 1, 1, 1, SEC), -EAGAIN);
	/* as many other uids as the table holds, later: uid 1's entry gives way to the last */
	for (uid = 2; uid <= QUOTA_UIDS + 1; uid++)
		assert_int_equal(quota_take(&q, uid, 1, 1, SEC + uid), 0);
	for (uid = 2; uid <= QUOTA_UIDS + 1; uid++)
		assert_int_equal(quota_take(&q, uid, 1, 1, SEC + uid), -EAGAIN);
	/* uid 1 starts again full: it was the quietest */
	assert_int_equal(quota_take(&q, 1, 1, 1, 2 * SEC), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_refill_capped),
		cmocka_unit_test(test_table_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
