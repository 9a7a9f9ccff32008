/* tracer-jobstat: the rows it prints and the figures behind them. */
#ifndef JOBSTAT_H
#define JOBSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "slurm_ids.h"

#define JS_PROG "tracer-jobstat"
#define JS_UNKNOWN FMT_UNKNOWN /* a value that is not known: tracer's clients print it alike */
#define JS_NONE INT64_MIN      /* an integer that is not known */

/* Timelimit in minutes, or one of these */
#define TL_UNLIMITED ((int64_t)-2)
#define TL_PARTITION ((int64_t)-3)

/* What tracer measured for a row: sums and maxima over the units that make it. */
struct figures {
	int nunits;  /* units that contributed; 0 = tracer knows nothing */
	int ntasks;  /* task units among them (not the allocation unit) */
	int nnodes;  /* distinct nodes they came from */
	int running; /* one of them has not ended */
	int64_t nprocs, cpu_ns, user_ns, sys_ns;
	int64_t maxrss_kb; /* largest peak RSS of one process */
	int64_t read_bytes, write_bytes, rchar, wchar, oom_kills, lost;
	int64_t unlisted; /* processes counted but not listed one by one (StoreUnitMaxSize) */
	int64_t first_start_ns, last_end_ns; /* of the processes, JS_NONE unknown */
	int64_t unit_start_ns, unit_end_ns;  /* of the units; end JS_NONE while one runs */
	double peak_cores;	    /* sum over task units of their peak cores busy; < 0 unknown */
	double task_peak_cores;	    /* the largest of one task unit; < 0 unknown */
	int64_t task_peak_rss_kb;   /* largest peak_sampled_rss_kb of one unit, JS_NONE unknown */
	int64_t cgroup_mem_peak_kb; /* step cgroup peak: max per node, summed over nodes */
	int64_t node_mem_peak_kb;   /* the step cgroup peak of the highest node */
	int node_mem_peak_node;	    /* that node (unit_rec.node), -1 unknown */
	int64_t cgroup_cpu_ns;	    /* likewise */
	int64_t down_start_ns, down_end_ns; /* tracerd was away while a unit ran, JS_NONE never */
	/* waits and network, JS_NONE unknown (network: kernels before 6.3) */
	int64_t cpu_wait_ns, iowait_ns, offcpu_ns, net_rx_bytes, net_tx_bytes;
};

enum row_kind {
	ROW_JOB,
	ROW_STEP,
	ROW_LOCAL,
	ROW_TOOL,
	ROW_PROC,
	ROW_TREE,
	ROW_ARRAY,
	ROW_WF,
	ROW_TIMELINE
};

struct array_stats;
struct tl_line;

/* One printed line. Integer fields are JS_NONE when unknown; strings are empty when not
 * applicable (printed blank, as sacct does) and JS_UNKNOWN where unknown. */
struct row {
	enum row_kind kind;
	char jobid[128];
	char jobname[256];
	char user[64];
	char state[64];
	char nodelist[512];
	char partition[64];
	char account[64], qos[64]; /* Slurm's, of job rows */
	char maxrss_node[64];	   /* the node of the highest peak (report_nodes) */
	char pipeline[128], run[128], step[128];
	char wildcards[256], tag[128]; /* of a workflow step (Snakemake, Nextflow) */
	char alloc_cores[128];
	int64_t step_id; /* Slurm step id of a step row, JS_NONE otherwise */
	int64_t nnodes, ntasks;
	int64_t start, end;		/* unix seconds; 0 unknown (end 0: still running) */
	int64_t submit;			/* unix seconds, 0 unknown */
	int64_t reserved;		/* seconds from eligible to start, JS_NONE */
	int64_t elapsed;		/* seconds */
	int64_t wall_ns;		/* resolved: Elapsed to the ns, from its units; JS_NONE */
	int64_t timelimit;		/* minutes, TL_UNLIMITED, TL_PARTITION, or JS_NONE */
	int64_t alloc_cpus, req_mem_mb; /* ReqMem: the whole job's, as sacct shows it */
	int64_t req_mem_node_mb;	/* --mem: per node, JS_NONE unknown */
	int64_t req_mem_per_cpu_mb;	/* --mem-per-cpu when the job asked for it, else JS_NONE */
	int64_t tasks_per_node;		/* the most tasks of one step on one node, JS_NONE */
	int64_t exit_status;		/* a wait status */
	int running;
	int64_t slurm_cpu_us, slurm_user_us, slurm_sys_us; /* Slurm's accounting, JS_NONE */
	struct figures f;				   /* tracer's */
	/* resolved: what the columns show (see report.c) */
	int64_t cpu_ns, user_ns, sys_ns;
	int64_t peak_mem_kb;
	int64_t node_peak_mem_kb; /* peak memory of the highest node (what --mem sizes) */
	int64_t own_peak_kb;	  /* of its processes alone, without page cache; JS_NONE */
	const char *peak_src;	  /* "cgroup", "jobcgroup", "steps", "sampled", "maxrss" */
	double peak_cores;	  /* most cores busy at once, < 0 unknown */
	double cores_per_task;	  /* for --cpus-per-task, < 0 unknown */
	const char *cores_src;	  /* "sampled" or "average" */
	int64_t req_mem_share_mb; /* the part of ReqMem this row may use */
	int numa_span;		  /* NUMA nodes the allocation spans, 0 unknown */
	/* process, tool and tree rows */
	int64_t pid, ppid;
	int64_t task; /* Slurm task of a process (its node in nodelist) */
	int depth;
	char tool[128];
	const char *command; /* borrowed */
	char exit_codes[256];
	const struct array_stats *arr; /* ROW_ARRAY */
	int64_t njobs;		       /* ROW_WF: jobs and runs that make it */
	int wf_level;		       /* ROW_WF: 0 pipeline, 1 run, 2 step, 3 tool */
	const struct tl_line *tl;      /* ROW_TIMELINE: the interval's own figures */
};

void row_init(struct row *r, enum row_kind kind);
void figures_init(struct figures *f);

#endif
