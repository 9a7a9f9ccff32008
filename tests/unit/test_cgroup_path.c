/* A task cgroup's step directory (util/cgroup_path.c), as Slurm lays them out on v1 and v2. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cgroup_path.h"

static void expect(const char *task, const char *step)
{
	char out[256];

	assert_int_equal(cgroup_step_dir(task, out, sizeof(out)), 0);
	assert_string_equal(out, step);
}

static void test_layouts(void **state)
{
	(void)state;
	/* v1: the memory controller's path */
	expect("/sys/fs/cgroup/memory/slurm_n1/uid_0/job_5/step_0/task_1",
	       "/sys/fs/cgroup/memory/slurm_n1/uid_0/job_5/step_0");
	/* v2, Slurm >= 22.05: tasks under step_S/user/ */
	expect("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_5/step_batch/user/task_0",
	       "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_5/step_batch");
	/* already a step, or a user dir without a task */
	expect("/sys/fs/cgroup/unified/job_5/step_0", "/sys/fs/cgroup/unified/job_5/step_0");
	expect("/sys/fs/cgroup/job_5/step_0/user", "/sys/fs/cgroup/job_5/step_0");
	/* only whole names count: "username" is not "user", "tasks" is a task_ prefix only
	 * with the underscore */
	expect("/c/job_5/step_0/username", "/c/job_5/step_0/username");
	expect("/c/job_5/step_0/tasks", "/c/job_5/step_0/tasks");
	/* a trailing slash leaves the path as it is; the root's task is the empty path */
	expect("/c/step_0/task_1/", "/c/step_0/task_1/");
	expect("/task_1", "");
}

static void test_errors(void **state)
{
	char out[16] = "untouched";

	(void)state;
	assert_int_equal(cgroup_step_dir(NULL, out, sizeof(out)), -EINVAL);
	assert_int_equal(cgroup_step_dir("task_1", out, sizeof(out)), -EINVAL);
	assert_int_equal(cgroup_step_dir("/a/very/long/step/task_1", out, sizeof(out)),
			 -ENAMETOOLONG);
	assert_string_equal(out, "untouched");
	/* exactly fits: 15 bytes and the NUL */
	assert_int_equal(cgroup_step_dir("/abcdefghijklmn/task_0", out, sizeof(out)), 0);
	assert_string_equal(out, "/abcdefghijklmn");
}

static void test_job_dir(void **state)
{
	char out[256] = "untouched", step[256];

	(void)state;
	/* the job directory holds all its steps: Slurm's --mem limits it */
	assert_int_equal(cgroup_job_dir("/sys/fs/cgroup/memory/slurm_n1/uid_0/job_5/step_0", out,
					sizeof(out)),
			 0);
	assert_string_equal(out, "/sys/fs/cgroup/memory/slurm_n1/uid_0/job_5");
	assert_int_equal(cgroup_job_dir("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_5/"
					"step_batch",
					out, sizeof(out)),
			 0);
	assert_string_equal(out, "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_5");
	/* what cgroup_step_dir gives for a task's: the rule is applied once, by the caller */
	assert_int_equal(cgroup_step_dir("/c/job_5/step_0/user/task_0", step, sizeof(step)), 0);
	assert_int_equal(cgroup_job_dir(step, out, sizeof(out)), 0);
	assert_string_equal(out, "/c/job_5");
	/* no step_ under a job_: no job by name (a tracerctl run's own cgroup) */
	strcpy(out, "untouched");
	assert_int_equal(cgroup_job_dir("/sys/fs/cgroup/unified/user.slice/x", out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(cgroup_job_dir("/c/notajob/step_0", out, sizeof(out)), -ENOENT);
	assert_int_equal(cgroup_job_dir("/c/step_0", out, sizeof(out)), -ENOENT);
	/* a task's directory is not a step's */
	assert_int_equal(cgroup_job_dir("/c/job_5/step_0/task_1", out, sizeof(out)), -ENOENT);
	assert_int_equal(cgroup_job_dir("job_5", out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "untouched");
	assert_int_equal(cgroup_job_dir("/aaaaaaaaaaaaaaaaaaaa/job_5/step_0", out, 8),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_job_dir),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
