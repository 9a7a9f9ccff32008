/* The running units' figures (metrics.h, metrics_snapshot.h): the one place they are decided,
 * whoever says them (the Prometheus endpoint, the OTLP exporter). Each running unit (a Slurm
 * task or allocation, a traced run), with its tools running now. A unit's series, not a step's:
 * a step's sum over its tasks would fall as each task ends, and a counter must not. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "clock.h"
#include "live.h"
#include "log.h"
#include "metrics.h"
#include "process_row.h"
#include "units.h"

/* Tools of one unit in a snapshot at most, the last of them "(other tools)" summing the rest:
 * a unit running a thousand differently named programs must not push every other unit's tools
 * past METRICS_TOOLS_MAX (a user's MaxUnitsPerUser runs stay well within it) */
#define TOOLS_PER_UNIT 16
#define OTHER_TOOLS "(other tools)"
/* user names known, by uid (from the passwd file, never a network lookup on the loop) */
#define USERS_MAX 256
#define PASSWD_FILE "/etc/passwd"

const struct metrics_figure metrics_unit_figs[MF_UNIT_FIGS] = {
	[MF_CPU] = { "tracer_job_cpu_seconds_total", "tracer.job.cpu.time", "s",
		     "CPU time of a running unit's processes (a Slurm task of a job step, or a "
		     "traced run), ended and running.",
		     1, 0 },
	[MF_RSS] = { "tracer_job_rss_bytes", "tracer.job.memory.rss", "By",
		     "Resident memory of its running processes now.", 0, 1 },
	[MF_READ] = { "tracer_job_read_bytes_total", "tracer.job.disk.read", "By",
		      "Bytes its ended processes read from storage.", 1, 1 },
	[MF_WRITE] = { "tracer_job_write_bytes_total", "tracer.job.disk.write", "By",
		       "Bytes its ended processes wrote to storage.", 1, 1 },
	[MF_CPU_WAIT] = { "tracer_job_cpu_wait_seconds_total", "tracer.job.cpu.wait", "s",
			  "Time its processes were runnable but waited for a CPU.", 1, 0 },
	[MF_IO_WAIT] = { "tracer_job_io_wait_seconds_total", "tracer.job.io.wait", "s",
			 "Time its processes waited for I/O.", 1, 0 },
	[MF_STARTED] = { "tracer_job_processes_started_total", "tracer.job.processes.started",
			 "{process}", "Processes it started, ended and running.", 1, 1 },
	[MF_RUNNING] = { "tracer_job_processes_running", "tracer.job.processes.running",
			 "{process}", "Its processes running now.", 0, 1 },
};

const struct metrics_figure metrics_tool_figs[MF_TOOL_FIGS] = {
	[MF_TOOL_RUNNING] = { "tracer_tool_processes_running", "tracer.tool.processes.running",
			      "{process}", "Processes of a tool running now in a unit.", 0, 1 },
	[MF_TOOL_RSS] = { "tracer_tool_rss_bytes", "tracer.tool.memory.rss", "By",
			  "Resident memory of a tool's running processes now.", 0, 1 },
};

/* What a unit's figures are made of while the snapshot is taken */
struct group {
	struct unit *u;
	struct row_sums sums;
	int64_t rss_kb;
	unsigned running;
	unsigned ntools; /* its series in the scrape's tools */
};

struct gather {
	struct agent *a;
	struct metrics_snapshot *s;
	struct group *g; /* beside s->units */
};

static int64_t a_started(const struct gather *ga)
{
	return (int64_t)ga->a->started_ns;
}

/* ---- user names: from the passwd file once per unknown uid and snapshot, kept for good */

static struct {
	uint32_t uid;
	char name[METRICS_USER_MAX];
} users[USERS_MAX];
static unsigned nusers;

static const char *user_known(uint32_t uid)
{
	for (unsigned i = 0; i < nusers; i++)
		if (users[i].uid == uid)
			return users[i].name;
	return NULL;
}

static void users_read(const struct gather *ga)
{
	size_t n = ga->s->nunits;
	struct passwd *pw;
	FILE *f;
	int want = 0;

	for (size_t i = 0; i < n; i++)
		want |= !user_known(ga->g[i].u->uid);
	if (!want || !(f = fopen(PASSWD_FILE, "re")))
		return;
	/* fgetpwent reads the file itself: no NSS module, no network on the loop */
	while (nusers < USERS_MAX && (pw = fgetpwent(f))) {
		int needed = 0;

		for (size_t i = 0; i < n && !needed; i++)
			needed = ga->g[i].u->uid == pw->pw_uid;
		if (!needed || user_known(pw->pw_uid))
			continue;
		users[nusers].uid = pw->pw_uid;
		snprintf(users[nusers].name, sizeof(users[nusers].name), "%s", pw->pw_name);
		nusers++;
	}
	fclose(f);
}

/* ---- running units and their tools */

