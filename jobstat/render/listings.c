/* Render: the rows of the per-process views — one per process (--processes), the process
 * tree with each subtree's totals (--tree), the tool table of a step (--tools) and the
 * workflow tree (--workflow), out to a table or JSON. The rows' figures come from the model
 * (procs.h, tooltable.h, pipelines.h); nothing here asks a daemon. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "listings.h"
#include "pipelines.h"
#include "procs.h"
#include "tooltable.h"

/* what a process and a tree row share: where it ran */
static void proc_place(struct row *r, const struct proc_rec *p)
{
	snprintf(r->nodelist, sizeof(r->nodelist), "%s", p->node);
	r->task = p->task;
	r->running = p->running;
	snprintf(r->state, sizeof(r->state), "%s", procs_state(p));
}

static void proc_row(struct row *r, const struct proc_rec *p, const struct row *s)
{
	procs_agg_row(r, ROW_PROC, s);
	r->pid = p->pid;
	r->ppid = p->ppid;
	proc_place(r, p);
	r->f.nunits = 1;
	r->f.nprocs = 1;
	r->f.first_start_ns = p->start_ns;
	r->f.last_end_ns = p->end_ns;
	r->elapsed = p->start_ns != JS_NONE && p->end_ns != JS_NONE && p->end_ns >= p->start_ns
			     ? (p->end_ns - p->start_ns + 500000000) / 1000000000
			     : JS_NONE;
	if (p->running && p->start_ns != JS_NONE && (int64_t)time(NULL) * 1000000000 >= p->start_ns)
		r->elapsed =
			((int64_t)time(NULL) * 1000000000 - p->start_ns) / 1000000000; /* so far */
	r->cpu_ns = p->cpu_ns;
	r->user_ns = p->user_ns;
	r->sys_ns = p->sys_ns;
	r->f.maxrss_kb = p->maxrss_kb;
	r->f.read_bytes = p->read_bytes;
	r->f.write_bytes = p->write_bytes;
	r->f.rchar = p->rchar;
	r->f.wchar = p->wchar;
	r->f.oom_kills = p->flags != JS_NONE && (p->flags & PROC_OOM_KILLED) ? 1 : 0;
	figures_add_waits(&r->f, p->cpu_wait_ns, p->iowait_ns, p->offcpu_ns, p->net_rx_bytes,
			  p->net_tx_bytes);
	r->exit_status = p->status;
	snprintf(r->tool, sizeof(r->tool), "%s", p->tool);
	r->command = p->cmd;
}

void procs_emit_processes(const struct procset *ps, const struct row *s, struct emit *e)
{
	struct row r;

	for (size_t i = 0; i < ps->n; i++) {
		proc_row(&r, &ps->p[i], s);
		emit_row(e, &r);
	}
}

struct subtot {
	int64_t nprocs, cpu, user, sys, maxrss, rb, wb, rc, wc, oom, last_end;
};

static void subtot_of(struct subtot *t, const struct proc_rec *p)
{
	t->nprocs = 1;
	t->cpu = p->cpu_ns == JS_NONE ? 0 : p->cpu_ns;
	t->user = p->user_ns == JS_NONE ? 0 : p->user_ns;
	t->sys = p->sys_ns == JS_NONE ? 0 : p->sys_ns;
	t->maxrss = p->maxrss_kb;
	t->rb = p->read_bytes == JS_NONE ? 0 : p->read_bytes;
	t->wb = p->write_bytes == JS_NONE ? 0 : p->write_bytes;
	t->rc = p->rchar == JS_NONE ? 0 : p->rchar;
	t->wc = p->wchar == JS_NONE ? 0 : p->wchar;
	t->oom = p->flags != JS_NONE && (p->flags & PROC_OOM_KILLED) ? 1 : 0;
	t->last_end = p->end_ns;
}

static void subtot_add(struct subtot *t, const struct subtot *c)
{
	t->nprocs += c->nprocs;
	t->cpu += c->cpu;
	t->user += c->user;
	t->sys += c->sys;
	if (c->maxrss > t->maxrss)
		t->maxrss = c->maxrss;
	t->rb += c->rb;
	t->wb += c->wb;
	t->rc += c->rc;
	t->wc += c->wc;
	t->oom += c->oom;
	if (c->last_end > t->last_end)
		t->last_end = c->last_end;
}

