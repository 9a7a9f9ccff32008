/* Failure and waste signals of a job, as notes: stalled tools, idle stretches of the
 * allocation, time spent waiting for a CPU, memory near its limit or under pressure, and steps
 * slower than their own history. Pure: reads the job's units (their stored and live figures)
 * and the history collect fetched. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aggregate.h"
#include "effic.h"
#include "format.h"
#include "signals.h"
#include "slower.h"

#define NS 1000000000LL
#define IDLE_SHARE_MIN 0.05 /* idle stretches worth a note: 5 % of the job's time... */
#define IDLE_MIN_S 10	    /* ...and 10 s */
#define CPU_WAIT_SHARE 0.20 /* a step that waited for a CPU this share of its busy time */
#define CPU_WAIT_MIN_NS (5 * NS)
#define MEM_NEAR 90.0		/* percent of the request */
#define PRESSURE_SHARE 0.05	/* memory pressure worth a note: 5 % of the step's time */
#define PRESSURE_MIN_US 1000000 /* and a second at least: less reads as "0 s" */
#define WINDOWS_MAX 64

struct sig {
	const struct job *j;
	int units;
	char (*lines)[NOTE_LEN];
	size_t n, max;
};

static void say(struct sig *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct sig *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notes_vadd(c->lines, &c->n, c->max, fmt, ap);
	va_end(ap);
}

static void clock_of(char *out, size_t len, int64_t unix_ns)
{
	time_t t = (time_t)(unix_ns / NS);
	struct tm tm;

	strftime(out, len, "%H:%M:%S", localtime_r(&t, &tm));
}

/* how a unit is named in a note: its workflow step, else its Slurm step */
static void unit_name(const struct unit_rec *u, char *out, size_t len)
{
	if (u->step_name[0])
		snprintf(out, len, "%s", u->step_name);
	else if (u->step_id == (int64_t)STEP_BATCH)
		snprintf(out, len, "step %" PRId64 ".batch", u->job_id);
	else if (u->job_id > 0 && u->step_id >= 0 && u->step_id < (int64_t)STEP_BATCH)
		snprintf(out, len, "step %" PRId64 ".%" PRId64, u->job_id, u->step_id);
	else
		snprintf(out, len, "%s", u->name);
}

/* ---- stalls: the longest of each unit, and those under way */

static void note_stalls(struct sig *c)
{
	const struct job *j = c->j;
	char from[16], to[16], dur[32];
	int64_t more = 0;
	size_t said = 0;

	for (size_t i = 0; i < j->nunits; i++) {
		const struct unit_rec *u = &j->units[i];

		if (u->have_totals && u->t.stalled_pid > 0 && u->t.stalled_since_ns > 0) {
			clock_of(from, sizeof(from), u->t.stalled_since_ns);
			say(c,
			    "%.64s (pid %" PRId64
			    ") stalled since %s (%.48s): no CPU, I/O or network since then",
			    u->t.stalled_tool, u->t.stalled_pid, from, u->t.stalled_reason);
			said++;
		}
		if (u->stall_ns <= 0 || u->stall_start_ns <= 0)
			continue;
		if (said >= 3) {
			more += u->stalls > 0 ? u->stalls : 1;
			continue;
		}
		clock_of(from, sizeof(from), u->stall_start_ns);
		clock_of(to, sizeof(to), u->stall_start_ns + u->stall_ns);
		fmt_duration(dur, sizeof(dur), (u->stall_ns + NS / 2) / NS);
		say(c, "%.64s stalled %s-%s (%.48s), %s with no CPU, I/O or network%s",
		    u->stall_tool, from, to, u->stall_reason, dur,
		    u->stalls > 1 ? " (the longest of its step's stalls)" : "");
		said++;
	}
	if (more)
		say(c,
		    "%" PRId64 " more stalled processes: --processes --json has each one's stall",
		    more);
}

