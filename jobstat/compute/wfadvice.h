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
	int64_t uid;	    /* whose: one user's jobs never size another's rules */
	char user[64];
	size_t njobs;	 /* finished jobs that gave advice */
	struct advice a; /* their highest needs (advice_merge) */
};

/* One wf_advice per (engine, pipeline, user, step) of the report's finished Slurm jobs whose step
 * name is one the engine could take back (a Snakemake rule's identifier, a Nextflow process
 * name). Returns the count (*out: caller frees) or -ENOMEM. */
long wfadvice_build(const struct report *rep, struct wf_advice **out);

/* The ready-to-paste advice for the steps of group g's engine, pipeline and user, lines
 * separated by '\n':
 *   snakemake --set-threads align=2 --set-resources align:mem_mb=360 align:runtime=10
 *   process {
 *   withName: 'ALIGN' { cpus = 2; memory = '360 MB'; time = '10m' }
 *   }
 * Returns the length of the whole text, as snprintf does (0: nothing to advise); written is
 * what fits in out[len], NUL-terminated: a caller whose buffer was short asks again with a
 * larger one, never pastes a cut line. */
size_t wfadvice_text(const struct wf_advice *w, size_t n, const struct wf_advice *g, char *out,
		     size_t len);
/* Does a (in w) belong to g's engine, pipeline and user? */
int wfadvice_same_group(const struct wf_advice *a, const struct wf_advice *g);

#endif
