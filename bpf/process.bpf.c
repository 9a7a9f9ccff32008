// SPDX-License-Identifier: GPL-2.0
/* Process lifecycle collector: fork, exec, exit and OOM kills of tracked processes.
 *
 * A process is tracked when tracerd registered it, when its parent was tracked at fork, or
 * when it runs in a registered cgroup (v2). Its threads carry marks, and its leader its state
 * and its own mark, in task-local storage (task_marks, procs): a tracked event costs no hash
 * lookup, and everything else one load. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "process.h"

char LICENSE[] SEC("license") = "GPL";

#define SIGNAL_GROUP_EXIT_FLAG 0x00000004 /* include/linux/sched/signal.h */
#define PF_EXITING_FLAG 0x00000004	  /* include/linux/sched.h */
#define TASK_DEAD_STATE 0x00000080

/* Kernel layouts that changed within the supported range (see the README's kernel table).
 * Each is read through a flavour that CO-RE matches against the running kernel's BTF; the
 * branch that does not match is dead code the verifier never sees. */

/* before 5.14 the task state field was `long state` */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

/* before 6.2 mm_struct's RSS counters were atomics in a struct; since, percpu counters */
struct mm_rss_stat___pre62 {
	atomic_long_t count[4];
} __attribute__((preserve_access_index));
struct mm_struct___pre62 {
	struct mm_rss_stat___pre62 rss_stat;
} __attribute__((preserve_access_index));

/* ... and a task kept its latest RSS changes to itself, folded into the mm every 64 faults
 * (SPLIT_RSS_COUNTING): the mm's count alone can be hundreds of KiB behind */
struct task_rss_stat___pre62 {
	int events;
	int count[4];
} __attribute__((preserve_access_index));
struct task_struct___pre62 {
	struct task_rss_stat___pre62 rss_stat;
} __attribute__((preserve_access_index));

#define MM_FILEPAGES 0
#define MM_ANONPAGES 1
#define MM_SHMEMPAGES 3

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

#define AF_INET_FAMILY 2
#define AF_INET6_FAMILY 10
#define MSG_PEEK_FLAG 2

#define NR_WAIT4 61 /* x86-64 */
#define NR_WAITID 247

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
	__uint(max_entries, 8192);
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

/* The flag for an event of size bytes about to go in the ring (see wakeup_bytes). */
static __always_inline __u64 wakeup(__u64 size)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&unwoken, &zero);

	if (n) {
		*n += size;
		if (*n < wakeup_check_bytes)
			return BPF_RB_NO_WAKEUP;
		*n = 0;
	}
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									     : BPF_RB_NO_WAKEUP;
}

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;
}

/* See struct ring_share. Its own section, so that the lines the CPUs and tracerd write are not
 * those every event of untracked tasks reads (the flags above). */
struct ring_share shares[SHARE_SLOTS] SEC(".data.shares");

/* An event of unit could not be recorded (ring buffer or a map full). */
static __always_inline void lose(__u64 unit)
{
	__u64 one = 1, *n;

	count(STAT_LOST);
	n = bpf_map_lookup_elem(&unit_lost, &unit);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&unit_lost, &unit, &one, BPF_NOEXIST);
}

/* The current user's slot in shares: the one it holds, else the first of its probes that is
 * free or has nothing left in the ring (taken over); SHARE_SLOTS when others hold all its probes.
 * That user is then charged nothing (never refused by share): charged to a probe on top of its
 * holder, it could be refused for another's bytes, and the hash is fixed, so a user with many
 * uids could fill a chosen user's probes. */
static __always_inline __u32 share_slot(void)
{
	__u32 owner = (__u32)bpf_get_current_uid_gid() + 1,
	      first = owner * 2654435761u >> (32 - SHARE_BITS);
	__u32 i, k, o, seen = 0, take = SHARE_SLOTS;

	for (k = 0; k < SHARE_PROBES; k++) {
		i = (first + k) & (SHARE_SLOTS - 1);
		o = shares[i].owner;
		if (o == owner)
			return i;
		if (take == SHARE_SLOTS && (!o || shares[i].bytes <= 0)) {
			take = i;
			seen = o;
		}
	}
	if (take == SHARE_SLOTS)
		return SHARE_SLOTS;
	take &= SHARE_SLOTS - 1;
	/* another user may have taken the slot since it was looked at: the swap fails then, and
	 * this event is charged nothing (another CPU of the same user winning is as good) */
	o = __sync_val_compare_and_swap(&shares[take].owner, seen, owner);
	return o == seen || o == owner ? take : SHARE_SLOTS;
}

/* An event of size bytes of unit, about to go in the ring: charged to the current user's share,
 * and the slot's number returned for the event's header (0: charged nothing, see share_slot). A
 * user who holds no less of the ring than is left free is refused (-1; counted lost to unit): so
 * the heaviest are refused first, and a ring that their events fill to the half stays half free
 * for everyone else's. */
