/* struct agent itself: for the agent's own implementation only (agent.c, housekeeping.c,
 * live.c, metrics.c, units.c) and the unit tests that put an agent together by hand. The request
 * layer, the server and main() see struct agent through agent.h's functions: what they may read or
 * change is named there, not found by reaching into the struct. */
#ifndef TRACER_AGENT_INTERNAL_H
#define TRACER_AGENT_INTERNAL_H

#include "agent.h"
#include "collector.h"
#include "finished.h"
#include "proctable.h"
#include "quota.h"
#include "registry.h"
#include "store.h"
#include "topology.h"
#include "tools.h"
#include "unit.h"

struct agent {
	struct tracer_config cfg;
	char node[64];
	char boot_id[40];
	int64_t offset_ns; /* unix time = CLOCK_BOOTTIME + offset */
	uint64_t tick_ns;
	uid_t slurm_uid; /* SlurmUser's uid, (uid_t)-1 when unknown */
	int64_t started_ns;
	struct collector *collector;
	struct store *store;
	struct exporter *exporter;	/* main.c's, NULL when export is off */
	agent_status_fn metrics_status; /* the Prometheus endpoint's state, NULL: not said */
	const void *metrics_status_ctx;
	struct proctable procs;
	struct finished finished; /* the last processes finished: their repeats ignored */
	struct unit *units;	  /* units.c's alone: units with work in memory */
	uint64_t next_unit_id;
	uint64_t events[STAT_MAX]; /* events handled, by STAT_* */
	uint64_t bad_events;	   /* malformed records from the ring buffer */
	uint64_t stored;	   /* processes stored since start */
	struct topology topology;  /* hwloc's view of the node, loaded once */
	struct tool_rules *rules;  /* built-in rules + ToolRules's, in force */
	int have_topology;
	int64_t last_alive_ns; /* the previous run's last heartbeat (unix ns), 0 unknown */
	int64_t housekept_ns;  /* when the store was last pruned */
	int prune_backlog;     /* a commit ran when the prune was due: go on at the next tick */
	uint64_t unstored;     /* processes the store could not write, of units gone */
	unsigned ndropped;     /* units dropped, waiting for units_reap */
	/* traced runs begun, per uid (UnitRatePerUser) */
	struct quota run_quota;
	/* store_written() when the store was last pruned */
	uint64_t pruned_written;
	/* registry.c's: the pinned registry's path, or why there is none; the keys waiting for
	 * their unit, with when each was first seen (monotonic ns) */
	char registry[2 * PATH_MAX];
	int registry_pinned;
	struct {
		uint64_t key, seen_ns;
		uint64_t bytes;	  /* what its rows take in the store */
		uint64_t refused; /* processes past a unit's cap on that */
	} keys[REGISTRY_KEYS_MAX];
	unsigned nkeys;
	uint64_t keys_bytes;		  /* of them all */
	uint64_t last_key, last_key_unit; /* the key registry_unit last linked, and its unit */
	/* keys given up on (REGISTRY_WAIT_MS): their processes still running are not stored */
	uint64_t expired[REGISTRY_EXPIRED_MAX];
	unsigned nexpired;
	/* ring_owners.c's: the subuids generation the kernel side holds (UINT64_MAX: none yet),
	 * its entries and the ranges beyond them */
	uint64_t subuid_gen;
	unsigned subuid_entries, subuid_left_out;
	int stop_requested; /* tracerctl shutdown */
	uint64_t handed;    /* the ring's mark where the batch the store commits ends */
	int unpin_at_stop;  /* tracerctl shutdown --unpin: the pin set goes with tracerd */
};

/* Ring-buffer callback (collector_event_fn). */
int agent_on_event(void *ctx, const void *data, size_t size);
/* What the agent does as the store hands a batch over and commits it (the events that made it
 * leave the ring, the units in it are saved), and as it makes a folded row: set on its store. */
void agent_hook_store(struct agent *a);
/* (Re)load the tool rules: the built-in ones, then those of the ToolRules file at path, which
 * override them. A missing file leaves the built-in rules alone in force (logged); on any
 * other error the rules in force stay and the error is logged with file:line. Returns 0 or
 * -errno. */
int agent_load_rules(struct agent *a, const char *path);
/* Record a process whose exit never came from what its last sample knew, flagged as such. */
void agent_close_lost(struct agent *a, struct proc *p);

#endif
