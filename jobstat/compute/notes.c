/* Rightsizing notes: each note is one function below, listed in notes[]; it reads the job's
 * resolved rows and the advice, and adds at most a line or two. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm_errno.h>

#include "convert.h"
#include "effic.h"
#include "notes.h"

struct notes {
	const struct job *j;
	const struct row *r; /* the job's (or run's) row */
	struct advice adv;   /* what to ask for next time (row_advice) */
	int units;	     /* --units */
	char (*lines)[NOTE_LEN];
	size_t n, max;
};

void notes_vadd(char lines[][NOTE_LEN], size_t *n, size_t max, const char *fmt, va_list ap)
{
	if (*n < max)
		vsnprintf(lines[(*n)++], NOTE_LEN, fmt, ap);
}

void notes_add(char lines[][NOTE_LEN], size_t *n, size_t max, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notes_vadd(lines, n, max, fmt, ap);
	va_end(ap);
}

static void note(struct notes *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct notes *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notes_vadd(c->lines, &c->n, c->max, fmt, ap);
	va_end(ap);
}

static const char *peak_source(const struct row *r)
{
	if (r->peak_src && strcmp(r->peak_src, "cgroup") == 0)
		return "step cgroup peak";
	if (r->peak_src && strcmp(r->peak_src, "jobcgroup") == 0)
		return "job cgroup peak, its steps at once";
	if (r->peak_src && strcmp(r->peak_src, "steps") == 0)
		return "its steps' peaks added where they ran at once";
	if (r->peak_src && strcmp(r->peak_src, "sampled") == 0)
		return "largest sampled RSS sum";
	return "largest process RSS";
}

/* the cores used of those allocated, and --cpus-per-task */
static void note_cpu(struct notes *c)
{
	const struct row *r = c->r;
	int cpus = c->adv.cpus, used;
	char a[64];

	if (cpus <= 0)
		return;
	used = suggest_cpus(r->peak_cores);
	if (r->alloc_cpus != JS_NONE && r->alloc_cpus > 0)
		snprintf(a, sizeof(a), "used %d of %" PRId64 " allocated core%s", used,
			 r->alloc_cpus, r->alloc_cpus == 1 ? "" : "s");
	else
		snprintf(a, sizeof(a), "used %d core%s", used, used == 1 ? "" : "s");
	if (r->cores_src && strcmp(r->cores_src, "sampled") == 0)
		note(c,
		     "%s (peak %.2f busy at once per task, from live samples): --cpus-per-task=%d",
		     a, r->cores_per_task, cpus);
	else
		note(c,
		     "%s (%.2f busy on average per task; too short-lived for live samples): "
		     "--cpus-per-task=%d",
		     a, r->cores_per_task, cpus);
}

/* what was used of what was asked, per node, and why the memory advice is what it is */
static void note_memory(struct notes *c)
{
	const struct row *r = c->r;
	const struct advice *adv = &c->adv;
	char used[24], node[80] = "", req[48] = "", lim[24], sug[48] = "", eff[24] = "",
		       why[80] = "";
	double e = eff_mem(r->peak_mem_kb, r->req_mem_share_mb);
	int multi = r->nnodes != JS_NONE && r->nnodes > 1 && r->node_peak_mem_kb != JS_NONE;

	if (r->peak_mem_kb == JS_NONE || r->peak_mem_kb <= 0)
		return;
	fmt_size(used, sizeof(used), (double)r->peak_mem_kb, U_K, c->units, 0);
	if (multi) {
		/* --mem is per node: the highest node against its share */
		fmt_size(lim, sizeof(lim), (double)r->node_peak_mem_kb, U_K, c->units, 0);
		snprintf(node, sizeof(node), " over %" PRId64 " nodes, %s on the highest",
			 r->nnodes, lim);
		if (r->req_mem_node_mb != JS_NONE)
			e = eff_mem(r->node_peak_mem_kb, r->req_mem_node_mb);
	}
	if (e >= 0) {
		fmt_size(lim, sizeof(lim),
			 (double)(multi ? r->req_mem_node_mb : r->req_mem_share_mb), U_M, c->units,
			 1);
		snprintf(req, sizeof(req), "%s of %s requested%s", multi ? "," : "", lim,
			 multi ? " per node" : "");
		snprintf(eff, sizeof(eff), ", %.1f%%", e);
	}
	if (adv->mem_mb > 0 || adv->mem_per_cpu_mb > 0) {
		suggest_mem_text(lim, sizeof(lim),
				 adv->mem_mb > 0 ? adv->mem_mb : adv->mem_per_cpu_mb);
		snprintf(sug, sizeof(sug), ": --mem%s=%s", adv->mem_mb > 0 ? "" : "-per-cpu", lim);
	}
	switch (adv->mem_why) {
	case MEM_OOM:
		snprintf(why, sizeof(why), " (%dx the limit)", LIMIT_RAISE);
		break;
	case MEM_FLOOR:
		snprintf(why, sizeof(why), " (Slurm's smallest memory limit)");
		break;
	case MEM_NO_CACHE:
		snprintf(why, sizeof(why), " (its processes' own peak: the rest was page cache)");
		break;
	default:
		break;
	}
	if (adv->oom) {
		if (adv->limit_mb > 0)
			fmt_size(lim, sizeof(lim), (double)adv->limit_mb, U_M, c->units, 1);
		else
			snprintf(lim, sizeof(lim), "%s", used);
		note(c,
		     "killed by the OOM killer at its %s%s limit (peak %s%s): it needed more than "
		     "the limit, "
		     "how much more cannot be known%s%s",
		     lim, multi ? " per node" : "", used, node, sug, why);
		return;
	}
	note(c, "peak memory %s (%s)%s%s%s%s%s", used, peak_source(r), node, req, eff, sug, why);
}