int procs_emit_tree(const struct procset *ps, const struct row *s, struct emit *e)
{
	size_t n = ps->n, norder = 0;
	long *parent = malloc((n + 1) * sizeof(long)), *first = malloc((n + 1) * sizeof(long));
	long *next = malloc((n + 1) * sizeof(long)), *stack = malloc((n + 1) * sizeof(long));
	long *order = malloc((n + 1) * sizeof(long));
	int *depth = malloc((n + 1) * sizeof(int));
	struct subtot *sub = malloc((n + 1) * sizeof(*sub));
	int err = -ENOMEM;

	if (!parent || !first || !next || !stack || !order || !depth || !sub ||
	    procs_parents(ps->p, n, parent) < 0)
		goto out;
	/* children lists in start order: walk backwards, pushing to the front */
	for (size_t i = 0; i < n; i++)
		first[i] = next[i] = -1;
	for (size_t i = n; i-- > 0;)
		if (parent[i] >= 0) {
			next[i] = first[parent[i]];
			first[parent[i]] = (long)i;
		}
	/* pre-order from every root, iteratively; the first-started child comes out first */
	for (size_t r = 0; r < n; r++) {
		size_t sp = 0;

		if (parent[r] >= 0)
			continue;
		stack[sp++] = (long)r;
		depth[r] = 0;
		while (sp) {
			long v = stack[--sp], c;
			size_t k = 0, i = 0;

			order[norder++] = v;
			for (c = first[v]; c >= 0; c = next[c])
				k++;
			for (c = first[v]; c >= 0; c = next[c], i++) {
				stack[sp + k - 1 - i] = c;
				depth[c] = depth[v] + 1;
			}
			sp += k;
		}
	}
	/* subtree totals, children before parents (reverse pre-order) */
	for (size_t i = 0; i < n; i++)
		subtot_of(&sub[i], &ps->p[i]);
	for (size_t k = norder; k-- > 0;)
		if (parent[order[k]] >= 0)
			subtot_add(&sub[parent[order[k]]], &sub[order[k]]);
	for (size_t k = 0; k < norder; k++) {
		long v = order[k];
		const struct proc_rec *p = &ps->p[v];
		struct row r;
		struct json_object *o;

		procs_agg_row(&r, ROW_TREE, s);
		r.f.nprocs = sub[v].nprocs;
		r.cpu_ns = sub[v].cpu;
		r.user_ns = sub[v].user;
		r.sys_ns = sub[v].sys;
		r.f.maxrss_kb = sub[v].maxrss;
		r.f.read_bytes = sub[v].rb;
		r.f.write_bytes = sub[v].wb;
		r.f.rchar = sub[v].rc;
		r.f.wchar = sub[v].wc;
		r.f.oom_kills = sub[v].oom;
		r.f.first_start_ns = p->start_ns;
		r.f.last_end_ns = sub[v].last_end;
		r.pid = p->pid;
		r.ppid = p->ppid;
		proc_place(&r, p);
		r.depth = depth[v];
		r.exit_status = p->status;
		r.command = p->cmd;
		snprintf(r.tool, sizeof(r.tool), "%s", p->tool);
		o = emit_row(e, &r);
		if (o) {
			json_object_object_add(o, "Tree", json_object_new_string(r.tool));
			json_object_object_add(o, "Depth", json_object_new_int(r.depth));
		}
	}
	err = 0;
out:
	free(parent);
	free(first);
	free(next);
	free(stack);
	free(order);
	free(depth);
	free(sub);
	return err;
}

size_t pipelines_emit(const struct row *rows, size_t n, struct emit *e)
{
	struct json_object *parent[WF_TOOL] = {};
	static const char *const child_key[WF_TOOL] = { "runs", "steps", "tools" };

	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		struct json_object *o, *list;
		int l = r->wf_level;

		if (!e->json) {
			out_row(e->o, r);
			continue;
		}
		if (!(o = out_row_json(r, e->jcols, e->njcols, &e->o->cc)))
			continue;
		if (l == WF_PIPELINE) {
			json_object_array_add(e->jarr, o);
		} else if (parent[l - 1] &&
			   json_object_object_get_ex(parent[l - 1], child_key[l - 1], &list)) {
			json_object_array_add(list, o);
		} else {
			json_object_put(o);
			continue;
		}
		if (l < WF_TOOL) {
			json_object_object_add(o, child_key[l], json_object_new_array());
			parent[l] = o;
			for (int k = l + 1; k < WF_TOOL; k++)
				parent[k] = NULL;
		}
	}
	return n;
}

long tooltable_emit(const struct job *j, const struct row *s, struct emit *e)
{
	struct tooltable tt;
	long n = tooltable_build(j, s, &tt);

	for (size_t k = 0; !n && k < tt.n; k++) {
		exit_counts_format(&tt.t[k].ec, 1, tt.t[k].r.exit_codes,
				   sizeof(tt.t[k].r.exit_codes));
		emit_row(e, &tt.t[k].r);
	}
	if (!n)
		n = (long)tt.n;
	tooltable_free(&tt);
	return n;
}
