/* The units in memory: their list (no other file walks or changes it), and each unit's life
 * in it: new, tracked, ended, saved, dropped, freed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "clock.h"
#include "agent_internal.h"
#include "cgroup.h"
#include "cgroup_path.h"
#include "log.h"
#include "procfs.h"
#include "units.h"

/* Per-tool rows of a unit past its cap, at most, before further tools share one row ("(other
 * tools)", per exit status); a tool with a row already keeps its own */
#define FOLD_GROUPS_MAX 64

struct unit *units_find(struct agent *a, uint64_t id)
{
	struct unit *u;

	for (u = a->units; u; u = u->next)
		if (u->id == id && !u->dropped)
			return u;
	return NULL;
}

int units_admit(struct agent *a, uint32_t owner, char *err, size_t errlen)
{
	const struct unit *u;
	unsigned running = 0;

	for (u = a->units; u; u = u->next)
		running += u->owner_uid == owner && u->state == UNIT_RUNNING && !u->dropped &&
			   !strcmp(u->kind, UNIT_KIND_LOCAL);
	if (running >= a->cfg.max_units_per_user) {
		snprintf(err, errlen, "uid %u has %u traced runs running (MaxUnitsPerUser)", owner,
			 running);
		return -EAGAIN;
	}
	/* as many at once as may run at once, then UnitRatePerUser a second */
	if (quota_take(&a->run_quota, owner, a->cfg.unit_rate_per_user, a->cfg.max_units_per_user,
		       (int64_t)clock_boot_ns())) {
		snprintf(err, errlen,
			 "uid %u begins more than %u traced runs a second "
			 "(UnitRatePerUser)",
			 owner, a->cfg.unit_rate_per_user);
		return -EAGAIN;
	}
	return 0;
}

/* Create a running unit, keep it in memory; the caller stores it once it is filled in. */
struct unit *units_new(struct agent *a, const char *kind, const char *name, uid_t uid, gid_t gid)
{
	struct unit *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->id = a->next_unit_id++;
	snprintf(u->kind, sizeof(u->kind), "%s", kind);
	if (name && *name)
		snprintf(u->name, sizeof(u->name), "%s", name);
	else
		snprintf(u->name, sizeof(u->name), "run-%" PRIu64, u->id);
	u->uid = uid;
	u->owner_uid = uid; /* a traced run of a user namespace's: its owner (run_begin) */
	u->gid = gid;
	u->task_id = -1;
	u->array_task_id = -1;
	u->step_id = STEP_NONE;
	u->exit_status = -1;
	u->start_ns = clock_unix_ns();
	u->idle_since_ns = u->start_ns;
	u->state = UNIT_RUNNING;
	u->sample_peak_mcores = -1;
	u->done_whole = 1;
	cgroup_node_memory_pressure(&u->mem_pressure_at_start_us);
	u->next = a->units;
	a->units = u;
	return u;
}

struct unit *units_adopt(struct agent *a, const struct unit *stored)
{
	struct unit *u = malloc(sizeof(*u));

	if (!u)
		return NULL;
	*u = *stored;
	u->done_whole = 0; /* its processes stored before are not in done */
	u->next = a->units;
	a->units = u;
	u->live = 0;
	return u;
}

/* A process forked inside one unit and registered as the root of another (tracerctl run
 * inside a job): its table entry, made at fork under the parent's unit, moves with it. */
void units_move_proc(struct agent *a, struct proc *p, uint64_t to)
{
	struct unit *from, *u;

	if (p->unit == to)
		return;
	from = units_find(a, p->unit);
	if (from && from->live)
		from->live--;
	p->unit = to;
	if ((u = units_find(a, to)))
		u->live++;
}

