/* A Slurm step's own accounting, read from its cgroup before Slurm removes it: the reference
 * tracer's per-process sums are checked against, and what a step used beyond its tracked
 * processes. */
#ifndef TRACER_CGROUP_H
#define TRACER_CGROUP_H

#include <stdint.h>

struct cgroup_counters {
	uint64_t cpu_ns;      /* CPU time of everything that ran in the cgroup */
	uint64_t mem_peak_kb; /* memory high-water mark, 0 when the kernel keeps none */
};

/* Read the counters of a step's cgroup directory (cgroup_step_dir() of a task's): the memory
 * controller's dir on cgroup v1, the unified dir on v2. Returns 0, or -errno when neither
 * counter could be read; *out untouched then. */
int cgroup_step_counters(const char *step_dir, struct cgroup_counters *out);

/* The memory high-water mark of the job cgroup above a step directory (what Slurm's --mem
 * limits: all the job's steps on this node at once), in KiB. -errno when unknown. */
int cgroup_job_mem_peak(const char *step_dir, uint64_t *kb);

/* Memory pressure, PSI's "some" total in µs: the step's own (cgroup v2), or the node's. */
int cgroup_step_memory_pressure(const char *task_path, uint64_t *us);
int cgroup_node_memory_pressure(uint64_t *us);

#endif
