/* Kernel events → process table → store; the agent's life cycle, its tool rules, and what
 * the rest of tracerd may know of it (agent.h). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "agent_internal.h"
#include "cgroup.h"
#include "export.h"
#include "argv.h"
#include "live.h"
#include "pindir.h"
#include "log.h"
#include "procfs.h"
#include "process_row.h"
#include "protocol.h"
#include "units.h"

/* The store lost processes of unit (disk full): counted in its Lost, its record written again. */
static void store_loss(void *ctx, uint64_t id, uint32_t n)
{
	struct agent *a = ctx;
	struct unit *u = units_find(a, id);

	if (!u) {
		a->unstored += n;
		return;
	}
	u->unstored += n;
	if (u->state != UNIT_RUNNING) {
		u->lost_events += n;
		u->dirty = 1;
	}
}

/* ---- events */

static void set_command(struct proc *p, const struct exec_event *e, size_t argv_len)
{
	char *argv;
	size_t len;

	free(p->exe);
	p->exe = strndup(e->path, sizeof(e->path));
	memcpy(p->comm, e->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = 0;
	if (argv_redact(e->argv, argv_len, &argv, &len) == 0) {
		free(p->argv);
		p->argv = argv;
		p->argv_len = len;
	}
	p->flags |= PROC_EXECED;
	p->elsewhere = ELSEWHERE_UNKNOWN;
	if (e->flags & EXEC_ARGV_TRUNCATED)
		p->flags |= PROC_ARGV_TRUNCATED;
	else
		p->flags &= ~PROC_ARGV_TRUNCATED;
}

static struct proc *get_proc(struct agent *a, const struct event_header *h)
{
	uint64_t unit = registry_unit(a, h->unit);
	struct proc *p;
	struct unit *u;
	int created;

	if (proctable_get(&a->procs, h->pid, h->start_ns, &p, &created) < 0) {
		log_error("out of memory: process %u not recorded", h->pid);
		return NULL;
	}
	if (created) {
		p->unit = unit;
		u = units_find(a, unit);
		/* until its fork or exec says otherwise (they may have been refused or lost, and
		 * an exit carries no uid): a process of a unit runs as the unit's user, the one
		 * whose tree the kernel side followed to it, never as root by default */
		if (u) {
			u->live++;
			p->uid = u->uid;
			p->gid = u->gid;
		}
	} else if (unit && unit != p->unit) {
		units_move_proc(a, p, unit); /* registered as another unit's root since its fork */
	}
	return p;
}

static uint64_t minus(uint64_t v, uint64_t base)
{
	return v > base ? v - base : 0;
}

static void finish_proc(struct agent *a, struct proc *p, const struct exit_event *e)
{
	struct unit *u = units_find(a, p->unit);

	if (u) /* its work since its last sample, for the unit's idle windows */
		activity_exit(&u->activity, e->h.time_ns,
			      minus(e->runtime_ns + e->w.iowait_ns,
				    p->sample_cpu_ns + p->sample_w.iowait_ns));

	stall_close(&p->stall, e->h.time_ns);
	process_row_finish(&a->procs, a->rules, p, e);
	/* of a task registered in the kernel, before its unit: held to its bounds (registry.h) */
	if ((u || registry_hold(a, p->unit, store_row_bytes(p))) &&
	    units_store_process(a, u, p) == 0)
		a->stored++;
	if (u && p->stall.ns) {
		u->stalls++;
		if (p->stall.ns > u->stall_ns) { /* the unit's record names its longest */
			u->stall_pid = p->pid;
			snprintf(u->stall_tool, sizeof(u->stall_tool), "%s", p->tool.name);
			u->stall_start_ns = (int64_t)p->stall.start_ns + a->offset_ns;
			u->stall_ns = p->stall.ns;
			snprintf(u->stall_reason, sizeof(u->stall_reason), "%s", p->stall.reason);
		}
	}
	if (u) {
		u->finished++;
		if (u->live && !--u->live)
			u->idle_since_ns = clock_unix_ns();
	}
	proctable_remove(&a->procs, p);
	if (u && u->state != UNIT_RUNNING && !u->live)
		units_drop(a, u); /* ended earlier, waited for its last process */
}

void agent_close_lost(struct agent *a, struct proc *p)
{
	struct exit_event e;

	memset(&e, 0, sizeof(e));
	e.h.type = EVENT_EXIT;
	e.h.pid = p->pid;
	e.h.start_ns = p->start_ns;
	e.h.unit = p->unit;
	e.h.time_ns = clock_boot_ns();
	e.status = -1;
	e.runtime_ns = p->sample_cpu_ns;
	e.read_bytes = p->sample_read_bytes;
	e.write_bytes = p->sample_write_bytes;
	e.flags = EXIT_PEAK_UNREAD | EXIT_NO_WAITS | EXIT_NO_NET; /* MaxRSS from the last sample */
	memcpy(e.comm, p->comm, sizeof(e.comm));
	p->flags |= PROC_EXIT_LOST;
	finish_proc(a, p, &e);
}

/* events[] counts as the kernel side's stats do: by STAT_*, not by the event's type number */
static const enum stat_index stat_of_event[] = {
	[EVENT_FORK] = STAT_FORK,
	[EVENT_EXEC] = STAT_EXEC,
	[EVENT_EXIT] = STAT_EXIT,
	[EVENT_OOM] = STAT_OOM,
};

int agent_on_event(void *ctx, const void *data, size_t size)
{
	struct agent *a = ctx;
	const struct event_header *h = data;
	struct proc *p;

	if (size < sizeof(*h) || h->type < EVENT_FORK || h->type > EVENT_OOM)
		goto bad;
	/* sent twice while two programs are attached to a tracepoint (finished.h); a process in
	 * the table first, which most events are of: the table is in the cache, the finished
	 * keys seldom are */
	if (h->type != EVENT_OOM && !proctable_find(&a->procs, h->pid, h->start_ns) &&
	    finished_has(&a->finished, h->pid, h->start_ns)) {
		a->finished.repeats++;
		return 0;
	}
	switch (h->type) {
	case EVENT_FORK: {
		const struct fork_event *e = data;

		if (size < sizeof(*e))
			goto bad;
		p = get_proc(a, h);
		if (p) {
			struct proc *parent =
				proctable_find(&a->procs, e->ppid, e->parent_start_ns);

			p->ppid = e->ppid;
			p->uid = e->uid;
			/* the parent's span holds the child's, where the same unit's */
			if (parent && parent->unit == p->unit)
				p->parent_start_ns = e->parent_start_ns;
			/* now: the parent may be gone by the child's exit */
			proctable_inherit_command(p, parent);
		}
		break;
	}
	case EVENT_EXEC: {
		const struct exec_event *e = data;
		size_t fixed = offsetof(struct exec_event, argv);

		if (size < fixed || e->argv_len > sizeof(e->argv) || size < fixed + e->argv_len)
			goto bad;
		p = get_proc(a, h);
		if (p) {
			p->ppid = e->ppid;
			p->uid = e->uid;
			p->gid = e->gid;
			p->cgroup_id = e->cgroup_id;
			p->exec_ns = h->time_ns;
			if (!(p->flags & PROC_EXECED))
				p->base = e->base;
			set_command(p, e, e->argv_len);
		}
		break;
	}
	case EVENT_EXIT: {
		const struct exit_event *e = data;

		if (size < sizeof(*e))
			goto bad;
		p = get_proc(a, h);
		if (p) {
			finished_prefetch(&a->finished, h->pid, h->start_ns);
			finish_proc(a, p, e);
			finished_add(&a->finished, h->pid, h->start_ns);
		}
		break;
	}
	case EVENT_OOM: {
		const struct oom_event *e = data;

		if (size < sizeof(*e))
			goto bad;
		/* every OOM kill on the node comes: those of processes held here are the units' */
		p = proctable_find_pid(&a->procs, e->victim_tid);
		if (!p)
			break;
		log_warn("OOM killer chose pid %u (%s) of unit %llu, anon-rss %llukB",
			 e->victim_tid, p->comm, (unsigned long long)p->unit,
			 (unsigned long long)e->anon_rss_kb);
		p->flags |= PROC_OOM_KILLED;
		/* a reading of its program's image (after its first exec; before, the image is
		 * the parent's copy): the reaper may empty it before the victim's own exit */
		if (p->flags & PROC_EXECED)
			p->oom_rss_kb = e->anon_rss_kb + e->file_rss_kb + e->shmem_rss_kb;
		break;
	}
	}
	a->events[stat_of_event[h->type]]++;
	/* the store's next batch is full while it commits one: the next events wait in the ring */
	return store_full(a->store) ? -EBUSY : 0;
bad:
	a->bad_events++;
	log_warn("malformed event (%zu bytes) ignored", size);
	return 0;
}

static int forget_elsewhere(struct proc *p, void *ctx)
{
	(void)ctx;
	p->elsewhere = ELSEWHERE_UNKNOWN;
	return 0;
}

int agent_load_rules(struct agent *a, const char *path)
{
	struct tool_rules *rules = NULL, *local = NULL;
	char err[512] = "";
	size_t builtin, n = 0;
	int e;

	/* parsed afresh each time: the file's rules are appended to a set of their own */
	if ((e = tool_rules_builtin(&rules, err, sizeof(err))) < 0) {
		log_error("built-in tool rules: %s", err[0] ? err : strerror(-e));
		goto cleanup;
	}
	builtin = tool_rules_count(rules);
	e = tool_rules_load(path, &local, err, sizeof(err));
	if (e == -ENOENT) {
		/* no local rules is a normal setup: the built-in ones are complete */
		if (strcmp(path, TRACER_TOOL_RULES_DEFAULT) == 0)
			log_info("no local tool rules at %s: the %zu built-in rules", path,
				 builtin);
		else
			log_warn("ToolRules %s: the %zu built-in rules only", err, builtin);
		e = 0;
	} else if (e == 0) {
		n = tool_rules_count(local);
		err[0] = 0;
		if ((e = tool_rules_append(rules, local)) == 0) {
			local = NULL;
			log_info("%zu tool rules from %s after the %zu built-in ones", n, path,
				 builtin);
		}
	}
	if (e < 0) {
		log_error("tool rules refused, %s: %s",
			  a->rules ? "the rules in force stay" : "tracerd stops",
			  err[0] ? err : strerror(-e));
		goto cleanup;
	}
	tool_rules_free(a->rules);
	a->rules = rules;
	rules = NULL;
	proctable_foreach(&a->procs, forget_elsewhere, NULL); /* named again by the new rules */
cleanup:
	tool_rules_free(local);
	tool_rules_free(rules);
	return e;
}

/* ---- life cycle */

static void store_committed(void *ctx)
{
	struct agent *a = ctx;

	collector_release_to(a->collector, a->handed);
	units_committed(a);
	exporter_set_head(a->exporter, store_export_head(a->store));
}

/* What the events read so far became is the batch handed to the store's thread */
static void store_handover(void *ctx)
{
	struct agent *a = ctx;

	a->handed = collector_mark(a->collector);
	units_handed(a);
}

static void store_folded(void *ctx, uint64_t unit, unsigned rows, size_t bytes)
{
	units_folded(ctx, unit, rows, bytes);
}

void agent_hook_store(struct agent *a)
{
	store_on_commit(a->store, store_committed, store_handover, a);
	store_on_folded(a->store, store_folded, a);
}

static int agent_init(struct agent *a, const struct tracer_config *cfg, const char *node)
{
	struct collector_opts o = { .ring_bytes = cfg->ring_buffer_bytes,
				    .btf_path = cfg->btf_path };
	struct passwd *pw;
	char dir[PATH_MAX], pins[PATH_MAX];
	int err;

	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	snprintf(a->node, sizeof(a->node), "%s", node);
	a->offset_ns = clock_unix_ns() - (int64_t)clock_boot_ns();
	clock_unix_offset(&a->offset_ns); /* a whole reading if it is one (each tick reads again) */
	a->started_ns = clock_unix_ns();
	a->subuid_gen = UINT64_MAX;
	a->tick_ns = procfs_tick_ns();
	pw = getpwnam(cfg->slurm_user);
	a->slurm_uid = pw ? pw->pw_uid : (uid_t)-1;
	err = procfs_boot_id(a->boot_id, sizeof(a->boot_id));
	if (err) {
		log_error("cannot read the boot id: %s", strerror(-err));
		return err;
	}
	err = topology_load(&a->topology);
	if (err)
		log_warn("hwloc cannot read this node's topology (%s): no rightsizing facts",
			 strerror(-err));
	a->have_topology = !err;
	err = agent_load_rules(a, cfg->tool_rules);
	if (err)
		return err;
	err = proctable_init(&a->procs, a->tick_ns);
	if (err)
		return err;
	err = finished_init(&a->finished);
	if (err)
		return err;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", cfg->state_dir, node) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (mkdir(cfg->state_dir, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		log_error("cannot create %s: %m", cfg->state_dir);
		return err;
	}
	err = store_open(&a->store, dir, a->boot_id);
	if (err)
		return err;
	store_on_loss(a->store, store_loss, a);
	err = store_next_unit_id(a->store, &a->next_unit_id);
	if (err)
		return err;
	/* what outlives tracerd is pinned there; without it, it goes with tracerd */
	if (pindir_open(cfg, node, pins, sizeof(pins), a->registry, sizeof(a->registry)) == 0)
		o.pin_dir = pins;
	err = collector_open(&a->collector, &o, agent_on_event, a);
	if (err)
		return err;
	/* what an older set's ring held, recorded at once: that ring is gone */
	store_commit(a->store);
	agent_hook_store(a);
	registry_open(a);
	return 0;
}

