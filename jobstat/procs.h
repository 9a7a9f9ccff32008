/* Per-process views of a step: --processes, --tools, --tree, and the Tool field. */
#ifndef JOBSTAT_PROCS_H
#define JOBSTAT_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "daemons.h"
#include "output.h"
#include "report.h"

struct proc_rec {
        PROCESS_RECORD(REC_NUMBER) /* the numbers tracerd sends, JS_NONE unknown */
        char tool[64];
        char node[64];  /* the node it ran on: PIDs of different nodes are different processes */
        int64_t task;   /* its Slurm task, JS_NONE unknown */
        int running;    /* live in tracerd: figures of now, no end or exit status yet */
        int excluded; /* shell plumbing by tracerd's tool rules: in listings, not in tool tables */
        char *cmd;
};

struct procset {
        struct proc_rec *p;
        size_t n;
};

/* One element of a "processes" reply. The tool is the "tool" field when tracerd gives one,
 * else the base name of argv[0], else comm. Returns -EINVAL for a non-object. */
int proc_from_json(struct json_object *o, struct proc_rec *p);
/* The processes of step (or run) row s of job j, from the nodes of its units, by start. */
int procs_load(const struct job *j, const struct row *s, struct daemons *d, struct procset *ps);
void procs_free(struct procset *ps);

/* Rows out: one per process; the process tree (roots by start, children under their parent,
 * each row with its subtree's totals). Tool tables are in tooltable.h. */
void procs_emit_processes(const struct procset *ps, const struct row *s, struct emit *e);
int procs_emit_tree(const struct procset *ps, const struct row *s, struct emit *e);

/* An aggregate row of kind for step (or run) row s: its JobID and workflow labels, sums at 0. */
void procs_agg_row(struct row *r, enum row_kind kind, const struct row *s);

/* Parent of each process (index, or -1): the process of the same node with pid == ppid that
 * started last before it. Pure; parent[] has n entries. */
int procs_parents(const struct proc_rec *p, size_t n, long *parent);

/* A process's State as sacct names a step's: RUNNING, OUT_OF_MEMORY, CANCELLED (killed by a
 * signal), FAILED (non-zero exit), COMPLETED; "" when its end is unknown. Pure. */
const char *procs_state(const struct proc_rec *p);

#endif
