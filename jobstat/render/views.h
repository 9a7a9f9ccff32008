/* The ways to print a report: jobs and steps (with notes), per process (--tools,
 * --processes, --tree), job arrays, workflows, and the timeline. */
#ifndef JOBSTAT_VIEWS_H
#define JOBSTAT_VIEWS_H

#include "details.h"
#include "notes.h"
#include "options.h"
#include "output.h"
#include "report.h"

struct viewctx {
	const struct opts *o;
	struct out out;
	struct emit e;
	size_t rows;		      /* rows written */
	struct json_object *warnings; /* JSON: what stderr also says */
};

/* --timeline (timeline_view.c): the rows of each job's intervals. Returns the rows written. */
size_t view_timeline(struct viewctx *v, struct report *rep);
/* The notes of job j, one line each (at most NOTES_MAX), unescaped: rightsizing (notes.c),
 * then failure and waste signals (signals.c). Returns the count. */
size_t view_job_notes(const struct job *j, int units, char lines[][NOTE_LEN]);
/* Each workflow advice of the report (one per engine, pipeline and user: wfadvice.h) to fn:
 * its heading and its lines ('\n' between them; fn may cut text up), unescaped. */
typedef void (*view_wfadvice_fn)(void *ctx, const char *heading, char *text);
void view_wfadvice(const struct report *rep, view_wfadvice_fn fn, void *ctx);
/* Get the report's jobs ready for the rows and notes of the default view: arrays counted,
 * each job's nodes and NUMA span, its failures (with failures or tools) and its Tool field
 * (with tools). */
void view_jobs_prepare(struct report *rep, int failures, int tools);
/* What the view in v->o->view, with its columns and output, needs collect to fetch. */
void view_wanted(const struct viewctx *v, struct details_wanted *w);
/* Print the report in o->view. Returns the number of rows written (jobs in JSON). */
size_t view_print(struct viewctx *v, struct report *rep);
/* Name each node that could not be asked, with the jobs whose figures lack it (stderr, and
 * into v->warnings). */
void view_warnings(struct viewctx *v, const struct report *rep);

#endif
