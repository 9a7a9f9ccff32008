/* Render: a report printed in the view asked for. Reads the model only: collect fetched what
 * each view needs (view_wanted says what). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrays.h"
#include "convert.h"
#include "listings.h"
#include "notes.h"
#include "wfadvice.h"
#include "pipelines.h"
#include "procs.h"
#include "safetext.h"
#include "signals.h"
#include "tooltable.h"
#include "views.h"

static void header(struct viewctx *v)
{
	emit_header(&v->e);
}

static void put(struct viewctx *v, const struct row *r)
{
	header(v);
	out_row(&v->out, r);
	v->rows++;
}

static int wants(const struct viewctx *v, int field)
{
	for (size_t i = 0; i < v->out.ncols; i++)
		if (v->out.cols[i].field == field)
			return 1;
	return 0;
}

void view_wanted(const struct viewctx *v, struct details_wanted *w)
{
	int tools = wants(v, F_TOOL), notes = !v->o->parsable && !v->e.json && !v->o->noheader;

	memset(w, 0, sizeof(*w));
	if (v->o->html) { /* everything: its rows, notes, chart, samples and tools */
		w->failed_procs = w->step_procs = w->step_tools_ran = 1;
		w->topology = w->history = w->step_samples = 1;
		return;
	}
	switch (v->o->view) {
	case V_JOBS:
		w->failed_procs = tools || notes || v->e.json;
		w->step_tools = tools;
		w->topology = notes || v->e.json;
		w->history = notes || v->e.json;
		break;
	case V_TOOLS:
		w->step_tools_ran = 1;
		break;
	case V_PROCS:
	case V_TREE:
		w->step_procs = 1;
		break;
	case V_WORKFLOW:
		w->unit_tools = 1;
		break;
	case V_TIMELINE:
		w->step_samples = 1;
		break;
	case V_ARRAY:
	default:
		break;
	}
}

/* Under a table with the wait columns, for a reader: they are thread time, which a sum of
 * sleeping threads makes longer than the time that passed. */
static void thread_time_legend(struct viewctx *v)
{
	if (!v->rows || v->e.json || v->o->parsable || v->o->noheader ||
	    !(wants(v, F_CPUWAIT) || wants(v, F_IOWAIT) || wants(v, F_OFFCPU)))
		return;
	fprintf(v->out.f,
		"\nCPUWait, IOWait and OffCPU are thread time, summed over each process's threads "
		"as TotalCPU is:\nOffCPU / Elapsed is how many threads were asleep on average, "
		"more than 1 when several sleep at once.\n");
}

size_t view_job_notes(const struct job *j, int units, char lines[][NOTE_LEN])
{
	size_t n = notes_build(j, units, lines, NOTES_MAX);

	return n + signals_notes(j, units, j->row.running, lines + n, NOTES_MAX - n);
}

/* "Job 123 (name), COMPLETED:" and the notes, indented; nothing when there are none */
static void notes_print(FILE *f, const struct job *j, int units)
{
	char lines[NOTES_MAX][NOTE_LEN];
	size_t n = view_job_notes(j, units, lines);

	if (!n)
		return;
	fprintf(f, "\n%s ", j->row.kind == ROW_LOCAL ? "Run" : "Job");
	safe_text_fputs(j->row.jobid, f);
	if (j->row.jobname[0]) {
		fputs(" (", f);
		safe_text_fputs(j->row.jobname, f);
		fputc(')', f);
	}
	fputs(", ", f);
	safe_text_fputs(j->row.state, f);
	fputs(":\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs("  ", f);
		safe_text_fputs(lines[i], f);
		fputc('\n', f);
	}
}

static struct json_object *notes_json(const struct job *j, int units)
{
	char lines[NOTES_MAX][NOTE_LEN];
	size_t n = view_job_notes(j, units, lines);
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_string(lines[i]));
	return a;
}

static struct json_object *jobs_json(struct viewctx *v, struct job *j)
{
	struct json_object *o = out_row_json(&j->row, v->e.jcols, v->e.njcols, &v->out.cc), *steps;
	const struct row *ns = NULL;
	int64_t code;

	if (!o)
		return NULL;
	if (wants(v, F_TOOL))
		json_object_object_add(o, "Tool",
				       j->row.tool[0] ? json_object_new_string(j->row.tool) : NULL);
	if (j->row.kind == ROW_JOB && !v->o->allocations) {
		steps = json_object_new_array();
		for (size_t i = 0; i < j->nsteps; i++) {
			struct json_object *s =
				out_row_json(&j->steps[i], v->e.jcols, v->e.njcols, &v->out.cc);

			if (s && wants(v, F_TOOL))
				json_object_object_add(
					s, "Tool",
					j->steps[i].tool[0]
						? json_object_new_string(j->steps[i].tool)
						: NULL);
			json_object_array_add(steps, s);
		}
		json_object_object_add(o, "steps", steps);
	}
	json_object_object_add(o, "notes", notes_json(j, v->o->units));
	ns = notes_not_started(j, &code);
	if (j->fail.checked || ns) { /* failures_add counted any failure: checked */
		struct json_object *f = failures_json(&j->fail), *n = NULL;

		if (ns) {
			n = json_object_new_object();
			json_object_object_add(n, "step", json_object_new_string(ns->jobid));
			json_object_object_add(n, "slurmd_error", json_object_new_int64(code));
			json_object_object_add(
				n, "message",
				json_object_new_string(notes_slurmd_error_text(code)));
		}
		json_object_object_add(f, "not_started", n);
		json_object_object_add(o, "failures", f);
	}
	return o;
}

