/* Workflows: the --pipeline and --run filters, and --workflow, the report's units grouped
 * pipeline -> run -> step -> tool. Levels above the tool sum the units' totals (every process,
 * shell plumbing and the engine's own included); tool rows come from each unit's "tools"
 * reply (tracerd groups the processes in its store; plumbing left out). */
#ifndef JOBSTAT_PIPELINES_H
#define JOBSTAT_PIPELINES_H

#include <stddef.h>
#include <json-c/json.h>

#include "report.h"

enum { WF_PIPELINE, WF_RUN, WF_STEP, WF_TOOL };

/* Is name one of the comma-separated names in list? An empty or NULL list holds every name. */
int pipelines_listed(const char *list, const char *name);
/* Does the job hold a unit whose pipeline is listed in pipelines and whose run in runs
 * (NULL: any)? */
int pipelines_match(const struct job *j, const char *pipelines, const char *runs);
/* Keep only the jobs that match (the others freed). Returns how many were dropped. */
size_t pipelines_filter(struct report *rep, const char *pipelines, const char *runs);

/* Where tool rows come from: 0 and *tools, an array of tool records as tooltable.h describes
 * them (caller puts), or -errno. tooltable_unit_tools reads them from the model. */
typedef int (*pipelines_tools_fn)(void *ctx, const struct unit_rec *u, struct json_object **tools);

/* The rows of the grouped view (ROW_WF, wf_level set), their State the count of their jobs'
 * states ("FAILED:1,COMPLETED:3": failures first), in the order printed: pipelines by
 * first start, each followed by its runs by first start, each by its steps by first start,
 * each by its tools with the most CPU first. Units with no workflow label are left out.
 * Labels not known print as JS_UNKNOWN. now_ns ends the span of what still runs. Returns the row
 * count (*rows: caller frees) or -ENOMEM. */
long pipelines_build(const struct report *rep, pipelines_tools_fn tools, void *ctx, int64_t now_ns,
		     struct row **rows);
/* Does the unit have tool rows to show (it ran processes, or its totals are not known)? */
int pipelines_unit_has_tools(const struct unit_rec *u);

#endif