static void agent_fini(struct agent *a)
{
	int i;

	/* what the ring holds at the end, for a second at most: a storm may not end */
	for (i = 0; a->collector && i < 1000 / COLLECTOR_DRAIN_BUDGET_MS; i++) {
		agent_drain(a);
		store_settle(a->store); /* a commit the drain handed over */
		if (!collector_drain_more(a->collector))
			break;
	}
	if (a->store && a->collector) {
		store_commit(a->store); /* releases what the ring handed (store_committed) */
		collector_release(a->collector);
		store_on_commit(a->store, NULL, NULL, NULL);
	}
	if (a->collector && a->unpin_at_stop)
		collector_unpin_at_close(a->collector);
	collector_close(a->collector);
	if (a->unpin_at_stop)
		pindir_remove(&a->cfg, a->node);
	if (a->store)
		store_set_alive(a->store, clock_unix_ns()); /* away from now on */
	store_close(a->store);
	proctable_free(&a->procs);
	finished_free(&a->finished);
	tool_rules_free(a->rules);
	units_free(a);
	memset(a, 0, sizeof(*a));
}

int agent_new(struct agent **out, const struct tracer_config *cfg, const char *node)
{
	struct agent *a = calloc(1, sizeof(*a));
	int err;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	err = agent_init(a, cfg, node);
	if (err) {
		agent_fini(a); /* what was set up before the failure */
		free(a);
		return err;
	}
	*out = a;
	return 0;
}

