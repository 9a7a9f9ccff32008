/* Failure and waste signals of a job as notes (signals.c): stalled tools, idle stretches, CPU
 * wait, memory near its limit or under pressure, steps slower than their own history. Pure. */
#ifndef JOBSTAT_SIGNALS_H
#define JOBSTAT_SIGNALS_H

#include <stddef.h>

#include "notes.h"
#include "report.h"

/* The job's signal notes, one line each; of a running job only the stalls under way. Returns
 * the count written (at most max). */
size_t signals_notes(const struct job *j, int units, int running, char lines[][NOTE_LEN],
		     size_t max);

/* The next of a unit's idle windows ("START-END,...", unix ns) from *p, which moves past it:
 * 1, or 0 at the end (or where the text is not one). */
int idle_window_next(const char **p, int64_t *start, int64_t *end);
/* The time a step usually takes: the median elapsed time of its earlier runs (a "history"
 * reply), what "slower than usual" compares with; JS_NONE when there are none. */
int64_t signals_usual_ns(struct json_object *runs);

#endif
