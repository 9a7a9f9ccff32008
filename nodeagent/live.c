/* A running unit's live processes in the replies, beside its stored ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_internal.h"
#include "clock.h"
#include "live.h"
#include "process_row.h"
#include "procfs.h"
#include "units.h"

/* /proc is read afresh for this many processes of a request at most: the event loop stays
 * short whatever one user runs; the rest show their last periodic sample */
#define LIVE_FRESH_MAX 4096
/* ... and for a walk of every unit's (live_each), read on every scrape of the Prometheus
 * endpoint: its stat file only, some 10 us each */
#define LIVE_EACH_FRESH_MAX 1024

struct live_fig {
	const struct proc *p;
	struct proc_now now;
};

struct live_set {
	struct agent *a;
	uint64_t unit;
	long page_kb;
	struct live_fig *v;
	size_t n, cap;
	int err;
};

/* p's figures now: read from /proc when fresh (0, or -ESRCH when p is gone or its pid is
 * another process's), else its last sample; its peak (VmHWM) only if hwm */
static int read_now(struct agent *a, const struct proc *p, int fresh, int hwm, long page_kb,
		    struct proc_now *now)
{
	struct procfs_stat st;

	/* read now, and only if it is still the same process (not a reused pid) */
	if (fresh &&
	    (procfs_read_stat(p->pid, &st) < 0 || st.start_ticks != p->start_ns / a->tick_ns ||
	     st.state == 'Z' || st.state == 'X'))
		return -ESRCH;
	memset(now, 0, sizeof(*now));
	now->cpu_ns = fresh ? st.cpu_ticks * a->tick_ns : p->sample_cpu_ns;
	now->rss_kb = fresh ? st.rss_pages * page_kb : p->sample_rss_kb;
	if (!fresh || !hwm || procfs_read_hwm(p->pid, &now->hwm_kb) < 0)
		now->hwm_kb = 0;
	if (!fresh || collector_proc_waits(a->collector, p->pid, p->start_ns, &now->w) < 0)
		now->w = p->sample_w;
	now->net = collector_has_net(a->collector);
	process_row_command(&a->procs, a->rules, p, now);
	return 0;
}

static int take(struct proc *p, void *ctx)
{
	struct live_set *s = ctx;
	struct proc_now now;
	struct live_fig *f;

	if (p->unit != s->unit || (p->flags & PROC_FINISHED))
		return 0;
	if (read_now(s->a, p, s->n < LIVE_FRESH_MAX, 1, s->page_kb, &now) < 0)
		return 0;
	if (s->n == s->cap) {
		struct live_fig *nv =
			realloc(s->v, (s->cap = s->cap ? 2 * s->cap : 16) * sizeof(*nv));

		if (!nv) {
			s->err = -ENOMEM;
			return 1;
		}
		s->v = nv;
	}
	f = &s->v[s->n++];
	f->p = p;
	f->now = now;
	return 0;
}

/* The unit's live processes with fresh figures; none for a unit with none in memory. */
static int live_read(struct agent *a, uint64_t unit, struct live_set *s)
{
	const struct unit *u = units_find(a, unit);

	memset(s, 0, sizeof(*s));
	s->a = a;
	s->unit = unit;
	s->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	if (!u || !u->live)
		return 0;
	proctable_foreach(&a->procs, take, s);
	if (s->err) {
		free(s->v);
		s->v = NULL;
		s->n = 0;
	}
	return s->err;
}

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static int64_t get_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static void row_of(struct agent *a, const struct live_fig *f, struct rec_row *r)
{
	memset(r, 0, sizeof(*r));
	process_row_fill(f->p, &f->now, a->offset_ns, r);
}

int live_add_processes(struct agent *a, uint64_t unit, struct json_object *rows)
{
	struct live_set s;
	struct rec_row r;
	int err = live_read(a, unit, &s);

	for (size_t i = 0; i < s.n && !err; i++) {
		struct json_object *o;

		row_of(a, &s.v[i], &r);
		o = store_process_json(&r);
		if (o) {
			const struct proc *p = s.v[i].p;

			add_int(o, "rss_kb", s.v[i].now.rss_kb); /* now, beside the peak */
			json_object_object_add(o, "running", json_object_new_boolean(1));
			if (p->sample_ns) { /* its storage I/O at its last sample */
				add_int(o, "read_bytes", (int64_t)p->sample_read_bytes);
				add_int(o, "write_bytes", (int64_t)p->sample_write_bytes);
			}
			if (p->stall.open_start_ns) { /* a stall under way (stalls.h) */
				add_int(o, "stalled_since_ns",
					(int64_t)p->stall.open_start_ns + a->offset_ns);
				json_object_object_add(
					o, "stalled_reason",
					json_object_new_string(p->stall.open_reason));
			}
		}
		if (!o || json_object_array_add(rows, o) < 0) {
			json_object_put(o);
			err = -ENOMEM;
		}
	}
	free(s.v);
	return err;
}

/* one live process into the tool rows: its tool's row, or a new one */
static int add_to_tool(struct agent *a, struct json_object *rows, const struct live_fig *f)
{
	struct json_object *row, *sc = NULL;
	struct rec_row r;
	char counts[512];
	int err;

	if (f->now.tool.excluded) /* running plumbing has not failed: kept out as stored */
		return 0;
	row_of(a, f, &r);
	err = process_row_add_tools(&r, rows, &row);
	if (err)
		return err;
	add_int(row, "running", get_int(row, "running") + 1);
	/* no exit code yet: counted as unknown, so that the codes add up to NProcs */
	json_object_object_get_ex(row, "status_counts", &sc);
	snprintf(counts, sizeof(counts), "%s%s:1", sc ? json_object_get_string(sc) : "",
		 sc ? "," : "");
	json_object_object_add(row, "status_counts", json_object_new_string(counts));
	return 0;
}

