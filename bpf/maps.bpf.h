/* The maps and global variables: what tracerd reads, writes and sizes through the skeleton.
 * Defined here, in the one compilation unit (bpf/process.bpf.c includes this), so that the
 * skeleton sees them; their order is the order of .bss, .rodata and .maps. */
#ifndef TRACER_BPF_MAPS_H
#define TRACER_BPF_MAPS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "process.h"
#include "subuid_ranges.h"

/* 0 in the product; tests build a tracerd of another map layout with it (Makefile) */
#ifndef TRACER_PIN_LAYOUT_VARIANT
#define TRACER_PIN_LAYOUT_VARIANT 0
#endif

/* Set by tracerd once any cgroup is registered, so that untracked processes pay the cgroup
 * lookup only on hosts that use cgroup tracking. */
volatile __u32 cgroup_tracking = 0;
const volatile __u32 page_kb = 4;
/* Wake tracerd only once this much is waiting: a wakeup per event costs the traced work an
 * interrupt each (an expensive exit on VMs). tracerd also drains on a short timer. Each CPU
 * asks the ring only after putting wakeup_check_bytes in it since it last asked (tracerd sets
 * that to wakeup_bytes over the CPUs, so that unasked bytes stay below wakeup_bytes). */
const volatile __u64 wakeup_bytes = 0;
const volatile __u64 wakeup_check_bytes = 0;
/* The ring's size (set by tracerd), and what a user may hold of it without being looked at:
 * below that, an event goes in whenever there is room (see ring_claim). */
const volatile __u64 ring_bytes = 4 * 1024 * 1024;
const volatile __s64 share_quiet = 64 * 1024;

/* Set on the first exit traced while the address space is still there (6.18 does, 6.12 not). */
volatile __u32 exit_sees_mm = 0;

/* Set by tracerd once sched_switch is attached: from then on exits wait for their final
 * switch-out to count the last slice; before, or without it, they go at once. */
volatile __u32 have_switch = 0;
/* Set by tracerd once both sock_*_length tracepoints are attached (6.3 and later). */
volatile __u32 have_net = 0;
/* Set by tracerd once it tracks a process some of whose threads it could not mark (one with
 * threads found again after a restart, on kernels without pidfds for threads): from then on
 * an unmarked task is looked up through its group leader's storage too. */
volatile __u32 unmarked_tracked = 0;
/* Set by tracerd: how many entries of subuid_ranges are in use, and the lowest uid they hold
 * (a uid below it, as most users' are, is nobody's subordinate uid without a search). */
volatile __u32 subuid_count = 0;
volatile __u32 subuid_lowest = 0;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_mark);
} task_marks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct proc_state);
} procs SEC(".maps");

/* A tracked process's state, kept when its leader ends before its other threads: should one of
 * them execute a program, de_thread() releases the old leader, whose storage held the state,
 * and the thread takes its place and needs it. Deleted at the process's exit. LRU, per CPU:
 * an exec that fails past de_thread() leaves its entry, and a user making many such evicts
 * only entries made on the CPUs their own job runs on. */
struct handover {
	struct tracked_proc proc;
	struct io_totals gone;
};
/* copied straight from the leader's proc_state, which begins as this does */
_Static_assert(__builtin_offsetof(struct proc_state, gone) == sizeof(struct tracked_proc) &&
		       __builtin_offsetof(struct handover, gone) == sizeof(struct tracked_proc),
	       "proc_state must begin as struct handover does");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
	__uint(max_entries, 8192 + TRACER_PIN_LAYOUT_VARIANT);
	__type(key, __u32); /* tgid */
	__type(value, struct handover);
} exec_handover SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);   /* cgroup v2 id */
	__type(value, __u64); /* unit */
} tracked_cgroups SEC(".maps");

/* Tasks registered by the SPANK plugin, not yet executed (see struct task_registration), in
 * their own storage: written through a pidfd, so the entry is that very task's and goes with it,
 * and a task with no BPF storage at all (every untracked one, as maybe_tracked says) is settled
 * without a lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_registration);
} task_registry SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024); /* resized by tracerd before load */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Events lost per unit, so that a report says which units are incomplete; the oldest units
 * give way when it is full (their reports were made when they ended). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);   /* unit */
	__type(value, __u64); /* events lost */
} unit_lost SEC(".maps");

/* An exit sent at once (no sched_switch, or no mark for the thread) is built here. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending_exit);
} exit_scratch SEC(".maps");

/* exec events are too big for the BPF stack: built here, then copied out at their real size */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_event);
} exec_scratch SEC(".maps");

/* Bytes each CPU put in the ring since it last asked what is waiting there: that sits on a
 * line tracerd's draining keeps moving between CPUs, and asking at every event cost each a
 * cache miss. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} unwoken SEC(".maps");

/* Subordinate uid ranges, written by tracerd (see struct subuid_owner). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SUBUID_MAP_MAX);
	__type(key, __u32);
	__type(value, struct subuid_owner);
} subuid_ranges SEC(".maps");

/* See struct ring_share. Its own section, so that the lines the CPUs and tracerd write are not
 * those every event of untracked tasks reads (the flags above). */
struct ring_share shares[SHARE_SLOTS] SEC(".data.shares");

#endif
