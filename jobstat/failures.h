/* What failed in a job: the processes the OOM killer stopped, and the first process that
 * exited non-zero or on a signal, with its tool, step and command. */
#ifndef JOBSTAT_FAILURES_H
#define JOBSTAT_FAILURES_H

#include <stddef.h>
#include <stdint.h>

#include "jobstat.h"

#define PROC_FLAG_OOM 0x8 /* tracerd's PROC_OOM_KILLED */

struct failed_proc {
	int64_t pid, ppid, status, start_ns, end_ns;
	char tool[64];
	char step[64]; /* the step row's JobID: "123.batch" */
	char cmd[160];
};

struct failures {
	int checked;		/* the job's processes were read */
	struct failed_proc oom; /* the first OOM victim, when noom */
	size_t noom;
	struct failed_proc first; /* the first to exit non-zero or on a signal (OOM victims
				   * included), when nfailed */
	size_t nfailed;
};

struct proc_rec;

/* Add the processes of one step (row jobid step) to f: OOM victims and failures, the first
 * by end time. Pure. */
void failures_add(struct failures *f, const char *step, const struct proc_rec *p, size_t n);
struct job;
/* The failures of a job that did not complete, or lost a process to the OOM killer, from
 * the processes of its steps that collect fetched, into j->fail (cleared otherwise). */
void failures_of_job(struct job *j);
/* "exited with 2", "killed by signal 9 (KILL)" for a wait status. */
void failures_status_text(char *out, size_t len, int64_t status);

#endif
