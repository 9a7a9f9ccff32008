/* slurm.conf's ClusterName (util/slurm_conf.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "slurm_conf.h"

static int cluster(const char *text, char *out, size_t len)
{
	return slurm_conf_cluster(text, strlen(text), out, len);
}

static void test_found(void **state)
{
	char out[64] = "";

	(void)state;
	assert_int_equal(cluster("ClusterName=tracertest\n", out, sizeof(out)), 0);
	assert_string_equal(out, "tracertest");
	/* any case, among other settings on a line, a comment after it, lowercased as Slurm */
	assert_int_equal(cluster("# ClusterName=no\nSlurmctldHost=h  clustername=Big-One.2#x\n"
				 "NodeName=n[1-2] CPUs=2\n",
				 out, sizeof(out)),
			 0);
	assert_string_equal(out, "big-one.2");
	/* the last wins; no final newline needed */
	assert_int_equal(cluster("ClusterName=a\nClusterName=b", out, sizeof(out)), 0);
	assert_string_equal(out, "b");
}

static void test_refused(void **state)
{
	char out[8] = "keep";

	(void)state;
	assert_int_equal(cluster("", out, sizeof(out)), -ENOENT);
	assert_int_equal(cluster("#ClusterName=x\nMyClusterName=y\n", out, sizeof(out)), -ENOENT);
	assert_int_equal(cluster("ClusterName=\n", out, sizeof(out)), -EINVAL);
	assert_int_equal(cluster("ClusterName=a\"b\n", out, sizeof(out)), -EINVAL);
	assert_int_equal(cluster("ClusterName=\xff\xfe\n", out, sizeof(out)), -EINVAL);
	assert_int_equal(cluster("ClusterName=toolongname\n", out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "keep");
	/* a NUL in the text ends no setting early nor reads past len */
	assert_int_equal(slurm_conf_cluster("ClusterName=ab\0cd", 17, out, sizeof(out)), -EINVAL);
}

static void test_read(void **state)
{
	char dir[] = "/tmp/slurm_conf_XXXXXX", path[64], out[64] = "";
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("ClusterName=fromfile\n", f);
	fclose(f);
	setenv("SLURM_CONF", path, 1);
	assert_int_equal(slurm_conf_cluster_read(out, sizeof(out)), 0);
	assert_string_equal(out, "fromfile");
	unlink(path);
	assert_int_equal(slurm_conf_cluster_read(out, sizeof(out)), -ENOENT);
	rmdir(dir);
	unsetenv("SLURM_CONF");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
