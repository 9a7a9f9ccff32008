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

/* The job directory above a step directory (…/job_J of …/job_J/step_S, as cgroup_step_dir
 * gives it): Slurm's --mem limits it, and it holds all of the job's steps on the node.
 * -ENOENT when the path names no step_S under a job_J, -EINVAL for one without '/'; out is
 * untouched on failure. */
int cgroup_job_dir(const char *step_dir, char *out, size_t len);

#endif
