/* "Slower than usual" (util/slower.c): the one rule of tracer-jobstat's note and the export's log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "slower.h"
#include "slurm_ids.h"

#define S 1000000000LL

static void test_rule(void **state)
{
	(void)state;
	assert_true(slower_than_usual(15 * S, 10 * S));	   /* 1.5 times, 5 s more */
	assert_false(slower_than_usual(14 * S, 10 * S));   /* under 1.5 times */
	assert_false(slower_than_usual(3 * S, 1 * S + 1)); /* 3 times but under 2 s more */
	assert_true(slower_than_usual(3 * S, 1 * S));	   /* exactly 2 s more */
	assert_false(slower_than_usual(10 * S, 0));	   /* no usual time: nothing to say */
	assert_false(slower_than_usual(0, 10 * S));
	assert_false(slower_than_usual(-5, 10 * S));
}

static void test_median(void **state)
{
	int64_t odd[] = { 9, 1, 5 }, even[] = { 8, 2, 4, 6 }, one[] = { 7 };

	(void)state;
	assert_int_equal(slower_median(odd, 3), 5);
	assert_int_equal(slower_median(even, 4), 5);
	assert_int_equal(slower_median(one, 1), 7);
}

static void test_compared(void **state)
{
	(void)state;
	assert_true(slower_compared(0, 0));
	assert_true(slower_compared(STEP_BATCH, -1));
	assert_false(slower_compared(0, 1));	      /* one task per step is enough */
	assert_false(slower_compared(STEP_NONE, -1)); /* a job's allocation */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_compared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