static __always_inline int ring_claim(__u64 size, __u64 unit)
{
	__u32 i = share_slot();
	__s64 charge = ring_charge(size), held;

	if (i >= SHARE_SLOTS)
		return 0;
	/* a bound every verifier keeps, whatever the compiler made of the test */
	i &= SHARE_SLOTS - 1;
	held = shares[i].bytes;
	if (held > share_quiet &&
	    (__u64)held + bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= ring_bytes) {
		count(STAT_REFUSED);
		lose(unit);
		return -1;
	}
	__sync_fetch_and_add(&shares[i].bytes, charge);
	return i + 1;
}

/* The event did not go in after all (the ring was full): its bytes back, and lost to unit. */
static __always_inline void ring_unclaim(int share, __u64 size, __u64 unit)
{
	if (share)
		__sync_fetch_and_add(&shares[(share - 1) & (SHARE_SLOTS - 1)].bytes,
				     -(__s64)ring_charge(size));
	lose(unit);
}

static __always_inline void header(struct event_header *h, __u32 type, __u32 pid, __u64 start,
				   __u64 unit)
{
	h->type = type;
	h->share = 0;
	h->pid = pid;
	h->start_ns = start;
	h->unit = unit;
	h->time_ns = bpf_ktime_get_boot_ns();
}

/* The unit of a process not tracked through its parent, from its cgroup, or 0. */
static __always_inline __u64 unit_from_cgroup(void)
{
	__u64 cg, *unit;

	if (!cgroup_tracking)
		return 0;
	cg = bpf_get_current_cgroup_id();
	unit = bpf_map_lookup_elem(&tracked_cgroups, &cg);
	return unit ? *unit : 0;
}

/* The key of a task the SPANK plugin registered, at its exec, or 0. The entry has done its
 * work then: the process is tracked from here on, and its children after it. */
static __always_inline __u64 unit_from_registry(struct task_struct *task, __u32 tgid)
{
	struct task_registration *r;
	__u64 key;

	if (!task->bpf_storage)
		return 0;
	r = bpf_task_storage_get(&task_registry, task, 0, 0);
	if (!r)
		return 0;
	key = unit_key(tgid, r->start_ticks);
	bpf_task_storage_delete(&task_registry, task);
	return key;
}

/* A read, not a load: the exit's thread walk passes pointers the verifier knows only as numbers. */
static __always_inline __u64 run_delay(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->sched_info))
		return 0;
	return BPF_CORE_READ(task, sched_info.run_delay);
}

/* run_delay() of a task the verifier knows the type of: a direct load, no helper call */
static __always_inline __u64 own_run_delay(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->sched_info))
		return 0;
	return task->sched_info.run_delay;
}

/* Could the task belong to a tracked process? Every thread of one carries a mark in its own
 * storage, so a task with no BPF storage at all is settled with one load: what every context
 * switch, exec and exit of untracked work pays. */
static __always_inline int maybe_tracked(struct task_struct *task)
{
	return task->bpf_storage || unmarked_tracked;
}

/* The task's mark, or NULL. A group leader's is in its proc_state, which *own is then set to. */
static __always_inline struct task_mark *mark_of(struct task_struct *task, struct proc_state **own)
{
	struct proc_state *ps;

	if (!task->bpf_storage)
		return NULL;
	if (task != task->group_leader)
		return bpf_task_storage_get(&task_marks, task, 0, 0);
	ps = bpf_task_storage_get(&procs, task, 0, 0);
	if (!ps || !ps->mark.tgid)
		return NULL;
	*own = ps;
	return &ps->mark;
}

/* The state of the task's process, in its group leader's storage, or NULL when the process is
 * not tracked. */
static __always_inline struct proc_state *proc_of(struct task_struct *task)
{
	struct task_struct *leader = task->group_leader;
	struct proc_state *ps;

	if (!leader->bpf_storage)
		return NULL;
	ps = bpf_task_storage_get(&procs, leader, 0, 0);
	if (!ps || !(ps->proc.flags & TRACKED_PROC))
		return NULL;
	return ps;
}

/* The task's own proc_state, made if need be; NULL when no storage could be had. A new one is
 * put in the task's storage cache at once, while its lines are hot on this CPU (a lookup does
 * that; the creation does not), not at the task's next event. */