/* A counter never goes back while its unit runs: a process read afresh on one snapshot and from
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
	struct gather *ga = ctx;
	struct metrics_snapshot *s = ga->s;
	struct metrics_unit_series *us;

	if (u->state != UNIT_RUNNING)
		return 0;
	if (s->nunits == METRICS_UNITS_MAX) {
		s->cut++;
		return 0;
	}
	ga->g[s->nunits] = (struct group){ .u = u, .sums = u->done };
	us = &s->units[s->nunits++];
	memset(us, 0, sizeof(*us));
	us->unit_id = u->id;
	/* its counters began with it, or with this tracerd when it found the unit running (a
	 * restart counts again from the live processes: a reset, said by a new start) */
	us->start_unix_ns = u->start_ns > a_started(ga) ? u->start_ns : a_started(ga);
	us->slurm = strcmp(u->kind, UNIT_KIND_LOCAL) != 0;
	snprintf(us->name, sizeof(us->name), "%s", us->slurm ? u->job_name : u->name);
	if (us->slurm) {
		us->job_id = u->job_id;
		us->step_id = u->step_id;
		us->task_id = u->task_id;
		snprintf(us->account, sizeof(us->account), "%s", u->account);
		snprintf(us->partition, sizeof(us->partition), "%s", u->partition);
	}
	return 0;
}

/* The tool named name of unit gi in s->tools, s->ntools when it has none yet */
static size_t tool_of(const struct metrics_snapshot *s, size_t gi, const char *name)
{
	size_t i;

	for (i = 0; i < s->ntools; i++)
		if (s->tools[i].unit == gi && !strcmp(s->tools[i].name, name))
			break;
	return i;
}

static int take_live(const struct unit *u, const struct rec_row *r, const struct proc_now *now,
		     void *ctx)
{
	struct gather *ga = ctx;
	struct metrics_snapshot *s = ga->s;
	const char *tool = now->tool.name[0] ? now->tool.name : "(unknown)";
	struct metrics_tool_series *t;
	size_t gi, i;

	for (gi = 0; gi < s->nunits && ga->g[gi].u != u; gi++)
		;
	if (gi == s->nunits)
		return 0;
	process_row_sum(r, &ga->g[gi].sums);
	ga->g[gi].rss_kb += now->rss_kb;
	ga->g[gi].running++;
	if (now->tool.excluded) /* plumbing (shells, wrappers) is no tool of its own */
		return 0;
	i = tool_of(s, gi, tool);
	if (i == s->ntools && ga->g[gi].ntools >= TOOLS_PER_UNIT - 1)
		i = tool_of(s, gi, tool = OTHER_TOOLS); /* the unit's other tools, summed */
	if (i == s->ntools) {
		if (s->ntools == METRICS_TOOLS_MAX) {
			s->cut++;
			return 0;
		}
		t = &s->tools[s->ntools++];
		memset(t, 0, sizeof(*t));
		t->unit = gi;
		snprintf(t->name, sizeof(t->name), "%s", tool);
		ga->g[gi].ntools++;
	}
	t = &s->tools[i];
	t->v[MF_TOOL_RSS] += (double)now->rss_kb * 1024;
	t->v[MF_TOOL_RUNNING]++;
	return 0;
}

/* A unit's figures, from what its processes add up to */
static void figures(const struct group *g, struct metrics_unit_series *us)
{
	const struct row_sums *s = &g->sums;

	us->v[MF_CPU] = s->cpu_ns / 1e9;
	us->v[MF_RSS] = (double)g->rss_kb * 1024;
	us->v[MF_READ] = (double)s->read_bytes;
	us->v[MF_WRITE] = (double)s->write_bytes;
	us->v[MF_CPU_WAIT] = s->cpu_wait_ns / 1e9;
	us->v[MF_IO_WAIT] = s->iowait_ns / 1e9;
	us->v[MF_STARTED] = (double)s->nprocs;
	us->v[MF_RUNNING] = g->running;
}

void metrics_snapshot_free(struct metrics_snapshot *s)
{
	if (!s)
		return;
	free(s->units);
	free(s->tools);
	free(s);
}

/* Give back what the caps kept but the snapshot did not use */
static void shrink(void **p, size_t n, size_t size)
{
	void *q = n ? realloc(*p, n * size) : NULL;

	if (!n) {
		free(*p);
		*p = NULL;
	} else if (q) {
		*p = q;
	}
}

int metrics_snapshot_take(struct agent *a, struct metrics_snapshot **out)
{
	struct metrics_snapshot *s = calloc(1, sizeof(*s));
	struct gather ga = { a, s, NULL };
	int r = -ENOMEM;

	if (!s || !(s->units = malloc(METRICS_UNITS_MAX * sizeof(*s->units))) ||
	    !(s->tools = malloc(METRICS_TOOLS_MAX * sizeof(*s->tools))) ||
	    !(ga.g = malloc(METRICS_UNITS_MAX * sizeof(*ga.g))))
		goto fail;
	s->time_unix_ns = clock_unix_ns();
	units_foreach(a, take_unit, &ga);
	r = live_each(a, take_live, &ga);
	if (r)
		goto fail;
	users_read(&ga);
	for (size_t i = 0; i < s->nunits; i++) {
		const char *user = user_known(ga.g[i].u->uid);

		counters_hold(&ga.g[i]);
		figures(&ga.g[i], &s->units[i]);
		if (user)
			snprintf(s->units[i].user, sizeof(s->units[i].user), "%s", user);
		else
			snprintf(s->units[i].user, sizeof(s->units[i].user), "%u", ga.g[i].u->uid);
	}
	shrink((void **)&s->units, s->nunits, sizeof(*s->units));
	shrink((void **)&s->tools, s->ntools, sizeof(*s->tools));
	free(ga.g);
	*out = s;
	return 0;
fail:
	log_error("metrics_snapshot_take: %s", strerror(-r));
	free(ga.g);
	metrics_snapshot_free(s);
	return r;
}
