/* Compute: a step's processes from the model, their parents and states; decoding a record. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flatrow.h"
#include "procs.h"

#define CMD_MAX 1024

static void tool_of(struct flat_row *r, char *out, size_t len)
{
	const char *t = flat_str(r, "tool"), *sub = flat_str(r, "subcommand"), *a0 = NULL, *slash;

	if (t && *t) { /* tracerd's tool identity, with its subcommand ("samtools sort") */
		snprintf(out, len, "%s%s%s", t, sub && *sub ? " " : "", sub && *sub ? sub : "");
		return;
	}
	if (flat_strs(r, "argv", &a0) == 0)
		a0 = NULL;
	if (a0 && *a0) {
		slash = strrchr(a0, '/');
		a0 = slash && slash[1] ? slash + 1 : a0;
		if (*a0 == '-' && a0[1]) /* a login shell's "-bash" */
			a0++;
		snprintf(out, len, "%s", a0);
	} else {
		snprintf(out, len, "%s", (t = flat_str(r, "comm")) ? t : JS_UNKNOWN);
	}
}

/* built on the stack, then copied at its length: a job's 100 000 commands are mostly short */
static char *command_of(struct flat_row *r, int64_t flags)
{
	char c[CMD_MAX];
	const char *a = NULL, *comm;
	size_t at = 0, n = flat_strs(r, "argv", &a);

	c[0] = 0;
	for (size_t i = 0; i < n && at + 1 < CMD_MAX; i++, a = flat_next_str(a)) {
		int w = snprintf(c + at, CMD_MAX - at, "%s%s", i ? " " : "", a);

		at = w < 0 ? at : at + (size_t)w >= CMD_MAX ? CMD_MAX - 1 : at + (size_t)w;
	}
	if (!at)
		snprintf(c, CMD_MAX, "%s", (comm = flat_str(r, "comm")) ? comm : "");
	if ((flags != JS_NONE && (flags & PROC_ARGV_TRUNCATED)) || at >= CMD_MAX - 1)
		snprintf(c + (at < CMD_MAX - 4 ? at : CMD_MAX - 4), 4, "...");
	return strdup(c);
}

#define PROC_SLOT(name, kind, sql, len, flags) REC_SLOT_NUMBER_##kind(struct proc_rec, name, kind)
static const struct rec_slot proc_slots[] = { PROCESS_RECORD(PROC_SLOT) };

const char *const procs_report_fields[] = {
	"pid",
	"ppid",
	"uid",
	"start_ns",
	"end_ns",
	"comm",
	"exe",
	"argv",
	"cpu_ns",
	"user_ns",
	"sys_ns",
	"maxrss_kb",
	"rchar",
	"wchar",
	"read_bytes",
	"write_bytes",
	"status",
	"flags",
	"tool",
	"subcommand",
	"interpreter",
	"tool_excluded",
	"stall_start_ns",
	"stall_ns",
	"stall_reason",
	"cpu_wait_ns",
	"iowait_ns",
	"offcpu_ns",
	"net_rx_bytes",
	"net_tx_bytes",
	NULL,
};

int proc_from_flat(struct flat_row *r, struct proc_rec *p)
{
	const struct flat_field *run;
	const char *reason;

	memset(p, 0, sizeof(*p));
	flat_to_rec(r, proc_slots, sizeof(proc_slots) / sizeof(*proc_slots), p);
	tool_of(r, p->tool, sizeof(p->tool));
	p->excluded = p->tool_excluded > 0;
	p->task = JS_NONE;
	p->running = (run = flat_get(r, "running")) && run->kind == FLAT_BOOL && run->i;
	p->rss_now_kb = flat_int(r, "rss_kb");
	p->stalled_since_ns = flat_int(r, "stalled_since_ns");
	reason = flat_str(r, "stalled_reason");
	snprintf(p->stalled_reason, sizeof(p->stalled_reason), "%s", reason ? reason : "");
	p->cmd = command_of(r, p->flags);
	return p->cmd ? 0 : -ENOMEM;
}

int proc_from_json(struct json_object *o, struct proc_rec *p)
{
	struct flat_row r;
	int err;

	flat_row_init(&r);
	err = flat_from_json(o, &r);
	if (!err)
		err = proc_from_flat(&r, p);
	flat_row_free(&r);
	return err;
}

