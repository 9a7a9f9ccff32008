/* The fields -o/--format selects, sacct's width syntax, and each field's value in a row. */
#ifndef JOBSTAT_FIELDS_H
#define JOBSTAT_FIELDS_H

#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "jobstat.h"

/* How a field's number is written, as text (cell_format_number) and as JSON (cell_json_number). */
enum field_kind {
	FK_TEXT,    /* not a number: cell_text writes it */
	FK_COUNT,   /* "12"; JSON as is */
	FK_ELAPSED, /* seconds: "01:02:03"; JSON seconds */
	FK_CPUTIME, /* nanoseconds: "01:05.500"; JSON seconds to the millisecond */
	FK_PERCENT, /* "45.7%"; JSON to two decimals */
	FK_CORES,   /* "1.25"; JSON to two decimals */
	FK_MB,	    /* MiB, as sacct's ReqMem: "4G"; JSON bytes */
	FK_KB,	    /* KiB: "300.50M"; JSON bytes */
	FK_BYTES,   /* bytes: "1.20G"; JSON bytes */
	FK_RATE,    /* bytes per second: "1.20M/s"; JSON bytes per second */
};

/* Every field -o/--format offers: X(ID, name, width, numeric, kind). width follows sacct's
 * convention (> 0 right-aligned, < 0 left-aligned; sacct's own default for the fields sacct
 * has); numeric: array summaries give its min/median/max. A new field is one line here and
 * its value: cell_number in values.c for a number, cell_text in cells.c for text. */
#define JOBSTAT_FIELDS(X)                            \
	X(JOBID, "JobID", -12, 0, FK_TEXT)           \
	X(JOBNAME, "JobName", 10, 0, FK_TEXT)        \
	X(USER, "User", 9, 0, FK_TEXT)               \
	X(STATE, "State", 10, 0, FK_TEXT)            \
	X(NODELIST, "NodeList", 15, 0, FK_TEXT)      \
	X(NNODES, "NNodes", 8, 1, FK_COUNT)          \
	X(NTASKS, "NTasks", 8, 1, FK_COUNT)          \
	X(PARTITION, "Partition", 10, 0, FK_TEXT)    \
	X(START, "Start", 19, 0, FK_TEXT)            \
	X(END, "End", 19, 0, FK_TEXT)                \
	X(ELAPSED, "Elapsed", 10, 1, FK_ELAPSED)     \
	X(TIMELIMIT, "Timelimit", 10, 0, FK_TEXT)    \
	X(EXITCODE, "ExitCode", 8, 0, FK_TEXT)       \
	X(ALLOCCPUS, "AllocCPUS", 10, 1, FK_COUNT)   \
	X(ALLOCCORES, "AllocCores", 12, 0, FK_TEXT)  \
	X(REQMEM, "ReqMem", 10, 1, FK_MB)            \
	X(TOTALCPU, "TotalCPU", 10, 1, FK_CPUTIME)   \
	X(USERCPU, "UserCPU", 10, 1, FK_CPUTIME)     \
	X(SYSTEMCPU, "SystemCPU", 10, 1, FK_CPUTIME) \
	X(CPUEFF, "CPUEff", 6, 1, FK_PERCENT)        \
	X(MAXRSS, "MaxRSS", 10, 1, FK_KB)            \
	X(PEAKMEM, "PeakMem", 8, 1, FK_KB)           \
	X(MEMEFF, "MemEff", 6, 1, FK_PERCENT)        \
	X(TIMEEFF, "TimeEff", 7, 1, FK_PERCENT)      \
	X(PEAKCORES, "PeakCores", 9, 1, FK_CORES)    \
	X(READBYTES, "ReadBytes", 10, 1, FK_BYTES)   \
	X(WRITEBYTES, "WriteBytes", 10, 1, FK_BYTES) \
	X(READCHARS, "ReadChars", 10, 1, FK_BYTES)   \
	X(WRITECHARS, "WriteChars", 10, 1, FK_BYTES) \
	X(NETRX, "NetRx", 8, 1, FK_BYTES)            \
	X(NETTX, "NetTx", 8, 1, FK_BYTES)            \
	X(CPUWAIT, "CPUWait", 10, 1, FK_CPUTIME)     \
	X(IOWAIT, "IOWait", 10, 1, FK_CPUTIME)       \
	X(OFFCPU, "OffCPU", 10, 1, FK_CPUTIME)       \
	X(NPROCS, "NProcs", 8, 1, FK_COUNT)          \
	X(OOMKILLS, "OOMKills", 8, 1, FK_COUNT)      \
	X(LOST, "Lost", 6, 1, FK_COUNT)              \
	X(TOOL, "Tool", -16, 0, FK_TEXT)             \
	X(PIPELINE, "Pipeline", -12, 0, FK_TEXT)     \
	X(RUN, "Run", -12, 0, FK_TEXT)               \
	X(STEP, "Step", -12, 0, FK_TEXT)             \
	X(WILDCARDS, "Wildcards", -20, 0, FK_TEXT)   \
	X(TAG, "Tag", -12, 0, FK_TEXT)               \
	X(SUGGEST, "Suggest", -50, 0, FK_TEXT)       \
	X(PID, "PID", 8, 0, FK_TEXT)                 \
	X(PPID, "PPID", 8, 0, FK_TEXT)               \
	X(COMMAND, "Command", -50, 0, FK_TEXT)       \
	X(TREE, "Tree", -32, 0, FK_TEXT)             \
	X(EXITCODES, "ExitCodes", -20, 0, FK_TEXT)   \
	X(NJOBS, "NJobs", 6, 0, FK_COUNT)            \
	X(ACCOUNT, "Account", 10, 0, FK_TEXT)        \
	X(QOS, "QOS", 10, 0, FK_TEXT)                \
	X(SUBMIT, "Submit", 19, 0, FK_TEXT)          \
	X(RESERVED, "Reserved", 10, 1, FK_ELAPSED)   \
	X(MAXRSSNODE, "MaxRSSNode", 10, 0, FK_TEXT)  \
	X(NODE, "Node", -8, 0, FK_TEXT)              \
	X(TASK, "Task", 4, 0, FK_TEXT)               \
	X(SINCE, "Since", 10, 1, FK_ELAPSED)         \
	X(TIME, "Time", 19, 0, FK_TEXT)              \
	X(CORES, "Cores", 6, 1, FK_CORES)            \
	X(CPUUTIL, "CPUUtil", 7, 1, FK_PERCENT)      \
	X(RSS, "RSS", 10, 1, FK_KB)                  \
	X(MEMUTIL, "MemUtil", 7, 1, FK_PERCENT)      \
	X(READRATE, "ReadRate", 10, 1, FK_RATE)      \
	X(WRITERATE, "WriteRate", 10, 1, FK_RATE)    \
	X(NOTE, "Note", -24, 0, FK_TEXT)

