/* The Prometheus endpoint's exposition (metrics.h): the node's health, the export stage's
 * delivery, and the running units' figures as a snapshot gives them (metrics.c decides them). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "clock.h"
#include "metrics.h"
#include "slurm_ids.h"
#include "units.h"

struct scrape {
	struct agent *a;
	const struct metrics_snapshot *s;
	uint64_t cut; /* series left out: past the caps, or past the reply's bound */
};

static struct {
	metrics_export_fn fn;
	void *ctx;
} export_hook;

void metrics_set_export(metrics_export_fn fn, void *ctx)
{
	export_hook.fn = fn;
	export_hook.ctx = ctx;
}

/* ---- writing */

#define NODE_LABEL(a)             \
	{                         \
		"node", (a)->node \
	}

static int family(struct prom_buf *b, const char *name, const char *type, const char *help)
{
	return prom_family(b, name, type, help);
}

static int node_value(struct prom_buf *b, struct agent *a, const char *name, const char *type,
		      const char *help, double v)
{
	struct prom_label l[] = { NODE_LABEL(a) };

	return family(b, name, type, help) ?: prom_sample(b, name, l, 1, v);
}

static int write_node(struct prom_buf *b, struct agent *a, const struct metrics_serving *sv)
{
	static const char *const kinds[] = {
		[STAT_FORK] = "fork", [STAT_EXEC] = "exec", [STAT_EXIT] = "exit", [STAT_OOM] = "oom"
	};
	uint64_t st[STAT_MAX] = { 0 }, used = 0;
	int r;

	if (a->collector) /* none in the unit tests */
		collector_stats(a->collector, st);
	r = family(b, "tracer_events_total", "counter",
		   "Kernel events of tracked processes recorded, by kind.");
	for (unsigned i = STAT_FORK; !r && i <= STAT_OOM; i++) {
		struct prom_label l[] = { NODE_LABEL(a), { "event", kinds[i] } };

		r = prom_sample(b, "tracer_events_total", l, 2, (double)st[i]);
	}
	if (!r)
		r = node_value(b, a, "tracer_events_lost_total", "counter",
			       "Events the kernel side could not record (ring buffer full, or "
			       "refused to a user holding too much of it).",
			       (double)st[STAT_LOST]);
	if (!r)
		r = node_value(b, a, "tracer_events_refused_total", "counter",
			       "Of the lost events, those refused to a user holding more than a "
			       "fair share of the ring buffer.",
			       (double)st[STAT_REFUSED]);
	if (!r)
		r = node_value(b, a, "tracer_events_malformed_total", "counter",
			       "Malformed records read from the ring buffer.",
			       (double)a->bad_events);
	if (!r && store_used_bytes(a->store, &used) == 0)
		r = node_value(b, a, "tracer_store_bytes", "gauge",
			       "Bytes of the store's pages in use.", (double)used);
	if (!r)
		r = node_value(b, a, "tracer_processes_stored_total", "counter",
			       "Processes stored since tracerd started.", (double)a->stored);
	if (!r)
		r = node_value(b, a, "tracer_processes_tracked", "gauge",
			       "Tracked processes alive now.", (double)a->procs.count);
	if (!r)
		r = node_value(b, a, "tracer_units_running", "gauge",
			       "Running units: Slurm tasks and allocations, traced runs.",
			       (double)units_running(a));
	if (!r)
		r = node_value(b, a, "tracer_clients_connected", "gauge",
			       "Clients connected to the control socket and TCP port.",
			       (double)sv->clients);
	if (!r)
		r = node_value(b, a, "tracer_client_refusals_total", "counter",
			       "Clients and requests refused since tracerd started (limits, "
			       "malformed or late requests).",
			       (double)sv->client_refusals);
	if (!r)
		r = node_value(b, a, "tracer_metrics_scrapers", "gauge",
			       "Connections to this endpoint now.", (double)sv->scrapers);
	if (!r)
		r = node_value(b, a, "tracer_metrics_scrape_refusals_total", "counter",
			       "Connections to this endpoint refused or cut off (too many, too "
			       "slow, malformed).",
			       (double)sv->scrape_refusals);
	if (!r)
		r = node_value(b, a, "tracer_start_time_seconds", "gauge",
			       "When tracerd started, Unix seconds.", a->started_ns / 1e9);
	return r;
}

