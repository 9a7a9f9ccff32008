/* A tracked unit: a Slurm job step task, a job allocation, or a command run by `tracerctl run`.
 * Every tracked process belongs to exactly one. */
#ifndef TRACER_UNIT_H
#define TRACER_UNIT_H

#include <stdint.h>

#include "activity.h"
#include "process_row.h"
#include "slurm_ids.h"
#include "stalls.h"
#include "traceparent.h"

#define UNIT_NAME_MAX 128
/* struct unit's kind: a Slurm job step task or allocation, or a `tracerctl run` */
#define UNIT_KIND_SLURM "slurm"
#define UNIT_KIND_LOCAL "local"

enum unit_state { UNIT_RUNNING, UNIT_COMPLETED, UNIT_FAILED, UNIT_CANCELLED, UNIT_LOST };
#define UNIT_STATES (UNIT_LOST + 1) /* how many there are */

struct unit {
	struct unit *next;
	uint64_t id;
	char name[UNIT_NAME_MAX];
	char kind[8]; /* UNIT_KIND_LOCAL or UNIT_KIND_SLURM */
	uint32_t uid, gid;
	uint32_t root_pid;	/* the process registered first */
	uint64_t root_start_ns; /* its start, CLOCK_BOOTTIME ns */
	uint64_t cgroup_id;
	char cgroup_path[256];
	/* Slurm context, zero/empty outside Slurm */
	char cluster[64];
	uint64_t job_id;
	uint64_t array_job_id; /* job arrays: the array's id and this task's index, else 0/-1 */
	int64_t array_task_id;
	uint32_t step_id;
	int32_t task_id;
	char job_name[UNIT_NAME_MAX];
	/* the job's account, partition and nodes as Slurm names them (a node list "n[1-4]"),
	 * cleaned and cut to fit (proto_copy_text) */
	char account[64], partition[64], nodelist[256];
	uint32_t alloc_cpus;
	char alloc_cores[64]; /* the step's cores as Slurm lists them, "0-3,8" */
	uint64_t alloc_mem_mb;
	/* workflow context, when known */
	char pipeline[UNIT_NAME_MAX], run[UNIT_NAME_MAX], step_name[UNIT_NAME_MAX];
	char traceparent[TRACEPARENT_LEN + 1]; /* W3C trace context of the job, when known */
	char engine[16];	  /* workflow engine recognised: snakemake, nextflow, custom */
	char wf_job[64];	  /* the engine's own job id (Snakemake) */
	char wildcards[256];	  /* Snakemake wildcards "sample=A,unit=1" */
	char tag[128];		  /* Nextflow task tag */
	char task_hash[64];	  /* Nextflow task hash "3f/0a4e…" */
	int64_t start_ns, end_ns; /* unix ns; end 0 while running */
	enum unit_state state;
	int32_t exit_status;	/* wait status, -1 unknown */
	uint64_t lost_events;	/* its events the kernel side could not record */
	uint64_t cgroup_cpu_ns; /* the step cgroup's own counters at the unit's end, 0 unknown */
	uint64_t cgroup_mem_peak_kb;
	uint64_t job_mem_peak_kb; /* the job cgroup's on this node (all its steps), 0 unknown */
	int64_t down_start_ns, down_end_ns; /* unix ns: tracerd was away while it ran, 0 never */
	uint64_t idle_ns;	  /* time in idle windows (activity.h), known at its end */
	char idle_windows[256];	  /* the longest of them, "START-END,..." unix ns */
	uint64_t mem_pressure_us; /* time some of its tasks stalled on memory (PSI "some") */
	uint64_t stalls;	  /* its processes that stalled (stalls.h) */
	uint64_t stall_pid;	  /* the longest stall: whose, when, how long, in what */
	char stall_tool[64];
	int64_t stall_start_ns; /* unix ns */
	uint64_t stall_ns;
	char stall_reason[STALL_REASON_MAX];
	char mem_pressure_scope[8]; /* "step": its cgroup's own; "node": the node's, v1 or none */
	/* from the live samples, kept as they come (a listing never reads all its samples):
	 * the most cores busy at once (thousandths; -1 until a process was sampled twice) and
	 * the most RSS at once, over the rounds */
	int64_t sample_peak_mcores;
	int64_t sample_peak_rss_kb;
	int64_t sample_rounds;
	/* what its rows take in the store, roughly (units.c), and its processes past the cap on
	 * that (StoreUnitMaxSize), counted in per-tool rows instead of their own */
	uint64_t stored_bytes;
	uint64_t procs_folded;
	/* whose share of the store and per-user limits it counts in: uid, or for a traced run
	 * of a user namespace the owner of its subordinate uid (subuid.h) */
	uint32_t owner_uid;
	int64_t seq; /* the store's; a unit in memory leaves it 0 (store.h) */
	/* in memory only */
	uint64_t kernel_key;   /* its task's key, when registered in the kernel (registry.h) */
	uint64_t unstored;     /* its processes the store could not write (disk full) */
	int dirty;	       /* its record waits for the store to take it again */
	int unsaved;	       /* its record is in the store's open batch (1), or in the batch being
				* committed (2): not committed yet */
	int dropped;	       /* done with: freed by the loop (units_reap) */
	uint32_t live;	       /* live processes in the table */
	int64_t idle_since_ns; /* unix ns: since when it has had no live process */
	uint64_t finished;     /* processes stored since the daemon started */
	unsigned fold_groups;  /* per-tool rows of processes past the cap, since the start */
	unsigned stall_starts; /* its stalls' starts stored for the export, since the start */
	struct activity activity;
	double round_busy;	/* this sample round's cores busy, summed over its processes */
	int64_t round_rss_kb;	/* and their RSS */
	unsigned round_samples; /* its processes sampled this round */
	unsigned round_pairs;	/* of them, those sampled in an earlier round too */
	unsigned
		round_io_threads; /* threads its processes' I/O was read from, beyond their first */
	uint64_t mem_pressure_at_start_us;
	/* the totals of its processes stored while it was in memory (this daemon's life): with
	 * its live ones, what the Prometheus endpoint says of it without reading the store */
	struct row_sums done;
	/* done holds all the store holds of it: made in this daemon's life, no row adopted from
	 * before its registration, none lost on the way (unstored) */
	int done_whole;
	struct row_sums metrics_seen; /* its counters as the endpoint last said them */
};

/* The state's name, as stored and sent ("RUNNING"); SQL binds these, never spells them */
const char *unit_state_name(enum unit_state s);
int unit_state_parse(const char *s, enum unit_state *out);
enum unit_state unit_state_of_status(int status);
struct json_object;
struct json_object *unit_to_json(const struct unit *u);

#endif
