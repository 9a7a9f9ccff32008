/* Advice per workflow step, in the engine's own terms: the highest need over every job of a
 * Snakemake rule or a Nextflow process (the engine's own share of the job included, as the
 * job's cgroup holds it), as `--set-threads`/`--set-resources` or a `withName:` block. Pure. */
#ifndef JOBSTAT_WFADVICE_H
#define JOBSTAT_WFADVICE_H

#include <stddef.h>

#include "effic.h"
#include "report.h"

struct wf_advice {
	char engine[16];    /* "snakemake" or "nextflow" */
	char pipeline[128]; /* the workflow, "" unknown */
	char step[128];	    /* the rule or process */
	size_t njobs;	    /* finished jobs that gave advice */
	struct advice a;    /* their highest needs (advice_merge) */
};

/* One wf_advice per (engine, pipeline, step) of the report's finished Slurm jobs whose step
 * name is one the engine could take back (a Snakemake rule's identifier, a Nextflow process
 * name). Returns the count (*out: caller frees) or -ENOMEM. */
long wfadvice_build(const struct report *rep, struct wf_advice **out);

/* The ready-to-paste advice of one engine's steps of one pipeline, lines separated by '\n':
 *   snakemake --set-threads align=2 --set-resources align:mem_mb=360 align:runtime=10
 *   process { withName: 'ALIGN' { cpus = 2; memory = '360 MB'; time = '10m' } }
 * Returns the length written (0: nothing to advise). */
size_t wfadvice_text(const struct wf_advice *w, size_t n, const char *engine, const char *pipeline,
		     char *out, size_t len);

#endif
