/* Rediscovery after a restart: the units the store says were running get their processes back
 * (by cgroup, and by the registered root and its descendants, if still the same process), the
 * kernel's tracked set is seeded again, and the time tracerd was away is written into them
 * (when no pin set kept the programs going meanwhile). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "agent_internal.h"
#include "argv.h"
#include "log.h"
#include "procfs.h"
#include "units.h"

struct rediscover_ctx {
	struct agent *a;
	struct unit *u;
	unsigned found;
};

/* Track a live process of a unit again and give it a table entry from /proc. */
static int adopt(pid_t pid, void *ctx)
{
	struct rediscover_ctx *rc = ctx;
	struct agent *a = rc->a;
	struct procfs_stat st;
	struct proc *p;
	char buf[EXEC_ARGV_MAX], exe[EXEC_PATH_MAX], *argv;
	ssize_t n;
	size_t len;
	int created, trunc = 0;

	if (procfs_read_stat(pid, &st) < 0 || st.state == 'Z' || st.state == 'X')
		return 0; /* a zombie's exit is past: tracking its pid would catch the next owner */
	if (collector_track_pid(a->collector, pid, st.start_ticks, rc->u->id) < 0)
		return 0;
	if (proctable_get(&a->procs, pid, st.start_ticks * a->tick_ns, &p, &created) < 0)
		return -ENOMEM;
	if (!created)
		return 0;
	p->unit = rc->u->id;
	p->ppid = st.ppid;
	p->flags |= PROC_REDISCOVERED | PROC_EXECED;
	procfs_read_uid(pid, &p->uid);
	memcpy(p->comm, st.comm, sizeof(p->comm));
	if (procfs_read_exe(pid, exe, sizeof(exe)) == 0)
		p->exe = strdup(exe);
	n = procfs_read_cmdline(pid, buf, sizeof(buf), &trunc);
	if (n > 0 && argv_redact(buf, n, &argv, &len) == 0) {
		p->argv = argv;
		p->argv_len = len;
		if (trunc)
			p->flags |= PROC_ARGV_TRUNCATED;
	}
	rc->u->live++;
	rc->found++;
	return 0;
}

static int rediscover_unit(const struct unit *stored, void *ctx)
{
	struct agent *a = ctx;
	struct rediscover_ctx rc = { .a = a };
	struct procfs_stat st;
	struct unit *u;

	u = units_adopt(a, stored);
	if (!u)
		return -ENOMEM;
	rc.u = u;
	if (u->cgroup_path[0])
		procfs_cgroup_procs(u->cgroup_path, adopt, &rc);
	if (u->cgroup_id)
		collector_track_cgroup(a->collector, u->cgroup_id, u->id);
	/* it ran while tracerd was away: its record has that gap, unless the pinned programs
	 * went on meanwhile (what the ring could not hold is counted in its Lost) */
	if (a->last_alive_ns > u->start_ns && !collector_took_over(a->collector)) {
		if (!u->down_start_ns)
			u->down_start_ns = a->last_alive_ns;
		u->down_end_ns = clock_unix_ns();
		store_put_unit(a->store, u);
	}
	if (u->root_pid && procfs_read_stat(u->root_pid, &st) == 0 &&
	    st.start_ticks == u->root_start_ns / a->tick_ns) {
		adopt(u->root_pid, &rc);
		procfs_descendants(u->root_pid, adopt, &rc);
	}
	log_info("unit %llu (%s): %u running processes found again", (unsigned long long)u->id,
		 u->name, rc.found);
	return 0;
}

static void commit(void *ctx)
{
	struct agent *a = ctx;

	store_commit(a->store);
}

int agent_rediscover(struct agent *a)
{
	int err;

	if (store_last_alive(a->store, &a->last_alive_ns) < 0)
		a->last_alive_ns = 0;
	store_close_stale_units(a->store);
	err = store_running_units(a->store, rediscover_unit, a);
	/* the units' processes tracked by this set's programs now: an older set's, of another
	 * layout, may stop */
	collector_retire(a->collector, commit, a);
	return err;
}