static int by_start(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int procs_of_step(const struct job *j, const struct row *s, struct procset *ps)
{
	size_t *idx = malloc((j->nunits + 1) * sizeof(*idx)), n, total = 0;

	memset(ps, 0, sizeof(*ps));
	if (!idx)
		return -ENOMEM;
	n = j->detail ? report_step_units(j, s, idx, j->nunits) : 0;
	for (size_t u = 0; u < n; u++)
		total += j->detail[idx[u]].nprocs;
	if (n == 1) { /* the common case: one unit's records, sorted where they are */
		ps->p = j->detail[idx[0]].procs;
		ps->n = total;
		ps->borrowed = 1;
		free(idx);
		if (ps->n > 1)
			qsort(ps->p, ps->n, sizeof(*ps->p), by_start);
		return 0;
	}
	if (total && !(ps->p = malloc(total * sizeof(*ps->p)))) {
		free(idx);
		return -ENOMEM;
	}
	for (size_t u = 0; u < n; u++) {
		const struct unit_detail *d = &j->detail[idx[u]];

		memcpy(ps->p + ps->n, d->procs, d->nprocs * sizeof(*ps->p));
		ps->n += d->nprocs;
	}
	free(idx);
	if (ps->n > 1)
		qsort(ps->p, ps->n, sizeof(*ps->p), by_start);
	return 0;
}

void procs_free(struct procset *ps)
{
	if (!ps->borrowed)
		free(ps->p);
	memset(ps, 0, sizeof(*ps));
}

/* the workflow labels of the step (or run) a process row belongs to */
static void step_labels(struct row *r, const struct row *s)
{
	memcpy(r->pipeline, s->pipeline, sizeof(r->pipeline));
	memcpy(r->run, s->run, sizeof(r->run));
	memcpy(r->step, s->step, sizeof(r->step));
	memcpy(r->wildcards, s->wildcards, sizeof(r->wildcards));
	memcpy(r->tag, s->tag, sizeof(r->tag));
}

const char *procs_state(const struct proc_rec *p)
{
	if (p->running)
		return "RUNNING";
	if (p->flags != JS_NONE && (p->flags & PROC_OOM_KILLED))
		return "OUT_OF_MEMORY";
	if (p->status == JS_NONE || p->status < 0)
		return "";
	if (p->status & 0x7f)
		return "CANCELLED";
	return p->status >> 8 & 0xff ? "FAILED" : "COMPLETED";
}

void procs_agg_row(struct row *r, enum row_kind kind, const struct row *s)
{
	row_init(r, kind);
	snprintf(r->jobid, sizeof(r->jobid), "%s", s->jobid);
	step_labels(r, s);
	r->f.nunits = 1;
	r->cpu_ns = r->user_ns = r->sys_ns = 0;
}

static const struct proc_rec *sort_base;

static int by_pid_start(const void *a, const void *b)
{
	const struct proc_rec *x = &sort_base[*(const long *)a], *y = &sort_base[*(const long *)b];
	int c = strcmp(x->node, y->node);

	if (c)
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const long *)a < *(const long *)b ? -1 : 1;
}

int procs_parents(const struct proc_rec *p, size_t n, long *parent)
{
	long *ord = malloc((n + 1) * sizeof(*ord));

	if (!ord)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ord[i] = (long)i;
	sort_base = p;
	qsort(ord, n, sizeof(*ord), by_pid_start);
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = n;
		long best = -1;

		parent[i] = -1;
		if (p[i].ppid == JS_NONE || p[i].ppid <= 0)
			continue;
		while (lo < hi) { /* first entry of its node with pid >= ppid */
			size_t mid = (lo + hi) / 2;
			int c = strcmp(p[ord[mid]].node, p[i].node);

			if (c < 0 || (c == 0 && p[ord[mid]].pid < p[i].ppid))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && p[ord[lo]].pid == p[i].ppid &&
		       strcmp(p[ord[lo]].node, p[i].node) == 0;
		     lo++)
			if ((size_t)ord[lo] != i && p[ord[lo]].start_ns <= p[i].start_ns)
				best = ord[lo];
		parent[i] = best;
	}
	free(ord);
	return 0;
}
