/* Events that bpf/process.bpf.c sends to tracerd over the ring buffer. Shared by the BPF
 * program and user space, so only fixed-width types. */
#ifndef TRACER_BPF_PROCESS_H
#define TRACER_BPF_PROCESS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define TASK_COMM_LEN 16
#define EXEC_PATH_MAX 256
#define EXEC_ARGV_MAX 4096 /* power of two: the BPF side masks lengths with it */
#define EXIT_THREADS_MAX 64

enum event_type {
	EVENT_FORK = 1,
	EVENT_EXEC = 2,
	EVENT_EXIT = 3,
	EVENT_OOM = 4,
};

/* Counters in the per-CPU `stats` map. */
enum stat_index {
	STAT_LOST = 0, /* ring buffer reserve/output failures: an event was dropped */
	STAT_FORK,
	STAT_EXEC,
	STAT_EXIT,
	STAT_OOM,
	STAT_REFUSED, /* of STAT_LOST: refused to a user who held too much of the ring (shares) */
	STAT_MAX,
};

/* What each user's events hold of the ring, so that the ring's last free space is refused to
 * those who fill it and left to the others (bpf/ring.bpf.h, ring_claim). A slot per uid
 * (open addressing; a slot none of whose bytes are left in the ring may pass to another uid);
 * the kernel side adds an event's bytes before it puts it in the ring, tracerd takes them off
 * as it reads it (event_header.share names the slot), through the section's memory map. */
#define SHARE_BITS 10
#define SHARE_SLOTS (1u << SHARE_BITS)
#define SHARE_PROBES 4
struct ring_share {
	__u32 owner; /* uid + 1; 0: never used */
	__u32 pad;
	__s64 bytes; /* in the ring now, as ring_charge counts them */
};

/* What an event of size bytes takes of the ring: its 8-byte header, rounded up to 8. */
static inline __u64 ring_charge(__u64 size)
{
	return (size + 8 + 7) & ~7ULL;
}

/* Where a process's time went besides its CPU, and what it sent and received over IP sockets.
 * Counted in the kernel while it runs: tracerd reads the tracked entry for live figures; the
 * exit event carries the totals. */
struct proc_waits {
	__u64 cpu_wait_ns; /* runnable but not running: the scheduler's run_delay (schedstat) */
	__u64 iowait_ns; /* asleep in I/O wait (in_iowait): block I/O, as delay accounting counts */
	__u64 offcpu_ns; /* other sleeps: pipes, locks, sockets, timers; not waits for children */
	__u64 net_rx_bytes, net_tx_bytes; /* IP sockets (TCP, UDP, ...), loopback included */
	__u64 net_rx_calls, net_tx_calls; /* calls that moved data */
};

/* A tracked process's state, kept in its group leader's storage (see proc_state): it lives and
 * dies with that task, so a later process that reuses the pid never inherits the unit. */
struct tracked_proc {
	__u64 unit;
	__u64 start_ns; /* group leader's start, CLOCK_BOOTTIME ns (to the tick if from /proc) */
	__u64 base_rss; /* pages: the kernel's maxrss at the first exec, the pre-exec image's */
	__u64 own_rss;	/* pages: highest RSS read from the process's images after its first exec */
	__u32 flags;	/* TRACKED_* */
	__u32 ppid;	/* its fork, until reported (TRACKED_FORK_UNSENT): the parent */
	__u64 parent_start_ns;
	struct proc_waits w; /* live: threads add to it as they go; cpu_wait_ns since marked */
};

#define SLEEP_NONE 0
#define SLEEP_IO 1
#define SLEEP_OTHER 2
#define SLEEP_CHILD 3 /* in wait4/waitid: the children's time is theirs, not this one's off-CPU */

#define TRACKED_EXECED 0x2 /* base_rss is set: the process ran its own program */
#define TRACKED_PROC 0x4   /* a tracked process's, not only a pending exit's */
/* A new process's fork is reported by its exec event when the exec comes first (the usual
 * case: one event, not two); else alone, at its first switch-out, its first fork or its exit. */
#define TRACKED_FORK_UNSENT 0x8
#define TRACKED_HANDED_OVER 0x10  /* its leader ended first: the state is in exec_handover too */
#define START_TICK_NS 10000000ULL /* one USER_HZ tick, /proc/PID/stat's unit of start time */

/* Registration in the kernel. The SPANK plugin, root in slurmstepd, puts each task it has forked
 * and not yet released to exec in the pinned task-storage map task_registry, through a pidfd;
 * at the task's exec the kernel side tracks it, and its descendants after it, under unit_key().
 * tracerd links that key to the unit of the plugin's request whenever the request reaches it: a
 * hung, slow or absent tracerd costs the job nothing, and no process of the task is missed. */
struct task_registration {
	__u64 start_ticks; /* the task's start, as /proc/PID/stat gives it: with its pid, its key */
};

/* Unit ids with this bit are keys of registered tasks, not yet linked to a unit by tracerd.
 * pid_max is at most 2^22, and 41 bits of ticks are 700 years of uptime. */
#define UNIT_KEY_BIT (1ULL << 63)
#define UNIT_KEY_PID_MASK ((1U << 22) - 1)
static inline __u64 unit_key(__u32 tgid, __u64 start_ticks)
{
	return UNIT_KEY_BIT | (start_ticks & ((1ULL << 41) - 1)) << 22 | (tgid & UNIT_KEY_PID_MASK);
}
static inline __u64 unit_key_start_ticks(__u64 key)
{
	return (key & ~UNIT_KEY_BIT) >> 22;
}

