/* The processes of a step: their records (decoded from tracerd's "processes" replies by
 * collect), a step's set of them, their parents and states. Pure. */
#ifndef JOBSTAT_PROCS_H
#define JOBSTAT_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "report.h"

struct proc_rec {
	PROCESS_RECORD(REC_NUMBER) /* the numbers tracerd sends, JS_NONE unknown */
	char tool[64];
	char node[64]; /* the node it ran on: PIDs of different nodes are different processes */
	int64_t task;  /* its Slurm task, JS_NONE unknown */
	int running;   /* live in tracerd: figures of now, no end or exit status yet */
	int64_t rss_now_kb;	  /* of a running one: resident now, JS_NONE unknown */
	int64_t stalled_since_ns; /* of a running one: its stall under way (unix ns), JS_NONE */
	char stalled_reason[48];
	int excluded; /* shell plumbing by tracerd's tool rules: in listings, not in tool tables */
	char *cmd;
};

struct procset {
	struct proc_rec *p;
	size_t n;
	int borrowed; /* p is the job's own array (one unit's): not freed with the set */
};

/* The columns of a process that proc_from_json and the report's rows, notes, tool tables and
 * charts read (not a listing's -o fields, which may name any): what --html asks for. */
extern const char *const procs_report_fields[];

/* One element of a "processes" reply. The tool is the "tool" field when tracerd gives one,
 * else the base name of argv[0], else comm. Returns -EINVAL for a non-object. */
int proc_from_json(struct json_object *o, struct proc_rec *p);
/* The same of a flat row (flatrow.h): -ENOMEM, or 0 */
struct flat_row;
int proc_from_flat(struct flat_row *r, struct proc_rec *p);
/* The processes of step (or run) row s of job j that collect fetched (j->detail), by start.
 * The records are the job's (procs_free frees only the set; one unit's are sorted in place). 0
 * or -ENOMEM. */
int procs_of_step(const struct job *j, const struct row *s, struct procset *ps);
void procs_free(struct procset *ps);

/* An aggregate row of kind for step (or run) row s: its JobID and workflow labels, sums at 0. */
void procs_agg_row(struct row *r, enum row_kind kind, const struct row *s);

/* Parent of each process (index, or -1): the process of the same node with pid == ppid that
 * started last before it. Pure; parent[] has n entries. */
int procs_parents(const struct proc_rec *p, size_t n, long *parent);

/* A process's State as sacct names a step's: RUNNING, OUT_OF_MEMORY, CANCELLED (killed by a
 * signal), FAILED (non-zero exit), COMPLETED; "" when its end is unknown. Pure. */
const char *procs_state(const struct proc_rec *p);

#endif
