/* Unit tests for nodeagent/store_history.c: which earlier runs are a step's history ("slower
 * than usual"): the same workflow step, else the same Slurm job name and step, else the same
 * traced command; finished successfully, by the same user, of the same kind, begun before it;
 * the newest first, as many as asked, each with its totals. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testagent.h"
#include "testlib.h"

#include "log.h"
#include "store.h"

#define BOOT "5e1f7e57-0000-4000-8000-0000000000b1"
#define T0 1700000000000000000ll
#define SEC 1000000000ll

static char dir[64];

static int setup(void **state)
{
	struct store *s = NULL;

	if (ta_store_open("test_store_history", BOOT, dir, &s) < 0)
		return -1;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	store_close(*state);
	return tl_rmtree(dir);
}

/* A finished unit of uid 1000 that began start seconds after T0 and ran 10 s. */
static struct unit unit_at(uint64_t id, const char *kind, const char *name, int64_t start,
			   enum unit_state state)
{
	struct unit u = { .id = id, .state = state, .uid = 1000, .owner_uid = 1000 };

	snprintf(u.kind, sizeof(u.kind), "%s", kind);
	snprintf(u.name, sizeof(u.name), "%s", name);
	u.start_ns = T0 + start * SEC;
	u.end_ns = state == UNIT_RUNNING ? 0 : u.start_ns + 10 * SEC;
	u.exit_status = state == UNIT_FAILED ? 1 << 8 : 0;
	u.task_id = -1;
	u.array_task_id = -1;
	u.step_id = STEP_NONE;
	return u;
}

/* A Slurm step: job job_id named job_name, step step_id. */
static struct unit step_at(uint64_t id, uint64_t job_id, const char *job_name, uint32_t step_id,
			   int64_t start, enum unit_state state)
{
	char name[64];
	struct unit u;

	snprintf(name, sizeof(name), "%llu.%u", (unsigned long long)job_id, step_id);
	u = unit_at(id, UNIT_KIND_SLURM, name, start, state);
	u.job_id = job_id;
	u.step_id = step_id;
	snprintf(u.job_name, sizeof(u.job_name), "%s", job_name);
	return u;
}

static void put(struct store *s, struct unit u)
{
	assert_int_equal(store_put_unit(s, &u), 0);
}

/* The history's unit ids, newest first, as "2,1". */
static void history(struct store *s, uint64_t unit, unsigned limit, char *out, size_t len)
{
	struct json_object *rows = NULL;
	size_t at = 0;

	assert_int_equal(store_unit_history(s, unit, limit, &rows), 0);
	out[0] = 0;
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *r = json_object_array_get_idx(rows, i);

		assert_true(geti(r, "end_ns") > geti(r, "start_ns"));
		assert_true(json_object_is_type(key(r, "totals"), json_type_object));
		at += snprintf(out + at, len - at, "%s%lld", i ? "," : "",
			       (long long)geti(r, "unit"));
	}
	json_object_put(rows);
}

/* A Slurm step's history: the same job name and step number, run again. */
static void test_slurm_step(void **state)
{
	struct store *s = *state;
	struct unit u;
	char got[128];

	put(s, step_at(10, 50, "align", 0, 100, UNIT_COMPLETED)); /* the step asked about */
	put(s, step_at(1, 40, "align", 0, 0, UNIT_COMPLETED));
	put(s, step_at(2, 41, "align", 0, 10, UNIT_COMPLETED));
	put(s, step_at(3, 42, "align", 0, 20, UNIT_FAILED));	 /* not successful */
	put(s, step_at(5, 44, "align", 0, 150, UNIT_COMPLETED)); /* began after it */
	put(s, step_at(6, 45, "align", 0, 30, UNIT_RUNNING));	 /* not finished */
	put(s, step_at(7, 46, "align", 1, 40, UNIT_COMPLETED));	 /* another step */
	put(s, step_at(11, 47, "sort", 0, 45, UNIT_COMPLETED));	 /* another job */
	u = step_at(4, 43, "align", 0, 50, UNIT_COMPLETED);
	u.uid = 1001; /* another user's */
	put(s, u);
	u = step_at(8, 48, "align", 0, 60, UNIT_COMPLETED);
	snprintf(u.pipeline, sizeof(u.pipeline), "wf"); /* a workflow's step */
	put(s, u);
	u = step_at(9, 49, "align", 0, 70, UNIT_COMPLETED);
	snprintf(u.kind, sizeof(u.kind), UNIT_KIND_LOCAL); /* a traced run */
	put(s, u);
	assert_int_equal(store_commit(s), 0);

	history(s, 10, 10, got, sizeof(got));
	assert_string_equal(got, "2,1");
	history(s, 10, 1, got, sizeof(got)); /* the newest, as many as asked */
	assert_string_equal(got, "2");
	history(s, 1, 10, got, sizeof(got)); /* the first run has none */
	assert_string_equal(got, "");
}

/* A workflow step's history: the same pipeline and step name, whatever its Slurm job. */
static void test_workflow_step(void **state)
{
	struct store *s = *state;
	struct unit u;
	char got[128];

	u = step_at(20, 60, "snakejob.map", 0, 100, UNIT_COMPLETED);
	snprintf(u.pipeline, sizeof(u.pipeline), "wf");
	snprintf(u.step_name, sizeof(u.step_name), "map");
	put(s, u);
	u = step_at(21, 61, "snakejob.map.7", 0, 10, UNIT_COMPLETED);
	snprintf(u.pipeline, sizeof(u.pipeline), "wf");
	snprintf(u.step_name, sizeof(u.step_name), "map");
	put(s, u);
	u = step_at(22, 62, "snakejob.map", 0, 20, UNIT_COMPLETED);
	snprintf(u.pipeline, sizeof(u.pipeline), "wf");
	snprintf(u.step_name, sizeof(u.step_name), "sort"); /* another step of it */
	put(s, u);
	u = step_at(23, 63, "snakejob.map", 0, 30, UNIT_COMPLETED); /* of no workflow */
	put(s, u);
	assert_int_equal(store_commit(s), 0);

	history(s, 20, 10, got, sizeof(got));
	assert_string_equal(got, "21");
}

/* A traced run's history: the same command name, outside Slurm and workflows. */
static void test_traced_run(void **state)
{
	struct store *s = *state;
	char got[128];

	put(s, unit_at(30, UNIT_KIND_LOCAL, "train", 100, UNIT_COMPLETED));
	put(s, unit_at(31, UNIT_KIND_LOCAL, "train", 10, UNIT_COMPLETED));
	put(s, unit_at(32, UNIT_KIND_LOCAL, "other", 20, UNIT_COMPLETED));
	put(s, unit_at(33, UNIT_KIND_LOCAL, "train", 30, UNIT_CANCELLED));
	put(s, unit_at(34, UNIT_KIND_LOCAL, "train", 40, UNIT_LOST));
	assert_int_equal(store_commit(s), 0);

	history(s, 30, 10, got, sizeof(got));
	assert_string_equal(got, "31");
}

/* A unit the store does not have has no history: an error, not an empty list. */
static void test_unknown_unit(void **state)
{
	struct json_object *rows = NULL;

	assert_int_equal(store_unit_history(*state, 999, 10, &rows), -ENOENT);
	assert_null(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_slurm_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workflow_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traced_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_unit, setup, teardown),
	};

	log_open("test_store_history", 1, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
