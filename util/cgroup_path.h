/* Where Slurm puts a task's cgroup relative to its step's: tracerd reads the step's counters
 * there, and the SPANK plugin leaves the trace context on it. */
#ifndef TRACER_CGROUP_PATH_H
#define TRACER_CGROUP_PATH_H

#include <stddef.h>

/* The step directory of a task cgroup directory: …/step_S/task_T on cgroup v1,
 * …/step_S/user/task_T on v2 (Slurm >= 22.05); a path that names no task comes back as it
 * is. Writes it to out[len]. Returns 0, -EINVAL for a path without '/', or -ENAMETOOLONG;
 * out is untouched on failure. */
int cgroup_step_dir(const char *task_dir, char *out, size_t len);

#endif