static __always_inline struct proc_state *own_state(struct task_struct *task)
{
	struct proc_state *ps =
		bpf_task_storage_get(&procs, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (ps && !ps->proc.flags)
		bpf_task_storage_get(&procs, task, 0, 0);
	return ps;
}

/* A mark's start: its waits count from now. */
static __always_inline void init_mark(struct task_mark *m, struct task_struct *task, __u32 tgid)
{
	m->tgid = tgid;
	m->sleep = SLEEP_NONE;
	m->run_delay = own_run_delay(task);
}

/* Mark a thread other than the leader (see task_marks); NULL when no storage could be had. */
static __always_inline struct task_mark *thread_mark(struct task_struct *task, __u32 tgid)
{
	struct task_mark *m =
		bpf_task_storage_get(&task_marks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (m && m->tgid != tgid) {
		init_mark(m, task, tgid);
		bpf_task_storage_get(&task_marks, task, 0, 0); /* into the cache: see own_state */
	}
	return m;
}

/* Mark a process's leader, whose storage ps is. */
static __always_inline struct task_mark *leader_mark(struct proc_state *ps,
						     struct task_struct *task, __u32 tgid)
{
	if (ps->mark.tgid != tgid)
		init_mark(&ps->mark, task, tgid);
	return &ps->mark;
}

/* Make the task, a process's only thread, hold that process's state. */
static __always_inline struct proc_state *track(struct task_struct *task, __u32 tgid, __u64 unit,
						__u64 start)
{
	struct proc_state *ps = own_state(task);

	if (!ps) {
		lose(unit); /* no memory for its storage: this process goes unseen */
		return NULL;
	}
	__builtin_memset(&ps->proc, 0, sizeof(ps->proc));
	__builtin_memset(&ps->gone, 0, sizeof(ps->gone));
	ps->proc.unit = unit;
	ps->proc.start_ns = start;
	ps->proc.flags = TRACKED_PROC;
	leader_mark(ps, task, tgid);
	return ps;
}

/* Report a tracked process's fork (see TRACKED_FORK_UNSENT), at the fork's time. Its threads
 * may get here at once on several CPUs: the one that clears the flag sends it. */
static __always_inline void send_fork(struct task_struct *task, struct tracked_proc *t)
{
	struct fork_event *e;
	int share;

	if (!(__sync_fetch_and_and(&t->flags, ~TRACKED_FORK_UNSENT) & TRACKED_FORK_UNSENT))
		return;
	share = ring_claim(sizeof(*e), t->unit);
	if (share < 0)
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		ring_unclaim(share, sizeof(*e), t->unit);
		return;
	}
	e->h.type = EVENT_FORK;
	e->h.share = share;
	e->h.pid = task->tgid;
	e->h.start_ns = t->start_ns;
	e->h.unit = t->unit;
	e->h.time_ns = t->start_ns;
	e->ppid = t->ppid;
	e->uid = task->real_cred->uid.val;
	e->parent_start_ns = t->parent_start_ns;
	bpf_ringbuf_submit(e, wakeup(sizeof(*e)));
	count(STAT_FORK);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_fork, struct task_struct *parent, struct task_struct *child)
{
	struct proc_state *pm = NULL, *ps;
	__u32 pid, tgid, ptgid;
	__u64 unit;

	if (maybe_tracked(parent))
		pm = proc_of(parent);
	else if (!cgroup_tracking)
		return 0;
	if (pm && (pm->proc.flags & TRACKED_FORK_UNSENT)) /* the parent before its children */
		send_fork(parent, &pm->proc);
	pid = child->pid;
	tgid = child->tgid;
	ptgid = parent->tgid;
	if (pid != tgid) { /* a new thread, not a new process */
		if (pm)
			thread_mark(child, tgid);
		return 0;
	}
	unit = pm ? pm->proc.unit : unit_from_cgroup();
	if (!unit)
		return 0;
	ps = track(child, tgid, unit, child->start_boottime);
	if (!ps)
		return 0;
	ps->proc.flags |= TRACKED_FORK_UNSENT;
	ps->proc.ppid = ptgid;
	ps->proc.parent_start_ns = parent->group_leader->start_boottime;
	return 0;
}

struct thread_totals {
	__u64 utime, stime, runtime;
	__u64 minflt, majflt, nvcsw, nivcsw;
	__u64 run_delay;
};

/* Direct loads through the kernel's typed pointers (tp_btf): no helper call per field, which
 * is most of what an exit cost when every field was a bpf_probe_read_kernel. */
static __always_inline void add_io(struct io_totals *t, struct task_io_accounting *io)
{
	t->rchar += io->rchar;
	t->wchar += io->wchar;
	t->syscr += io->syscr;
	t->syscw += io->syscw;
	t->read_bytes += io->read_bytes;
	t->write_bytes += io->write_bytes;
	t->cancelled += io->cancelled_write_bytes;
}

/* What signal_struct holds of the threads already released. */
static __always_inline void add_signal(struct thread_totals *t, struct signal_struct *sig)
{
	t->utime += sig->utime;
	t->stime += sig->stime;
	t->runtime += sig->sum_sched_runtime;
	t->minflt += sig->min_flt;
	t->majflt += sig->maj_flt;
	t->nvcsw += sig->nvcsw;
	t->nivcsw += sig->nivcsw;
}

static __always_inline void add_thread(struct thread_totals *t, struct task_struct *task)
{
	t->utime += BPF_CORE_READ(task, utime);
	t->stime += BPF_CORE_READ(task, stime);
	t->runtime += BPF_CORE_READ(task, se.sum_exec_runtime);
	t->minflt += BPF_CORE_READ(task, min_flt);
	t->majflt += BPF_CORE_READ(task, maj_flt);
	t->nvcsw += BPF_CORE_READ(task, nvcsw);
	t->nivcsw += BPF_CORE_READ(task, nivcsw);
	/* a thread past its exit (a zombie leader) left its run_delay in proc_state.gone */
	if (!BPF_CORE_READ(task, exit_state))
		t->run_delay += run_delay(task);
}

/* add_thread() of a thread the verifier knows the type of: direct loads */
static __always_inline void add_own_thread(struct thread_totals *t, struct task_struct *task)
{
	t->utime += task->utime;
	t->stime += task->stime;
	t->runtime += task->se.sum_exec_runtime;
	t->minflt += task->min_flt;
	t->majflt += task->maj_flt;
	t->nvcsw += task->nvcsw;
	t->nivcsw += task->nivcsw;
	if (bpf_core_field_exists(task->sched_info))
		t->run_delay += task->sched_info.run_delay;
}

/* The I/O of the process's threads that already exited (see proc_state.gone). */
static __always_inline void gone_io(struct io_totals *io, struct io_totals *gone)
{
	io->rchar += gone->rchar;
	io->wchar += gone->wchar;
	io->syscr += gone->syscr;
	io->syscw += gone->syscw;
	io->read_bytes += gone->read_bytes;
	io->write_bytes += gone->write_bytes;
	io->cancelled += gone->cancelled;
	io->run_delay += gone->run_delay;
}

/* At the first exec the process has one thread left (exec ends the others): its counters and
 * the released threads' are everything done before the program started. CPU and faults only,
 * read as cheaply as they can be: the exec path of every tracked process pays for them. */
static __always_inline void read_exec_base(struct exec_base *b, struct task_struct *task)
{
	struct signal_struct *sig = task->signal;

	b->runtime_ns = sig->sum_sched_runtime + task->se.sum_exec_runtime;
	b->minflt = sig->min_flt + task->min_flt;
	b->majflt = sig->maj_flt + task->maj_flt;
}

static __always_inline void note_own_peak(struct tracked_proc *t, __u64 pages);

/* The state a tracked process's old leader handed over as this thread's exec ended it. */
static __always_inline struct tracked_proc *take_handover(struct task_struct *task, __u32 tgid)
{
	struct handover *h = bpf_map_lookup_elem(&exec_handover, &tgid);
	struct proc_state *ps;
	struct task_mark *m;

	if (!h)
		return NULL;
	/* de_thread() gave the thread its leader's start; another start is another process's
	 * entry, left by a failed exec (to the tick: tracerd registers from /proc) */
	if (h->proc.start_ns / START_TICK_NS != task->start_boottime / START_TICK_NS) {
		bpf_map_delete_elem(&exec_handover, &tgid);
		return NULL;
	}
	ps = own_state(task);
	if (ps) {
		ps->proc = h->proc;
		ps->gone = h->gone;
		ps->proc.flags &= ~TRACKED_HANDED_OVER;
		/* it leads now: its mark moves into the state */
		m = bpf_task_storage_get(&task_marks, task, 0, 0);
		if (m && m->tgid == tgid)
			ps->mark = *m;
		leader_mark(ps, task, tgid);
		bpf_task_storage_delete(&task_marks, task);
	}
	bpf_map_delete_elem(&exec_handover, &tgid);
	return ps ? &ps->proc : NULL;
}

static __always_inline void hand_over(__u32 tgid, struct proc_state *ps)
{
	__sync_fetch_and_or(&ps->proc.flags, TRACKED_HANDED_OVER); /* its threads run on */
	bpf_map_update_elem(&exec_handover, &tgid, ps, BPF_ANY);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = task->tgid, zero = 0;
	__u64 unit, arg_start, arg_end, len, maxrss;
	struct tracked_proc *t = NULL;
	struct proc_state *ps = NULL;
	struct exec_event *e;
	const char *filename;
	long n;
	int share;

	if (maybe_tracked(task))
		ps = proc_of(task); /* the task leads its process now */
	else if (!cgroup_tracking)
		return 0;
	if (ps)
		t = &ps->proc;
	else if (old_pid != tgid)
		t = take_handover(task, tgid);
	if (!t) {
		unit = unit_from_cgroup();
		if (!unit)
			unit = unit_from_registry(task, tgid);
		if (!unit)
			return 0;
		ps = track(task, tgid, unit, task->group_leader->start_boottime);
		if (!ps)
			return 0;
		t = &ps->proc;
	}
	unit = t->unit;
	t->flags &= ~TRACKED_FORK_UNSENT; /* this event reports the process */
	/* The image just replaced is folded into the kernel's maxrss. At the first exec that is
	 * the forked copy of the parent, not this program's; at a later one, a rise above that
	 * first figure can only come from an image of this program. */
	e = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!e)
		return 0;
	maxrss = task->signal->maxrss;
	if (!(t->flags & TRACKED_EXECED)) {
		t->base_rss = maxrss;
		t->flags |= TRACKED_EXECED;
		read_exec_base(&e->base, task);
	} else {
		__builtin_memset(&e->base, 0, sizeof(e->base));
		if (maxrss > t->base_rss) /* risen above the parent's copy: an image of its own */
			note_own_peak(t, maxrss);
	}
	header(&e->h, EVENT_EXEC, tgid, task->start_boottime, unit); /* it leads its process now */
	e->ppid = task->real_parent->tgid;
	e->uid = task->real_cred->uid.val;
	e->gid = task->real_cred->gid.val;
	e->flags = 0;
	e->cgroup_id = bpf_get_current_cgroup_id();
	__builtin_memcpy(e->comm, task->comm, sizeof(e->comm));

	filename = bprm->filename;
	n = bpf_probe_read_kernel_str(e->path, sizeof(e->path), filename);
	if (n < 0)
		e->path[0] = 0;
	else if (n == sizeof(e->path))
		e->flags |= EXEC_PATH_TRUNCATED;

	arg_start = task->mm->arg_start;
	arg_end = task->mm->arg_end;
	len = arg_end > arg_start ? arg_end - arg_start : 0;
	if (len > EXEC_ARGV_MAX - 1) {
		len = EXEC_ARGV_MAX - 1;
		e->flags |= EXEC_ARGV_TRUNCATED;
	}
	len &= EXEC_ARGV_MAX - 1;
	if (len && bpf_probe_read_user(e->argv, len, (void *)arg_start) < 0)
		len = 0;
	e->argv_len = len;

	len += offsetof(struct exec_event, argv);
	if ((share = ring_claim(len, unit)) < 0)
		return 0;
	e->h.share = share;
	if (bpf_ringbuf_output(&events, e, len, wakeup(len))) {
		ring_unclaim(share, len, unit);
		return 0;
	}
	count(STAT_EXEC);
	return 0;
}

