/* What failed in a job: the processes the OOM killer stopped, and the first process that
 * exited non-zero or on a signal, with its tool, step and command. */
#ifndef JOBSTAT_FAILURES_H
#define JOBSTAT_FAILURES_H

#include <stddef.h>
#include <stdint.h>

#include "jobstat.h"

#define PROC_FLAG_OOM 0x8 /* tracerd's PROC_OOM_KILLED */

struct failed_proc {
	int64_t pid, ppid, status, start_ns, end_ns, maxrss_kb;
	int engine; /* the workflow engine itself (procs_engine): named after its tools */
	int oom;    /* the OOM killer stopped it */
	char tool[64];
	char node[64];
	char step[64]; /* the step row's JobID: "123.batch" */
	char cmd[160];
};

/* OOM victims named by name; more are counted */
#define FAIL_OOM_NAMED 4

struct failures {
	int checked; /* the job's processes were read */
	/* the OOM victims, tools before the engine, each first by end: oom[0..min(noom,
	 * FAIL_OOM_NAMED)) */
	struct failed_proc oom[FAIL_OOM_NAMED];
	size_t noom;
	int64_t oom_from_ns, oom_to_ns; /* the first and the last kill (known ends), 0 none */
	struct failed_proc first;	/* the first to exit non-zero or on a signal, a tool before
					 * the engine that failed with it, when nfailed */
	size_t nfailed;
	struct failed_proc grew; /* the largest tool (not the engine) by its own peak of those
				  * alive on the first victim's node while the OOM killer struck:
				  * what grew before it, when ngrew */
	int ngrew;
};

struct proc_rec;

/* After failures_add has seen every step: the tool that grew, from the processes of one
 * step. Pure. */
void failures_add_grown(struct failures *f, const char *step, const struct proc_rec *p, size_t n);
/* Add the processes of one step (row jobid step) to f: OOM victims and failures, the first
 * by end time. Pure. */
void failures_add(struct failures *f, const char *step, const struct proc_rec *p, size_t n);
struct job;
/* The failures of a job that did not complete, or lost a process to the OOM killer, from
 * the processes of its steps that collect fetched, into j->fail (cleared otherwise). */
void failures_of_job(struct job *j);
/* "exited with 2", "killed by signal 9 (KILL)" for a wait status. */
void failures_status_text(char *out, size_t len, int64_t status);

struct json_object;
/* The failures as --json fields: the OOM victims named (and their count), the first to fail
 * (and the count), and the largest tool of a job with an OOM kill; each with pid, tool, step,
 * command, exit_code or signal, maxrss_kb, engine. */
struct json_object *failures_json(const struct failures *f);

#endif