/* ---- idle stretches of the whole job: when none of its units worked */

struct span {
	int64_t a, b;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* a unit's busy stretches: its life without its idle windows ("START-END,..." unix ns) */
int idle_window_next(const char **p, int64_t *start, int64_t *end)
{
	char *e;
	long long a, b;

	if (!**p)
		return 0;
	a = strtoll(*p, &e, 10);
	if (*e != '-')
		return 0;
	b = strtoll(e + 1, &e, 10);
	*start = a;
	*end = b;
	*p = *e == ',' ? e + 1 : "";
	return 1;
}

static size_t unit_busy(const struct unit_rec *u, int64_t end, struct span *out, size_t max)
{
	int64_t at = u->start_ns, a, b;
	const char *p = u->idle_windows;
	size_t n = 0;

	while (n + 1 < max && idle_window_next(&p, &a, &b)) {
		if (a > at)
			out[n++] = (struct span){ at, a };
		if (b > at)
			at = b;
	}
	if (end > at)
		out[n++] = (struct span){ at, end };
	return n;
}

static void note_idle(struct sig *c)
{
	const struct job *j = c->j;
	struct span busy[WINDOWS_MAX * 4];
	int64_t start = 0, end = 0, idle = 0, longest = 0, since = 0, at;
	size_t n = 0;
	char a[32], b[32], t[16];

	for (size_t i = 0; i < j->nunits; i++) {
		const struct unit_rec *u = &j->units[i];

		if (unit_running(u) || u->start_ns <= 0 || u->end_ns <= 0)
			return; /* a running job's idle stretches are not over */
		/* the span is that of the steps that ran processes: the allocation around them
		 * (prolog, epilog) is Slurm's time, not the job's */
		if (u->have_totals && u->t.nprocs > 0) {
			if (!start || u->start_ns < start)
				start = u->start_ns;
			if (u->end_ns > end)
				end = u->end_ns;
		}
		if (u->idle_ns == JS_NONE && !u->idle_windows[0] &&
		    u->step_id != (int64_t)STEP_NONE)
			return; /* a tracerd that does not measure them */
		n += unit_busy(u, u->end_ns, busy + n, sizeof(busy) / sizeof(*busy) - n);
	}
	if (!n || end <= start)
		return;
	qsort(busy, n, sizeof(*busy), span_cmp);
	for (size_t i = 0; i < n; i++) { /* within the span */
		if (busy[i].a < start)
			busy[i].a = start;
		if (busy[i].b > end)
			busy[i].b = end;
	}
	at = start;
	for (size_t i = 0; i <= n; i++) {
		int64_t next = i < n ? busy[i].a : end;

		if (next > at) {
			idle += next - at;
			if (next - at > longest) {
				longest = next - at;
				since = at;
			}
		}
		if (i < n && busy[i].b > at)
			at = busy[i].b;
	}
	if (idle < IDLE_MIN_S * NS || (double)idle < IDLE_SHARE_MIN * (double)(end - start))
		return;
	fmt_duration(a, sizeof(a), (idle + NS / 2) / NS);
	fmt_duration(b, sizeof(b), (end - start + NS / 2) / NS);
	clock_of(t, sizeof(t), since);
	say(c,
	    "idle %s of %s, since %s: its processes did no work (no CPU, no I/O wait) then; "
	    "a job that waits can release its allocation",
	    a, b, t);
}

/* ---- CPU wait: more runnable threads than cores */

static void note_cpu_wait(struct sig *c)
{
	const struct job *j = c->j;

	for (size_t i = 0; i < j->nunits; i++) {
		const struct unit_rec *u = &j->units[i];
		double share, runnable, wall;
		char name[160];

		if (!u->have_totals || u->t.cpu_wait_ns == JS_NONE || u->t.cpu_ns == JS_NONE ||
		    u->t.cpu_wait_ns < CPU_WAIT_MIN_NS || u->end_ns <= u->start_ns ||
		    u->task_id > 0)
			continue;
		share = (double)u->t.cpu_wait_ns / (double)(u->t.cpu_ns + u->t.cpu_wait_ns);
		if (share < CPU_WAIT_SHARE)
			continue;
		wall = (double)(u->end_ns - u->start_ns);
		runnable = (double)(u->t.cpu_ns + u->t.cpu_wait_ns) / wall;
		unit_name(u, name, sizeof(name));
		if (u->alloc_cpus > 0)
			say(c,
			    "%.0f %% of %.64s's time was spent waiting for a CPU: %.1f runnable "
			    "threads on "
			    "%" PRId64
			    " allocated core%s; ask for --cpus-per-task=%.0f or run its tools with "
			    "%" PRId64 " thread%s",
			    100 * share, name, runnable, u->alloc_cpus,
			    u->alloc_cpus == 1 ? "" : "s", runnable + 0.5, u->alloc_cpus,
			    u->alloc_cpus == 1 ? "" : "s");
		else
			say(c,
			    "%.0f %% of %.64s's time was spent waiting for a CPU: %.1f runnable "
			    "threads at "
			    "once on average",
			    100 * share, name, runnable);
	}
}

/* ---- memory near the limit, memory pressure */

static void note_memory(struct sig *c)
{
	const struct row *r = &c->j->row;
	double e = eff_mem(r->peak_mem_kb, r->req_mem_share_mb);
	char used[24], lim[24];

	if (e >= MEM_NEAR && r->f.oom_kills <= 0) {
		int64_t own = eff_peak_without_cache(r);

		fmt_size(used, sizeof(used), (double)r->peak_mem_kb, U_K, c->units, 0);
		fmt_size(lim, sizeof(lim), (double)r->req_mem_share_mb, U_M, c->units, 1);
		/* a step's or the job's cgroup peak counts the page cache of what its tools read
		 * and wrote, which the kernel reclaims at the limit: near it with little of the
		 * processes' own, it is cache, not a risk of an OOM kill */
		if (own != JS_NONE) {
			char mine[24];

			fmt_size(mine, sizeof(mine), (double)own, U_K, c->units, 0);
			say(c,
			    "memory at the limit is page cache: the %s cgroup's peak %s of "
			    "--mem=%s (%.0f %%) is mostly files read and written, its processes' "
			    "own peak %s; the kernel reclaims cache at the limit",
			    strcmp(r->peak_src, "jobcgroup") ? "step" : "job", used, lim, e, mine);
		} else {
			say(c,
			    "memory near the limit: peak %s of --mem=%s (%.0f %%): a larger input "
			    "may "
			    "be OOM-killed",
			    used, lim, e);
		}
	}
	for (size_t i = 0; i < c->j->nunits; i++) {
		const struct unit_rec *u = &c->j->units[i];
		int64_t wall = u->end_ns - u->start_ns;
		char name[160], dur[32];

		if (u->mem_pressure_us <= 0 || u->mem_pressure_us == JS_NONE || wall <= 0 ||
		    u->task_id > 0 || u->mem_pressure_us < PRESSURE_MIN_US ||
		    (double)u->mem_pressure_us * 1000 < PRESSURE_SHARE * (double)wall)
			continue;
		unit_name(u, name, sizeof(name));
		fmt_duration(dur, sizeof(dur), (u->mem_pressure_us + 500000) / 1000000);
		say(c,
		    "memory pressure: tasks stalled on memory for %s of %.64s's time (%.0f %%, %s)",
		    dur, name, 100.0 * (double)u->mem_pressure_us * 1000 / (double)wall,
		    strcmp(u->mem_pressure_scope, "step")
			    ? "the node's, as the step has no cgroup v2 of its own"
			    : "its own cgroup");
	}
}

/* ---- slower than usual: a step against the median of its earlier runs */

/* the history's median of a totals figure (JS_NONE when none has it) */
static int64_t history_median(struct json_object *runs, const char *key)
{
	int64_t v[64];
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(runs) && n < 64; i++) {
		struct json_object *t, *run = json_object_array_get_idx(runs, i);
		int64_t x;

		if (!strcmp(key, "elapsed_ns"))
			x = json_int(run, "end_ns") - json_int(run, "start_ns");
		else
			x = json_object_object_get_ex(run, "totals", &t) ? json_int(t, key)
									 : JS_NONE;
		if (x != JS_NONE && x >= 0)
			v[n++] = x;
	}
	return n ? slower_median(v, n) : JS_NONE;
}