void agent_free(struct agent *a)
{
	if (!a)
		return;
	agent_fini(a);
	free(a);
}

void agent_set_exporter(struct agent *a, struct exporter *e)
{
	a->exporter = e;
	store_set_export_floor(a->store, exporter_floor(e));
	exporter_set_head(e, store_export_head(a->store));
}

void agent_set_metrics_status(struct agent *a, agent_status_fn fn, const void *ctx)
{
	a->metrics_status = fn;
	a->metrics_status_ctx = ctx;
}

void agent_reload(struct agent *a, const struct tracer_config *cfg)
{
	if (strcmp(cfg->socket_dir, a->cfg.socket_dir) ||
	    strcmp(cfg->state_dir, a->cfg.state_dir) || strcmp(cfg->pin_dir, a->cfg.pin_dir) ||
	    cfg->ring_buffer_bytes != a->cfg.ring_buffer_bytes)
		log_warn("SocketDir, StateDir, PinDir and RingBufferSize change only at restart");
	if (strcmp(cfg->metrics_listen, a->cfg.metrics_listen))
		log_warn("MetricsListen changes only at restart");
	a->cfg.sample_interval_ms = cfg->sample_interval_ms;
	a->cfg.stall_after_ms = cfg->stall_after_ms;
	a->cfg.commit_interval_ms = cfg->commit_interval_ms;
	a->cfg.housekeeping_ms = cfg->housekeeping_ms;
	a->cfg.orphan_after_ms = cfg->orphan_after_ms;
	a->cfg.log_level = cfg->log_level;
	log_set_level(cfg->log_level);
	agent_load_rules(a, cfg->tool_rules);
}