/* Seed the tracked set with pid; its descendants follow in the kernel. */
int units_track_pid(struct agent *a, struct unit *u, pid_t pid)
{
	struct procfs_stat st;
	int err = procfs_read_stat(pid, &st);
	struct proc *p;

	if (err)
		return err == -ENOENT ? -ESRCH : err;
	if (st.state == 'Z' || st.state == 'X')
		return -ESRCH; /* its exit is past: nothing of it is left to trace */
	if (u->kernel_key && unit_key_start_ticks(u->kernel_key) != st.start_ticks)
		return -ESRCH; /* ended, and its pid is another process's now */
	/* through a pidfd checked against this start: should the process end from here on, what
	 * the kernel side holds of it ends with it, and no later owner of the pid gets the unit.
	 * One the kernel tracks under its key already runs, and is left as it is: rewriting its
	 * state would lose what the kernel adds to it meanwhile (its key stands for the unit). */
	if (!u->kernel_key ||
	    collector_proc_unit(a->collector, pid, st.start_ticks * a->tick_ns) != u->kernel_key) {
		err = collector_track_pid(a->collector, pid, st.start_ticks, u->id);
		if (err)
			return err;
	}
	u->root_pid = pid;
	u->root_start_ns = st.start_ticks * a->tick_ns;
	/* its fork may still be in the ring buffer: drain it first */
	collector_drain(a->collector);
	if ((p = proctable_find_pid(&a->procs, pid)) && p->start_ns / a->tick_ns == st.start_ticks)
		units_move_proc(a, p, u->id);
	return 0;
}

int units_track(struct agent *a, struct unit *u, pid_t pid)
{
	int r = pid ? units_track_pid(a, u, pid) : 0;

	/* a task registered in the kernel that ended before tracerd heard of it: what the
	 * kernel side recorded of it under its key is the unit's all the same */
	if (r == -ESRCH && u->kernel_key)
		r = 0;

	if (!r && u->cgroup_id) {
		r = collector_track_cgroup(a->collector, u->cgroup_id, u->id);
		/* undo the pid's; a refused pid left the kernel side's state as it was, and a task
		 * registered in the kernel was left as the kernel tracks it, or had ended (its pid
		 * may be another process's by now) */
		if (r && pid && !u->kernel_key)
			collector_untrack_pid(a->collector, pid);
	}
	return r;
}

/* A unit's cap on its rows in the store: StoreUnitMaxSize, and at most a quarter of
 * StoreMaxSize, so that one running unit cannot take the whole store from finished ones */
uint64_t units_store_cap(const struct agent *a)
{
	uint64_t cap = a->cfg.store_unit_max_bytes, quarter = a->cfg.store_max_bytes / 4;

	return quarter && quarter < cap ? quarter : cap;
}

/* A row the store made for a unit's processes past its cap (store_on_folded) */
void units_folded(struct agent *a, uint64_t unit, unsigned rows, size_t bytes)
{
	struct unit *u = units_find(a, unit);

	if (u) {
		u->fold_groups += rows;
		u->stored_bytes += bytes;
	}
}

int units_store_process(struct agent *a, struct unit *u, const struct proc *p)
{
	struct rec_row row;
	int r;

	/* filled once: stored, then added into the unit's sums, which storing leaves alone */
	rec_row_clear(&row);
	process_row_fill(p, NULL, a->offset_ns, &row);
	if (!u || u->stored_bytes < units_store_cap(a)) {
		r = store_add_process_row(a->store, p, &row);
		if (!r && u)
			u->stored_bytes += store_row_bytes(p);
	} else {
		if (!u->procs_folded)
			log_info("unit %" PRIu64 " (%s) holds %" PRIu64 " bytes of the store "
				 "(StoreUnitMaxSize): its further processes are counted per tool, "
				 "not listed",
				 u->id, u->name, u->stored_bytes);
		r = store_fold_process_row(a->store, p, &row, u->fold_groups >= FOLD_GROUPS_MAX);
		if (!r)
			u->procs_folded++;
	}
	/* its share and counts: its row is written on the next tick (units_flush), in that
	 * tick's one commit; an ended unit stays in memory until then (units_drop) */
	if (!r && u) {
		u->dirty = 1;
		process_row_sum(&row, &u->done);
	}
	return r;
}

