/* Tool tables: the processes of a step (or traced run) grouped by tool and subcommand, shell
 * plumbing left out, the most CPU first. Built from each unit's tool records, which collect
 * fetched into the model (details.h): tracerd's "tools" query, grouped in its store, or from
 * a tracerd without it, one record per process. The same records make the tool rows of the
 * workflow view (pipelines.h). Pure. */
#ifndef JOBSTAT_TOOLTABLE_H
#define JOBSTAT_TOOLTABLE_H

#include <stddef.h>
#include <json-c/json.h>

#include "report.h"

/* The exit codes of a tool's processes: wait statuses with their counts. */
struct exit_counts {
	struct {
		int64_t status, n;
	} c[8];
	int n, more; /* more: statuses past the eighth, left out */
};

/* One unit's tool records from the model (ctx: the struct report that holds u): 0 and
 * *tools (a reference: caller puts), -ENOENT when none were fetched. A pipelines_tools_fn. */
int tooltable_unit_tools(void *ctx, const struct unit_rec *u, struct json_object **tools);
/* A record's tool as shown ("samtools sort") into out: 0, or -ENOENT when rec is not a tool
 * record (not an object, or no tool). */
int tooltable_record_name(struct json_object *rec, char *out, size_t len);
/* A record's figures into row r (sums, the largest RSS, first start, last end) and its exit
 * codes into ec. */
void tooltable_record_add(struct row *r, struct exit_counts *ec, struct json_object *rec);
/* ec as "0:0(12),1:0(1)", or without counts "0:0,1:0"; ",..." when some were left out. */
void exit_counts_format(const struct exit_counts *ec, int with_counts, char *out, size_t len);

/* One step's table: a ROW_TOOL row per tool, with its exit codes. */
struct tool_row {
	struct row r;
	struct exit_counts ec;
};
struct tooltable {
	struct tool_row *t;
	size_t n, cap;
};

/* The tools of step (or run) row s of job j, the most CPU first: 0 or -ENOMEM (tt then holds
 * what was grouped). Units without tool records are left out (their node is named in the
 * warnings). */
int tooltable_build(const struct job *j, const struct row *s, struct tooltable *tt);
void tooltable_free(struct tooltable *tt);
/* The tool of step row s that used the most CPU into out ("" when none); a workflow engine
 * (Snakemake, Nextflow) only when no other tool ran. */
void tooltable_main_tool(const struct job *j, const struct row *s, char *out, size_t len);
/* The Tool field of a job and its steps: the tool that failed when one did (j->fail, from
 * failures_of_job), else the one that used the most CPU (of its own, for the job's), a
 * workflow engine only when no other tool ran. */
void tooltable_job_tools(struct job *j);

#endif
