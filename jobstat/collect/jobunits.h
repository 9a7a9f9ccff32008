/* Collect: the units of Slurm's jobs from the tracerds of the nodes each ran on, every node
 * asked at once (daemons_each_node), so that a listing of many jobs on many nodes costs about
 * one request's time, and a node that does not answer one timeout. */
#ifndef JOBSTAT_JOBUNITS_H
#define JOBSTAT_JOBUNITS_H

#include "aggregate.h"
#include "daemons.h"
#include "slurmacct.h"

struct jobunits {
	struct unit_rec *units; /* malloc'd: the caller frees it or hands it over */
	size_t nunits;
	char missing[256]; /* the nodes that could not be asked, "" none */
};

/* For each of the n jobs, out[i]. 0 or -ENOMEM (out then holds nothing to free). */
int jobunits_fetch(struct daemons *d, const struct sjob *const *jobs, size_t n,
		   struct jobunits *out);

#endif
