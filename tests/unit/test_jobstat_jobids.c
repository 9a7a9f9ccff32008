/* tracer-jobstat: -j selectors as sacct reads them (arrays, steps, names). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jobids.h"
#include "jobstat.h"

static void test_plain_and_names(void **state)
{
	struct jobsel s;
	char err[256];

	(void)state;
	assert_int_equal(jobsel_parse("123", &s, err, sizeof(err)), 0);
	assert_true(s.numeric);
	assert_int_equal(s.job, 123);
	assert_false(s.has_tasks);
	assert_false(s.has_step);
	assert_true(jobsel_has_task(&s, 7));
	/* anything not starting with a digit names a traced run */
	assert_int_equal(jobsel_parse("align", &s, err, sizeof(err)), 0);
	assert_false(s.numeric);
	assert_string_equal(s.text, "align");
	assert_int_equal(jobsel_parse("run-12", &s, err, sizeof(err)), 0);
	assert_false(s.numeric);
}

static void test_arrays(void **state)
{
	struct jobsel s;
	char err[256];

	(void)state;
	assert_int_equal(jobsel_parse("123_4", &s, err, sizeof(err)), 0);
	assert_int_equal(s.job, 123);
	assert_true(s.has_tasks);
	assert_true(jobsel_has_task(&s, 4));
	assert_false(jobsel_has_task(&s, 5));
	assert_int_equal(jobsel_parse("123_[1-3]", &s, err, sizeof(err)), 0);
	assert_int_equal(s.nranges, 1);
	assert_false(jobsel_has_task(&s, 0));
	assert_true(jobsel_has_task(&s, 1));
	assert_true(jobsel_has_task(&s, 3));
	assert_false(jobsel_has_task(&s, 4));
	assert_int_equal(jobsel_parse("7_[1,3,5-7]", &s, err, sizeof(err)), 0);
	assert_int_equal(s.nranges, 3);
	assert_true(jobsel_has_task(&s, 6));
	assert_false(jobsel_has_task(&s, 4));
	/* sbatch's throttle is not a selection */
	assert_int_equal(jobsel_parse("7_[0-9%2]", &s, err, sizeof(err)), 0);
	assert_true(jobsel_has_task(&s, 9));
	assert_int_equal(jobsel_parse("123_4.batch", &s, err, sizeof(err)), 0);
	assert_true(s.has_step);
	assert_int_equal(s.step, STEP_BATCH);
}

static void test_steps(void **state)
{
	struct jobsel s;
	char err[256], b[16];

	(void)state;
	assert_int_equal(jobsel_parse("123.batch", &s, err, sizeof(err)), 0);
	assert_int_equal(s.step, STEP_BATCH);
	assert_int_equal(jobsel_parse("123.extern", &s, err, sizeof(err)), 0);
	assert_int_equal(s.step, STEP_EXTERN);
	assert_int_equal(jobsel_parse("123.interactive", &s, err, sizeof(err)), 0);
	assert_int_equal(s.step, STEP_INTERACTIVE);
	assert_int_equal(jobsel_parse("123.0", &s, err, sizeof(err)), 0);
	assert_int_equal(s.step, 0);
	assert_int_equal(jobsel_parse("123.17", &s, err, sizeof(err)), 0);
	assert_int_equal(s.step, 17);
	assert_string_equal(slurm_step_name(STEP_BATCH, b, sizeof(b)), "batch");
	assert_string_equal(slurm_step_name(STEP_EXTERN, b, sizeof(b)), "extern");
	assert_string_equal(slurm_step_name(3, b, sizeof(b)), "3");
	assert_int_equal(slurm_step_parse("extern"), STEP_EXTERN);
	assert_int_equal(slurm_step_parse("x"), -1);
}

/* what begins with a digit but is no id is a run's name (1000genomes, 16S-rRNA) */
static void test_digit_names(void **state)
{
	static const char *const names[] = { "123x",	    "123_",	"123_[1-3",
					     "123_[3-1]",   "123_[]",	"123.",
					     "123.bogus",   "0",	"99999999999",
					     "1000genomes", "16S-rRNA", "10x-cellranger" };
	struct jobsel s;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(jobsel_parse(names[i], &s, err, sizeof(err)), 0);
		assert_false(s.numeric);
		assert_string_equal(s.text, names[i]);
	}
	/* a run's id is tracerd's to find */
	assert_int_equal(jobsel_parse("r17", &s, err, sizeof(err)), 0);
	assert_false(s.numeric);
}

static void test_errors(void **state)
{
	struct jobsel s;
	char err[256], many[200] = "7_[";

	(void)state;
	assert_int_equal(jobsel_parse("", &s, err, sizeof(err)), -EINVAL);
	/* longer than a selector is kept (and so more task ranges than are kept) */
	for (int i = 0; i <= JOBSEL_RANGES; i++)
		strcat(many, i ? ",1" : "1");
	strcat(many, "]");
	assert_int_equal(jobsel_parse(many, &s, err, sizeof(err)), -EINVAL);
}

static void test_list(void **state)
{
	struct jobsel *v;
	char err[256];
	int n;

	(void)state;
	/* commas inside brackets belong to the array's tasks */
	n = jobsel_list("12,13_[1,3],align,,14.batch", &v, err, sizeof(err));
	assert_int_equal(n, 4);
	assert_int_equal(v[0].job, 12);
	assert_int_equal(v[1].job, 13);
	assert_int_equal(v[1].nranges, 2);
	assert_false(v[2].numeric);
	assert_string_equal(v[2].text, "align");
	assert_true(v[3].has_step);
	free(v);
	assert_int_equal(jobsel_list("12,x1_", &v, err, sizeof(err)), 2);
	free(v);
	assert_int_equal(jobsel_list("12,1x", &v, err, sizeof(err)), 2); /* 1x: a name */
	free(v);
	assert_int_equal(jobsel_list(",", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(jobsel_list("", &v, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_names), cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_steps),		cmocka_unit_test(test_digit_names),
		cmocka_unit_test(test_errors),		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
