/* The live figures of struct proc_waits: waits counted at context switches, and bytes moved
 * over IP sockets. */
#ifndef TRACER_BPF_WAITS_H
#define TRACER_BPF_WAITS_H

#include "kernel.bpf.h"
#include "proc_state.bpf.h"

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

#endif
