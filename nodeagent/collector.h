/* The kernel side of tracerd: loads bpf/process.bpf.c, attaches each tracepoint it can, and
 * hands ring-buffer events to a callback. */
#ifndef TRACER_COLLECTOR_H
#define TRACER_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>
#include "process.h"
#include "subuid_ranges.h"

struct collector;

/* One kernel signal (a tracepoint) and whether this kernel gave it to us. */
struct collector_signal {
	const char *name;     /* e.g. "sched:sched_process_exec" */
	const char *provides; /* what is missing without it, for status */
	int available;
	int unneeded;	  /* unavailable because this kernel gives the same without it */
	char reason[160]; /* why not, when unavailable */
};

typedef int (*collector_event_fn)(void *ctx, const void *data, size_t size);

struct collector_opts {
	uint64_t ring_bytes; /* RingBufferSize */
	const char *pin_dir; /* PinDir/NODE, checked (pindir.h); NULL or "": nothing pinned */
	const char
		*btf_path; /* BtfPath: kernel BTF when the kernel offers none; "" = the kernel's */
};

/* Load and attach. Fails (-errno) only when no process tracking is possible at all (no BTF, BPF
 * or the fork/exec/exit programs refused); a missing or refused optional program is recorded as
 * an unavailable signal, with its reason. */
int collector_open(struct collector **out, const struct collector_opts *o, collector_event_fn fn,
		   void *ctx);
void collector_close(struct collector *c);

/* After the running units are found again (tracking seeded into this set's maps): the programs
 * of an old pin set of another layout, left attached meanwhile, are detached, what their ring
 * holds goes to the event callback, commit(ctx) makes it durable, and the old set goes; said in
 * the log. Returns the events recorded (0 when there was no such set). */
int collector_retire(struct collector *c, void (*commit)(void *ctx), void *ctx);

/* Readable once about an eighth of the ring is filled (each CPU asks the ring after putting
 * its share of that in it); below that events wait for the caller's periodic drain
 * (COLLECTOR_DRAIN_MS), so that a busy node is not woken per event. */
#define COLLECTOR_DRAIN_MS 200
int collector_fd(const struct collector *c);
/* Handle pending events for COLLECTOR_DRAIN_BUDGET_MS at most (the clock is read every
 * COLLECTOR_DRAIN_CHECK events), so that the loop comes back to its clients whatever the event
 * rate: what the ring cannot hold meanwhile is refused by the kernel side and counted (see
 * struct ring_share). Returns the count handled or -errno. */
#define COLLECTOR_DRAIN_BUDGET_MS 10
#define COLLECTOR_DRAIN_CHECK 8
int collector_drain(struct collector *c);
int collector_drain_more(const struct collector *c); /* the last drain stopped with events left */

/* start_ticks: the process's start from /proc/PID/stat; -ESRCH when the pid is no longer that
 * process's. Its threads are marked too (see task_mark). */
int collector_track_pid(struct collector *c, uint32_t tgid, uint64_t start_ticks, uint64_t unit);
int collector_untrack_pid(struct collector *c, uint32_t tgid);
/* A running process's waits and network so far (its threads' live counts), or -ENOENT when the
 * process started at start_ns (boot ns) is not tracked (and -ENODEV without a collector, as in
 * tests). */
int collector_proc_waits(const struct collector *c, uint32_t tgid, uint64_t start_ns,
			 struct proc_waits *out);
/* The unit the kernel side tracks a running process under, or 0. */
uint64_t collector_proc_unit(const struct collector *c, uint32_t tgid, uint64_t start_ns);
/* Whether network bytes are counted (this kernel has the sock_*_length tracepoints). */
int collector_has_net(const struct collector *c);
/* Whose share of the ring the events of a subordinate uid are charged to: the n entries e
 * (sorted and disjoint, n <= SUBUID_MAP_MAX; subuid_map.h) replace those the kernel side holds. */
int collector_set_subuids(struct collector *c, const struct subuid_owner *e, size_t n);
int collector_track_cgroup(struct collector *c, uint64_t cgroup_id, uint64_t unit);
int collector_untrack_cgroup(struct collector *c, uint64_t cgroup_id);

/* The pin set (collector_pins.c): where it is, or NULL when the collector runs unpinned (then
 * its programs and maps go with tracerd); whether a previous tracerd's programs went on while
 * it was away (its set taken over, or one of another layout running on until collector_retire). The
 * SPANK plugin's registry is in it. At close the set stays, unless collector_unpin_at_close was
 * called: then it is removed and the programs detached. */
const char *collector_pin_dir(const struct collector *c);
int collector_took_over(const struct collector *c);
void collector_unpin_at_close(struct collector *c);

/* Events handed by collector_drain stay in the ring until released, once what they became is
 * committed to the store: a tracerd killed before that finds them again at its next start. */
void collector_release(struct collector *c);
/* Where the events handed so far end, and their release up to such a mark: the store's rows
 * are committed while the next events are read (store.h) */
uint64_t collector_mark(const struct collector *c);
void collector_release_to(struct collector *c, uint64_t mark);
/* A quarter of the ring or more waits for its release: time to commit. */
int collector_held_much(const struct collector *c);

/* Events of a unit the kernel side could not record (ring buffer or tracked set full). */
uint64_t collector_unit_lost(const struct collector *c, uint64_t unit);
/* Sums over CPUs of the in-kernel counters (enum stat_index). */
int collector_stats(const struct collector *c, uint64_t out[STAT_MAX]);
size_t collector_signals(const struct collector *c, const struct collector_signal **out);

#endif
