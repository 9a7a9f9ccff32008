/* Tool tables: the processes of a step (or traced run) grouped by tool and subcommand, shell
 * plumbing left out, the most CPU first. Rows come from tracerd's "tools" query, grouped in
 * its store (one short reply per unit, however many processes it ran), or, from a tracerd
 * without that query, from the step's processes. */
#ifndef JOBSTAT_TOOLTABLE_H
#define JOBSTAT_TOOLTABLE_H

#include <stddef.h>

#include "daemons.h"
#include "output.h"
#include "procs.h"
#include "report.h"

/* One ROW_TOOL row per tool of step row s of job j (ExitCodes: each exit code with its
 * count, "0:0(12),1:0(1)"), out to e. Returns the rows written, or -ENOMEM. */
long tooltable_emit(const struct job *j, const struct row *s, struct daemons *d, struct emit *e);
/* The tool of step row s that used the most CPU into out ("" when none). */
void tooltable_main_tool(const struct job *j, const struct row *s, struct daemons *d, char *out, size_t len);

#endif
