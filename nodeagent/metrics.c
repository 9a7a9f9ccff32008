/* The Prometheus endpoint's figures (metrics.h): the node's health, and each running unit (a
 * Slurm task or allocation, a traced run), with its tools running now. A unit's series, not a
 * step's: a step's sum over its tasks would fall as each task ends, and a counter must not. */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "clock.h"
#include "live.h"
#include "metrics.h"
#include "process_row.h"
#include "units.h"

/* Running units and their tools written per scrape at most (together at most
 * METRICS_SERIES_MAX); what is past them is counted in tracer_metrics_series_cut */
#define GROUPS_MAX (METRICS_SERIES_MAX / 4)
#define TOOLS_MAX (METRICS_SERIES_MAX - GROUPS_MAX)
/* Tools of one unit written at most, the last of them "(other tools)" summing the rest: a unit
 * running a thousand differently named programs must not push every other unit's tools past
 * TOOLS_MAX (a user's MaxUnitsPerUser runs stay well within it) */
#define TOOLS_PER_UNIT 16
#define OTHER_TOOLS "(other tools)"
/* user names known, by uid (from the passwd file, never a network lookup on the loop) */
#define USERS_MAX 256
#define PASSWD_FILE "/etc/passwd"

/* a running unit: a Slurm task (or allocation) of a job step, or a traced run */
struct group {
	struct unit *u;
	char job[24], step[16], task[16], unit_id[24];
	const char *name; /* the run's, or the job's */
	struct row_sums sums;
	int64_t rss_kb;
	unsigned running;
	unsigned ntools; /* its series in the scrape's tools */
};

struct tool {
	unsigned group;
	char name[64];
	int64_t rss_kb;
	unsigned running;
};

