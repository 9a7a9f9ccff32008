/* Render: the rows of the per-process views (--processes, --tree, --tools) and of the
 * workflow view (--workflow), out to a table or JSON. */
#ifndef JOBSTAT_LISTINGS_H
#define JOBSTAT_LISTINGS_H

#include <stddef.h>

#include "output.h"
#include "procs.h"

/* One row per process of ps, the processes of step (or run) row s. */
void procs_emit_processes(const struct procset *ps, const struct row *s, struct emit *e);
/* The process tree: roots by start, children under their parent, each row with its
 * subtree's totals. 0 or -ENOMEM. */
int procs_emit_tree(const struct procset *ps, const struct row *s, struct emit *e);
/* One ROW_TOOL row per tool of step row s of job j (ExitCodes with counts). Returns the rows
 * written, or -ENOMEM. */
long tooltable_emit(const struct job *j, const struct row *s, struct emit *e);
/* The workflow rows (pipelines_build) printed, or as JSON nested: pipelines, each with
 * "runs", each with "steps", each with "tools". Returns the number of rows written. */
size_t pipelines_emit(const struct row *rows, size_t n, struct emit *e);

#endif
