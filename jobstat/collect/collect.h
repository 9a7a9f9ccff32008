/* Which jobs to report: Slurm's accounting for job ids, users and time windows; tracerd for
 * traced runs and for jobs the accounting cannot tell about. */
#ifndef JOBSTAT_COLLECT_H
#define JOBSTAT_COLLECT_H

#include <sys/types.h>

#include "daemons.h"
#include "options.h"
#include "report.h"

struct ident {
	uid_t uid;
	int admin; /* root or SlurmUser: everyone's jobs */
};

struct collect_stats {
	size_t refused;	  /* jobs asked for by id that belong to someone else */
	size_t hidden;	  /* others' jobs left out of a listing */
	size_t not_found; /* selectors nothing answered */
	size_t filtered;  /* jobs left out by --pipeline/--run */
};

/* Fill rep. Returns 0, or -1 after an error message (nothing to report at all). */
int collect(const struct opts *o, const struct ident *id, struct daemons *d, struct report *rep,
	    struct collect_stats *st);

#endif
