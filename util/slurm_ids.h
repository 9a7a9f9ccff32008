/* Slurm's special step ids (SLURM_BATCH_SCRIPT and its kin in slurm.h) and the names sacct
 * writes after the dot ("123.batch"). Defined here once for tracerd, the SPANK plugin and
 * tracer-jobstat; slurm.h itself is not included, so that the plugin and the daemon need no
 * Slurm headers beyond spank.h. */
#ifndef TRACER_SLURM_IDS_H
#define TRACER_SLURM_IDS_H

#include <stddef.h>
#include <stdint.h>

#define STEP_INTERACTIVE 0xfffffffau /* salloc's interactive step */
#define STEP_BATCH 0xfffffffbu	     /* the batch script */
#define STEP_EXTERN 0xfffffffcu	     /* processes adopted into the job (pam_slurm_adopt, ssh) */
#define STEP_PENDING 0xfffffffdu     /* a step not started yet */
/* Not a step: a job's allocation as the prolog registers it, or a run outside Slurm. */
#define STEP_NONE 0xffffffffu

/* A step's name as sacct writes it after the job id: batch, extern, interactive, pending, or
 * the number written into buf. Returns the name (a constant or buf). */
const char *slurm_step_name(uint32_t step, char *buf, size_t len);
/* The reverse for the steps that run processes (batch, extern, interactive): 0 and *step, or
 * -EINVAL for any other word (*step untouched). */
int slurm_step_by_name(const char *name, uint32_t *step);
/* A Slurm job selector as sacct -j reads it: JOB, JOB_TASK, JOB_[A-B,C...] (a "%N" throttle
 * after a range, as sbatch --array takes it, is no selection), each optionally .STEP (batch,
 * extern, interactive or a number). Numbers are decimal, at most 0xfffffff0; JOB is not 0;
 * A <= B. */
struct slurm_id {
	uint32_t job, step;
	int has_tasks, has_step;
};
/* Parse s into *id (may be NULL), calling task(ctx, lo, hi) for each task range when task is
 * not NULL: a negative return from it ends the parse with that value. 0, or -EINVAL when s is
 * not a selector. */
int slurm_id_parse(const char *s, struct slurm_id *id,
		   int (*task)(void *ctx, uint32_t lo, uint32_t hi), void *ctx);
/* A step after the dot: its id (batch, extern, interactive, or a number), or -1. */
int64_t slurm_step_parse(const char *s);
/* Does s read as an id rather than a name: a Slurm job selector (above: "4242", "4242_3",
 * "4242.batch") or a traced run ("r17": r and digits)? Such a selector matches ids only, and
 * a traced run may not be named so; anything else ("1000genomes", "16S-rRNA") is a name. */
int slurm_id_shaped(const char *s);
/* Why a traced run may not be named so: tracerd's refusal, and tracerctl's before it asks. */
#define SLURM_ID_SHAPED_WHY                                                                      \
	"a run's name may not read as an id (a Slurm job id such as 42, 42_3 or 42.batch, or r " \
	"and a number): tracer-jobstat -j would take it for one"

#endif
