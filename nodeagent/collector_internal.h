/* What the two halves of the collector share: collector.c loads, attaches and drains it,
 * collector_track.c tells the kernel side which processes and cgroups are tracked. */
#ifndef TRACER_COLLECTOR_INTERNAL_H
#define TRACER_COLLECTOR_INTERNAL_H

#include <limits.h>
#include <stdint.h>

#include "collector.h"
#include "process.skel.h"

enum {
	SIG_FORK,
	SIG_EXEC,
	SIG_EXIT,
	SIG_SWITCH,
	SIG_OOM,
	SIG_SIGNAL,
	SIG_EXIT_GROUP,
	SIG_SEND,
	SIG_RECV,
	SIG_COUNT
};

#define PINNED_MAPS 11 /* collector_pins.c's pinned_maps */

struct collector {
	struct process_bpf *skel;
	struct ring_reader *ring;
	struct bpf_link *links[SIG_COUNT];
	struct collector_signal signals[SIG_COUNT];
	collector_event_fn fn;
	void *ctx;
	int ncpus;
	uint64_t drain_end_ns; /* CLOCK_MONOTONIC: the drain under way stops here */
	unsigned drained;      /* events the drain under way handled */
	int stopped;	       /* it stopped there, with events left */
	uint64_t ring_bytes;   /* RingBufferSize */
	/* collector_pins.c's: PinDir/NODE ("" unpinned), whether the set found there was taken
	 * over, and its maps' fds until the load */
	char pin_dir[PATH_MAX];
	int took_over;
	int pinned;   /* the set is whole: pins_commit done */
	int unpin;    /* at close: the set removed, the programs detached */
	int retiring; /* an old set of another layout runs on beside, until collector_retire */
	int reuse_fds[PINNED_MAPS];
	/* collector_track.c's: the subuid_ranges entries known written (the first subuids_known;
	 * none at first, as the map's contents are unknown when taken over), so that a change
	 * rewrites only the entries that changed */
	struct subuid_owner *subuids;
	size_t subuids_known;
};

/* Before the load: an existing pin set is taken over (its maps' fds kept for pins_reuse) or,
 * when another build's, its ring drained into fn and the set cleared; said in the log. */
int pins_before_load(struct collector *c);
/* After each open of the object: the maps taken over replace the object's own. */
int pins_reuse(struct collector *c);
void pins_reuse_done(struct collector *c);
/* Attach prog, or keep the pinned link that runs the same program; pinned. */
int pins_attach(struct collector *c, struct bpf_program *prog, struct bpf_link **out);
/* prog's link is about to be destroyed: its pin goes first. */
void pins_detach(struct collector *c, struct bpf_program *prog);
/* Once all is attached: the maps pinned (a new set) and the layout written. On failure, the set
 * is cleared and the collector runs unpinned. */
int pins_commit(struct collector *c);
/* At close: the set kept (marked as left by a stopped tracerd) or removed (unpin). */
void pins_stop(struct collector *c, int unpin);

#endif
