/* A unit's idle windows: stretches in which its processes, together, did no work (CPU or I/O
 * wait below a twentieth of a core) for at least StallAfter. Measured over the live sample
 * rounds; a window's start is refined to the exit of the process that did the last work, and
 * a window that lasts to the unit's end ends exactly there. */
#ifndef TRACER_ACTIVITY_H
#define TRACER_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#define IDLE_WINDOWS_MAX 4 /* the longest are kept */

struct idle_window {
	uint64_t start_ns, end_ns; /* CLOCK_BOOTTIME ns */
};

struct activity {
	uint64_t work_ns;	/* CPU + I/O wait of the unit's processes in this round */
	uint64_t round_ns;	/* the last round, 0 before the first */
	uint64_t prev_round_ns; /* the one before */
	uint64_t last_exit_ns;	/* the last exit of a process that worked */
	uint64_t idle_since_ns; /* 0: working */
	struct idle_window w[IDLE_WINDOWS_MAX];
	unsigned n;
	uint64_t idle_ns; /* every window of at least the minimum, not only those kept */
};

/* Work a process did since the unit's last round (a live sample's growth). */
void activity_add(struct activity *a, uint64_t work_ns);
/* A process ended at t, having done work_ns since its last sample. */
void activity_exit(struct activity *a, uint64_t t, uint64_t work_ns);
/* The end of a sample round at now: idle when the round's work was below a twentieth of a
 * core. Windows shorter than min_ns are not kept. */
void activity_round(struct activity *a, uint64_t now_ns, uint64_t min_ns);
/* The unit ended at end_ns (boot ns): an open window closes there. */
void activity_end(struct activity *a, uint64_t end_ns, uint64_t min_ns);
/* "START-END,..." in unix ns (offset: unix = boot + offset), in time order; "" for none. */
void activity_windows_text(const struct activity *a, int64_t offset_ns, char *out, size_t len);

#endif
