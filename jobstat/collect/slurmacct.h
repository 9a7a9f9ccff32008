/* Jobs and steps from Slurm's accounting (libslurmdb, the source sacct reads), so that
 * State, Elapsed, Timelimit, AllocCPUS, ReqMem, NodeList, JobName, User, Start and End are
 * sacct's own. The only file that needs libslurm. */
#ifndef JOBSTAT_SLURMACCT_H
#define JOBSTAT_SLURMACCT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "jobids.h"

#define SJ_NO_TASK 0xfffffffeu /* not an array task */

struct sstep {
	uint32_t step_id;
	char name[128];
	char nodes[512];
	uint32_t nnodes, ntasks, state, requid;
	int64_t start, end, elapsed; /* unix seconds, seconds */
	int64_t exitcode;	     /* wait status */
	int64_t alloc_cpus;	     /* JS_NONE when unknown */
	int64_t tot_cpu_us, user_cpu_us, sys_cpu_us;
};

struct sjob {
	uint32_t job_id, array_job_id, array_task_id, uid, state, requid;
	uint32_t het_job_id, het_job_offset;
	char array_task_str[64];
	char name[256], user[64], nodes[512], partition[64];
	char account[64], qos[64];
	uint32_t nnodes, qos_id;
	int64_t submit, eligible, start, end, elapsed;
	int64_t timelimit;		/* minutes, TL_UNLIMITED, TL_PARTITION */
	int64_t alloc_cpus, req_mem_mb; /* JS_NONE when unknown; req_mem_mb: the whole job's */
	int64_t req_mem_node_mb;	/* --mem, or what --mem-per-cpu gave a node; JS_NONE */
	int64_t req_mem_per_cpu_mb;	/* --mem-per-cpu, JS_NONE when the job asked --mem */
	int64_t exitcode;
	int64_t tot_cpu_us, user_cpu_us, sys_cpu_us;
	struct sstep *steps;
	size_t nsteps;
	int step_only; /* "-j J.S": only these steps' rows */
};

struct sacct_query {
	const struct jobsel *sel; /* numeric selectors only */
	size_t nsel;
	const uid_t *uids; /* -u; none: all users */
	size_t nuids;
	time_t start, end; /* window, 0: none */
};

/* Is a Slurm configuration there to read (SLURM_CONF, /etc/slurm/slurm.conf or configless
 * slurmd's cache)? libslurm exits the process when it finds none, so ask first. */
int sacct_available(void);
/* Query Slurm's accounting. Returns 0 and the jobs (selectors' array tasks and steps already
 * filtered), or -errno with a message in err. */
int sacct_jobs(const struct sacct_query *q, struct sjob **out, size_t *n, char *err, size_t errlen);
void sacct_free(struct sjob *jobs, size_t n);
/* libslurm's process-wide state, released at exit. */
void sacct_fini(void);
/* A node's address as slurmctld knows it (NodeAddr, which is NodeName unless set): 0, or
 * -ENOENT when Slurm cannot be asked or does not know the node. */
int sacct_node_addr(const char *node, char *addr, size_t len);

#endif
