/* Collect: what a view needs beyond the jobs' units, fetched from the nodes' tracerds into
 * the model before anything is computed from it or printed — the processes of steps, the
 * units' tool records, the nodes' topology — and what became of each node. */
#ifndef JOBSTAT_DETAILS_H
#define JOBSTAT_DETAILS_H

#include "daemons.h"
#include "report.h"

/* What to fetch; the view says (view_wanted). */
struct details_wanted {
	int failed_procs;   /* processes of the jobs that failed (report_job_failed) */
	int step_procs;	    /* processes of every step with units (--processes, --tree) */
	int step_tools;	    /* tool records of every step with units (the Tool field) */
	int step_tools_ran; /* the same, only of steps that ran processes (--tools) */
	int unit_tools;	    /* tool records of the labelled units (--workflow) */
	int topology;	    /* the topology of the nodes of units that list their cores */
	int history;	    /* earlier runs of each finished step's first task (signals.c) */
	int step_samples;   /* the timeline's points of every step with units (--timeline) */
};

/* Fetch what w asks for into rep's jobs (j->detail) and nodes, then record every node asked
 * (its name, whether it failed and why) in rep->nodes. 0 or -ENOMEM. A node that cannot be
 * asked leaves its units without details; the warnings name it. */
int details_collect(struct report *rep, struct daemons *d, const struct details_wanted *w);

/* The processes of unit k of job j (its detail allocated), once: each with its node and
 * task. 0, or -ENOMEM; a node that cannot be asked leaves none (and is marked failed). It
 * touches only that unit's detail and its node's entry of d. */
int details_procs(struct job *j, size_t k, struct daemons *d);

#endif