int units_totals(const struct unit *u, struct json_object **out)
{
	struct json_object *o;

	if (!u->done_whole || u->unstored)
		return -ENODATA;
	if (!(o = process_row_sums_json(&u->done)))
		return -ENOMEM;
	/* the one sample figure its record gives before any round; its peaks are live_add_totals'
	 * to add from memory, once a round has made them, as they were over the store's */
	json_object_object_add(o, "sample_rounds", json_object_new_int64(u->sample_rounds));
	*out = o;
	return 0;
}

void units_store_sample(struct agent *a, struct unit *u, const struct proc *p, uint64_t now_ns)
{
	if (u && u->stored_bytes >= units_store_cap(a))
		return; /* its peaks are kept in its row all the same (housekeeping.c) */
	if (store_add_sample(a->store, p, now_ns, a->offset_ns) == 0 && u)
		u->stored_bytes += store_sample_bytes();
}

void units_store_stall_start(struct agent *a, struct unit *u, const struct proc *p)
{
	if (u->stall_starts >= UNITS_STALL_STARTS_MAX || u->stored_bytes >= units_store_cap(a))
		return;
	u->stall_starts++;
	if (store_add_stall_start(a->store, p, a->offset_ns) == 0)
		u->stored_bytes += STORE_STALL_START_BYTES;
}

unsigned units_job_live(const struct agent *a, uint64_t job_id)
{
	const struct unit *u;
	unsigned live = 0;

	for (u = a->units; u; u = u->next)
		if (u->job_id == job_id && u->state == UNIT_RUNNING)
			live += u->live;
	return live;
}

unsigned units_running(const struct agent *a)
{
	const struct unit *u;
	unsigned running = 0;

	for (u = a->units; u; u = u->next)
		running += u->state == UNIT_RUNNING && !u->dropped;
	return running;
}

/* The next unit is read before fn runs: fn may drop the one it has (not free it: see
 * units_reap), and a unit fn adds goes to the list's head, where the walk has been. */
int units_foreach(struct agent *a, units_fn fn, void *ctx)
{
	struct unit *u, *next;
	int r;

	for (u = a->units; u; u = next) {
		next = u->next;
		if (!u->dropped && (r = fn(u, ctx)))
			return r;
	}
	return 0;
}

int units_of_job(struct agent *a, uint64_t job_id, units_fn fn, void *ctx)
{
	struct unit *u, *next;
	int r;

	for (u = a->units; u; u = next) {
		next = u->next;
		if (!u->dropped && u->job_id == job_id && (r = fn(u, ctx)))
			return r;
	}
	return 0;
}

/* Idle windows and memory pressure over the unit's life, at its end (a step's last task
 * rereads its step's pressure, as its counters). */
static void end_activity(struct agent *a, struct unit *u)
{
	uint64_t us = 0;

	activity_end(&u->activity, clock_boot_ns(), units_idle_min_ns(a));
	u->idle_ns = u->activity.idle_ns;
	activity_windows_text(&u->activity, a->offset_ns, u->idle_windows, sizeof(u->idle_windows));
	if (u->idle_ns)
		log_debug("unit %llu: idle %.1f s in windows %s", (unsigned long long)u->id,
			  u->idle_ns / 1e9, u->idle_windows);
	if (cgroup_step_memory_pressure(u->cgroup_path, &us) == 0) {
		u->mem_pressure_us = us;
		snprintf(u->mem_pressure_scope, sizeof(u->mem_pressure_scope), "step");
	} else if (cgroup_node_memory_pressure(&us) == 0) {
		u->mem_pressure_us =
			us > u->mem_pressure_at_start_us ? us - u->mem_pressure_at_start_us : 0;
		snprintf(u->mem_pressure_scope, sizeof(u->mem_pressure_scope), "node");
	}
}