/* A thread other than the last leaves: keep its I/O for the process total. Threads may end at
 * once on several CPUs. */
static __always_inline void keep_thread_io(struct io_totals *io, struct task_struct *task)
{
	struct task_io_accounting *ac = &task->ioac;

	__sync_fetch_and_add(&io->rchar, ac->rchar);
	__sync_fetch_and_add(&io->wchar, ac->wchar);
	__sync_fetch_and_add(&io->syscr, ac->syscr);
	__sync_fetch_and_add(&io->syscw, ac->syscw);
	__sync_fetch_and_add(&io->read_bytes, ac->read_bytes);
	__sync_fetch_and_add(&io->write_bytes, ac->write_bytes);
	__sync_fetch_and_add(&io->cancelled, ac->cancelled_write_bytes);
	__sync_fetch_and_add(&io->run_delay, own_run_delay(task));
}

/* Resident pages of an address space: percpu_counter's global count, or the atomic before
 * 6.2; the same approximation get_mm_rss() uses. */
static __always_inline __u64 mm_rss_pages(struct mm_struct *mm)
{
	struct mm_struct___pre62 *old = (void *)mm;
	__s64 c, rss = 0;

	/* reads, not loads: 6.1's verifier cannot follow a load into an array of atomic_long_t */
	if (bpf_core_field_exists(old->rss_stat.count)) {
		c = BPF_CORE_READ(old, rss_stat.count[MM_FILEPAGES].counter);
		rss += c > 0 ? c : 0;
		c = BPF_CORE_READ(old, rss_stat.count[MM_ANONPAGES].counter);
		rss += c > 0 ? c : 0;
		c = BPF_CORE_READ(old, rss_stat.count[MM_SHMEMPAGES].counter);
		rss += c > 0 ? c : 0;
	} else {
		c = mm->rss_stat[MM_FILEPAGES].count;
		rss += c > 0 ? c : 0;
		c = mm->rss_stat[MM_ANONPAGES].count;
		rss += c > 0 ? c : 0;
		c = mm->rss_stat[MM_SHMEMPAGES].count;
		rss += c > 0 ? c : 0;
	}
	return rss;
}

