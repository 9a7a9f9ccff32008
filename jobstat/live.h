/* tracer-jobstat --live: the running jobs as a tree refreshed every --refresh, in the
 * terminal; one snapshot when stdout is no terminal. */
#ifndef JOBSTAT_LIVE_H
#define JOBSTAT_LIVE_H

#include "collect.h"

/* Run the view until q or a signal (or print the snapshot). Returns the exit status. */
int live_run(const struct opts *o, const struct ident *id, struct daemons *d);

#endif
