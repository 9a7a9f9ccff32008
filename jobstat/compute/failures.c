/* Naming what failed. */
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "engine_tools.h"
#include "failures.h"
#include "procs.h"

static int oom_victim(int64_t flags)
{
	return flags != JS_NONE && (flags & PROC_FLAG_OOM);
}

static void keep(struct failed_proc *d, const char *step, const struct proc_rec *p)
{
	d->pid = p->pid;
	d->ppid = p->ppid;
	d->status = p->status;
	d->start_ns = p->start_ns;
	d->end_ns = p->end_ns;
	d->maxrss_kb = p->maxrss_kb;
	d->engine = engine_tool(p->tool);
	d->oom = oom_victim(p->flags);
	snprintf(d->tool, sizeof(d->tool), "%s", p->tool);
	snprintf(d->node, sizeof(d->node), "%s", p->node);
	snprintf(d->step, sizeof(d->step), "%s", step);
	snprintf(d->cmd, sizeof(d->cmd), "%s", p->cmd ? p->cmd : "");
}

/* Failures this close are one: a pipeline's processes fail together, and the one downstream
 * may end first (ls closes its stdout before its exit, grep then sees the end of its input) */
#define FAIL_TOGETHER_NS 100000000LL

static int together(const struct proc_rec *p, const struct failed_proc *d)
{
	return p->end_ns != JS_NONE && d->end_ns != JS_NONE &&
	       llabs(p->end_ns - d->end_ns) < FAIL_TOGETHER_NS;
}

/* failed before d (an unknown end is last); of failures that end together, a tool before the
 * engine (the engine fails because its tool did), and of siblings the one that started first:
 * upstream in their pipeline, what made the others fail. tools_first: a tool before the
 * engine whenever each ended (the OOM killer's victims: at the job's limit it may pick the
 * engine, while the tool is what grew). */
static int earlier(const struct proc_rec *p, const struct failed_proc *d, int tools_first)
{
	int engine = engine_tool(p->tool);

	if (engine != d->engine && (tools_first || together(p, d)))
		return !engine;
	if (p->end_ns == JS_NONE)
		return 0;
	if (d->end_ns == JS_NONE)
		return 1;
	if (together(p, d) && p->ppid == d->ppid && p->start_ns != JS_NONE &&
	    d->start_ns != JS_NONE && p->start_ns != d->start_ns)
		return p->start_ns < d->start_ns;
	return p->end_ns < d->end_ns;
}

/* an OOM victim into the named ones, in the order they are named */
static void add_victim(struct failures *f, const char *step, const struct proc_rec *p)
{
	size_t named = f->noom < FAIL_OOM_NAMED ? f->noom : FAIL_OOM_NAMED, at = named;

	f->noom++;
	if (p->end_ns != JS_NONE) {
		if (!f->oom_from_ns || p->end_ns < f->oom_from_ns)
			f->oom_from_ns = p->end_ns;
		if (p->end_ns > f->oom_to_ns)
			f->oom_to_ns = p->end_ns;
	}
	while (at > 0 && earlier(p, &f->oom[at - 1], 1))
		at--;
	if (at == FAIL_OOM_NAMED)
		return;
	if (named == FAIL_OOM_NAMED)
		named--; /* the last named one gives way */
	memmove(&f->oom[at + 1], &f->oom[at], (named - at) * sizeof(f->oom[0]));
	keep(&f->oom[at], step, p);
}

void failures_add(struct failures *f, const char *step, const struct proc_rec *p, size_t n)
{
	f->checked = 1;
	for (size_t i = 0; i < n; i++) {
		int oom = oom_victim(p[i].flags);

		if (oom)
			add_victim(f, step, &p[i]);
		if ((oom || (p[i].status != JS_NONE && p[i].status != 0)) &&
		    (!f->nfailed++ || earlier(&p[i], &f->first, 0)))
			keep(&f->first, step, &p[i]);
	}
}