/* RSS changes the task has not yet folded into its mm (before 6.2; 0 since). */
static __always_inline __s64 rss_unfolded(struct task_struct *task)
{
	struct task_struct___pre62 *old = (void *)task;

	if (!bpf_core_field_exists(old->rss_stat))
		return 0;
	return (__s64)BPF_CORE_READ(old, rss_stat.count[MM_FILEPAGES]) +
	       BPF_CORE_READ(old, rss_stat.count[MM_ANONPAGES]) +
	       BPF_CORE_READ(old, rss_stat.count[MM_SHMEMPAGES]);
}

/* An address space's peak as the kernel folds it into maxrss: its high-water mark (updated
 * only when RSS is about to fall) or its current RSS, whichever is higher. unfolded: the
 * reading task's own changes not yet in the mm's count (see rss_unfolded). */
static __always_inline __u64 mm_peak_pages(struct mm_struct *mm, __s64 unfolded)
{
	__s64 rss = (__s64)mm_rss_pages(mm) + unfolded;
	__u64 hiwater = mm->hiwater_rss;

	if (rss < 0)
		rss = 0;
	return (__u64)rss > hiwater ? (__u64)rss : hiwater;
}

/* A reading of the running program's own image: counted only after the first exec, since
 * before it the image is the forked copy of the parent. */
static __always_inline void note_own_peak(struct tracked_proc *t, __u64 pages)
{
	if ((t->flags & TRACKED_EXECED) && pages > t->own_rss)
		t->own_rss = pages;
}

/* The exit's two memory figures, in pages: getrusage's maxrss (every image of the process,
 * the pre-exec copy of its parent included) and the program's own peak (0: unread). */
static __always_inline void exit_peaks(struct task_struct *task, struct tracked_proc *t,
				       __u64 *ru_maxrss, __u64 *own)
{
	struct mm_struct *mm = task->mm;
	__u64 maxrss = task->signal->maxrss, final = 0;

	/* Kernels that trace the exit before releasing the address space still show it; older
	 * ones folded it into maxrss and released it (active_mm may by now be borrowed). */
	if (mm) {
		final = mm_peak_pages(mm, rss_unfolded(task));
		exit_sees_mm = 1;
	}
	*ru_maxrss = final > maxrss ? final : maxrss;
	if (!(t->flags & TRACKED_EXECED)) { /* never ran a program of its own: all of it is its */
		*own = *ru_maxrss;
		return;
	}
	note_own_peak(t, final);
	if (maxrss > t->base_rss) /* a post-exec image rose above the inherited figure */
		note_own_peak(t, maxrss);
	*own = t->own_rss;
}

