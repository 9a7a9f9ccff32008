/* The processes tracerd finished last, by (pid, start time): an event of one of them that comes
 * again is a repeat and is ignored. The kernel side sends an event twice while two programs are
 * attached to its tracepoint at once: in the instant an upgrade attaches a program of another
 * build beside the pinned one (a tracepoint's link has no program update), and while the
 * programs of an old pin set of another layout run on beside the new ones, until the running
 * units are found again (collector_retire). Without this, an exit that came twice would be a
 * second process of its unit, with no command. Two generations of FINISHED_GEN keys each: the
 * last FINISHED_GEN to 2 * FINISHED_GEN processes are remembered, in a fixed 512 KiB. Most
 * events are of processes in the table, and a new one's fork is later than every key's start:
 * neither looks the keys up, which are seldom in the cache. */
#ifndef TRACER_FINISHED_H
#define TRACER_FINISHED_H

#include <stdint.h>

#define FINISHED_GEN 8192

struct finished {
	struct finished_key {
		uint64_t start_ns; /* 0: a free slot */
		uint32_t pid;
	} * gen[2];	  /* 2 * FINISHED_GEN slots each (open addressing, at most half full) */
	unsigned n[2];	  /* keys in each */
	unsigned cur;	  /* the generation keys go into */
	uint64_t newest;  /* no key started later: a process forked since is none of them */
	uint64_t repeats; /* events ignored as repeats */
};

int finished_init(struct finished *f);
void finished_free(struct finished *f);
void finished_add(struct finished *f, uint32_t pid, uint64_t start_ns);
/* The slot finished_add will take for the key, fetched into the cache meanwhile: a process's
 * exit is handled first, then its key is added. */
void finished_prefetch(const struct finished *f, uint32_t pid, uint64_t start_ns);
int finished_has(const struct finished *f, uint32_t pid, uint64_t start_ns);

#endif
