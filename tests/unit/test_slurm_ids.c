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
	assert_true(slurm_id_shaped("4242.0"));
	assert_true(slurm_id_shaped("4242_[1-3,5%2].extern"));
	assert_true(slurm_id_shaped("r1"));
	assert_true(slurm_id_shaped("r0042"));
	assert_false(slurm_id_shaped("r"));
	assert_false(slurm_id_shaped("r1a"));
	assert_false(slurm_id_shaped("run1"));
	assert_false(slurm_id_shaped("align"));
	assert_false(slurm_id_shaped(""));
	assert_false(slurm_id_shaped("R1"));
	/* a name that begins with a digit but is no id is a name */
	assert_false(slurm_id_shaped("1000genomes"));
	assert_false(slurm_id_shaped("16S-rRNA"));
	assert_false(slurm_id_shaped("10x-cellranger"));
	assert_false(slurm_id_shaped("0"));
	assert_false(slurm_id_shaped("4242_"));
	assert_false(slurm_id_shaped("4242_[3-1]"));
	assert_false(slurm_id_shaped("4242.pending"));
	assert_false(slurm_id_shaped("99999999999"));
	assert_false(slurm_id_shaped("4242 "));
}

/* the selector's parts, and each task range given to the caller */
static int ranges_seen(void *ctx, uint32_t lo, uint32_t hi)
{
	uint32_t *v = ctx;

	v[v[0] * 2 + 1] = lo;
	v[v[0] * 2 + 2] = hi;
	v[0]++;
	return v[0] > 2 ? -E2BIG : 0;
}

static void test_id_parse(void **state)
{
	struct slurm_id id;
	uint32_t v[8] = { 0 };

	(void)state;
	assert_int_equal(slurm_id_parse("12_[1-3,7%2].batch", &id, ranges_seen, v), 0);
	assert_int_equal(id.job, 12);
	assert_true(id.has_tasks);
	assert_true(id.has_step);
	assert_int_equal(id.step, STEP_BATCH);
	assert_int_equal(v[0], 2);
	assert_int_equal(v[1], 1);
	assert_int_equal(v[2], 3);
	assert_int_equal(v[3], 7);
	assert_int_equal(v[4], 7);
	v[0] = 0;
	assert_int_equal(slurm_id_parse("12_[1,2,3]", &id, ranges_seen, v), -E2BIG);
	assert_int_equal(slurm_step_parse("17"), 17);
	assert_int_equal(slurm_step_parse("interactive"), STEP_INTERACTIVE);
	assert_int_equal(slurm_step_parse("17x"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_by_name),
		cmocka_unit_test(test_id_shaped),
		cmocka_unit_test(test_id_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