/* ---- what the loop, the requests and the server may know of the agent */

int agent_events_fd(const struct agent *a)
{
	return collector_fd(a->collector);
}

/* An event's ring space is given back once what it became is on disk: at once when it wrote
 * nothing (nothing is pending or committing), else at the commit of the batch it went in
 * (store_committed), which comes early when the ring fills with what waits for it. While the
 * store commits one batch and the next is full, the events wait in the ring. */
void agent_drain(struct agent *a)
{
	if (store_full(a->store))
		return;
	collector_drain(a->collector);
	if (!store_pending(a->store) && !store_busy(a->store))
		collector_release(a->collector);
	else if (collector_held_much(a->collector))
		store_commit_start(a->store); /* unless one runs */
}

int agent_drain_more(const struct agent *a)
{
	return collector_drain_more(a->collector) && !store_full(a->store);
}

int agent_commit_fd(const struct agent *a)
{
	return store_commit_fd(a->store);
}

void agent_commit_ended(struct agent *a)
{
	store_settle(a->store);
}

void agent_request_stop(struct agent *a, int unpin)
{
	a->stop_requested = 1;
	a->unpin_at_stop = unpin;
}

int agent_stop_requested(const struct agent *a)
{
	return a->stop_requested;
}

const char *agent_node(const struct agent *a)
{
	return a->node;
}

