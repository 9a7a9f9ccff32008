/* The fields -o/--format selects, sacct's width syntax, and each field's value in a row. */
#ifndef JOBSTAT_FIELDS_H
#define JOBSTAT_FIELDS_H

#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "jobstat.h"

enum field_id {
        F_JOBID, F_JOBNAME, F_USER, F_STATE, F_NODELIST, F_NNODES, F_NTASKS, F_PARTITION,
        F_START, F_END, F_ELAPSED, F_TIMELIMIT, F_EXITCODE, F_ALLOCCPUS, F_ALLOCCORES,
        F_REQMEM, F_TOTALCPU, F_USERCPU, F_SYSTEMCPU, F_CPUEFF, F_MAXRSS, F_PEAKMEM, F_MEMEFF,
        F_TIMEEFF, F_PEAKCORES, F_READBYTES, F_WRITEBYTES, F_READCHARS, F_WRITECHARS, F_NETRX,
        F_NETTX, F_IOWAIT, F_NPROCS, F_OOMKILLS, F_LOST, F_TOOL, F_PIPELINE, F_RUN, F_STEP,
        F_WILDCARDS, F_TAG, F_SUGGEST, F_PID, F_PPID, F_COMMAND, F_TREE, F_EXITCODES, F_NJOBS,
        F_ACCOUNT, F_QOS, F_SUBMIT, F_RESERVED, F_MAXRSSNODE, F_NODE, F_TASK,
        F_COUNT
};

enum view { V_JOBS, V_TOOLS, V_PROCS, V_TREE, V_ARRAY, V_WORKFLOW };

struct field_def {
        const char *name;
        int width;      /* sacct's convention: > 0 right-aligned, < 0 left-aligned */
        int numeric;    /* has a number (array summaries give its min/median/max) */
};
extern const struct field_def field_defs[F_COUNT];

struct col {
        int field;
        int width;
        int fixed;      /* the width was given (%W): values are cut to it, as sacct does */
};

/* The default format of a view ("JobID,JobName,..."). */
const char *view_default_format(enum view v);
/* The same for a report with a step on several nodes: process and tree rows say their node
 * and task (PIDs of different nodes are different processes). */
const char *view_default_format_nodes(enum view v);
/* Does the field have a value in the rows of view v (not a blank column)? */
int field_applies(int field, enum view v);
/* Parse "Name[%W],..." as sacct does: names case-insensitive, a unique prefix is enough
 * (exact names first), %W sets the width (negative: left-aligned; 0: the default). Returns
 * the number of columns (*cols: caller frees) or -EINVAL with a message. In the array view
 * the default width of a numeric field holds "min/median/max". */
int fields_parse(const char *spec, enum view v, struct col **cols, char *err, size_t errlen);
/* --helpformat: the names, four to a line as sacct lists them. */
void fields_help(FILE *f);

struct cellctx {
        int units;      /* --units: U_K..U_P, or -1 */
};

/* The text of a field in a row (already free of control characters). */
void cell_text(int field, const struct row *r, const struct cellctx *c, char *out, size_t len);
/* The number behind a numeric field: 1 and *v when known, 0 when not; -1 not numeric. */
int cell_number(int field, const struct row *r, double *v);
/* A number of that field written as its column writes it. */
void cell_format_number(int field, double v, const struct cellctx *c, char *out, size_t len);
/* The percentage behind an efficiency field for colouring, -1 otherwise. */
double cell_eff(int field, const struct row *r);
/* The field as JSON: numbers raw (durations in seconds, sizes in bytes, efficiencies in
 * percent), text as strings; NULL for unknown or not applicable. */
struct json_object *cell_json(int field, const struct row *r, const struct cellctx *c);
/* A number of a numeric field as cell_json writes it. */
struct json_object *cell_json_number(int field, double v);
/* The text of a field in an array row (arrays.h): 1 when written, 0 when the row has none. */
int array_cell(int field, const struct row *r, const struct cellctx *c, char *out, size_t len);
/* An array row as JSON: numeric fields as {"min","median","max"}. */
struct json_object *array_json(const struct row *r, const struct col *cols, size_t n, const struct cellctx *c);

#endif