void failures_add_grown(struct failures *f, const char *step, const struct proc_rec *p, size_t n)
{
	if (!f->noom || !f->oom_to_ns)
		return;
	for (size_t i = 0; i < n; i++) {
		/* a tool of the first victim's node alive while the OOM killer struck (at the
		 * job's limit it may stop the engines first, the tool a moment later) */
		if (engine_tool(p[i].tool) || p[i].maxrss_kb == JS_NONE ||
		    strcmp(p[i].node, f->oom[0].node) || p[i].start_ns == JS_NONE ||
		    p[i].start_ns > f->oom_to_ns ||
		    (p[i].end_ns != JS_NONE && p[i].end_ns + FAIL_TOGETHER_NS < f->oom_from_ns))
			continue;
		if (!f->ngrew++ || p[i].maxrss_kb > f->grew.maxrss_kb)
			keep(&f->grew, step, &p[i]);
	}
}

void failures_status_text(char *out, size_t len, int64_t status)
{
	int sig = (int)(status & 0x7f);

	if (status == JS_NONE)
		snprintf(out, len, "ended");
	else if (!sig)
		snprintf(out, len, "exited with %d", (int)((status >> 8) & 0xff));
	else
		snprintf(out, len, "was killed by signal %d (%s)", sig,
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
}

void failures_of_job(struct job *j)
{
	size_t n = j->row.kind == ROW_LOCAL ? 1 : j->nsteps;
	struct procset *ps;

	memset(&j->fail, 0, sizeof(j->fail));
	if (!report_job_failed(j) || !n || !(ps = calloc(n, sizeof(*ps))))
		return;
	/* each step's processes read once: the failures, then (knowing the OOM killer's
	 * victims) the tool that grew; a step without units has no processes, its set empty */
	for (size_t i = 0; i < n; i++) {
		const struct row *s = j->row.kind == ROW_LOCAL ? &j->row : &j->steps[i];

		if (s->f.nunits && procs_of_step(j, s, &ps[i]) == 0)
			failures_add(&j->fail, s->jobid, ps[i].p, ps[i].n);
	}
	for (size_t i = 0; i < n; i++) {
		const struct row *s = j->row.kind == ROW_LOCAL ? &j->row : &j->steps[i];

		failures_add_grown(&j->fail, s->jobid, ps[i].p, ps[i].n);
		procs_free(&ps[i]);
	}
	free(ps);
}

static struct json_object *proc_json(const struct failed_proc *p)
{
	struct json_object *o = json_object_new_object();
	int sig = p->status == JS_NONE ? 0 : (int)(p->status & 0x7f);

	json_object_object_add(o, "pid", json_object_new_int64(p->pid));
	json_object_object_add(o, "tool", json_object_new_string(p->tool));
	json_object_object_add(o, "step", json_object_new_string(p->step));
	json_object_object_add(o, "command", json_object_new_string(p->cmd));
	json_object_object_add(o, "exit_code",
			       p->status == JS_NONE || sig
				       ? NULL
				       : json_object_new_int((int)((p->status >> 8) & 0xff)));
	json_object_object_add(o, "signal", sig ? json_object_new_int(sig) : NULL);
	json_object_object_add(o, "maxrss_kb",
			       p->maxrss_kb == JS_NONE || p->maxrss_kb <= 0
				       ? NULL
				       : json_object_new_int64(p->maxrss_kb));
	json_object_object_add(o, "engine", json_object_new_boolean(p->engine));
	json_object_object_add(o, "oom_victim", json_object_new_boolean(p->oom));
	return o;
}

struct json_object *failures_json(const struct failures *f)
{
	struct json_object *o = json_object_new_object(), *v = json_object_new_array();
	size_t named = f->noom < FAIL_OOM_NAMED ? f->noom : FAIL_OOM_NAMED;

	for (size_t i = 0; i < named; i++)
		json_object_array_add(v, proc_json(&f->oom[i]));
	json_object_object_add(o, "oom_victims", v);
	json_object_object_add(o, "oom_victim_count", json_object_new_int64((int64_t)f->noom));
	json_object_object_add(o, "first_failed", f->nfailed ? proc_json(&f->first) : NULL);
	json_object_object_add(o, "failed_count", json_object_new_int64((int64_t)f->nfailed));
	json_object_object_add(o, "largest_tool",
			       f->ngrew && f->grew.maxrss_kb > 0 ? proc_json(&f->grew) : NULL);
	return o;
}
