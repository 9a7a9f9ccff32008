/* A process's totals over its threads: CPU, faults, context switches, I/O and run-queue delay. */
#ifndef TRACER_BPF_TOTALS_H
#define TRACER_BPF_TOTALS_H

#include "kernel.bpf.h"

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

/* The threads still listed in the group at its exit, added one by one: their count, and
 * EXIT_THREADS_TRUNCATED in *flags past EXIT_THREADS_MAX. */
static __always_inline __u32 add_listed_threads(struct thread_totals *tot, struct task_struct *task,
						struct task_struct *leader,
						struct signal_struct *sig, __u32 *flags)
{
	struct task_struct *t;
	struct list_head *head, *pos;
	__u32 threads = 0;
	__u64 node_off;
	int i;

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
				add_own_thread(tot, task);
			else
				add_thread(tot, t);
			threads++;
			pos = BPF_CORE_READ(t, thread_node.next);
		}
		if (pos != head && pos)
			*flags |= EXIT_THREADS_TRUNCATED;
	} else {
		add_thread(tot, task);
		threads = 1;
		if (leader != task) {
			add_thread(tot, leader);
			threads++;
		}
	}
	return threads;
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

#endif