static __always_inline void send_exit(struct exit_event *e)
{
	int share = ring_claim(sizeof(*e), e->h.unit);

	if (share < 0)
		return;
	e->h.share = share;
	if (bpf_ringbuf_output(&events, e, sizeof(*e), wakeup(sizeof(*e)))) {
		ring_unclaim(share, sizeof(*e), e->h.unit);
		return;
	}
	count(STAT_EXIT);
}

static __always_inline void account_switch(struct task_mark *m, struct task_struct *prev,
					   __u32 state, int preempt, struct proc_waits *w);

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *task)
{
	struct task_struct *leader, *t;
	struct signal_struct *sig;
	struct thread_totals tot = {};
	struct io_totals io = {};
	struct list_head *head, *pos;
	__u32 tgid = task->tgid, threads = 0, flags = 0, zero = 0;
	__u64 unit, node_off, ru_maxrss, own;
	struct proc_state *ps, *mine = NULL;
	struct tracked_proc *found;
	struct pending_exit *pe;
	struct task_mark *m = NULL;
	struct exit_event *e;
	int i;

	if (!maybe_tracked(task))
		return 0;
	ps = proc_of(task);
	if (!ps)
		return 0;
	found = &ps->proc;
	sig = task->signal;
	if (sig->live.counter != 0) { /* not the last thread */
		keep_thread_io(&ps->gone, task);
		/* its last sleep into the live figures now, not at its final switch-out: a thread
		 * that joins it is woken before this (exit_mm), and the process may end before
		 * that switch-out (then it would be lost: tracerd(8), BUGS) */
		if (have_switch && task != task->group_leader &&
		    (m = bpf_task_storage_get(&task_marks, task, 0, 0)) && m->tgid == tgid)
			account_switch(m, task, 0, 1, &found->w);
		/* set aside as the leader ends; brought up to date as each other thread does */
		if (task == task->group_leader)
			hand_over(tgid, ps);
		else if (found->flags & TRACKED_HANDED_OVER)
			bpf_map_update_elem(&exec_handover, &tgid, ps, BPF_EXIST);
		return 0;
	}
	/* Two threads ending at once may both find the count at 0 (it drops before this
	 * tracepoint): the one that takes the process reports it. */
	if (!(__sync_fetch_and_and(&found->flags, ~TRACKED_PROC) & TRACKED_PROC))
		return 0;
	unit = found->unit;
	if (found->flags & TRACKED_HANDED_OVER)
		bpf_map_delete_elem(&exec_handover, &tgid);
	if (found->flags & TRACKED_FORK_UNSENT)
		send_fork(task, found);
	/* The final switch-out completes it, from the thread's own storage (the leader's is not
	 * safe to reach then); that needs the thread marked (it is, unless it was registered with
	 * threads tracerd could not mark). Without sched_switch it goes at once. */
	if (have_switch && task == task->group_leader) {
		m = leader_mark(ps, task, tgid);
		mine = ps;
	} else if (have_switch && (m = thread_mark(task, tgid))) {
		mine = own_state(task);
	}
	pe = mine ? &mine->exit : bpf_map_lookup_elem(&exit_scratch, &zero);
	if (!pe)
		return 0;
	e = &pe->e;
	exit_peaks(task, found, &ru_maxrss, &own);
	if (!own)
		flags |= EXIT_PEAK_UNREAD;
	e->w = found->w;
	gone_io(&io, &ps->gone);
	if (!unit) /* tracerd's probe of exit_sees_mm: nothing to report */
		return 0;
	if (!have_switch)
		flags |= EXIT_NO_WAITS;
	if (!have_net)
		flags |= EXIT_NO_NET;
	add_io(&io, &task->ioac);

	/* Threads already released were folded into signal_struct; those still listed (this
	 * one, a zombie leader, threads exiting alongside) are added one by one, as
	 * thread_group_cputime() does. */
	add_signal(&tot, sig);

	leader = task->group_leader;
	if (bpf_core_field_exists(sig->thread_head)) {
		head = &sig->thread_head;
		node_off = bpf_core_field_offset(struct task_struct, thread_node);
		pos = BPF_CORE_READ(sig, thread_head.next);
#pragma clang loop unroll(disable)
		for (i = 0; i < EXIT_THREADS_MAX; i++) {
			if (pos == head || !pos)
				break;
			t = (struct task_struct *)((char *)pos - node_off);
			if ((void *)t == (void *)task) /* the usual only thread: loads, not reads */
				add_own_thread(&tot, task);
			else
				add_thread(&tot, t);
			threads++;
			pos = BPF_CORE_READ(t, thread_node.next);
		}
		if (pos != head && pos)
			flags |= EXIT_THREADS_TRUNCATED;
	} else {
		add_thread(&tot, task);
		threads = 1;
		if (leader != task) {
			add_thread(&tot, leader);
			threads++;
		}
	}

	header(&e->h, EVENT_EXIT, tgid, leader->start_boottime, unit);
	e->ppid = task->real_parent->tgid;
	/* what wait(2) would report for the group: see wait_task_zombie() */
	if (sig->flags & SIGNAL_GROUP_EXIT_FLAG)
		e->status = sig->group_exit_code;
	else
		e->status = leader->exit_code;
	e->utime_ns = tot.utime;
	e->stime_ns = tot.stime;
	e->runtime_ns = tot.runtime;
	e->peak_rss_kb = own * page_kb;
	e->ru_maxrss_kb = ru_maxrss * page_kb;
	e->rchar = io.rchar;
	e->wchar = io.wchar;
	e->syscr = io.syscr;
	e->syscw = io.syscw;
	e->read_bytes = io.read_bytes;
	e->write_bytes = io.write_bytes;
	e->cancelled_write_bytes = io.cancelled;
	e->minflt = tot.minflt;
	e->majflt = tot.majflt;
	e->nvcsw = tot.nvcsw;
	e->nivcsw = tot.nivcsw;
	e->w.cpu_wait_ns = tot.run_delay + io.run_delay;
	e->threads = threads;
	e->flags = flags;
	__builtin_memcpy(e->comm, task->comm, sizeof(e->comm));
	pe->runtime = task->se.sum_exec_runtime;
	pe->utime = task->utime;
	pe->stime = task->stime;
	pe->nvcsw = task->nvcsw;
	pe->nivcsw = task->nivcsw;
	if (mine) { /* m is its thread's mark */
		m->exit_pending = 1;
		return 0;
	}
	/* no mark to wait in: send it now, short of the last slice */
	send_exit(e);
	return 0;
}