void view_wfadvice(const struct report *rep, view_wfadvice_fn fn, void *ctx)
{
	struct wf_advice *w = NULL;
	long n = wfadvice_build(rep, &w);
	int users = 0;

	for (long i = 0; i < n && !users; i++)
		users = w[i].uid != w[0].uid;
	for (long i = 0; i < n; i++) {
		size_t jobs = 0, len;
		char *text, heading[512];
		long k;

		for (k = 0; k < i && !wfadvice_same_group(&w[k], &w[i]); k++)
			; /* once per engine, pipeline and user */
		if (k < i || !(len = wfadvice_text(w, (size_t)n, &w[i], NULL, 0)))
			continue;
		/* the whole line or nothing: a cut one would under-size what it leaves out */
		if (!(text = malloc(len + 1))) {
			fprintf(stderr, JS_PROG ": out of memory for the workflow advice\n");
			break;
		}
		wfadvice_text(w, (size_t)n, &w[i], text, len + 1);
		for (k = 0; k < n; k++)
			if (wfadvice_same_group(&w[k], &w[i]))
				jobs += w[k].njobs;
		/* a Snakemake job runs the engine in its batch step; a Nextflow task job does not
		 */
		snprintf(heading, sizeof(heading),
			 "Next time, per %s of %s%s%s (the highest need over its %zu job%s%s):",
			 strcmp(w[i].engine, "nextflow") ? "Snakemake rule" : "Nextflow process",
			 w[i].pipeline[0] ? w[i].pipeline : "this workflow", users ? " by " : "",
			 users ? w[i].user : "", jobs, jobs == 1 ? "" : "s",
			 strcmp(w[i].engine, "snakemake") ? ""
							  : ", the engine's own share included");
		fn(ctx, heading, text);
		free(text);
	}
	free(w);
}

/* one advice on the terminal: its lines indented, escaped (names that are identifiers only,
 * wfadvice_build's, all the same) */
static void wfadvice_put(void *ctx, const char *heading, char *text)
{
	FILE *f = ctx;

	fputc('\n', f);
	safe_text_fputs(heading, f);
	fputc('\n', f);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		fputs("    ", f);
		safe_text_fputs(line, f);
		fputc('\n', f);
	}
}

void view_jobs_prepare(struct report *rep, int failures, int tools)
{
	notes_arrays(rep);
	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		report_nodes(j, rep);
		if (failures || tools)
			failures_of_job(j);
		if (tools)
			tooltable_job_tools(j);
		report_numa(j, rep);
	}
}

static size_t view_jobs(struct viewctx *v, struct report *rep)
{
	/* notes are for a reader: not with -n (a script's), -p/-P or --json (which has them) */
	int tools = wants(v, F_TOOL), notes = !v->o->parsable && !v->e.json && !v->o->noheader;

	view_jobs_prepare(rep, tools || notes || v->e.json, tools);
	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		if (v->e.json) {
			json_object_array_add(v->e.jarr, jobs_json(v, j));
			v->rows++;
			continue;
		}
		if (!j->step_only)
			put(v, &j->row);
		for (size_t k = 0; k < j->nsteps && (!v->o->allocations || j->step_only); k++)
			put(v, &j->steps[k]);
	}
	out_flush(&v->out);
	thread_time_legend(v);
	if (notes)
		for (size_t i = 0; i < rep->n; i++) {
			if (rep->jobs[i].step_only)
				continue;
			notes_print(v->out.f, &rep->jobs[i], v->o->units);
		}
	if (notes)
		view_wfadvice(rep, wfadvice_put, v->out.f);
	return v->rows;
}

static void emit_set(struct viewctx *v, const struct procset *ps, const struct row *s)
{
	size_t before = v->e.jarr ? json_object_array_length(v->e.jarr) : 0;

	if (!ps->n)
		return;
	header(v);
	switch (v->o->view) {
	case V_TREE:
		if (procs_emit_tree(ps, s, &v->e) < 0)
			fprintf(stderr, JS_PROG ": out of memory for the tree of %s\n", s->jobid);
		break;
	default:
		procs_emit_processes(ps, s, &v->e);
		break;
	}
	v->rows += v->e.json ? json_object_array_length(v->e.jarr) - before : ps->n;
}

