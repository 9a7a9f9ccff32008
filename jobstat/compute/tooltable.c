/* Compute: tool tables from the units' tool records in the model. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "procs.h"
#include "engine_tools.h"
#include "tooltable.h"

#define CODES_MAX (sizeof(((struct exit_counts *)0)->c) / sizeof(((struct exit_counts *)0)->c[0]))

/* ---- records */

int tooltable_record_name(struct json_object *rec, char *out, size_t len)
{
	const char *tool, *sub;

	if (!json_object_is_type(rec, json_type_object) || !*(tool = json_text(rec, "tool")))
		return -ENOENT;
	sub = json_text(rec, "subcommand");
	snprintf(out, len, "%s%s%s", tool, *sub ? " " : "", sub);
	return 0;
}

static void add_code(struct exit_counts *ec, int64_t status, int64_t n)
{
	int c;

	for (c = 0; c < ec->n && ec->c[c].status != status; c++)
		;
	if (c == ec->n) {
		if (c == (int)CODES_MAX) {
			ec->more++;
			return;
		}
		ec->c[c].status = status;
		ec->n++;
	}
	ec->c[c].n += n;
}

/* "0:12,256:1" (an empty status: not known) */
static void add_codes(struct exit_counts *ec, const char *counts)
{
	while (*counts) {
		char *end = (char *)counts;
		int64_t status = *counts == ':' ? JS_NONE : strtoll(counts, &end, 10), n;

		if (*end != ':')
			return; /* not the shape tracerd writes: keep what was read */
		n = strtoll(end + 1, &end, 10);
		if (n > 0)
			add_code(ec, status, n);
		if (*end != ',')
			return;
		counts = end + 1;
	}
}

/* a tool group's numbers, as tracerd sends them */
struct tool_rec {
	TOOL_RECORD(REC_NUMBER)
};
#define TOOL_SLOT(name, kind, sql, len, flags) REC_SLOT_NUMBER_##kind(struct tool_rec, name, kind)
static const struct rec_slot tool_slots[] = { TOOL_RECORD(TOOL_SLOT) };

void tooltable_record_add(struct row *r, struct exit_counts *ec, struct json_object *rec)
{
	struct figures *f = &r->f;
	struct tool_rec t;

	json_to_rec(rec, tool_slots, sizeof(tool_slots) / sizeof(*tool_slots), &t);
	fig_sum(&f->nprocs, t.nprocs);
	fig_sum(&r->cpu_ns, t.cpu_ns);
	fig_sum(&r->user_ns, t.user_ns);
	fig_sum(&r->sys_ns, t.sys_ns);
	fig_max(&f->maxrss_kb, t.maxrss_kb);
	fig_sum(&f->read_bytes, t.read_bytes);
	fig_sum(&f->write_bytes, t.write_bytes);
	fig_sum(&f->rchar, t.rchar);
	fig_sum(&f->wchar, t.wchar);
	fig_sum(&f->oom_kills, t.oom_kills);
	figures_add_waits(f, t.cpu_wait_ns, t.iowait_ns, t.offcpu_ns, t.net_rx_bytes,
			  t.net_tx_bytes);
	fig_min(&f->first_start_ns, t.first_start_ns);
	fig_max(&f->last_end_ns, t.last_end_ns);
	add_codes(ec, json_text(rec, "status_counts"));
}

void exit_counts_format(const struct exit_counts *ec, int with_counts, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (int c = 0; c < ec->n && at < len; c++) {
		char code[16];
		int w;

		conv_exitcode(code, sizeof(code), ec->c[c].status);
		w = with_counts ? snprintf(out + at, len - at, "%s%s(%" PRId64 ")", c ? "," : "",
					   code, ec->c[c].n)
				: snprintf(out + at, len - at, "%s%s", c ? "," : "", code);
		at += w > 0 ? (size_t)w : 0;
	}
	if (ec->more && at < len)
		snprintf(out + at, len - at, ",...");
}

/* ---- one step's table */

/* the row of tool (a new one at first use), or NULL (ENOMEM) */
static struct tool_row *table_row(struct tooltable *tt, const char *tool, const struct row *s)
{
	struct tool_row *a;

