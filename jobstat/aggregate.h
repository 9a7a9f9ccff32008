/* tracerd's units (one per task per node, plus the job's allocation) into the figures of a
 * step or a job row. Pure: JSON in, numbers out. */
#ifndef JOBSTAT_AGGREGATE_H
#define JOBSTAT_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "jobstat.h"

struct unit_rec {
        int node;               /* index of the node whose tracerd answered */
        int64_t id;
        char name[128], kind[16], state[16];
        int64_t uid, job_id, array_job_id, array_task_id, step_id, task_id;
        char job_name[256], alloc_cores[128], pipeline[128], run[128], step_name[128];
        char engine[16], wf_job[64], wildcards[256], tag[128], task_hash[64]; /* workflow */
        int64_t alloc_cpus, alloc_mem_mb, start_ns, end_ns, exit_status, lost;
        int64_t cgroup_cpu_ns, cgroup_mem_peak_kb;
        int64_t down_start_ns, down_end_ns; /* unix ns, JS_NONE: tracerd was there throughout */
        int have_totals;
        struct {
                int64_t nprocs, cpu_ns, user_ns, sys_ns, maxrss_kb, read_bytes, write_bytes;
                int64_t rchar, wchar, oom_kills, first_start_ns, last_end_ns;
                int64_t peak_sampled_rss_kb, sample_rounds;
                double peak_cores; /* < 0 unknown */
        } t;
};

/* One element of a "units" reply. Absent or mistyped keys read as unknown (JS_NONE, "", -1
 * for peak_cores); returns -EINVAL only when o is not an object or has no id. */
int unit_from_json(struct json_object *o, int node, struct unit_rec *u);

/* Does the unit carry a workflow label (engine, pipeline, run or step)? */
int unit_labelled(const struct unit_rec *u);
/* Workflow labels shared within a job: every unit of a Slurm job belongs to the workflow its
 * batch step (else its first labelled unit) names. A unit with no label at all (the
 * allocation, the extern step) takes all of that unit's labels; a unit of the same pipeline,
 * or of none, takes the pipeline and run it lacks (a step whose command line does not show
 * the run, a step given only its own step name) and keeps its step. units are those of one
 * job. */
void units_fill_labels(struct unit_rec *units, size_t n);

/* A number of a JSON object (integer or real), JS_NONE when absent or of another type; a
 * string, "" when absent or of another type. */
int64_t json_int(struct json_object *o, const char *key);
const char *json_text(struct json_object *o, const char *key);
/* Figures that may be JS_NONE: keep the larger, the smaller, add (JS_NONE + v is v). */
void fig_max(int64_t *m, int64_t v);
void fig_min(int64_t *m, int64_t v);
void fig_sum(int64_t *s, int64_t v);

/* Is the unit still running (state RUNNING, or no end)? */
int unit_running(const struct unit_rec *u);

/* Add units to f. Sums: processes, CPU, I/O, OOM kills, lost events, peak cores of the
 * tasks. Maxima: process RSS, sampled RSS of one unit, peak cores of one task. The step
 * cgroup's counters are per step and node (every task unit of a node carries the same
 * ones): the largest per node, summed over the nodes. */
void figures_add_units(struct figures *f, const struct unit_rec *const *units, size_t n);

/* Merge a step's figures into its job's: sums and maxima as above; the cgroup counters
 * and peaks of the job are not derived this way (see report.c). */
void figures_merge(struct figures *job, const struct figures *step);

#endif
