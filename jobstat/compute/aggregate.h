/* tracerd's units (one per task per node, plus the job's allocation) into the figures of a
 * step or a job row. Pure: JSON in, numbers out. */
#ifndef JOBSTAT_AGGREGATE_H
#define JOBSTAT_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "jobstat.h"
#include "records.h"

/* A unit's totals: over its processes, and over its live samples (peak_cores < 0 unknown) */
struct unit_totals {
	TOTALS_RECORD(REC_MEMBER)
	SAMPLE_TOTALS_RECORD(REC_MEMBER)
	LIVE_TOTALS_RECORD(REC_MEMBER)
};

struct unit_rec {
	int node;		/* index of the node whose tracerd answered */
	UNIT_RECORD(REC_MEMBER) /* down_start_ns, down_end_ns: JS_NONE: tracerd was there */
	int have_totals;
	struct unit_totals t;
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

/* The fields of a record's JSON object into a client's struct by their slots: numbers absent
 * or of another type JS_NONE (reals -1), strings "" (cut to their member). */
void json_to_rec(struct json_object *o, const struct rec_slot *slots, size_t n, void *dst);

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

/* Add waits and network (JS_NONE: unknown, adds nothing). */
void figures_add_waits(struct figures *f, int64_t cpu_wait, int64_t iowait, int64_t offcpu,
		       int64_t net_rx, int64_t net_tx);

/* Add a unit's stored totals but its CPU, which callers keep apart: processes, MaxRSS, I/O,
 * OOM kills, waits and network. */
void figures_add_totals(struct figures *f, const struct unit_totals *t);

/* Merge a step's figures into its job's: sums and maxima as above; the cgroup counters
 * and peaks of the job are not derived this way (see report.c). */
void figures_merge(struct figures *job, const struct figures *step);

#endif
