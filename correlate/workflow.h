/* Workflow identity: which pipeline, run and step a Slurm job (or a process in it) belongs to,
 * from what the workflow engine already passes to Slurm -- job name, comment, batch script,
 * the command lines and working directories of its processes -- with no change to the
 * workflow. Snakemake (snakemake.c) and Nextflow (nextflow.c) are recognised; explicit values
 * (SPANK options, TRACER_PIPELINE_NAME / TRACER_RUN_NAME / TRACER_STEP_NAME, tracerctl run
 * --pipeline/--run/--step) always win. Pure library: it reads only its arguments. */
#ifndef TRACER_CORRELATE_WORKFLOW_H
#define TRACER_CORRELATE_WORKFLOW_H

#include <stddef.h>

#define WORKFLOW_SCRIPT_MAX (64 * 1024) /* bytes of a batch script looked at */

struct workflow_input {
	const char *job_name;	 /* Slurm job name (NUL-terminated), or NULL */
	const char *job_comment; /* Slurm --comment, or NULL */
	const char *script;	 /* the batch script (or its first bytes); need not end in NUL */
	size_t script_len;
	const char *argv; /* NUL-separated argv of a process of the job, or NULL */
	size_t argv_len;
	const char *cwd;      /* that process's (or the job's) working directory, or NULL */
	const char *pipeline; /* explicit values: win over anything detected; NULL or "" */
	const char *run;
	const char *step;
};

struct workflow_id {
	char engine[16];     /* "snakemake", "nextflow", "custom" (explicit only), "" unknown */
	char pipeline[128];  /* Snakemake: the Snakefile's directory; Nextflow: launch dir */
	char run[128];	     /* one invocation of the engine */
	char step[128];	     /* Snakemake rule; Nextflow process (fully qualified) */
	char job[64];	     /* Snakemake job id */
	char wildcards[256]; /* Snakemake wildcards "sample=A,unit=1" */
	char tag[128];	     /* Nextflow task tag ("sampleA"), or its index when untagged */
	char task_hash[64];  /* Nextflow task hash as in its work dir: "3f/0a4e8b9c..." */
};

/* Fill out from in. Every field is cut to fit and has control characters replaced; fields
 * with nothing known are "". Returns 0 (also when nothing was recognised: engine is then ""),
 * or -EINVAL when in or out is NULL (out untouched). */
int workflow_identify(const struct workflow_input *in, struct workflow_id *out);

#endif
