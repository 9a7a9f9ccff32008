/* Which processes are tracked, and their state: units from cgroups and registrations, the marks
 * on their threads, the state in their leaders' storage and its handover at exec. */
#ifndef TRACER_BPF_PROC_STATE_H
#define TRACER_BPF_PROC_STATE_H

#include "kernel.bpf.h"
#include "maps.bpf.h"
#include "ring.bpf.h"

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

#endif
