/* Compute: --live's tree of rows, their rates and the rows shown. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "live_tree.h"
#include "procs.h"
#include "signals.h"
#include "slower.h"

#define NS ((int64_t)1000000000)

/* ---- building */

static struct live_row *add_row(struct live_tree *t, enum live_level level, size_t parent,
				const char *key, const char *name)
{
	struct live_row *r;

	if (t->n == t->cap) {
		struct live_row *nv =
			realloc(t->rows, (t->cap = t->cap ? 2 * t->cap : 64) * sizeof(*nv));

		if (!nv)
			return NULL;
		t->rows = nv;
	}
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->level = level;
	r->parent = parent;
	r->depth = parent == LIVE_NONE ? 0 : t->rows[parent].depth + 1;
	snprintf(r->key, sizeof(r->key), "%s", key);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->pid = r->exit_status = r->stalled_since_ns = r->idle_since_ns = r->usual_ns = JS_NONE;
	r->c = (struct live_counts){ 0, JS_NONE, JS_NONE, JS_NONE, JS_NONE };
	r->mem_kb = r->start_ns = r->end_ns = JS_NONE;
	r->cpu_share = r->read_rate = r->write_rate = r->cpu_wait_share = r->iowait_share = -1;
	return r;
}

/* the pipeline and run rows so far (at most two per job), to find them without a search of
 * every row */
struct labels {
	size_t *v;
	size_t n;
};

/* the label row of key under parent, else a new one */
static size_t find_or_add(struct live_tree *t, struct labels *l, enum live_level level,
			  size_t parent, const char *key, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (t->rows[l->v[i]].parent == parent && strcmp(t->rows[l->v[i]].key, key) == 0)
			return l->v[i];
	if (!add_row(t, level, parent, key, name))
		return LIVE_NONE;
	l->v[l->n++] = t->n - 1;
	return t->n - 1;
}

static void add_known(int64_t *sum, int64_t v)
{
	if (v == JS_NONE)
		return;
	*sum = *sum == JS_NONE ? v : *sum + v;
}

/* one process's own figures */
static void proc_figures(struct live_row *r, const struct proc_rec *p)
{
	r->running = p->running;
	r->nprocs = 1;
	r->nrunning = p->running;
	r->start_ns = p->start_ns;
	r->end_ns = p->running ? JS_NONE : p->end_ns;
	r->exit_status = p->running ? JS_NONE : p->status;
	r->noom = p->flags != JS_NONE && (p->flags & PROC_OOM_KILLED);
	r->nfailed = r->noom || (r->exit_status != JS_NONE && r->exit_status != 0);
	r->c.cpu_ns = p->cpu_ns == JS_NONE ? 0 : p->cpu_ns;
	r->c.read_bytes = p->read_bytes; /* storage I/O (a running one's: its last sample) */
	r->c.write_bytes = p->write_bytes;
	r->c.cpu_wait_ns = p->cpu_wait_ns;
	r->c.iowait_ns = p->iowait_ns;
	r->rss_kb = p->running ? (p->rss_now_kb != JS_NONE ? p->rss_now_kb : p->maxrss_kb) : 0;
	if (p->running && p->stalled_since_ns != JS_NONE) {
		r->stalled_since_ns = p->stalled_since_ns;
		snprintf(r->stall_reason, sizeof(r->stall_reason), "%s", p->stalled_reason);
	}
	snprintf(r->node, sizeof(r->node), "%s", p->node);
	r->pid = p->pid;
}

/* since when the running units idx[n] of j have all been idle (tracerd's idle_since_ns), the
 * latest; JS_NONE when one works, or none runs. A job's allocation and extern step hold no
 * work of their own: left out. */
static int64_t units_idle(const struct job *j, const size_t *idx, size_t n)
{
	int64_t since = JS_NONE;

	for (size_t i = 0; i < n; i++) {
		const struct unit_rec *u = &j->units[idx[i]];

		if (!unit_running(u) || (strcmp(u->kind, "slurm") == 0 &&
					 (u->step_id == STEP_NONE || u->step_id == STEP_EXTERN)))
			continue;
		if (!u->have_totals || u->t.idle_since_ns == JS_NONE)
			return JS_NONE;
		if (since == JS_NONE || u->t.idle_since_ns > since)
			since = u->t.idle_since_ns;
	}
	return since;
}

