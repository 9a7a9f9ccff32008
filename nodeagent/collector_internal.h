/* What the two halves of the collector share: collector.c loads, attaches and drains it,
 * collector_track.c tells the kernel side which processes and cgroups are tracked. */
#ifndef TRACER_COLLECTOR_INTERNAL_H
#define TRACER_COLLECTOR_INTERNAL_H

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

struct collector {
	struct process_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[SIG_COUNT];
	struct collector_signal signals[SIG_COUNT];
	collector_event_fn fn;
	void *ctx;
	int ncpus;
	uint64_t drain_end_ns; /* CLOCK_MONOTONIC: the drain under way stops here */
	unsigned drained;      /* events the drain under way handled */
	int stopped;	       /* it stopped there, with events left */
};

#endif
