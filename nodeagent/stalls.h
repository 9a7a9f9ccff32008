/* Stalls: a tracked process that makes no progress (no CPU, no I/O, no network) for StallAfter
 * is flagged while it runs, and its longest stall is kept with what it was blocked in. Checked
 * on the live sample rounds. */
#ifndef TRACER_STALLS_H
#define TRACER_STALLS_H

#include <stdint.h>
#include <sys/types.h>

#define STALL_REASON_MAX 48

struct stall {
	uint64_t progress;	/* CPU ticks + I/O chars + network bytes at the last change */
	uint64_t since_ns;	/* boot ns: when that change was seen (or the first sample) */
	uint64_t open_start_ns; /* boot ns: start of the stall under way, 0 = none */
	char open_reason[STALL_REASON_MAX];
	uint64_t start_ns, ns; /* the longest stall that ended (boot ns), ns = 0: none */
	char reason[STALL_REASON_MAX];
};

/* One sample of a live process: progress is any counter that grows with its work. Returns 1
 * when a stall begins with this sample (for the log), else 0. */
int stall_sample(struct stall *s, pid_t pid, uint64_t progress, uint64_t now_ns, uint64_t after_ns);
/* The process ended (or was seen progressing) at end_ns: the open stall, if any, is closed. */
void stall_close(struct stall *s, uint64_t end_ns);
/* The process has live children at now_ns: their work is its progress (a shell running a
 * tool), so it is not stalled, and a stall under way ends. */
void stall_parent(struct stall *s, uint64_t now_ns);
/* What a sleeping process waits in, in words, from its threads' states and its wchan; NULL when
 * it waits for its children (their work is its progress, never a stall of its own). */
const char *stall_reason(pid_t pid, char *buf, size_t len);
/* The same words for a kernel wait channel (exposed for tests). */
const char *stall_words(char state, const char *wchan, char *buf, size_t len);

#endif