/* the tool table of step (or run) row s, grouped in tracerd's store */
static void emit_tools(struct viewctx *v, const struct job *j, const struct row *s)
{
	long n;

	if (s->f.nprocs == 0)
		return;
	header(v);
	if ((n = tooltable_emit(j, s, &v->e)) < 0)
		fprintf(stderr, JS_PROG ": out of memory for the tools of %s\n", s->jobid);
	else
		v->rows += (size_t)n;
}

static size_t view_procs(struct viewctx *v, struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];
		struct procset ps;

		if (v->o->view == V_TOOLS) {
			if (j->row.kind == ROW_LOCAL)
				emit_tools(v, j, &j->row);
			for (size_t k = 0; k < j->nsteps && j->row.kind != ROW_LOCAL; k++)
				if (j->steps[k].f.nunits)
					emit_tools(v, j, &j->steps[k]);
			continue;
		}
		if (j->row.kind == ROW_LOCAL) {
			if (procs_of_step(j, &j->row, &ps) == 0)
				emit_set(v, &ps, &j->row);
			procs_free(&ps);
			continue;
		}
		for (size_t k = 0; k < j->nsteps; k++) {
			if (!j->steps[k].f.nunits)
				continue;
			if (procs_of_step(j, &j->steps[k], &ps) == 0)
				emit_set(v, &ps, &j->steps[k]);
			procs_free(&ps);
		}
	}
	return v->rows;
}

static size_t view_arrays(struct viewctx *v, struct report *rep)
{
	struct row *rows;
	struct array_stats *st;
	int n;

	notes_arrays(rep);
	n = arrays_build(rep, &rows, &st);

	if (n < 0) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		return 0;
	}
	if (!n && rep->n)
		fprintf(stderr, JS_PROG ": none of these jobs is part of a job array\n");
	for (int i = 0; i < n; i++) {
		if (v->e.json) {
			json_object_array_add(v->e.jarr, array_json(&rows[i], v->out.cols,
								    v->out.ncols, &v->out.cc));
			v->rows++;
		} else {
			put(v, &rows[i]);
		}
	}
	free(rows);
	free(st);
	return v->rows;
}

static size_t view_workflow(struct viewctx *v, struct report *rep)
{
	struct row *rows;
	struct timespec now;
	long n;

	clock_gettime(CLOCK_REALTIME, &now);
	n = pipelines_build(rep, tooltable_unit_tools, rep,
			    (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, &rows);
	if (n < 0) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		return 0;
	}
	if (!n && rep->n)
		fprintf(stderr,
			JS_PROG ": none of these jobs belongs to a workflow tracer recognised\n");
	if (n)
		header(v);
	v->rows += pipelines_emit(rows, (size_t)n, &v->e);
	free(rows);
	return v->rows;
}

size_t view_print(struct viewctx *v, struct report *rep)
{
	size_t n;

	switch (v->o->view) {
	case V_WORKFLOW:
		n = view_workflow(v, rep);
		break;
	case V_ARRAY:
		n = view_arrays(v, rep);
		break;
	case V_TOOLS:
	case V_PROCS:
	case V_TREE:
		n = view_procs(v, rep);
		break;
	case V_TIMELINE:
		n = view_timeline(v, rep);
		break;
	case V_JOBS:
	default:
		return view_jobs(v, rep); /* its legend comes before its notes */
	}
	out_flush(&v->out);
	thread_time_legend(v);
	return n;
}

void view_warnings(struct viewctx *v, const struct report *rep)
{
	for (size_t i = 0; i < rep->nnodes; i++) {
		const struct node_info *c = &rep->nodes[i];
		char jobs[512] = "", msg[1024];
		size_t at = 0;

		if (!c->failed)
			continue;
		for (size_t k = 0; k < rep->n && at < sizeof(jobs) - 32; k++) {
			const char *m = rep->jobs[k].missing;
			size_t l = strlen(c->name);
			const char *p = m;

			while ((p = strstr(p, c->name)) &&
			       !((p == m || p[-1] == ',') && (p[l] == ',' || !p[l])))
				p += l;
			if (p)
				at += snprintf(jobs + at, sizeof(jobs) - at, "%s%s", at ? "," : "",
					       rep->jobs[k].row.jobid);
		}
		snprintf(msg, sizeof(msg), "node %s: %s%s%s", c->name, c->error,
			 at ? "; figures missing for job(s) " : "", jobs);
		/* node names, a connection's or a daemon's error, job ids: escaped as printed, and
		 * in --json with the whole document */
		fputs(JS_PROG ": warning: ", stderr);
		safe_text_fputs(msg, stderr);
		fputc('\n', stderr);
		if (v->warnings)
			json_object_array_add(v->warnings, json_object_new_string(msg));
	}
}
