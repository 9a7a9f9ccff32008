/* A task cgroup's step directory, found by name alone: the cgroup may already be gone. */
#include <errno.h>
#include <string.h>

#include "cgroup_path.h"

/* The length of p[0..n) without its last component when that component is `name`, or
 * (prefix) starts with it; n otherwise. */
static size_t strip_last(const char *p, size_t n, const char *name, int prefix)
{
	size_t i = n, l = strlen(name);

	while (i > 0 && p[i - 1] != '/')
		i--;
	if (i == 0)
		return n;
	if (prefix ? strncmp(p + i, name, l) == 0 : n - i == l && strncmp(p + i, name, l) == 0)
		return i - 1;
	return n;
}

int cgroup_step_dir(const char *task_dir, char *out, size_t len)
{
	size_t n;

	if (!task_dir || !strchr(task_dir, '/'))
		return -EINVAL;
	n = strip_last(task_dir, strlen(task_dir), "task_", 1);
	n = strip_last(task_dir, n, "user", 0);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, task_dir, n);
	out[n] = 0;
	return 0;
}

int cgroup_job_dir(const char *step, char *out, size_t len)
{
	size_t n, i;

	if (!step || !strchr(step, '/'))
		return -EINVAL;
	n = strip_last(step, strlen(step), "step_", 1);
	if (n == strlen(step))
		return -ENOENT; /* no step directory: no job directory by name either */
	for (i = n; i > 0 && step[i - 1] != '/'; i--)
		;
	if (strncmp(step + i, "job_", 4) != 0)
		return -ENOENT;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, step, n);
	out[n] = 0;
	return 0;
}
