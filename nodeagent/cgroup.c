/* cgroup v1 (memory + cpuacct controllers) and v2 step counters. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "cgroup_path.h"

static int read_u64(const char *dir, const char *file, const char *key, uint64_t *out)
{
	char path[PATH_MAX + 64], line[256];
	size_t klen = key ? strlen(key) : 0;
	FILE *f;
	int err = -ENOENT;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (key && (strncmp(line, key, klen) || line[klen] != ' '))
			continue;
		*out = strtoull(line + (key ? klen + 1 : 0), NULL, 10);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* cgroup v1's memory controller: a directory under it is a v1 one */
#define V1_MEMORY "/sys/fs/cgroup/memory/"
#define V1_MEMORY_LEN (sizeof(V1_MEMORY) - 1)

static int is_v1(const char *dir)
{
	return strncmp(dir, V1_MEMORY, V1_MEMORY_LEN) == 0;
}

/* The memory high-water mark of a memory cgroup directory (v1 or v2), in KiB. */
static int read_mem_peak_kb(const char *dir, uint64_t *kb)
{
	uint64_t v;
	int r = read_u64(dir, is_v1(dir) ? "memory.max_usage_in_bytes" : "memory.peak", NULL, &v);

	if (r == 0)
		*kb = v / 1024;
	return r;
}

int cgroup_job_mem_peak(const char *step, uint64_t *kb)
{
	char job[PATH_MAX];
	int r;

	if ((r = cgroup_job_dir(step, job, sizeof(job))) < 0)
		return r;
	return read_mem_peak_kb(job, kb);
}

int cgroup_step_counters(const char *step, struct cgroup_counters *out)
{
	struct cgroup_counters c = {};
	char cpuacct[PATH_MAX + 32];
	uint64_t v;
	int got = 0;

	if (read_mem_peak_kb(step, &v) == 0) {
		c.mem_peak_kb = v;
		got++;
	}
	if (is_v1(step)) {
		snprintf(cpuacct, sizeof(cpuacct), "/sys/fs/cgroup/cpuacct/%s",
			 step + V1_MEMORY_LEN);
		if (read_u64(cpuacct, "cpuacct.usage", NULL, &v) == 0) {
			c.cpu_ns = v;
			got++;
		}
	} else {
		if (read_u64(step, "cpu.stat", "usage_usec", &v) == 0) {
			c.cpu_ns = v * 1000;
			got++;
		}
	}
	if (!got)
		return -ENOENT;
	*out = c;
	return 0;
}

/* PSI's "some" total (µs) in a pressure file: time in which some task stalled on the resource. */
static int read_psi_some(const char *path, uint64_t *us)
{
	char line[256], *t;
	FILE *f = fopen(path, "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "some ", 5) && (t = strstr(line, " total="))) {
			*us = strtoull(t + 7, NULL, 10);
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

int cgroup_node_memory_pressure(uint64_t *us)
{
	return read_psi_some("/proc/pressure/memory", us);
}

int cgroup_step_memory_pressure(const char *task_path, uint64_t *us)
{
	char step[PATH_MAX], file[PATH_MAX + 32];

	if (!task_path[0] || strncmp(task_path, "/sys/fs/cgroup/", 15) ||
	    is_v1(task_path) || /* v1: no PSI per cgroup */
	    cgroup_step_dir(task_path, step, sizeof(step)) < 0)
		return -EOPNOTSUPP;
	snprintf(file, sizeof(file), "%s/memory.pressure", step);
	return read_psi_some(file, us);
}