const struct tracer_config *agent_config(const struct agent *a)
{
	return &a->cfg;
}

struct store *agent_store(struct agent *a)
{
	return a->store;
}

int64_t agent_offset_ns(const struct agent *a)
{
	return a->offset_ns;
}

int agent_is_admin(const struct agent *a, const struct peer *peer)
{
	return peer->uid == 0 || peer->uid == a->slurm_uid;
}

#define STATUS_STALLED_MAX 32 /* a status stays short: the rest are in the units' listings */
#define STATUS_SHARES_MAX 5   /* users shown with their share of the store, the most first */

struct json_object *agent_status_json(struct agent *a, const struct peer *peer)
{
	struct json_object *r = proto_reply_ok(), *sigs = json_object_new_array(), *ev, *reg, *exp;
	const struct collector_signal *s;
	uint64_t st[STAT_MAX] = {};
	size_t i, n;

	collector_stats(a->collector, st);
	n = collector_signals(a->collector, &s);
	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(s[i].name));
		json_object_object_add(o, "available", json_object_new_boolean(s[i].available));
		json_object_object_add(o, "provides", json_object_new_string(s[i].provides));
		if (!s[i].available)
			json_object_object_add(o, "reason", json_object_new_string(s[i].reason));
		if (s[i].unneeded)
			json_object_object_add(o, "needed", json_object_new_boolean(0));
		json_object_array_add(sigs, o);
	}
	ev = json_object_new_object();
	json_object_object_add(ev, "fork", json_object_new_int64(st[STAT_FORK]));
	json_object_object_add(ev, "exec", json_object_new_int64(st[STAT_EXEC]));
	json_object_object_add(ev, "exit", json_object_new_int64(st[STAT_EXIT]));
	json_object_object_add(ev, "oom", json_object_new_int64(st[STAT_OOM]));
	json_object_object_add(ev, "lost", json_object_new_int64(st[STAT_LOST]));
	json_object_object_add(ev, "refused", json_object_new_int64(st[STAT_REFUSED]));
	/* processes a full disk kept out of the store, of units already gone from memory */
	json_object_object_add(ev, "unstored", json_object_new_int64(a->unstored));
	json_object_object_add(ev, "malformed", json_object_new_int64(a->bad_events));
	/* subordinate uid ranges whose events are charged to their owners (ring_owners.c) */
	json_object_object_add(ev, "subuid_ranges", json_object_new_int64(a->subuid_entries));
	json_object_object_add(ev, "subuid_ranges_left_out",
			       json_object_new_int64(a->subuid_left_out));
	json_object_object_add(r, "node", json_object_new_string(a->node));
	json_object_object_add(r, "pid", json_object_new_int(getpid()));
	json_object_object_add(r, "started_ns", json_object_new_int64(a->started_ns));
	json_object_object_add(r, "boot_id", json_object_new_string(a->boot_id));
	json_object_object_add(r, "signals", sigs);
	reg = json_object_new_object();
	json_object_object_add(reg, "pinned", json_object_new_boolean(a->registry_pinned));
	json_object_object_add(reg, a->registry_pinned ? "path" : "reason",
			       json_object_new_string(a->registry));
	json_object_object_add(r, "kernel_registration", reg);
	json_object_object_add(r, "events", ev);
	json_object_object_add(r, "live_processes", json_object_new_int64(a->procs.count));
	json_object_object_add(r, "running_units", json_object_new_int64(units_running(a)));
	json_object_object_add(r, "stored_processes", json_object_new_int64(a->stored));
	/* an admin sees the users who hold the most, a user their own share */
	json_object_object_add(r, "store",
			       store_shares(a->store,
					    agent_is_admin(a, peer) ? ANY_UID : peer->owner,
					    STATUS_SHARES_MAX));
	/* the caller's own, as every listing: another user's commands are not theirs to see */
	json_object_object_add(
		r, "stalled",
		live_stalled(a, agent_is_admin(a, peer) ? ANY_UID : peer->uid, STATUS_STALLED_MAX));
	if (a->have_topology)
		json_object_object_add(r, "topology", topology_to_json(&a->topology));
	exp = exporter_status_json(a->exporter);
	json_object_object_add(exp, "dropped",
			       json_object_new_int64((int64_t)store_export_dropped(a->store)));
	json_object_object_add(r, "export", exp);
	if (a->metrics_status)
		json_object_object_add(r, "metrics", a->metrics_status(a->metrics_status_ctx));
	return r;
}
