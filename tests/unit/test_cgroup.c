/* Unit tests for nodeagent/cgroup.c: a step's counters and its job's memory peak, read from
 * cgroup v2 files laid out as Slurm does in a scratch directory. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cgroup.h"
#include "testlib.h"

static char root[64], job[128], step[256];

static void put(const char *dir, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_cgroup.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(job, sizeof(job), "%s/job_7", root);
	snprintf(step, sizeof(step), "%s/step_0", job);
	return mkdir(job, 0700) || mkdir(step, 0700);
}

static int teardown(void **state)
{
	(void)state;
	return tl_rmtree(root);
}

static void test_step_and_job(void **state)
{
	struct cgroup_counters c = { 1, 1 };
	uint64_t kb = 5;

	(void)state;
	/* nothing to read yet: -errno, out untouched */
	assert_true(cgroup_step_counters(step, &c) < 0);
	assert_int_equal(c.cpu_ns, 1);
	assert_true(cgroup_job_mem_peak(step, &kb) < 0);
	assert_int_equal(kb, 5);

	put(step, "cpu.stat", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
	put(step, "memory.peak", "2097152\n");
	put(job, "memory.peak", "8388608\n");
	assert_int_equal(cgroup_step_counters(step, &c), 0);
	assert_int_equal(c.cpu_ns, 1500000);
	assert_int_equal(c.mem_peak_kb, 2048);
	/* the job's peak holds all its steps: the directory above the step's */
	assert_int_equal(cgroup_job_mem_peak(step, &kb), 0);
	assert_int_equal(kb, 8192);
	/* a directory that is no step under a job names no job */
	kb = 5;
	assert_int_equal(cgroup_job_mem_peak(job, &kb), -ENOENT);
	assert_int_equal(kb, 5);
}

/* One counter is enough: the other stays 0 */
static void test_one_counter(void **state)
{
	struct cgroup_counters c;

	(void)state;
	put(step, "memory.peak", "4096\n");
	assert_int_equal(cgroup_step_counters(step, &c), 0);
	assert_int_equal(c.cpu_ns, 0);
	assert_int_equal(c.mem_peak_kb, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_step_and_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_counter, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
