/* Which processes and cgroups the kernel side tracks: their state and marks written through
 * pidfds. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector_internal.h"
#include "log.h"
#include "procfs.h"

#define PIDFD_THREAD_FLAG O_EXCL /* PIDFD_THREAD (6.9): a pidfd for a thread, not a process */

static int pidfd_open(uint32_t pid, unsigned flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

/* A new mark for thread tid of tgid: its waits count from now, as for a thread born tracked. */
static struct task_mark new_mark(uint32_t tgid, uint32_t tid)
{
	uint64_t delay = 0;

	procfs_read_run_delay(tgid, tid, &delay);
	return (struct task_mark){ .tgid = tgid, .run_delay = delay };
}

/* Mark the task behind fd, a thread of tgid other than its leader, as the kernel side marks
 * those it sees born (task_marks). A mark it has already stays: the kernel side keeps it. */
static int mark_task(struct collector *c, int fd, uint32_t tgid, uint32_t tid)
{
	struct task_mark m = new_mark(tgid, tid);
	int err = bpf_map__update_elem(c->skel->maps.task_marks, &fd, sizeof(fd), &m, sizeof(m),
				       BPF_NOEXIST);

	return err == -EEXIST ? 0 : err;
}

struct marking {
	struct collector *c;
	uint32_t tgid;
	int unmarked; /* threads that could not be marked */
};

static int mark_thread(pid_t tid, void *ctx)
{
	struct marking *mk = ctx;
	int fd;

	if ((uint32_t)tid == mk->tgid)
		return 0;
	fd = pidfd_open(tid, PIDFD_THREAD_FLAG);
	if (fd < 0 || mark_task(mk->c, fd, mk->tgid, tid) < 0)
		mk->unmarked++;
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Mark the process's other threads. They need pidfds of threads (6.9 and later); where those
 * cannot be had the kernel side is told to look unmarked tasks up through their leader
 * (unmarked_tracked). */
static void mark_threads(struct collector *c, uint32_t tgid)
{
	struct marking mk = { .c = c, .tgid = tgid };

	procfs_threads(tgid, mark_thread, &mk);
	if (mk.unmarked) {
		if (!c->skel->bss->unmarked_tracked)
			log_info("process %u: some threads cannot be marked on this kernel; "
				 "unmarked "
				 "tasks are looked up through their leader from now on",
				 tgid);
		c->skel->bss->unmarked_tracked = 1;
	}
}

/* Is ps the state of the tracked process that started at start_ns (to the clock tick)? Not
 * once its exit is claimed (TRACKED_PROC is cleared before the exit is set aside). */
static int state_is_live(const struct proc_state *ps, uint64_t start_ns)
{
	return (ps->proc.flags & TRACKED_PROC) &&
	       ps->proc.start_ns / START_TICK_NS == start_ns / START_TICK_NS;
}

/* The state of the process behind fd if it is tracked and started at start_ns, else -ENOENT. */
static int read_state(const struct collector *c, int fd, uint64_t start_ns, struct proc_state *ps)
{
	int err = bpf_map__lookup_elem(c->skel->maps.procs, &fd, sizeof(fd), ps, sizeof(*ps), 0);

	return !err && !state_is_live(ps, start_ns) ? -ENOENT : err;
}

/* The process's state goes into its leader's storage, through a pidfd: that holds the process
 * itself, so once its start is checked no later owner of the pid can be given the unit. A
 * process the kernel side already tracks (the child of a tracked process, registered as a
 * unit's root) keeps its figures so far; only its unit changes. A new state is only created,
 * never written over one the kernel side made meanwhile. */
int collector_track_pid(struct collector *c, uint32_t tgid, uint64_t start_ticks, uint64_t unit)
{
	const struct bpf_map *procs = c->skel->maps.procs;
	uint64_t start_ns = start_ticks * START_TICK_NS;
	struct proc_state ps;
	struct procfs_stat st;
	int fd = pidfd_open(tgid, 0), err;

	if (fd < 0)
		return -errno;
	if (procfs_read_stat(tgid, &st) < 0 || st.start_ticks != start_ticks) {
		err = -ESRCH; /* gone, and the pid is another process's now */
		goto out;
	}
	err = bpf_map__lookup_elem(procs, &fd, sizeof(fd), &ps, sizeof(ps), 0);
	if (err == -ENOENT) { /* not tracked: a new state */
		memset(&ps, 0, sizeof(ps));
		ps.proc.start_ns = start_ns;
		ps.proc.flags = TRACKED_PROC;
		ps.proc.unit = unit;
		ps.mark = new_mark(tgid, tgid); /* the leader's mark is in its state */
		err = bpf_map__update_elem(procs, &fd, sizeof(fd), &ps, sizeof(ps), BPF_NOEXIST);
		if (err != -EEXIST)
			goto out;
		/* the kernel side made one meanwhile: take that */
		err = bpf_map__lookup_elem(procs, &fd, sizeof(fd), &ps, sizeof(ps), 0);
	}
	if (err)
		goto out;
	if (!state_is_live(&ps, start_ns)) {
		err = -ESRCH; /* its exit has begun and waits in the state, which must stay */
		goto out;
	}
	ps.proc.unit = unit;
	if (ps.mark.tgid != tgid)
		ps.mark = new_mark(tgid, tgid);
	/* Written back whole: what the kernel side adds between the lookup and this (waits of
	 * threads running meanwhile) is lost. The registrant itself waits on this request. */
	err = bpf_map__update_elem(procs, &fd, sizeof(fd), &ps, sizeof(ps), BPF_EXIST);
out:
	close(fd);
	if (!err)
		mark_threads(c, tgid);
	return err;
}

static int proc_state_of(const struct collector *c, uint32_t tgid, uint64_t start_ns,
			 struct proc_state *ps)
{
	int fd, err;

	if (!c)
		return -ENODEV;
	if ((fd = pidfd_open(tgid, 0)) < 0)
		return -errno;
	err = read_state(c, fd, start_ns, ps);
	close(fd);
	return err;
}

int collector_proc_waits(const struct collector *c, uint32_t tgid, uint64_t start_ns,
			 struct proc_waits *out)
{
	struct proc_state ps;
	int err = proc_state_of(c, tgid, start_ns, &ps);

	if (!err)
		*out = ps.proc.w;
	return err;
}

uint64_t collector_proc_unit(const struct collector *c, uint32_t tgid, uint64_t start_ns)
{
	struct proc_state ps;

	return proc_state_of(c, tgid, start_ns, &ps) == 0 ? ps.proc.unit : 0;
}

int collector_has_net(const struct collector *c)
{
	return c && c->skel->bss->have_net;
}

int collector_untrack_pid(struct collector *c, uint32_t tgid)
{
	int fd = pidfd_open(tgid, 0), err;

	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	err = bpf_map__delete_elem(c->skel->maps.procs, &fd, sizeof(fd), 0);
	bpf_map__delete_elem(c->skel->maps.task_marks, &fd, sizeof(fd), 0);
	close(fd);
	return err == -ENOENT ? 0 : err;
}

int collector_track_cgroup(struct collector *c, uint64_t cgroup_id, uint64_t unit)
{
	int err = bpf_map__update_elem(c->skel->maps.tracked_cgroups, &cgroup_id, sizeof(cgroup_id),
				       &unit, sizeof(unit), BPF_ANY);

	if (!err)
		c->skel->bss->cgroup_tracking = 1;
	return err;
}

int collector_untrack_cgroup(struct collector *c, uint64_t cgroup_id)
{
	int err = bpf_map__delete_elem(c->skel->maps.tracked_cgroups, &cgroup_id, sizeof(cgroup_id),
				       0);

	return err == -ENOENT ? 0 : err;
}

int collector_set_subuids(struct collector *c, const struct subuid_owner *e, size_t n)
{
	uint32_t i, old = c->skel->bss->subuid_count;
	int err;

	if (n > SUBUID_MAP_MAX)
		return -EINVAL;
	if (!c->subuids && !(c->subuids = malloc(SUBUID_MAP_MAX * sizeof(*e))))
		return -ENOMEM;
	/* rewritten in place: a search meanwhile may find another owner, and the event it is for
	 * gives its bytes back to the slot it was charged to all the same (event_header.share) */
	__atomic_store_n(&c->skel->bss->subuid_count, old < n ? old : (uint32_t)n,
			 __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		if (c->subuids_known > i && !memcmp(&c->subuids[i], &e[i], sizeof(*e)))
			continue;
		if ((err = bpf_map__update_elem(c->skel->maps.subuid_ranges, &i, sizeof(i), &e[i],
						sizeof(e[i]), BPF_ANY)) < 0) {
			log_error("subordinate uid range %u to the kernel side: %s", i,
				  strerror(-err));
			c->subuids_known = i;
			return err;
		}
		c->subuids[i] = e[i];
	}
	if (c->subuids_known < n)
		c->subuids_known = n;
	__atomic_store_n(&c->skel->bss->subuid_lowest, n ? e[0].start : 0, __ATOMIC_RELEASE);
	__atomic_store_n(&c->skel->bss->subuid_count, (uint32_t)n, __ATOMIC_RELEASE);
	return 0;
}