int64_t signals_usual_ns(struct json_object *runs)
{
	return runs && json_object_array_length(runs) ? history_median(runs, "elapsed_ns")
						      : JS_NONE;
}

/* "I/O wait 8.0x" or "CPU the same": one component against its median */
static size_t compare(char *out, size_t len, const char *what, int64_t now, int64_t usual)
{
	const int64_t floor_ns = NS / 100; /* below 10 ms a ratio says nothing */

	if (now == JS_NONE || usual == JS_NONE)
		return 0;
	if (usual < floor_ns && now < floor_ns)
		return 0;
	if (usual < floor_ns)
		return snprintf(out, len, "%s %.2f s (from none)", what, (double)now / NS);
	if ((double)now < 1.2 * (double)usual && (double)now > (double)usual / 1.2)
		return snprintf(out, len, "%s the same", what);
	return snprintf(out, len, "%s %.1f\xc3\x97", what, (double)now / (double)usual);
}

static void note_slower(struct sig *c)
{
	const struct job *j = c->j;

	for (size_t i = 0; j->detail && i < j->nunits; i++) {
		const struct unit_rec *u = &j->units[i];
		struct json_object *runs = j->detail[i].history;
		int64_t usual, took = u->end_ns - u->start_ns;
		char name[160], why[4][64];
		size_t nruns;

		if (!runs || !(nruns = json_object_array_length(runs)) || !u->have_totals ||
		    took <= 0)
			continue;
		usual = signals_usual_ns(runs);
		if (usual == JS_NONE || !slower_than_usual(took, usual))
			continue;
		compare(why[0], sizeof(why[0]), "CPU", u->t.cpu_ns, history_median(runs, "cpu_ns"));
		if (!compare(why[1], sizeof(why[1]), "I/O wait", u->t.iowait_ns,
			     history_median(runs, "iowait_ns")))
			why[1][0] = 0;
		if (!compare(why[2], sizeof(why[2]), "CPU wait", u->t.cpu_wait_ns,
			     history_median(runs, "cpu_wait_ns")))
			why[2][0] = 0;
		if (!compare(why[3], sizeof(why[3]), "other off-CPU time", u->t.offcpu_ns,
			     history_median(runs, "offcpu_ns")))
			why[3][0] = 0;
		unit_name(u, name, sizeof(name));
		say(c,
		    "%.64s took %.1f\xc3\x97 its median of the last %zu run%s (%.1f s against %.1f "
		    "s); %s%s%s%s%s%s%s",
		    name, (double)took / (double)usual, nruns, nruns > 1 ? "s" : "",
		    (double)took / NS, (double)usual / NS, why[0], why[1][0] ? ", " : "", why[1],
		    why[2][0] ? ", " : "", why[2], why[3][0] ? ", " : "", why[3]);
	}
}

static void (*const signals[])(struct sig *c) = {
	note_stalls, note_idle, note_cpu_wait, note_memory, note_slower,
};

size_t signals_notes(const struct job *j, int units, int running, char lines[][NOTE_LEN],
		     size_t max)
{
	struct sig c = { .j = j, .units = units, .lines = lines, .max = max };

	if (running) { /* only what is under way: the rest comes when it ends */
		note_stalls(&c);
		return c.n;
	}
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		signals[i](&c);
	return c.n;
}