/* the time used of the limit, and --time */
static void note_time(struct notes *c)
{
	const struct row *r = c->r;
	char a[64], b[64], t[64];
	double eff;

	if (r->elapsed == JS_NONE)
		return;
	eff = eff_time(r->elapsed, r->timelimit);
	fmt_elapsed(a, sizeof(a), r->elapsed);
	fmt_elapsed(t, sizeof(t), c->adv.time_min * 60);
	conv_timelimit(b, sizeof(b), r->timelimit);
	if (c->adv.timeout && c->adv.time_min > 0)
		note(c,
		     "hit its %s time limit after %s: it needed more, how much more cannot be "
		     "known: "
		     "--time=%.24s (%dx the limit)",
		     b, a, t, LIMIT_RAISE);
	else if (eff >= 0 && c->adv.time_min > 0)
		note(c, "ran %s of a %s limit, %.1f%%: --time=%s", a, b, eff, t);
	else if (eff >= 0)
		note(c, "ran %s of a %s limit, %.1f%% (it did not complete: no --time advice)", a,
		     b, eff);
	else if (c->adv.time_min > 0)
		note(c, "ran %s: --time=%s", a, t);
}

/* "process 12 (bwa, step 5.0)" */
static void proc_name(char *out, size_t len, const struct failed_proc *p)
{
	snprintf(out, len, "process %" PRId64 " (%.32s, step %.32s)", p->pid, p->tool, p->step);
}

/* the OOM victims, the tool that grew, and the first process that failed, by name: tools
 * before the engine that ran them */
static void note_failures(struct notes *c)
{
	const struct failures *f = &c->j->fail;
	const struct failed_proc *p = &f->first;
	size_t named = f->noom < FAIL_OOM_NAMED ? f->noom : FAIL_OOM_NAMED, fit = 0, at;
	char st[48], more[48] = "", who[NOTE_LEN] = "", one[112], grew[48];

	/* as many victims as the line holds whole (room kept for "and N more"), the first
	 * one's command where only one or two are named (--json has each one's) */
	for (at = 0; fit < named; fit++) {
		proc_name(one, sizeof(one), &f->oom[fit]);
		if (at + strlen(one) + 8 + 48 >= sizeof(who) - 32)
			break;
		at += (size_t)snprintf(who + at, sizeof(who) - at, "%s%s",
				       !fit		  ? ""
				       : fit + 1 == named ? " and "
							  : ", ",
				       one);
	}
	if (named) {
		if (f->noom > fit)
			snprintf(more, sizeof(more), " and %zu more", f->noom - fit);
		note(c, "the OOM killer stopped %s%s%s%.100s", who, more, fit > 2 ? "" : ": ",
		     fit > 2 ? "" : f->oom[0].cmd);
		/* what grew: the largest tool, when the victims do not start with it */
		if (f->ngrew && f->grew.maxrss_kb > 0) {
			fmt_size(grew, sizeof(grew), (double)f->grew.maxrss_kb, U_K, c->units, 0);
			if (f->grew.pid == f->oom[0].pid && !strcmp(f->grew.step, f->oom[0].step))
				note(c, "%.32s had grown to %s when it was killed", f->grew.tool,
				     grew);
			else
				note(c,
				     "the largest tool then: process %" PRId64
				     " (%.32s, step %.32s), %s at its peak: %.100s",
				     f->grew.pid, f->grew.tool, f->grew.step, grew, f->grew.cmd);
		}
	}
	if (!f->nfailed || (named && p->pid == f->oom[0].pid && !strcmp(p->step, f->oom[0].step)))
		return;
	failures_status_text(st, sizeof(st), p->status);
	more[0] = 0;
	if (f->nfailed > 1)
		snprintf(more, sizeof(more), " (%zu processes failed)", f->nfailed);
	note(c, "first to fail: process %" PRId64 " (%.32s, step %.32s) %.40s%.40s: %.100s", p->pid,
	     p->tool, p->step, st, more, p->cmd);
}

