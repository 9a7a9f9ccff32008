/* Reading the kernel across the supported versions: constants vmlinux.h lacks, and fields that
 * moved or may be missing. */
#ifndef TRACER_BPF_KERNEL_H
#define TRACER_BPF_KERNEL_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define SIGNAL_GROUP_EXIT_FLAG 0x00000004 /* include/linux/sched/signal.h */
#define PF_EXITING_FLAG 0x00000004	  /* include/linux/sched.h */
#define TASK_DEAD_STATE 0x00000080

#define AF_INET_FAMILY 2
#define AF_INET6_FAMILY 10
#define MSG_PEEK_FLAG 2

#define NR_WAIT4 61 /* x86-64 */
#define NR_WAITID 247

/* Kernel layouts that changed within the supported range (see the README's kernel table).
 * Each is read through a flavour that CO-RE matches against the running kernel's BTF; the
 * branch that does not match is dead code the verifier never sees. */

/* before 5.14 the task state field was `long state` */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return task->__state;
	return BPF_CORE_READ((struct task_struct___old *)task, state);
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

#endif