/* What a thread that goes to sleep sleeps in: I/O wait, its children, or anything else. The
 * syscall is read from the current task's saved registers (bpf_task_pt_regs, 5.15 and later). */
static __always_inline __u32 sleep_kind(struct task_struct *prev)
{
	long nr = -1;

	if (BPF_CORE_READ_BITFIELD(prev, in_iowait))
		return SLEEP_IO;
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs)) {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);

		nr = regs->orig_ax;
	}
	return nr == NR_WAIT4 || nr == NR_WAITID ? SLEEP_CHILD : SLEEP_OTHER;
}

static __always_inline __u32 task_state(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return task->__state;
	return BPF_CORE_READ((struct task_struct___old *)task, state);
}

/* A marked thread leaves the CPU. What it waited for since its last switch-out is known only
 * now: the run-queue delay from the scheduler's own counter, and the sleep that began at the
 * last switch-out as the time since, less what the thread has since spent running or waiting
 * for a CPU. Added to its process's live figures, or to its pending exit once the process has
 * ended. A new sleep starts here unless the thread was preempted (it stays runnable). */
static __always_inline void account_switch(struct task_mark *m, struct task_struct *prev,
					   __u32 state, int preempt, struct proc_waits *w)
{
	__u64 now = bpf_ktime_get_ns(), rd = own_run_delay(prev);
	__u64 rt = prev->se.sum_exec_runtime;
	__u64 waited = rd > m->run_delay ? rd - m->run_delay : 0, slept = 0, busy;
	__u32 sleep = m->sleep;

	if (sleep != SLEEP_NONE) {
		busy = waited + (rt - m->runtime);
		slept = now - m->out_ns > busy ? now - m->out_ns - busy : 0;
	}
	m->run_delay = rd;
	m->sleep = SLEEP_NONE;
	if (!preempt && state && !(state & TASK_DEAD_STATE)) {
		m->sleep = sleep_kind(prev);
		m->out_ns = now;
		m->runtime = rt;
	}
	if (!w || (!waited && !slept))
		return;
	if (m->exit_pending)
		waited = 0; /* cpu_wait_ns of a pending exit is the kernel's own sum already */
	if (waited)
		__sync_fetch_and_add(&w->cpu_wait_ns, waited);
	if (sleep == SLEEP_IO)
		__sync_fetch_and_add(&w->iowait_ns, slept);
	else if (sleep == SLEEP_OTHER && slept)
		__sync_fetch_and_add(&w->offcpu_ns, slept);
}

/* A context switch: a marked thread's waits are accounted, and the last thread of a tracked
 * process leaving the CPU for good completes and sends its exit. An unmarked thread costs one
 * load (no BPF storage at all) or one look at its storage. */