int units_end(struct agent *a, struct unit *u, int status, enum unit_state state)
{
	struct cgroup_counters cg;
	char step[sizeof(u->cgroup_path)];
	int has_step;

	if (u->state == UNIT_RUNNING) {
		u->end_ns = clock_unix_ns();
		u->state = state;
		u->exit_status = status;
		u->lost_events = collector_unit_lost(a->collector, u->id) + u->unstored;
		if (u->kernel_key) /* lost before tracerd linked its key */
			u->lost_events += collector_unit_lost(a->collector, u->kernel_key);
		if (u->cgroup_id)
			collector_untrack_cgroup(a->collector, u->cgroup_id);
	}
	/* the step's own counters, while its cgroup still exists: each task's end rereads
	 * them, so the last task of a step leaves the step's totals */
	has_step = u->cgroup_path[0] && cgroup_step_dir(u->cgroup_path, step, sizeof(step)) == 0;
	if (has_step && cgroup_step_counters(step, &cg) == 0) {
		u->cgroup_cpu_ns = cg.cpu_ns;
		u->cgroup_mem_peak_kb = cg.mem_peak_kb;
	}
	/* and the job's, which --mem limits: its steps at once, so far (the last task's end
	 * on the node reads the job's whole peak there) */
	if (has_step)
		(void)cgroup_job_mem_peak(step, &u->job_mem_peak_kb);
	end_activity(a, u);
	units_save(a, u);
	return 0;
}

/* A unit's record in the open batch: saved at its commit (units_committed). */
static int unit_write(struct agent *a, struct unit *u)
{
	int was = u->unsaved;

	u->unsaved = 1; /* before: a full batch is handed over within the write */
	if (store_put_unit(a->store, u)) {
		u->unsaved = was;
		u->dirty = 1;
		return -EIO;
	}
	u->dirty = 0;
	return 0;
}

void units_save(struct agent *a, struct unit *u)
{
	if (unit_write(a, u) == 0)
		store_commit_start(a->store);
}

void units_flush(struct agent *a)
{
	struct unit *u;

	/* in the tick's one commit: every running unit with new processes is here on each tick;
	 * one still unsaved by then was in a commit that failed */
	for (u = a->units; u; u = u->next)
		if ((u->dirty || u->unsaved) && unit_write(a, u))
			return; /* still failing: the next tick tries again */
}

void units_handed(struct agent *a)
{
	for (struct unit *u = a->units; u; u = u->next)
		if (u->unsaved == 1)
			u->unsaved = 2;
}

void units_committed(struct agent *a)
{
	struct unit *u;

	for (u = a->units; u; u = u->next) {
		if (u->unsaved != 2)
			continue;
		u->unsaved = 0;
		if (!u->dirty && u->state != UNIT_RUNNING && !u->live)
			units_drop(a, u);
	}
}

void units_drop(struct agent *a, struct unit *u)
{
	if (u->dirty || u->unsaved)
		return; /* kept until its record is committed: units_committed drops it */
	/* freed by units_reap, from the loop: a request handler walking the list, or a drain
	 * under one, never finds a unit freed under it */
	u->dropped = 1;
	a->ndropped++;
}

void units_reap(struct agent *a)
{
	struct unit **pp, *u;

	if (!a->ndropped)
		return;
	for (pp = &a->units; (u = *pp);) {
		if (u->dropped) {
			*pp = u->next;
			free(u);
		} else {
			pp = &u->next;
		}
	}
	a->ndropped = 0;
}

void units_free(struct agent *a)
{
	struct unit *u, *next;

	for (u = a->units; u; u = next) {
		next = u->next;
		free(u);
	}
	a->units = NULL;
	a->ndropped = 0;
}

/* The shortest idle window of a unit worth reporting: StallAfter (its default when stalls are
 * off). */
uint64_t units_idle_min_ns(const struct agent *a)
{
	return (uint64_t)(a->cfg.stall_after_ms ? a->cfg.stall_after_ms : STALL_AFTER_DEFAULT_MS) *
	       1000000;
}