static int64_t job_idle(const struct job *j)
{
	size_t *idx = malloc((j->nunits + 1) * sizeof(*idx));
	int64_t since;

	if (!idx)
		return JS_NONE;
	for (size_t i = 0; i < j->nunits; i++)
		idx[i] = i;
	since = units_idle(j, idx, j->nunits);
	free(idx);
	return since;
}

static int64_t step_idle(const struct job *j, const struct row *s)
{
	size_t idx[256], n = report_step_units(j, s, idx, 256);

	return units_idle(j, idx, n);
}

/* the median time of the step's earlier runs, from its first unit that has them */
static int64_t step_usual(const struct job *j, const struct row *s)
{
	size_t idx[64], n = j->detail ? report_step_units(j, s, idx, 64) : 0;

	for (size_t i = 0; i < n; i++)
		if (j->detail[idx[i]].history)
			return signals_usual_ns(j->detail[idx[i]].history);
	return JS_NONE;
}

static int by_tool(const void *a, const void *b)
{
	const struct proc_rec *x = *(const struct proc_rec *const *)a,
			      *y = *(const struct proc_rec *const *)b;
	int c = strcmp(x->tool, y->tool);

	return c ? c : (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* the tools and processes of step (or run) row s, under row at: the processes taken by tool,
 * a tool's row before its first */
static int add_step(struct live_tree *t, const struct job *j, const struct row *s, size_t at)
{
	const struct proc_rec **by = NULL;
	struct procset ps;
	char key[LIVE_KEY_LEN];
	size_t tool = LIVE_NONE;
	int err = -ENOMEM;

	if (procs_of_step(j, s, &ps) < 0)
		return -ENOMEM;
	if (!(by = malloc((ps.n + 1) * sizeof(*by))))
		goto out;
	for (size_t i = 0; i < ps.n; i++)
		by[i] = &ps.p[i];
	qsort(by, ps.n, sizeof(*by), by_tool);
	for (size_t i = 0; i < ps.n; i++) {
		const struct proc_rec *p = by[i];
		struct live_row *r;

		if (!i || strcmp(p->tool, by[i - 1]->tool) != 0) {
			snprintf(key, sizeof(key), "%.300s/T:%.64s", t->rows[at].key, p->tool);
			if (!add_row(t, LV_TOOL, at, key, p->tool))
				goto out;
			tool = t->n - 1;
		}
		snprintf(key, sizeof(key), "%.300s/%.32s:%" PRId64 ":%" PRId64, t->rows[tool].key,
			 p->node, p->pid, p->start_ns);
		if (!(r = add_row(t, LV_PROC, tool, key, p->cmd && *p->cmd ? p->cmd : p->tool)))
			goto out;
		proc_figures(r, p);
	}
	err = 0;
out:
	free(by);
	procs_free(&ps);
	return err;
}

static size_t add_labels(struct live_tree *t, struct labels *l, const struct row *jr)
{
	char key[LIVE_KEY_LEN];
	size_t at = LIVE_NONE;

	if (jr->pipeline[0]) {
		snprintf(key, sizeof(key), "P:%s", jr->pipeline);
		if ((at = find_or_add(t, l, LV_PIPELINE, LIVE_NONE, key, jr->pipeline)) ==
		    LIVE_NONE)
			return LIVE_NONE - 1;
	}
	if (jr->run[0]) {
		snprintf(key, sizeof(key), "%.200s/R:%.128s",
			 at == LIVE_NONE ? "" : t->rows[at].key, jr->run);
		if ((at = find_or_add(t, l, LV_RUN, at, key, jr->run)) == LIVE_NONE)
			return LIVE_NONE - 1;
	}
	return at;
}

static int add_job(struct live_tree *t, struct labels *l, const struct job *j)
{
	const struct row *jr = &j->row;
	char key[LIVE_KEY_LEN], name[512];
	size_t top = add_labels(t, l, jr), at;
	struct live_row *r;

	if (top == LIVE_NONE - 1)
		return -ENOMEM;
	snprintf(key, sizeof(key), "J:%.120s:%.200s", jr->jobid, jr->nodelist);
	snprintf(name, sizeof(name), "%s %s", jr->jobid, jr->jobname);
	if (!(r = add_row(t, LV_JOB, top, key, name)))
		return -ENOMEM;
	at = t->n - 1;
	r->alloc_cpus = jr->alloc_cpus > 0 ? (double)jr->alloc_cpus : 0;
	r->mem_kb = jr->req_mem_mb > 0 ? jr->req_mem_mb * 1024 : JS_NONE;
	r->start_ns = jr->start > 0 ? jr->start * NS : JS_NONE;
	snprintf(r->missing, sizeof(r->missing), "%s", j->missing);
	r->idle_since_ns = job_idle(j);
	if (jr->kind == ROW_LOCAL)
		return add_step(t, j, jr, at);
	for (size_t i = 0; i < j->nsteps; i++) {
		const struct row *s = &j->steps[i];
		size_t sat;
		int err;

		if (!s->f.nunits)
			continue;
		snprintf(key, sizeof(key), "%.300s/S:%.64s", t->rows[at].key, s->jobid);
		snprintf(name, sizeof(name), "%s %s", s->jobid, s->jobname);
		if (!(r = add_row(t, LV_STEP, at, key, name)))
			return -ENOMEM;
		sat = t->n - 1;
		r->alloc_cpus = s->alloc_cpus > 0 ? (double)s->alloc_cpus : 0;
		r->mem_kb = s->req_mem_share_mb > 0 ? s->req_mem_share_mb * 1024 : JS_NONE;
		r->start_ns = s->start > 0 ? s->start * NS : JS_NONE;
		r->usual_ns = step_usual(j, s);
		r->idle_since_ns = step_idle(j, s);
		if ((err = add_step(t, j, s, sat)) < 0)
			return err;
	}
	return 0;
}

/* each row's figures into its parent's (children come after their parents); allocations and
 * limits down to the rows that have none */
static void sum_up(struct live_tree *t)
{
	for (size_t i = t->n; i-- > 0;) {
		struct live_row *r = &t->rows[i], *p;

		if (r->parent == LIVE_NONE)
			continue;
		p = &t->rows[r->parent];
		p->running |= r->running;
		p->nprocs += r->nprocs;
		p->nrunning += r->nrunning;
		p->nfailed += r->nfailed;
		p->noom += r->noom;
		p->c.cpu_ns += r->c.cpu_ns;
		add_known(&p->c.read_bytes, r->c.read_bytes);
		add_known(&p->c.write_bytes, r->c.write_bytes);
		add_known(&p->c.cpu_wait_ns, r->c.cpu_wait_ns);
		add_known(&p->c.iowait_ns, r->c.iowait_ns);
		p->rss_kb += r->rss_kb;
		if (r->stalled_since_ns != JS_NONE &&
		    (p->stalled_since_ns == JS_NONE || r->stalled_since_ns < p->stalled_since_ns)) {
			p->stalled_since_ns = r->stalled_since_ns;
			memcpy(p->stall_reason, r->stall_reason, sizeof(p->stall_reason));
		}
		if (r->start_ns != JS_NONE && (p->start_ns == JS_NONE || r->start_ns < p->start_ns))
			p->start_ns = r->start_ns;
		if (r->end_ns != JS_NONE && (p->end_ns == JS_NONE || r->end_ns > p->end_ns))
			p->end_ns = r->end_ns; /* an ended row's end: its last process's */
	}
	for (size_t i = 0; i < t->n; i++) {
		struct live_row *r = &t->rows[i];
		const struct live_row *p = r->parent == LIVE_NONE ? NULL : &t->rows[r->parent];

		if (p && r->alloc_cpus <= 0)
			r->alloc_cpus = p->alloc_cpus;
		if (p && r->mem_kb == JS_NONE && r->level >= LV_STEP)
			r->mem_kb = p->mem_kb;
	}
}

static int cmp_key(const void *a, const void *b, void *ctx)
{
	const struct live_tree *t = ctx;

	return strcmp(t->rows[*(const size_t *)a].key, t->rows[*(const size_t *)b].key);
}

int live_tree_build(const struct report *rep, int64_t now_ns, struct live_tree *t)
{
	struct labels l = { calloc(2 * rep->n + 1, sizeof(*l.v)), 0 };

	memset(t, 0, sizeof(*t));
	t->now_ns = now_ns;
	if (!l.v)
		return -ENOMEM;
	for (size_t i = 0; i < rep->n; i++)
		if (add_job(t, &l, &rep->jobs[i]) < 0)
			goto fail;
	free(l.v);
	l.v = NULL;
	sum_up(t);
	for (size_t i = 0; i < t->n; i++) { /* the rule of the "slower than usual" note */
		struct live_row *r = &t->rows[i];
		int64_t end = r->running || r->end_ns == JS_NONE ? now_ns : r->end_ns;

		r->slower = r->usual_ns != JS_NONE && r->start_ns != JS_NONE &&
			    slower_than_usual(end - r->start_ns, r->usual_ns);
	}
	for (size_t i = 0, first = LIVE_NONE; i < t->n && !t->multinode; i++)
		if (t->rows[i].level == LV_PROC) {
			if (first == LIVE_NONE)
				first = i;
			else if (strcmp(t->rows[i].node, t->rows[first].node) != 0)
				t->multinode = 1;
		}
	if (!(t->by_key = malloc((t->n + 1) * sizeof(*t->by_key))))
		goto fail;
	for (size_t i = 0; i < t->n; i++)
		t->by_key[i] = i;
	qsort_r(t->by_key, t->n, sizeof(*t->by_key), cmp_key, t);
	return 0;
fail:
	free(l.v);
	live_tree_free(t);
	return -ENOMEM;
}

void live_tree_free(struct live_tree *t)
{
	free(t->rows);
	free(t->by_key);
	memset(t, 0, sizeof(*t));
}

/* ---- rates */

static const struct live_row *find_key(const struct live_tree *t, const char *key)
{
	size_t lo = 0, hi = t->by_key ? t->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(t->rows[t->by_key[mid]].key, key);

		if (!c)
			return &t->rows[t->by_key[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static double rate(int64_t now, int64_t before, double secs)
{
	if (now == JS_NONE || before == JS_NONE || secs <= 0 || now < before)
		return -1;
	return (double)(now - before) / secs;
}

/* ns per second as a share of one second; unknown stays -1 */
static double per_ns(double v)
{
	return v < 0 ? -1 : v / NS;
}

void live_tree_rates(struct live_tree *t, const struct live_tree *prev)
{
	for (size_t i = 0; i < t->n; i++) {
		struct live_row *r = &t->rows[i];
		const struct live_row *p = prev ? find_key(prev, r->key) : NULL;
		struct live_counts before = { 0, 0, 0, 0, 0 };
		int64_t from = r->start_ns,
			to = r->running || r->end_ns == JS_NONE ? t->now_ns : r->end_ns;
		double secs;

		if (p && prev->now_ns < t->now_ns) { /* since the refresh before */
			before = p->c;
			from = prev->now_ns;
			if (!r->running && !p->running) { /* nothing moves in an ended row */
				r->cpu_share = 0;
				r->read_rate = r->c.read_bytes == JS_NONE ? -1 : 0;
				r->write_rate = r->c.write_bytes == JS_NONE ? -1 : 0;
				r->cpu_wait_share = r->c.cpu_wait_ns == JS_NONE ? -1 : 0;
				r->iowait_share = r->c.iowait_ns == JS_NONE ? -1 : 0;
				continue;
			}
			to = t->now_ns;
		}
		if (from == JS_NONE || to <= from)
			continue;
		secs = (double)(to - from) / NS;
		r->cpu_share = per_ns(rate(r->c.cpu_ns, before.cpu_ns, secs));
		if (r->cpu_share >= 0 && r->alloc_cpus > 0)
			r->cpu_share /= r->alloc_cpus;
		r->read_rate = rate(r->c.read_bytes, before.read_bytes, secs);
		r->write_rate = rate(r->c.write_bytes, before.write_bytes, secs);
		r->cpu_wait_share = per_ns(rate(r->c.cpu_wait_ns, before.cpu_wait_ns, secs));
		r->iowait_share = per_ns(rate(r->c.iowait_ns, before.iowait_ns, secs));
	}
}

/* ---- the rows shown */

static int toggled(const struct live_view *v, const char *key)
{
	for (size_t i = 0; i < v->ntoggled; i++)
		if (strcmp(v->toggled[i], key) == 0)
			return 1;
	return 0;
}

static int row_matches(const struct live_row *r, const char *filter)
{
	char pid[24];

	if (!*filter)
		return 1;
	snprintf(pid, sizeof(pid), "%" PRId64, r->pid);
	return strcasestr(r->name, filter) || (r->node[0] && strcasestr(r->node, filter)) ||
	       (r->pid != JS_NONE && strcmp(pid, filter) == 0);
}

struct order {
	const struct live_tree *t;
	enum live_sort sort;
};

static int64_t io_of(const struct live_row *r)
{
	return (int64_t)((r->read_rate > 0 ? r->read_rate : 0) +
			 (r->write_rate > 0 ? r->write_rate : 0));
}

static int cmp_sibling(const void *a, const void *b, void *ctx)
{
	const struct order *o = ctx;
	const struct live_row *x = &o->t->rows[*(const size_t *)a],
			      *y = &o->t->rows[*(const size_t *)b];
	int c = 0;

	if (x->parent != y->parent)
		return x->parent == LIVE_NONE	? -1
		       : y->parent == LIVE_NONE ? 1
		       : x->parent < y->parent	? -1
						: 1;
	switch (o->sort) {
	case LS_CPU:
		c = (y->cpu_share > x->cpu_share) - (y->cpu_share < x->cpu_share);
		break;
	case LS_RSS:
		c = (y->rss_kb > x->rss_kb) - (y->rss_kb < x->rss_kb);
		break;
	case LS_IO:
		c = (io_of(y) > io_of(x)) - (io_of(y) < io_of(x));
		break;
	case LS_NAME:
		c = strcmp(x->name, y->name);
		break;
	default:
		break;
	}
	if (!c)
		c = (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
	return c ? c : strcmp(x->key, y->key);
}

/* row i and the rows below it, in order, into idx */
static void walk(const struct live_tree *t, const size_t *kids, const size_t *first, size_t i,
		 size_t *idx, size_t *n)
{
	const struct live_row *r = &t->rows[i];

	if (!r->matches)
		return;
	idx[(*n)++] = i;
	if (!r->open)
		return;
	for (size_t k = first[i]; k < t->n && t->rows[kids[k]].parent == i; k++)
		walk(t, kids, first, kids[k], idx, n);
}

size_t live_tree_visible(struct live_tree *t, const struct live_view *v, size_t *idx)
{
	struct order o = { t, v->sort };
	size_t *kids = malloc((t->n + 1) * sizeof(*kids)),
	       *first = malloc((t->n + 1) * sizeof(*first));
	size_t n = 0;

	if (!kids || !first) {
		free(kids);
		free(first);
		return 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct live_row *r = &t->rows[i];
		int dflt = v->all_open || !(r->level == LV_TOOL && r->nprocs > LIVE_TOOL_OPEN_MAX);

		r->open = toggled(v, r->key) ? !dflt : dflt;
		r->matches = row_matches(r, v->filter);
		kids[i] = i;
		first[i] = t->n;
	}
	for (size_t i = t->n; i-- > 0;) /* a match keeps its ancestors, open */
		if (t->rows[i].matches && t->rows[i].parent != LIVE_NONE) {
			t->rows[t->rows[i].parent].matches = 1;
			if (v->filter[0])
				t->rows[t->rows[i].parent].open = 1;
		}
	qsort_r(kids, t->n, sizeof(*kids), cmp_sibling, &o);
	for (size_t k = t->n; k-- > 0;)
		if (t->rows[kids[k]].parent != LIVE_NONE)
			first[t->rows[kids[k]].parent] = k;
	for (size_t k = 0; k < t->n && t->rows[kids[k]].parent == LIVE_NONE; k++)
		walk(t, kids, first, kids[k], idx, &n);
	free(kids);
	free(first);
	return n;
}

int live_view_toggle(struct live_view *v, const char *key)
{
	char **nv;

	for (size_t i = 0; i < v->ntoggled; i++)
		if (strcmp(v->toggled[i], key) == 0) {
			free(v->toggled[i]);
			v->toggled[i] = v->toggled[--v->ntoggled];
			return 0;
		}
	if (!(nv = realloc(v->toggled, (v->ntoggled + 1) * sizeof(*nv))))
		return -ENOMEM;
	v->toggled = nv;
	if (!(nv[v->ntoggled] = strdup(key)))
		return -ENOMEM;
	v->ntoggled++;
	return 0;
}

void live_view_free(struct live_view *v)
{
	for (size_t i = 0; i < v->ntoggled; i++)
		free(v->toggled[i]);
	free(v->toggled);
	v->toggled = NULL;
	v->ntoggled = 0;
}

const char *live_sort_name(enum live_sort s)
{
	static const char *const names[LS_COUNT] = { "start", "CPU", "RSS", "I/O", "name" };

	return s < LS_COUNT ? names[s] : "start";
}

const char *live_level_name(enum live_level l)
{
	static const char *const names[] = { "pipeline", "run", "job", "step", "tool", "process" };

	return l <= LV_PROC ? names[l] : "";
}