	for (size_t i = 0; i < tt->n; i++)
		if (!strcmp(tt->t[i].r.tool, tool))
			return &tt->t[i];
	if (tt->n == tt->cap) {
		size_t cap = tt->cap ? 2 * tt->cap : 16;
		struct tool_row *nv = realloc(tt->t, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		tt->t = nv;
		tt->cap = cap;
	}
	a = &tt->t[tt->n++];
	memset(a, 0, sizeof(*a));
	procs_agg_row(&a->r, ROW_TOOL, s);
	snprintf(a->r.tool, sizeof(a->r.tool), "%s", tool);
	return a;
}

static int by_cpu(const void *a, const void *b)
{
	const struct tool_row *x = a, *y = b;

	if (x->r.cpu_ns != y->r.cpu_ns)
		return x->r.cpu_ns > y->r.cpu_ns ? -1 : 1;
	return strcmp(x->r.tool, y->r.tool);
}

int tooltable_build(const struct job *j, const struct row *s, struct tooltable *tt)
{
	size_t *idx = malloc((j->nunits + 1) * sizeof(*idx)), n;
	int err = 0;

	memset(tt, 0, sizeof(*tt));
	if (!idx)
		return -ENOMEM;
	n = j->detail ? report_step_units(j, s, idx, j->nunits) : 0;
	for (size_t u = 0; u < n && !err; u++) {
		struct json_object *tools = j->detail[idx[u]].tools;

		for (size_t k = 0; tools && k < json_object_array_length(tools) && !err; k++) {
			struct json_object *rec = json_object_array_get_idx(tools, k);
			struct tool_row *a;
			char name[sizeof(a->r.tool)];

			if (tooltable_record_name(rec, name, sizeof(name)) < 0)
				continue;
			if (!(a = table_row(tt, name, s)))
				err = -ENOMEM;
			else
				tooltable_record_add(&a->r, &a->ec, rec);
		}
	}
	free(idx);
	if (!err && tt->n > 1)
		qsort(tt->t, tt->n, sizeof(*tt->t), by_cpu);
	return err;
}

void tooltable_free(struct tooltable *tt)
{
	free(tt->t);
	memset(tt, 0, sizeof(*tt));
}

/* the main tool of step s: the most CPU, an engine only when no other tool ran; its CPU into
 * *cpu_ns and whether it is an engine into *engine */
static void main_tool(const struct job *j, const struct row *s, char *out, size_t len,
		      int64_t *cpu_ns, int *engine)
{
	struct tooltable tt;
	const struct row *best = NULL;

	if (tooltable_build(j, s, &tt) == 0)
		for (size_t i = 0; i < tt.n && (!best || engine_tool(best->tool)); i++)
			if (!best || !engine_tool(tt.t[i].r.tool))
				best = &tt.t[i].r;
	snprintf(out, len, "%s", best ? best->tool : "");
	*cpu_ns = best && best->cpu_ns != JS_NONE ? best->cpu_ns : -1;
	*engine = best && engine_tool(best->tool);
	tooltable_free(&tt);
}

void tooltable_main_tool(const struct job *j, const struct row *s, char *out, size_t len)
{
	int64_t cpu;
	int engine;

	main_tool(j, s, out, len, &cpu, &engine);
}

int tooltable_unit_tools(void *ctx, const struct unit_rec *u, struct json_object **tools)
{
	const struct report *rep = ctx;

	for (size_t i = 0; i < rep->n; i++) {
		const struct job *j = &rep->jobs[i];

		if (u < j->units || u >= j->units + j->nunits)
			continue;
		if (!j->detail || !j->detail[u - j->units].tools)
			return -ENOENT;
		*tools = json_object_get(j->detail[u - j->units].tools);
		return 0;
	}
	return -ENOENT;
}

/* the failing tool of row r (an OOM victim first, a tool before the engine), if it holds
 * one; where the OOM killer stopped only the engine, the tool that grew */
static void failed_tool(const struct job *j, struct row *r)
{
	const struct failed_proc *p = j->fail.noom	? &j->fail.oom[0]
				      : j->fail.nfailed ? &j->fail.first
							: NULL;

	/* oom[] names tools first: an engine first means the OOM killer stopped only engines */
	if (p && p->engine && j->fail.ngrew && j->fail.grew.maxrss_kb > 0)
		p = &j->fail.grew;

	if (p && (r == &j->row || strcmp(r->jobid, p->step) == 0))
		snprintf(r->tool, sizeof(r->tool), "%s", p->tool);
}

void tooltable_job_tools(struct job *j)
{
	int64_t best = -2, cpu; /* -2: none chosen yet; -1: CPU not known */
	int best_engine = 1, engine;

	if (j->row.kind == ROW_LOCAL) {
		tooltable_main_tool(j, &j->row, j->row.tool, sizeof(j->row.tool));
		failed_tool(j, &j->row);
		return;
	}
	/* the job's: its steps' main tool with the most CPU of its own (not its step's: a
	 * Snakemake job's batch step holds the engine, its srun step the tool), an engine only
	 * when no step ran another tool */
	for (size_t i = 0; i < j->nsteps; i++) {
		struct row *s = &j->steps[i];

		if (!s->f.nunits)
			continue;
		main_tool(j, s, s->tool, sizeof(s->tool), &cpu, &engine);
		if (s->tool[0] &&
		    (best < -1 || best_engine > engine || (best_engine == engine && cpu > best))) {
			best = cpu;
			best_engine = engine;
			snprintf(j->row.tool, sizeof(j->row.tool), "%s", s->tool);
		}
		failed_tool(j, s);
	}
	failed_tool(j, &j->row);
}