static void note_numa(struct notes *c)
{
	if (c->r->numa_span > 1)
		note(c,
		     "allocation spans %d NUMA nodes (cores %.100s): memory access crosses nodes",
		     c->r->numa_span, c->r->alloc_cores);
}

static void note_oversubscribed(struct notes *c)
{
	const struct row *r = c->r;

	if (r->peak_cores >= 0 && r->alloc_cpus != JS_NONE && r->alloc_cpus > 0 &&
	    r->peak_cores > (double)r->alloc_cpus + CORE_SLACK)
		note(c,
		     "more runnable threads than allocated cores: %.2f cores busy at peak, %" PRId64
		     " allocated",
		     r->peak_cores, r->alloc_cpus);
}

static void note_lost(struct notes *c)
{
	if (c->r->f.lost > 0)
		note(c,
		     "incomplete: %" PRId64
		     " of its kernel events were lost (ring buffer or tracked set "
		     "full): its figures are short of them",
		     c->r->f.lost);
}

static void note_unlisted(struct notes *c)
{
	if (c->r->f.unlisted > 0)
		note(c,
		     "%" PRId64 " of its processes are counted but not listed one by one: a unit "
		     "past its share of the store (StoreUnitMaxSize) keeps their totals per tool",
		     c->r->f.unlisted);
}

static void note_tracer_down(struct notes *c)
{
	const struct figures *f = &c->r->f;
	char from[32], to[32];

	if (f->down_start_ns == JS_NONE || f->down_end_ns == JS_NONE)
		return;
	conv_datetime(from, sizeof(from), f->down_start_ns / 1000000000);
	conv_datetime(to, sizeof(to), f->down_end_ns / 1000000000);
	/* the date once, when both fall on the same day */
	note(c, "incomplete: tracerd was down %s-%s: what ran then is missing", from,
	     strncmp(from, to, 11) ? to : to + 11);
}

/* the advice, or for an array's tasks the one advice for all of them */
static void note_next_time(struct notes *c)
{
	const struct job *j = c->j;
	char sug[160];

	advice_text(&c->adv, sug, sizeof(sug));
	if (j->array_ntasks > 1) {
		if (j->array_last && j->array_suggest[0])
			note(c,
			     "next time, for every task of array %" PRId64
			     " (from the highest needs of its %zu "
			     "tasks): %.150s",
			     j->array_job_id, j->array_ntasks, j->array_suggest);
	} else if (sug[0]) {
		note(c, "next time: %s", sug);
	}
}

/* slurmd's own errors (ESLURMD_*, 4000 on) come back as a step's wait status, so that sacct
 * shows them as a signal: 4021 & 0x7f is the "0:53" of a job whose output file could not be
 * opened. What each means to a user, where Slurm's own text does not say it. */
static const char *slurmd_error_hint(int64_t code)
{
	switch (code) {
	case ESLURMD_IO_ERROR:
		return "its output or error file (-o/-e) could not be opened: does the "
		       "directory exist, and may the job's user write there?";
	case ESLURMD_EXECVE_FAILED:
		return "its script could not be executed (its interpreter line, or a "
		       "working directory (-D) that does not exist)";
	case ESLURMD_PROLOG_FAILED:
		return "the node's Prolog failed: ask the cluster's admins";
	case ESLURMD_SET_UID_OR_GID_ERROR:
	case ESLURMD_UID_NOT_FOUND:
	case ESLURMD_GID_NOT_FOUND:
		return "the job's user or group is not known on its node: ask the cluster's "
		       "admins";
	default:
		return NULL;
	}
}

