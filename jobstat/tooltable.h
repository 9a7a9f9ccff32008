/* Tool tables: the processes of a step (or traced run) grouped by tool and subcommand, shell
 * plumbing left out, the most CPU first. Rows come from tracerd's "tools" query, grouped in
 * its store (one short reply per unit, however many processes it ran), or, from a tracerd
 * without that query, from the unit's processes, one record each. The same records make the
 * tool rows of the workflow view (pipelines.h). */
#ifndef JOBSTAT_TOOLTABLE_H
#define JOBSTAT_TOOLTABLE_H

#include <stddef.h>
#include <json-c/json.h>

#include "daemons.h"
#include "output.h"
#include "report.h"

/* The exit codes of a tool's processes: wait statuses with their counts. */
struct exit_counts {
        struct { int64_t status, n; } c[8];
        int n, more; /* more: statuses past the eighth, left out */
};

/* One unit's tool records (ctx: struct daemons *): an array of objects with tool, subcommand,
 * nprocs, cpu_ns, user_ns, sys_ns, maxrss_kb, read_bytes, write_bytes, rchar, wchar,
 * first_start_ns, last_end_ns, status_counts ("0:12,256:1") and oom_kills; caller puts.
 * 0 or -errno. */
int tooltable_unit_tools(void *ctx, const struct unit_rec *u, struct json_object **tools);
/* A record's tool as shown ("samtools sort") into out: 0, or -ENOENT when rec is not a tool
 * record (not an object, or no tool). */
int tooltable_record_name(struct json_object *rec, char *out, size_t len);
/* A record's figures into row r (sums, the largest RSS, first start, last end) and its exit
 * codes into ec. */
void tooltable_record_add(struct row *r, struct exit_counts *ec, struct json_object *rec);
/* ec as "0:0(12),1:0(1)", or without counts "0:0,1:0"; ",..." when some were left out. */
void exit_counts_format(const struct exit_counts *ec, int with_counts, char *out, size_t len);

/* One ROW_TOOL row per tool of step row s of job j (ExitCodes with counts), out to e.
 * Returns the rows written, or -ENOMEM. */
long tooltable_emit(const struct job *j, const struct row *s, struct daemons *d, struct emit *e);
/* The tool of step row s that used the most CPU into out ("" when none). */
void tooltable_main_tool(const struct job *j, const struct row *s, struct daemons *d, char *out, size_t len);

#endif
