/* --html FILE: a report as one self-contained HTML page (its style, script and charts inline,
 * nothing fetched): the jobs' rows and notes as the default view gives them, a Gantt chart of
 * their steps, tools and processes, each step's samples over time against its allocation, and
 * a sortable table of each step's tools. */
#ifndef JOBSTAT_HTML_H
#define JOBSTAT_HTML_H

#include "views.h"

/* Write the page of rep's jobs to path: into path.tmp, renamed over path once whole (no
 * partial file is ever left at path). v carries the options and the jobs' columns. Returns
 * the number of jobs in it (0: none, and no page written), or a negative errno (said on
 * stderr). */
long html_report(struct viewctx *v, struct report *rep, const char *path);

#endif