int live_add_tools(struct agent *a, uint64_t unit, struct json_object *rows)
{
	struct live_set s;
	int err = live_read(a, unit, &s);

	for (size_t i = 0; i < s.n && !err; i++)
		err = add_to_tool(a, rows, &s.v[i]);
	free(s.v);
	return err;
}

int live_add_totals(struct agent *a, uint64_t unit, struct json_object *totals)
{
	struct live_set s;
	const struct proc *stalled = NULL;
	const struct unit *u = units_find(a, unit);
	struct rec_row r;
	int err;

	if (u && u->sample_rounds) { /* its live-sample figures so far (the store has its start) */
		add_int(totals, "sample_rounds", u->sample_rounds);
		if (u->sample_peak_mcores >= 0) /* a process sampled twice: cores busy known */
			json_object_object_add(
				totals, "peak_cores",
				json_object_new_double((double)u->sample_peak_mcores / 1000.0));
		add_int(totals, "peak_sampled_rss_kb", u->sample_peak_rss_kb);
	}
	/* idle now, as long as an idle window needs (activity.h): since when */
	if (u && u->activity.idle_since_ns &&
	    clock_boot_ns() - u->activity.idle_since_ns >= units_idle_min_ns(a))
		add_int(totals, "idle_since_ns", (int64_t)u->activity.idle_since_ns + a->offset_ns);
	err = live_read(a, unit, &s);
	if (err || !s.n)
		return err;
	for (size_t i = 0; i < s.n; i++) {
		const struct proc *p = s.v[i].p;

		row_of(a, &s.v[i], &r);
		process_row_add_totals(&r, totals);
		if (p->stall.open_start_ns &&
		    (!stalled || p->stall.open_start_ns < stalled->stall.open_start_ns))
			stalled = p;
	}
	if (stalled) { /* the longest stall under way */
		add_int(totals, "stalled_pid", stalled->pid);
		json_object_object_add(totals, "stalled_tool",
				       json_object_new_string(stalled->comm));
		add_int(totals, "stalled_since_ns",
			(int64_t)stalled->stall.open_start_ns + a->offset_ns);
		json_object_object_add(totals, "stalled_reason",
				       json_object_new_string(stalled->stall.open_reason));
	}
	add_int(totals, "running_procs", (int64_t)s.n);
	free(s.v);
	return 0;
}

struct stalled_set {
	struct agent *a;
	uint32_t uid;
	unsigned max;
	struct json_object *rows;
};

static int take_stalled(struct proc *p, void *ctx)
{
	struct stalled_set *s = ctx;
	const struct unit *u;
	struct json_object *o;

	if (!p->stall.open_start_ns || (p->flags & PROC_FINISHED))
		return 0;
	u = units_find(s->a, p->unit);
	if (!u || (s->uid != ANY_UID && u->uid != s->uid))
		return 0;
	if (json_object_array_length(s->rows) >= s->max)
		return 1;
	o = json_object_new_object();
	if (!o || json_object_array_add(s->rows, o) < 0) {
		json_object_put(o);
		return 1;
	}
	add_int(o, "unit", (int64_t)u->id);
	json_object_object_add(o, "name", json_object_new_string(u->name));
	if (u->job_id)
		add_int(o, "job_id", (int64_t)u->job_id);
	add_int(o, "pid", p->pid);
	json_object_object_add(o, "comm", json_object_new_string(p->comm));
	add_int(o, "since_ns", (int64_t)p->stall.open_start_ns + s->a->offset_ns);
	json_object_object_add(o, "reason", json_object_new_string(p->stall.open_reason));
	return 0;
}

struct json_object *live_stalled(struct agent *a, uint32_t uid, unsigned max)
{
	struct stalled_set s = { a, uid, max, json_object_new_array() };

	if (s.rows)
		proctable_foreach(&a->procs, take_stalled, &s);
	return s.rows;
}

struct each_set {
	struct agent *a;
	live_fn fn;
	void *ctx;
	long page_kb;
	unsigned fresh;
	int err;
};

static int each(struct proc *p, void *ctx)
{
	struct each_set *s = ctx;
	const struct unit *u;
	struct proc_now now;
	struct rec_row r;

	if (p->flags & PROC_FINISHED)
		return 0;
	u = units_find(s->a, p->unit);
	if (!u || u->state != UNIT_RUNNING)
		return 0;
	if (read_now(s->a, p, s->fresh < LIVE_EACH_FRESH_MAX, 0, s->page_kb, &now) < 0)
		return 0;
	s->fresh++;
	memset(r.set, 0, sizeof(r.set));
	process_row_fill(p, &now, s->a->offset_ns, &r);
	return (s->err = s->fn(u, &r, &now, s->ctx));
}

int live_each(struct agent *a, live_fn fn, void *ctx)
{
	struct each_set s = { a, fn, ctx, sysconf(_SC_PAGESIZE) / 1024, 0, 0 };

	proctable_foreach(&a->procs, each, &s);
	return s.err;
}

int live_add_rows(struct agent *a, const char *key, uint64_t unit, struct json_object *rows)
{
	if (strcmp(key, "processes") == 0)
		return live_add_processes(a, unit, rows);
	if (strcmp(key, "tools") == 0)
		return live_add_tools(a, unit, rows);
	return 0;
}