struct event_header {
	__u16 type;
	__u16 share;	/* the ring_share slot charged for it, plus one; 0: none */
	__u32 pid;	/* thread group id */
	__u64 start_ns; /* group leader's start, CLOCK_BOOTTIME ns: with pid, the identity */
	__u64 unit;	/* tracked unit the process belongs to */
	__u64 time_ns;	/* when the event happened, CLOCK_BOOTTIME ns */
};

struct fork_event {
	struct event_header h;
	__u32 ppid;
	__u32 uid;
	__u64 parent_start_ns;
};

#define EXEC_ARGV_TRUNCATED 0x1
#define EXEC_PATH_TRUNCATED 0x2

/* A process's counters at its first exec: what the forked copy of its parent did before the
 * program started. The exit's totals are from fork on; tracerd subtracts these, so that a
 * program's CPU and faults are its own (its user/system split stays in proportion). All zero
 * at a later exec. */
struct exec_base {
	__u64 runtime_ns, minflt, majflt;
};

struct exec_event {
	struct event_header h;
	__u32 ppid;
	__u32 uid;
	__u32 gid;
	__u32 flags;
	__u64 cgroup_id; /* cgroup v2 id of the process, 0 when unknown */
	struct exec_base base;
	char comm[TASK_COMM_LEN];
	char path[EXEC_PATH_MAX]; /* the file execve() was given, NUL-terminated */
	__u32 argv_len;		  /* bytes used in argv: NUL-separated arguments */
	__u32 pad;
	char argv[EXEC_ARGV_MAX]; /* only argv_len bytes are sent */
};

#define EXIT_THREADS_TRUNCATED 0x1 /* more live threads than EXIT_THREADS_MAX at the end */
#define EXIT_PEAK_UNREAD 0x2	   /* the program's own peak could not be read: peak_rss_kb is 0 */
#define EXIT_NO_WAITS 0x4 /* sleeps were not followed (no sched_switch): iowait/offcpu unknown */
#define EXIT_NO_NET 0x8	  /* this kernel has no sock_*_length tracepoints: net unknown */

struct exit_event {
	struct event_header h;
	__u32 ppid;
	__s32 status;	/* wait(2) status word: exit code << 8 | terminating signal */
	__u64 utime_ns; /* tick-sampled user CPU, all threads: only the user/system split */
	__u64 stime_ns;
	__u64 runtime_ns;   /* scheduler runtime of all threads: the exact CPU total */
	__u64 peak_rss_kb;  /* the program's own peak RSS: its images after the first exec */
	__u64 ru_maxrss_kb; /* getrusage's ru_maxrss: includes the pre-exec copy of the parent */
	__u64 rchar, wchar, syscr, syscw;
	__u64 read_bytes, write_bytes, cancelled_write_bytes;
	__u64 minflt, majflt, nvcsw, nivcsw;
	struct proc_waits w; /* cpu_wait_ns: run_delay of every thread the process had */
	__u32 threads;	     /* threads still counted at the end (the last, zombies, exiting) */
	__u32 flags;
	char comm[TASK_COMM_LEN];
};

struct oom_event {
	struct event_header h;
	__u32 victim_tid;
	__u32 pad;
	__u64 total_vm_kb;
	__u64 anon_rss_kb;
	__u64 file_rss_kb;
	__u64 shmem_rss_kb;
};

/* I/O of a tracked process's threads that already exited. signal_struct's own ioac cannot
 * serve: wait(2) folds every reaped child's I/O into it, and a tool must not be charged for
 * its children. */
struct io_totals {
	__u64 rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled;
	__u64 run_delay; /* not I/O, but kept for the same reason: signal_struct has no sum */
};

/* An exit waiting for its thread's last switch-out: the scheduler only folds the final slice
 * of CPU time into sum_exec_runtime then, and a short process may have no other update. */
struct pending_exit {
	struct exit_event e;
	__u64 runtime, utime, stime, nvcsw, nivcsw; /* this thread's share already counted */
};

/* A mark on every thread of a tracked process, in the thread's own storage (task-local storage,
 * keyed by the task; tracerd reaches it through a pidfd): the group leader's inside its
 * proc_state, every other thread's alone (task_marks). A context switch, exec, exit or socket
 * call of a task with no BPF storage at all is settled with one load. Set at fork (children and
 * threads of tracked processes), at exec, and by tracerd when it registers a process: a
 * tracked process some of whose threads are unmarked is the exception (unmarked_tracked).
 * Small, as every thread of every tracked job has one. */
struct task_mark {
	__u32 tgid;
	__u32 sleep;	    /* SLEEP_*: what the thread went to sleep in at its last switch-out */
	__u64 out_ns;	    /* when it went to sleep */
	__u64 runtime;	    /* its sum_exec_runtime then */
	__u64 run_delay;    /* its run_delay at its last switch-out */
	__u32 exit_pending; /* its proc_state holds its process's exit, sent at its final switch-out
			     */
	__u32 pad;
};

/* A tracked process's state, in its group leader's storage (the `procs` map): nothing is kept
 * by pid, so nothing of a process outlives it and no shared set can fill up. The leader's own
 * mark is here too: one storage and one lookup per process, not two. The last thread to end
 * keeps the process's exit in its own (the leader's, unless the leader ended first). */
struct proc_state {
	struct tracked_proc proc; /* TRACKED_PROC: the process's state */
	struct io_totals gone;	  /* what its threads that already ended did */
	struct task_mark mark;	  /* the leader's (tgid 0: not marked) */
	struct pending_exit exit;
};

#endif
