/* Slurm step ids and the names sacct gives them (util/slurm_ids.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "slurm_ids.h"

static void test_names(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(slurm_step_name(STEP_BATCH, b, sizeof(b)), "batch");
	assert_string_equal(slurm_step_name(STEP_EXTERN, b, sizeof(b)), "extern");
	assert_string_equal(slurm_step_name(STEP_INTERACTIVE, b, sizeof(b)), "interactive");
	assert_string_equal(slurm_step_name(STEP_PENDING, b, sizeof(b)), "pending");
	assert_string_equal(slurm_step_name(0, b, sizeof(b)), "0");
	assert_string_equal(slurm_step_name(17, b, sizeof(b)), "17");
	/* not a special step: the number, cut to the buffer */
	assert_string_equal(slurm_step_name(STEP_NONE, b, sizeof(b)), "4294967295");
	assert_string_equal(slurm_step_name(12345, b, 3), "12");
}

static void test_by_name(void **state)
{
	uint32_t step = 7;

	(void)state;
	assert_int_equal(slurm_step_by_name("batch", &step), 0);
	assert_int_equal(step, STEP_BATCH);
	assert_int_equal(slurm_step_by_name("extern", &step), 0);
	assert_int_equal(step, STEP_EXTERN);
	assert_int_equal(slurm_step_by_name("interactive", &step), 0);
	assert_int_equal(step, STEP_INTERACTIVE);
	/* a pending step runs nothing: not a name to select by; numbers are not names */
	step = 7;
	assert_int_equal(slurm_step_by_name("pending", &step), -EINVAL);
	assert_int_equal(slurm_step_by_name("0", &step), -EINVAL);
	assert_int_equal(slurm_step_by_name("Batch", &step), -EINVAL);
	assert_int_equal(slurm_step_by_name("", &step), -EINVAL);
	assert_int_equal(slurm_step_by_name(NULL, &step), -EINVAL);
	assert_int_equal(step, 7);
}

/* what -j reads as an id: never a traced run's name */
static void test_id_shaped(void **state)
{
	(void)state;
	assert_true(slurm_id_shaped("4242"));
	assert_true(slurm_id_shaped("4242_3"));
	assert_true(slurm_id_shaped("4242.batch"));
	assert_true(slurm_id_shaped("1000genomes"));
	assert_true(slurm_id_shaped("r1"));
	assert_true(slurm_id_shaped("r0042"));
	assert_false(slurm_id_shaped("r"));
	assert_false(slurm_id_shaped("r1a"));
	assert_false(slurm_id_shaped("run1"));
	assert_false(slurm_id_shaped("align"));
	assert_false(slurm_id_shaped(""));
	assert_false(slurm_id_shaped("R1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_by_name),
		cmocka_unit_test(test_id_shaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
