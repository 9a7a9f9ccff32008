// SPDX-License-Identifier: GPL-2.0
/* Process lifecycle collector: fork, exec, exit and OOM kills of tracked processes.
 *
 * A process is tracked when tracerd registered it, when its parent was tracked at fork, or
 * when it runs in a registered cgroup (v2). Its threads carry marks, and its leader its state
 * and its own mark, in task-local storage (task_marks, procs): a tracked event costs no hash
 * lookup, and everything else one load.
 *
 * This file holds the programs; what they share is in headers, all in this one compilation
 * unit (the skeleton is made from one object): maps.bpf.h (maps and globals), ring.bpf.h,
 * proc_state.bpf.h, totals.bpf.h, rss.bpf.h, waits.bpf.h and kernel.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "process.h"
#include "kernel.bpf.h"
#include "maps.bpf.h"
#include "ring.bpf.h"
#include "proc_state.bpf.h"
#include "totals.bpf.h"
#include "rss.bpf.h"
#include "waits.bpf.h"

char LICENSE[] SEC("license") = "GPL";

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

/* A thread other than the last ends: what it did stays with its process. */
static __always_inline void thread_ends(struct proc_state *ps, struct task_struct *task, __u32 tgid)
{
	struct task_mark *m;

	keep_thread_io(&ps->gone, task);
	/* its last sleep into the live figures now, not at its final switch-out: a thread that
	 * joins it is woken before this (exit_mm), and the process may end before that
	 * switch-out (then it would be lost: tracerd(8), BUGS) */
	if (have_switch && task != task->group_leader &&
	    (m = bpf_task_storage_get(&task_marks, task, 0, 0)) && m->tgid == tgid)
		account_switch(m, task, 0, 1, &ps->proc.w);
	/* set aside as the leader ends; brought up to date as each other thread does */
	if (task == task->group_leader)
		hand_over(tgid, ps);
	else if (ps->proc.flags & TRACKED_HANDED_OVER)
		bpf_map_update_elem(&exec_handover, &tgid, ps, BPF_EXIST);
}

/* Two threads ending at once may both find the count of live threads at 0 (it drops before
 * this tracepoint): the one that takes the process reports it. */
static __always_inline int claim_exit(struct tracked_proc *t)
{
	return __sync_fetch_and_and(&t->flags, ~TRACKED_PROC) & TRACKED_PROC;
}

/* What the claimed process leaves besides its exit: its handover entry, its fork if unsent. */
static __always_inline void settle_process(struct task_struct *task, struct tracked_proc *t,
					   __u32 tgid)
{
	if (t->flags & TRACKED_HANDED_OVER)
		bpf_map_delete_elem(&exec_handover, &tgid);
	if (t->flags & TRACKED_FORK_UNSENT)
		send_fork(task, t);
}

/* Where the exit is built. The final switch-out completes it, from the thread's own storage
 * (the leader's is not safe to reach then); that needs the thread marked (it is, unless it was
 * registered with threads tracerd could not mark). *wait is then the mark it waits in; else
 * (no storage, or no sched_switch) it is built in a per-CPU scratch and goes at once. */
static __always_inline struct pending_exit *
exit_slot(struct proc_state *ps, struct task_struct *task, __u32 tgid, struct task_mark **wait)
{
	struct proc_state *mine = NULL;
	struct task_mark *m = NULL;
	__u32 zero = 0;

	if (have_switch && task == task->group_leader) {
		m = leader_mark(ps, task, tgid);
		mine = ps;
	} else if (have_switch && (m = thread_mark(task, tgid))) {
		mine = own_state(task);
	}
	if (mine) {
		*wait = m;
		return &mine->exit;
	}
	*wait = NULL;
	return bpf_map_lookup_elem(&exit_scratch, &zero);
}

/* What wait(2) would report for the group: see wait_task_zombie(). */
static __always_inline __s32 group_status(struct signal_struct *sig, struct task_struct *leader)
{
	if (sig->flags & SIGNAL_GROUP_EXIT_FLAG)
		return sig->group_exit_code;
	return leader->exit_code;
}

/* The exit's counters: the threads' and the I/O summed. */
static __always_inline void put_totals(struct exit_event *e, struct thread_totals *tot,
				       struct io_totals *io)
{
	e->utime_ns = tot->utime;
	e->stime_ns = tot->stime;
	e->runtime_ns = tot->runtime;
	e->rchar = io->rchar;
	e->wchar = io->wchar;
	e->syscr = io->syscr;
	e->syscw = io->syscw;
	e->read_bytes = io->read_bytes;
	e->write_bytes = io->write_bytes;
	e->cancelled_write_bytes = io->cancelled;
	e->minflt = tot->minflt;
	e->majflt = tot->majflt;
	e->nvcsw = tot->nvcsw;
	e->nivcsw = tot->nivcsw;
	e->w.cpu_wait_ns = tot->run_delay + io->run_delay;
}

/* The ending thread's counters as the exit counted them: its final switch-out adds what it
 * does after this. */
static __always_inline void note_counted(struct pending_exit *pe, struct task_struct *task)
{
	pe->runtime = task->se.sum_exec_runtime;
	pe->utime = task->utime;
	pe->stime = task->stime;
	pe->nvcsw = task->nvcsw;
	pe->nivcsw = task->nivcsw;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *task)
{
	__u32 tgid = task->tgid, threads, flags = 0;
	struct thread_totals tot = {};
	struct io_totals io = {};
	__u64 unit, ru_maxrss, own;
	struct task_struct *leader;
	struct signal_struct *sig;
	struct tracked_proc *found;
	struct pending_exit *pe;
	struct task_mark *wait;
	struct proc_state *ps;
	struct exit_event *e;

	if (!maybe_tracked(task))
		return 0;
	ps = proc_of(task);
	if (!ps)
		return 0;
	found = &ps->proc;
	sig = task->signal;
	if (sig->live.counter != 0) { /* not the last thread */
		thread_ends(ps, task, tgid);
		return 0;
	}
	if (!claim_exit(found))
		return 0;
	unit = found->unit;
	settle_process(task, found, tgid);
	pe = exit_slot(ps, task, tgid, &wait);
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
	threads = add_listed_threads(&tot, task, leader, sig, &flags);

	header(&e->h, EVENT_EXIT, tgid, leader->start_boottime, unit);
	e->ppid = task->real_parent->tgid;
	e->status = group_status(sig, leader);
	put_totals(e, &tot, &io);
	e->peak_rss_kb = own * page_kb;
	e->ru_maxrss_kb = ru_maxrss * page_kb;
	e->threads = threads;
	e->flags = flags;
	__builtin_memcpy(e->comm, task->comm, sizeof(e->comm));
	note_counted(pe, task);
	if (wait) {
		wait->exit_pending = 1;
		return 0;
	}
	/* no mark to wait in: send it now, short of the last slice */
	send_exit(e);
	return 0;
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