enum field_id {
#define FIELD_ID(id, name, width, numeric, kind) F_##id,
	JOBSTAT_FIELDS(FIELD_ID)
#undef FIELD_ID
		F_COUNT
};

enum view { V_JOBS, V_TOOLS, V_PROCS, V_TREE, V_ARRAY, V_WORKFLOW, V_TIMELINE };

struct field_def {
	const char *name;
	int width;   /* sacct's convention: > 0 right-aligned, < 0 left-aligned */
	int numeric; /* has a number (array summaries give its min/median/max) */
	enum field_kind kind;
};
extern const struct field_def field_defs[F_COUNT];

struct col {
	int field;
	int width;
	int fixed; /* the width was given (%W): values are cut to it, as sacct does */
};

/* The default format of a view ("JobID,JobName,..."). */
const char *view_default_format(enum view v);
/* --signals: the tools view showing where each tool's time went. */
const char *view_signals_format(void);
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
	int units; /* --units: U_K..U_P, or -1 */
};

/* The text of a field in a row, escaped (safetext.h) for a table or -p/-P. */
void cell_text(int field, const struct row *r, const struct cellctx *c, char *out, size_t len);
/* The number behind a numeric field: 1 and *v when known, 0 when not; -1 not numeric. */
int cell_number(int field, const struct row *r, double *v);
/* A number of that field written as its column writes it. */
void cell_format_number(int field, double v, const struct cellctx *c, char *out, size_t len);
/* The percentage behind an efficiency field for colouring, -1 otherwise. */
double cell_eff(int field, const struct row *r);
/* The field as JSON: numbers raw (durations in seconds, sizes in bytes, efficiencies in
 * percent), text as strings, not escaped (the document is, whole, before it is written: once);
 * NULL for unknown or not applicable. */
struct json_object *cell_json(int field, const struct row *r, const struct cellctx *c);
/* A number of a numeric field as cell_json writes it. */
struct json_object *cell_json_number(int field, double v);
/* The text of a field in an array row (arrays.h): 1 when written, 0 when the row has none. */
int array_cell(int field, const struct row *r, const struct cellctx *c, char *out, size_t len);
/* An array row as JSON: numeric fields as {"min","median","max"}. */
struct json_object *array_json(const struct row *r, const struct col *cols, size_t n,
			       const struct cellctx *c);

#endif