/* slurmd's own errors (slurm_errno.h's ESLURMD_*, 4000 to 4099) as a wait status: an exit
 * status of 16 and more reads 4096 on, so only a status with signal bits is one, and only
 * one that Slurm has a text for */
static int slurmd_error(int64_t st)
{
	const char *t;

	if (st == JS_NONE || st < ESLURMD_PIPE_ERROR_ON_TASK_SPAWN ||
	    st >= ESLURMD_PIPE_ERROR_ON_TASK_SPAWN + 100 || !(st & 0x7f))
		return 0;
	t = slurm_strerror((int)st);
	return t && strncmp(t, "Unknown error", 13) != 0;
}

const struct row *notes_not_started(const struct job *j, int64_t *code)
{
	for (size_t i = 0; i < j->nsteps; i++) {
		const struct row *s = &j->steps[i];
		/* the step's own status, else the job's for its batch step */
		int64_t st = slurmd_error(s->exit_status)	 ? s->exit_status
			     : s->step_id == (int64_t)STEP_BATCH ? j->row.exit_status
								 : JS_NONE;

		if (s->f.nprocs > 0 || s->running || j->row.running || !slurmd_error(st))
			continue;
		*code = st;
		return s;
	}
	return NULL;
}

const char *notes_slurmd_error_text(int64_t code)
{
	return slurm_strerror((int)code);
}

/* a step that Slurm failed before it ran anything: no process of it was recorded, and its
 * wait status is one of slurmd's errors, which names the cause */
static void note_not_started(struct notes *c)
{
	int64_t st;
	const struct row *s = notes_not_started(c->j, &st);
	const char *hint;
	char code[16];

	if (!s)
		return;
	conv_exitcode(code, sizeof(code), st);
	hint = slurmd_error_hint(st);
	note(c,
	     "%.100s never started: Slurm failed it before it ran anything (ExitCode %s is "
	     "slurmd's error %" PRId64 ", \"%.60s\")%s%.160s",
	     s->jobid, code, st, notes_slurmd_error_text(st), hint ? ": " : "", hint ? hint : "");
}

/* the notes of a finished job tracer recorded, in the order printed */
static void (*const notes[])(struct notes *c) = {
	note_not_started,    note_cpu,	note_memory,   note_time,	 note_failures,	 note_numa,
	note_oversubscribed, note_lost, note_unlisted, note_tracer_down, note_next_time,
};

size_t notes_build(const struct job *j, int units, char lines[][NOTE_LEN], size_t max)
{
	struct notes c = { .j = j, .r = &j->row, .units = units, .lines = lines, .max = max };

	int64_t st;

	/* nothing to record is no missing tracerd: the next note says why */
	if (!c.r->f.nunits && !notes_not_started(j, &st))
		note(&c,
		     "tracer recorded nothing for it (no tracerd on its nodes then, or not yours)");
	if (j->missing[0])
		note(&c,
		     "no figures from node(s) %.160s: their tracerd could not be asked; totals are "
		     "partial",
		     j->missing);
	if (c.r->running) {
		note(&c, "still running: efficiencies and suggestions come when it ends");
		return c.n;
	}
	if (!c.r->f.nunits) {
		note_not_started(&c);
		return c.n;
	}
	row_advice(c.r, &c.adv);
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		notes[i](&c);
	return c.n;
}

/* count each array's tasks in the report and mark the last */
static void count_arrays(struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		j->array_ntasks = 0;
		j->array_last = 0;
		if (j->array_job_id <= 0 || j->array_task_id < 0)
			continue;
		for (size_t k = 0; k < rep->n; k++)
			if (rep->jobs[k].array_job_id == j->array_job_id &&
			    rep->jobs[k].array_task_id >= 0) {
				j->array_ntasks++;
				j->array_last = k <= i;
			}
	}
}

void notes_arrays(struct report *rep)
{
	count_arrays(rep);
	for (size_t i = 0; i < rep->n; i++) {
		struct job *last = &rep->jobs[i];
		struct advice all, one;
		int first = 1;

		if (!last->array_last || last->array_ntasks < 2)
			continue;
		for (size_t k = 0; k <= i; k++) {
			const struct job *t = &rep->jobs[k];

			if (t->array_job_id != last->array_job_id || t->array_task_id < 0)
				continue;
			row_advice(&t->row, &one);
			if (first)
				all = one;
			else
				advice_merge(&all, &one);
			first = 0;
		}
		advice_text(&all, last->array_suggest, sizeof(last->array_suggest));
	}
}
