/* The notes block after the default view: what a job used of what it asked for, what went
 * wrong, and what to ask for next time. Pure: views.c prints them. A new note is one
 * function in notes.c, listed in its notes[] table. */
#ifndef JOBSTAT_NOTES_H
#define JOBSTAT_NOTES_H

#include <stdarg.h>
#include <stddef.h>

#include "report.h"

#define NOTE_LEN 320
#define NOTES_MAX 24

/* Append one formatted line to lines (at most max; *n counts them). */
void notes_add(char lines[][NOTE_LEN], size_t *n, size_t max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same with a va_list. */
void notes_vadd(char lines[][NOTE_LEN], size_t *n, size_t max, const char *fmt, va_list ap);

/* The notes of a job (or traced run), one line each, without the heading: reads the resolved
 * row, j->row.numa_span, j->fail and j->missing. Returns the count. */
size_t notes_build(const struct job *j, int units, char lines[][NOTE_LEN], size_t max);
/* The step of a job that Slurm failed before it ran anything (no process of it recorded, its
 * wait status, or the job's for its batch step, one of slurmd's own errors: 0:53 is 4021, its
 * output file could not be opened), and that error in *code; NULL when there is none. */
const struct row *notes_not_started(const struct job *j, int64_t *code);
/* Slurm's text for one of slurmd's errors. */
const char *notes_slurmd_error_text(int64_t code);

/* One advice per job array, from its tasks' highest needs: counts the arrays' tasks
 * (report_arrays) and writes the advice into the last task's array_suggest, which its notes
 * give instead of each task's own. */
void notes_arrays(struct report *rep);

#endif
