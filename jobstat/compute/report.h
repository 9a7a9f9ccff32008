/* The model the three stages share: jobs as sacct shows them (a JobID row and its step rows)
 * with tracer's figures, and traced runs outside Slurm. collect fills it (the units, and what
 * a view needs beyond them: processes, tool records, node topology); the functions here build
 * and resolve its rows from that, without I/O. */
#ifndef JOBSTAT_REPORT_H
#define JOBSTAT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "aggregate.h"
#include "failures.h"
#include "jobstat.h"
#include "slurmacct.h"

struct proc_rec;
struct tl_point;

/* What collect fetched for one unit beyond its totals, for the views that need it. */
struct unit_detail {
	struct proc_rec *procs; /* its processes (procs.h), node and task set */
	size_t nprocs;
	int procs_fetched;	     /* asked for (none when its node could not be asked) */
	struct json_object *tools;   /* its tool records (tooltable.h); NULL: not fetched */
	struct json_object *history; /* earlier runs of its step (daemons_history); NULL: none */
	struct tl_point *points;     /* its timeline's points (timeline.h) */
	size_t npoints;
	int points_fetched; /* had from its node (none when the node could not be asked) */
};

/* A node tracer was asked about; unit_rec.node indexes report.nodes. */
struct node_info {
	char name[64];
	int failed; /* a request failed: its figures are missing */
	char error[512];
	struct json_object *topology; /* its "status" topology, NULL when not known */
};

struct job {
	struct row row;	   /* JobID (ROW_JOB) or a traced run (ROW_LOCAL) */
	struct row *steps; /* JobID.batch, .extern, .N */
	size_t nsteps;
	struct unit_rec *units; /* everything tracer returned for it */
	size_t nunits;
	struct unit_detail *detail; /* nunits entries, once collect fetched details */
	char missing[256];	    /* nodes whose tracerd could not be asked */
	int slurm;		    /* Slurm's accounting knew it */
	int step_only;		    /* asked for one step: print only its row */
	int64_t uid;
	int64_t array_job_id, array_task_id; /* 0 / -1 when not an array task */
	size_t array_ntasks;		     /* tasks of its array in the report (notes_arrays) */
	int array_last;			     /* the last of them */
	char array_suggest[160];	     /* the last's: one advice for all of them */
	struct failures fail;		     /* what failed (views.c reads them for the notes) */
};

struct report {
	struct job *jobs;
	size_t n, cap;
	struct node_info *nodes; /* the nodes asked, by unit_rec.node */
	size_t nnodes;
	int64_t sample_ns; /* SampleInterval in the configuration, 0 unknown */
};

/* "123", "123_4", "123_[5-9]", "123+1" as sacct writes a job's id. */
void sjob_id(const struct sjob *j, char *out, size_t len);
/* A job from Slurm's accounting, with the units its nodes' tracerds hold for it (units: a
 * malloc'd array the job takes over, also on error; missing: the nodes that could not be
 * asked, "" none). */
int report_add_slurm(struct report *rep, const struct sjob *sj, struct unit_rec *units,
		     size_t nunits, const char *missing);
/* A Slurm job known to tracer only (accounting unreachable): units of one job_id. */
int report_add_traced_job(struct report *rep, const struct unit_rec *units, size_t n);
/* A run traced outside Slurm (tracerctl run): one unit, one row. */
int report_add_local(struct report *rep, const struct unit_rec *u);
/* Compute what the columns show: CPU from tracer (Slurm's accounting for a step tracer has
 * no unit of), peak memory, cores busy, the share of requested memory; a job's from its
 * steps'. Pure. */
void report_resolve(struct job *j);
/* The NUMA nodes the job's allocated cores span on each node (from the units' alloc_cores
 * and the node's topology in rep->nodes): the largest count, in j->row.numa_span. */
void report_numa(struct job *j, const struct report *rep);
/* MaxRSSNode of the job and its steps: the node of the highest peak, by name. */
void report_nodes(struct job *j, const struct report *rep);
/* Did the job not complete, or lose a process to the OOM killer (its failures are worth
 * naming)? */
int report_job_failed(const struct job *j);
/* Free one job's steps, units and details; the report's jobs and nodes. */
void report_job_free(struct job *j);
void report_free(struct report *rep);

/* The units of a job that make step row s (all task units with its step id). Returns the
 * count; idx receives indexes into j->units (at most max). */
size_t report_step_units(const struct job *j, const struct row *s, size_t *idx, size_t max);

#endif