struct scrape {
	struct agent *a;
	struct group *g;
	unsigned ng;
	struct tool *t;
	unsigned nt;
	uint64_t cut; /* series left out past the caps */
	int err;
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

/* ---- user names: from the passwd file once per unknown uid and scrape, kept for good */

static struct {
	uint32_t uid;
	char name[33];
} users[USERS_MAX];
static unsigned nusers;

static const char *user_known(uint32_t uid)
{
	for (unsigned i = 0; i < nusers; i++)
		if (users[i].uid == uid)
			return users[i].name;
	return NULL;
}

static void users_read(struct scrape *s)
{
	struct passwd *pw;
	FILE *f;
	int want = 0;

	for (unsigned i = 0; i < s->ng; i++)
		want |= !user_known(s->g[i].u->uid);
	if (!want || !(f = fopen(PASSWD_FILE, "re")))
		return;
	/* fgetpwent reads the file itself: no NSS module, no network on the loop */
	while (nusers < USERS_MAX && (pw = fgetpwent(f))) {
		int needed = 0;

		for (unsigned i = 0; i < s->ng && !needed; i++)
			needed = s->g[i].u->uid == pw->pw_uid;
		if (!needed || user_known(pw->pw_uid))
			continue;
		users[nusers].uid = pw->pw_uid;
		snprintf(users[nusers].name, sizeof(users[nusers].name), "%s", pw->pw_name);
		nusers++;
	}
	fclose(f);
}

/* ---- running units into groups */

static struct group *group_of(struct scrape *s, const struct unit *u)
{
	for (unsigned i = 0; i < s->ng; i++)
		if (s->g[i].u == u)
			return &s->g[i];
	return NULL;
}

/* A counter never goes back while its unit runs: a process read afresh on one scrape and from
 * its last sample on the next (past the fresh reads' bound) keeps its figure. */
static void monotonic(int64_t *now, int64_t *seen)
{
	if (*now < *seen)
		*now = *seen;
	*seen = *now;
}

static void counters_hold(struct group *g)
{
	struct row_sums *n = &g->sums, *seen = &g->u->metrics_seen;

	monotonic(&n->cpu_ns, &seen->cpu_ns);
	monotonic(&n->cpu_wait_ns, &seen->cpu_wait_ns);
	monotonic(&n->iowait_ns, &seen->iowait_ns);
	monotonic(&n->nprocs, &seen->nprocs);
	monotonic(&n->read_bytes, &seen->read_bytes);
	monotonic(&n->write_bytes, &seen->write_bytes);
}

static int take_unit(struct unit *u, void *ctx)
{
	struct scrape *s = ctx;
	struct group *g;

	if (u->state != UNIT_RUNNING)
		return 0;
	if (s->ng == GROUPS_MAX) {
		s->cut++;
		return 0;
	}
	g = &s->g[s->ng++];
	memset(g, 0, sizeof(*g));
	g->u = u;
	g->sums = u->done;
	snprintf(g->unit_id, sizeof(g->unit_id), "%" PRIu64, u->id);
	if (strcmp(u->kind, UNIT_KIND_LOCAL) == 0) {
		g->name = u->name;
		return 0;
	}
	g->name = u->job_name;
	snprintf(g->job, sizeof(g->job), "%" PRIu64, u->job_id);
	if (u->step_id != STEP_NONE) {
		char buf[sizeof(g->step)];

		snprintf(g->step, sizeof(g->step), "%s",
			 slurm_step_name(u->step_id, buf, sizeof(buf)));
	}
	if (u->task_id >= 0)
		snprintf(g->task, sizeof(g->task), "%d", u->task_id);
	return 0;
}

/* The tool named name of group gi in s->t, s->nt when it has none yet */
static unsigned tool_of(const struct scrape *s, unsigned gi, const char *name)
{
	unsigned i;

	for (i = 0; i < s->nt; i++)
		if (s->t[i].group == gi && !strcmp(s->t[i].name, name))
			break;
	return i;
}

static int take_live(const struct unit *u, const struct rec_row *r, const struct proc_now *now,
		     void *ctx)
{
	struct scrape *s = ctx;
	struct group *g = group_of(s, u);
	const char *tool = now->tool.name[0] ? now->tool.name : "(unknown)";
	unsigned gi, i;

	if (!g)
		return 0;
	process_row_sum(r, &g->sums);
	g->rss_kb += now->rss_kb;
	g->running++;
	if (now->tool.excluded) /* plumbing (shells, wrappers) is no tool of its own */
		return 0;
	gi = (unsigned)(g - s->g);
	i = tool_of(s, gi, tool);
	if (i == s->nt && g->ntools >= TOOLS_PER_UNIT - 1)
		i = tool_of(s, gi, tool = OTHER_TOOLS); /* the unit's other tools, summed */
	if (i == s->nt) {
		if (s->nt == TOOLS_MAX) {
			s->cut++;
			return 0;
		}
		memset(&s->t[i], 0, sizeof(s->t[i]));
		s->t[i].group = gi;
		snprintf(s->t[i].name, sizeof(s->t[i].name), "%s", tool);
		s->nt++;
		g->ntools++;
	}
	s->t[i].rss_kb += now->rss_kb;
	s->t[i].running++;
	return 0;
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

#define GROUP_LABELS 7
static void group_labels(struct agent *a, const struct group *g, struct prom_label *l)
{
	const char *user = user_known(g->u->uid);
	static char uid_text[16];

	if (!user) {
		snprintf(uid_text, sizeof(uid_text), "%u", g->u->uid);
		user = uid_text;
	}
	l[0] = (struct prom_label){ "node", a->node };
	l[1] = (struct prom_label){ "job", g->job };
	l[2] = (struct prom_label){ "step", g->step };
	l[3] = (struct prom_label){ "task", g->task };
	l[4] = (struct prom_label){ "user", user };
	l[5] = (struct prom_label){ "unit", g->name };
	l[6] = (struct prom_label){ "unit_id", g->unit_id };
}

/* the figures of a group, by family */
enum fig { F_CPU, F_RSS, F_READ, F_WRITE, F_CPU_WAIT, F_IO_WAIT, F_STARTED, F_RUNNING, F_N };
static const struct {
	const char *name, *type, *help;
} figs[F_N] = {
	[F_CPU] = { "tracer_job_cpu_seconds_total", "counter",
		    "CPU time of a running unit's processes (a Slurm task of a job step, or a "
		    "traced run), ended and running." },
	[F_RSS] = { "tracer_job_rss_bytes", "gauge",
		    "Resident memory of its running processes now." },
	[F_READ] = { "tracer_job_read_bytes_total", "counter",
		     "Bytes its ended processes read from storage." },
	[F_WRITE] = { "tracer_job_write_bytes_total", "counter",
		      "Bytes its ended processes wrote to storage." },
	[F_CPU_WAIT] = { "tracer_job_cpu_wait_seconds_total", "counter",
			 "Time its processes were runnable but waited for a CPU." },
	[F_IO_WAIT] = { "tracer_job_io_wait_seconds_total", "counter",
			"Time its processes waited for I/O." },
	[F_STARTED] = { "tracer_job_processes_started_total", "counter",
			"Processes it started, ended and running." },
	[F_RUNNING] = { "tracer_job_processes_running", "gauge", "Its processes running now." },
};

static double fig_of(const struct group *g, enum fig f)
{
	const struct row_sums *s = &g->sums;

	switch (f) {
	case F_CPU:
		return s->cpu_ns / 1e9;
	case F_RSS:
		return (double)g->rss_kb * 1024;
	case F_READ:
		return (double)s->read_bytes;
	case F_WRITE:
		return (double)s->write_bytes;
	case F_CPU_WAIT:
		return s->cpu_wait_ns / 1e9;
	case F_IO_WAIT:
		return s->iowait_ns / 1e9;
	case F_STARTED:
		return (double)s->nprocs;
	default:
		return g->running;
	}
}

/* One series of a job's or tool's family, its HELP and TYPE before its first; once the reply
 * is full, it and the rest are counted as cut (never half a series) */
static void put(struct prom_buf *b, struct scrape *s, int *begun, unsigned f_or_tool,
		const struct prom_label *l, size_t n, double v)
{
	static const struct {
		const char *name, *help;
	} tools[] = {
		{ "tracer_tool_processes_running", "Processes of a tool running now in a unit." },
		{ "tracer_tool_rss_bytes", "Resident memory of a tool's running processes now." },
	};
	const char *name = f_or_tool < F_N ? figs[f_or_tool].name : tools[f_or_tool - F_N].name;

	if (!b->full && !*begun)
		*begun = f_or_tool < F_N
				 ? !family(b, name, figs[f_or_tool].type, figs[f_or_tool].help)
				 : !family(b, name, "gauge", tools[f_or_tool - F_N].help);
	if (b->full || !*begun || prom_sample(b, name, l, n, v))
		s->cut++;
}

static void write_groups(struct prom_buf *b, struct scrape *s)
{
	struct prom_label l[GROUP_LABELS + 1];

	for (unsigned f = 0; f < F_N; f++) {
		int begun = 0;

		for (unsigned i = 0; i < s->ng; i++) {
			group_labels(s->a, &s->g[i], l);
			put(b, s, &begun, f, l, GROUP_LABELS, fig_of(&s->g[i], f));
		}
	}
	for (unsigned k = 0; k < 2; k++) {
		int begun = 0;

		for (unsigned i = 0; i < s->nt; i++) {
			group_labels(s->a, &s->g[s->t[i].group], l);
			l[GROUP_LABELS] = (struct prom_label){ "tool", s->t[i].name };
			put(b, s, &begun, F_N + k, l, GROUP_LABELS + 1,
			    k ? (double)s->t[i].rss_kb * 1024 : s->t[i].running);
		}
	}
}

/* room kept for the count of what was cut, written last */
#define CUT_ROOM 1024

int metrics_render(struct agent *a, const struct metrics_serving *serving, struct prom_buf *out)
{
	struct scrape s = { .a = a };
	size_t room;
	int r;

	s.g = malloc(GROUPS_MAX * sizeof(*s.g));
	s.t = malloc(TOOLS_MAX * sizeof(*s.t));
	if (!s.g || !s.t) {
		r = -ENOMEM;
		goto out;
	}
	units_foreach(a, take_unit, &s);
	r = live_each(a, take_live, &s);
	if (r)
		goto out;
	for (unsigned i = 0; i < s.ng; i++)
		counters_hold(&s.g[i]);
	users_read(&s);
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
	free(s.g);
	free(s.t);
	return r;
}