/* the export stage's delivery, when an exporter says it */
static int write_export(struct prom_buf *b, struct agent *a)
{
	struct metrics_export e[8];
	size_t n = export_hook.fn ? export_hook.fn(export_hook.ctx, e, 8) : 0;
	int64_t now = clock_unix_ns();
	int r = 0;

	if (!n)
		return 0;
	r = family(b, "tracer_export_backlog", "gauge", "Records stored, not delivered yet.");
	for (size_t i = 0; !r && i < n; i++)
		r = prom_sample(b, "tracer_export_backlog",
				(struct prom_label[]){ NODE_LABEL(a), { "signal", e[i].signal } },
				2, (double)e[i].backlog);
	if (!r)
		r = family(b, "tracer_export_oldest_age_seconds", "gauge",
			   "Age of the oldest record not delivered yet (0: none waits).");
	for (size_t i = 0; !r && i < n; i++)
		r = prom_sample(b, "tracer_export_oldest_age_seconds",
				(struct prom_label[]){ NODE_LABEL(a), { "signal", e[i].signal } },
				2, e[i].oldest_unix_ns ? (now - e[i].oldest_unix_ns) / 1e9 : 0);
	if (!r)
		r = family(b, "tracer_export_last_success_time_seconds", "gauge",
			   "When a delivery was last accepted, Unix seconds (0: never).");
	for (size_t i = 0; !r && i < n; i++)
		r = prom_sample(b, "tracer_export_last_success_time_seconds",
				(struct prom_label[]){ NODE_LABEL(a), { "signal", e[i].signal } },
				2, e[i].last_success_unix_ns / 1e9);
	if (!r)
		r = family(b, "tracer_export_failures_total", "counter",
			   "Deliveries refused or failed.");
	for (size_t i = 0; !r && i < n; i++)
		r = prom_sample(b, "tracer_export_failures_total",
				(struct prom_label[]){ NODE_LABEL(a), { "signal", e[i].signal } },
				2, (double)e[i].failures);
	return r;
}

/* A unit's labels, its numbers written into text (GROUP_TEXT bytes). None is named as a label
 * Prometheus gives each target (job, instance): a scrape would rename it exported_*. */
#define GROUP_LABELS 9
_Static_assert(GROUP_LABELS + 1 <= PROM_LABELS_MAX, "a tool's series has a label more");
#define GROUP_TEXT 96
static void group_labels(struct agent *a, const struct metrics_unit_series *u, struct prom_label *l,
			 char *text)
{
	char *job = text, *step = text + 24, *task = text + 48, *id = text + 72, buf[16];

	job[0] = step[0] = task[0] = 0;
	if (u->slurm) {
		snprintf(job, 24, "%" PRIu64, u->job_id);
		if (u->step_id != STEP_NONE)
			snprintf(step, 24, "%s", slurm_step_name(u->step_id, buf, sizeof(buf)));
		if (u->task_id >= 0)
			snprintf(task, 24, "%d", u->task_id);
	}
	snprintf(id, 24, "%" PRIu64, u->unit_id);
	l[0] = (struct prom_label){ "node", a->node };
	l[1] = (struct prom_label){ "slurm_job", job };
	l[2] = (struct prom_label){ "step", step };
	l[3] = (struct prom_label){ "task", task };
	l[4] = (struct prom_label){ "user", u->user };
	/* a Slurm job's, "" for a run (as its slurm_job): an admin sums by them */
	l[5] = (struct prom_label){ "slurm_account", u->slurm ? u->account : "" };
	l[6] = (struct prom_label){ "slurm_partition", u->slurm ? u->partition : "" };
	l[7] = (struct prom_label){ "unit", u->name };
	l[8] = (struct prom_label){ "unit_id", id };
}

/* One series of a figure's family, its HELP and TYPE before its first; once the reply is full,
 * it and the rest are counted as cut (never half a series) */
static void put(struct prom_buf *b, struct scrape *s, int *begun, const struct metrics_figure *f,
		const struct prom_label *l, size_t n, double v)
{
	if (!b->full && !*begun)
		*begun = !family(b, f->prom, f->counter ? "counter" : "gauge", f->help);
	if (b->full || !*begun || prom_sample(b, f->prom, l, n, v))
		s->cut++;
}

static void write_groups(struct prom_buf *b, struct scrape *s)
{
	const struct metrics_snapshot *snap = s->s;
	struct prom_label l[GROUP_LABELS + 1];
	char text[GROUP_TEXT];

	for (unsigned f = 0; f < MF_UNIT_FIGS; f++) {
		int begun = 0;

		for (size_t i = 0; i < snap->nunits; i++) {
			group_labels(s->a, &snap->units[i], l, text);
			put(b, s, &begun, &metrics_unit_figs[f], l, GROUP_LABELS,
			    snap->units[i].v[f]);
		}
	}
	for (unsigned f = 0; f < MF_TOOL_FIGS; f++) {
		int begun = 0;

		for (size_t i = 0; i < snap->ntools; i++) {
			group_labels(s->a, &snap->units[snap->tools[i].unit], l, text);
			l[GROUP_LABELS] = (struct prom_label){ "tool", snap->tools[i].name };
			put(b, s, &begun, &metrics_tool_figs[f], l, GROUP_LABELS + 1,
			    snap->tools[i].v[f]);
		}
	}
}

/* room kept for the count of what was cut, written last */
#define CUT_ROOM 1024

int metrics_render(struct agent *a, const struct metrics_serving *serving, struct prom_buf *out)
{
	struct metrics_snapshot *snap = NULL;
	struct scrape s = { .a = a };
	size_t room;
	int r;

	r = metrics_snapshot_take(a, &snap);
	if (r)
		return r;
	s.s = snap;
	s.cut = snap->cut;
	r = write_node(out, a, serving);
	if (!r)
		r = write_export(out, a);
	if (r)
		goto out;
	room = out->max > 4 * CUT_ROOM ? CUT_ROOM : 0;
	out->max -= room;
	write_groups(out, &s);
	out->max += room;
	out->full = 0;
	r = node_value(out, a, "tracer_metrics_series_cut", "gauge",
		       "Series of jobs and tools left out of this scrape past its caps.",
		       (double)s.cut);
out:
	metrics_snapshot_free(snap);
	return r;
}