SEC("tp_btf/sched_switch")
int BPF_PROG(handle_switch, bool preempt, struct task_struct *prev)
{
	struct proc_state *ps, *own = NULL;
	struct proc_waits *w = NULL;
	struct pending_exit *pe;
	struct task_mark *m;
	__u32 state;

	m = mark_of(prev, &own);
	if (!m)
		return 0;
	state = task_state(prev);
	if (!m->exit_pending) {
		if (!own)
			ps = proc_of(prev);
		else
			ps = own->proc.flags & TRACKED_PROC ? own : NULL;
		if (ps && (ps->proc.flags & TRACKED_FORK_UNSENT))
			send_fork(prev, &ps->proc);
		if (ps)
			w = &ps->proc.w;
		account_switch(m, prev, state, preempt, w);
		return 0;
	}
	/* its process has ended: the exit waits in the thread's own storage */
	ps = own ? own : bpf_task_storage_get(&procs, prev, 0, 0);
	if (!ps)
		return 0;
	pe = &ps->exit;
	account_switch(m, prev, state, preempt, &pe->e.w);
	/* an exiting task may still block or be preempted (unmapping memory): wait for the end */
	if (!(prev->flags & PF_EXITING_FLAG) || !(state & TASK_DEAD_STATE))
		return 0;
	m->exit_pending = 0;
	pe->e.runtime_ns += prev->se.sum_exec_runtime - pe->runtime;
	pe->e.utime_ns += prev->utime - pe->utime;
	pe->e.stime_ns += prev->stime - pe->stime;
	pe->e.nvcsw += prev->nvcsw - pe->nvcsw;
	pe->e.nivcsw += prev->nivcsw - pe->nivcsw;
	send_exit(&pe->e);
	return 0;
}

/* Bytes a tracked thread moved over an IP socket. Every other socket call costs one look at
 * the calling thread's task storage. */
static __always_inline void count_net(struct sock *sk, int ret, int flags, int rx)
{
	struct task_struct *task;
	struct proc_state *ps;
	struct tracked_proc *t;
	__u16 family;

	if (ret <= 0 || (rx && (flags & MSG_PEEK_FLAG)))
		return;
	task = bpf_get_current_task_btf();
	if (!maybe_tracked(task))
		return;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (family != AF_INET_FAMILY && family != AF_INET6_FAMILY)
		return;
	ps = proc_of(task);
	if (!ps)
		return;
	t = &ps->proc;
	if (rx) {
		__sync_fetch_and_add(&t->w.net_rx_bytes, ret);
		__sync_fetch_and_add(&t->w.net_rx_calls, 1);
	} else {
		__sync_fetch_and_add(&t->w.net_tx_bytes, ret);
		__sync_fetch_and_add(&t->w.net_tx_calls, 1);
	}
}

SEC("raw_tp/sock_send_length")
int handle_send(struct bpf_raw_tracepoint_args *ctx)
{
	count_net((struct sock *)ctx->args[0], (int)ctx->args[1], (int)ctx->args[2], 0);
	return 0;
}

SEC("raw_tp/sock_recv_length")
int handle_recv(struct bpf_raw_tracepoint_args *ctx)
{
	count_net((struct sock *)ctx->args[0], (int)ctx->args[1], (int)ctx->args[2], 1);
	return 0;
}

/* A reading of the calling process's image, if it is tracked. */
static __always_inline void note_current_peak(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct proc_state *ps;
	struct mm_struct *mm;

	if (!maybe_tracked(task))
		return;
	ps = proc_of(task);
	if (!ps)
		return;
	mm = task->mm;
	if (mm)
		note_own_peak(&ps->proc, mm_peak_pages(mm, rss_unfolded(task)));
}

/* A fatal signal is about to end a process (the group-exit path of get_signal() traces a
 * SIGKILL for every thread): its address space is still whole. Every other delivery costs one
 * map lookup. */
SEC("raw_tp/signal_deliver")
int handle_signal(struct bpf_raw_tracepoint_args *ctx)
{
	struct k_sigaction *ka = (struct k_sigaction *)ctx->args[2];

	if (ka && !BPF_CORE_READ(ka, sa.sa_handler)) /* default action: it may be the end */
		note_current_peak();
	return 0;
}

/* Kernels up to 6.12 at least (6.18 not) release the address space before sched_process_exit:
 * read the peak on the way in to exit_group(2). tracerd detaches this once an exit shows the
 * kernel keeps the mm (exit_sees_mm): an attached syscall tracepoint slows every syscall. */
SEC("tracepoint/syscalls/sys_enter_exit_group")
int handle_exit_group(void *ctx)
{
	note_current_peak();
	return 0;
}

/* The tracepoint's memory figures arrived in its format with 5.19/6.0 (and in some distribution
 * kernels before): older ones give only the pid. The victim is not at hand here (the pid only,
 * not its task, on older kernels): every OOM kill is sent, and tracerd keeps those of the
 * processes it holds (the unit is theirs) with the victim's size as a reading of its peak. */
SEC("tracepoint/oom/mark_victim")
int handle_oom(struct trace_event_raw_mark_victim *ctx)
{
	__u32 pid = ctx->pid;
	struct oom_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(STAT_LOST);
		return 0;
	}
	header(&e->h, EVENT_OOM, pid, 0, 0);
	e->victim_tid = pid;
	e->pad = 0;
	e->total_vm_kb = e->anon_rss_kb = e->file_rss_kb = e->shmem_rss_kb = 0;
	if (bpf_core_field_exists(ctx->anon_rss)) {
		e->total_vm_kb = ctx->total_vm;
		e->anon_rss_kb = ctx->anon_rss;
		e->file_rss_kb = ctx->file_rss;
		e->shmem_rss_kb = ctx->shmem_rss;
	}
	bpf_ringbuf_submit(e, wakeup(sizeof(*e)));
	count(STAT_OOM);
	return 0;
}
