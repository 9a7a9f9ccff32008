/* Live tracked processes, keyed by (pid, start time) so a reused PID is a new process.
 * A process leaves the table at exit, once stored: memory follows the live count only. */
#ifndef TRACER_PROCTABLE_H
#define TRACER_PROCTABLE_H

#include <stddef.h>
#include <stdint.h>
#include "process.h"
#include "records.h"
#include "stalls.h"
#include "tools.h"

/* PROC_* flags: common/records.h (they are stored and sent) */

struct proc {
	struct proc *next; /* hash chain */
	uint32_t pid, ppid, uid, gid;
	uint64_t start_ns;	  /* CLOCK_BOOTTIME ns */
	uint64_t parent_start_ns; /* its parent's, when tracked in the same unit; else 0 */
	uint64_t unit;
	uint64_t exec_ns;
	uint64_t cgroup_id;
	uint32_t flags;
	char comm[TASK_COMM_LEN];
	char *exe;
	char *argv; /* NUL-separated, redacted */
	uint32_t argv_len;
	uint64_t sample_cpu_ns, sample_rss_kb; /* last live sample */
	uint64_t sample_ns;		       /* its time (boot ns), 0 before the first */
	/* its own I/O (its threads', not its reaped children's) at the last sample, and its
	 * rchar + wchar: each the most read so far (housekeeping.c) */
	uint64_t sample_read_bytes, sample_write_bytes, sample_chars;
	struct proc_waits sample_w; /* the kernel's live counts at the last sample */
	struct stall stall;
	uint64_t child_seen_ns; /* the sample round (boot ns) that last found a live child of it */
	uint32_t gone_rounds;	/* housekeeping rounds that found it gone from /proc */
	struct exec_base base;	/* counters at the first exec, left out of its row's figures */
	uint64_t oom_rss_kb;	/* its size when the OOM killer chose it, 0 if it did not */
	struct exit_event exit; /* as the kernel sent it: process_row.c makes the row's figures */
	struct tool_id tool;	/* named at exit, from exe and argv */
	uint8_t elsewhere; /* ELSEWHERE_*: does its tool's work run elsewhere (housekeeping.c)? */
};

/* Named once per command (its exec, its inherited one) and per rule set, not per sample round. */
enum { ELSEWHERE_UNKNOWN = 0, ELSEWHERE_NO, ELSEWHERE_YES };

struct proctable {
	struct proc **buckets;
	size_t nbuckets, count;
	uint64_t tick_ns; /* /proc's clock tick, to match rediscovered starts */
};

int proctable_init(struct proctable *t, uint64_t tick_ns);
void proctable_free(struct proctable *t);

/* Find the process (pid, start_ns); a rediscovered one matches within its clock tick. */
struct proc *proctable_find(struct proctable *t, uint32_t pid, uint64_t start_ns);
/* Any live process with this pid (the newest start). */
struct proc *proctable_find_pid(struct proctable *t, uint32_t pid);
/* A process that never exec'd runs its parent's program. The process whose command line p runs:
 * p once it exec'd or was given its parent's command (proctable_inherit_command), else its
 * parent (by ppid), else p. */
const struct proc *proctable_command_holder(struct proctable *t, const struct proc *p);
/* Copy parent's command line into p if p never exec'd: its record names it even once the parent
 * is gone. Failure to copy (no memory) leaves it to proctable_command_holder. */
void proctable_inherit_command(struct proc *p, const struct proc *parent);
/* Name the tool that cmd's command line runs by rules, or by comm when they name none. */
void proctable_name_tool(const struct tool_rules *rules, const struct proc *cmd, const char *comm,
			 struct tool_id *out);
/* Find or create; -ENOMEM on failure. *created tells which. */
int proctable_get(struct proctable *t, uint32_t pid, uint64_t start_ns, struct proc **out,
		  int *created);
/* Unlink and free. */
void proctable_remove(struct proctable *t, struct proc *p);

/* Visit every live process; stop early when fn returns non-zero (returned). */
int proctable_foreach(struct proctable *t, int (*fn)(struct proc *p, void *ctx), void *ctx);

#endif
