/* Render: the HTML report's page (html.h). The parts come from html_parts.h; every string of
 * the store goes through html_text.h, the data the script reads through html_json. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "html.h"
#include "html_parts.h"
#include "html_text.h"
#include "procs.h"
#include "safetext.h"
#include "tooltable.h"

struct page {
	FILE *f;
	const struct viewctx *v;
	struct report *rep;
	int64_t now_ns;
	char nonce[40];		   /* the script's: the page runs no other */
	struct json_object *tools; /* the tool tables' data, for the script */
	size_t ntables;
};

static void title(struct page *pg)
{
	const struct opts *o = pg->v->o;
	const struct job *j = pg->rep->n ? &pg->rep->jobs[0] : NULL;

	if (pg->rep->n == 1)
		html_textf(pg->f, "%s %s%s%s%s", j->row.kind == ROW_LOCAL ? "Run" : "Job",
			   j->row.jobid, j->row.jobname[0] ? " (" : "", j->row.jobname,
			   j->row.jobname[0] ? ")" : "");
	else
		html_textf(pg->f, "%zu jobs", pg->rep->n);
	if (o->pipelines)
		html_textf(pg->f, " of pipeline %s", o->pipelines);
	if (o->runs)
		html_textf(pg->f, " of run %s", o->runs);
}

/* ---- the jobs' rows, as the default view (or -o) has them */

static void summary_row(struct page *pg, const struct row *r, const char *cls)
{
	const struct out *out = &pg->v->out;
	char text[1024];
	double num;

	fprintf(pg->f, "<tr class=\"%s\">", cls);
	for (size_t c = 0; c < out->ncols; c++) {
		int field = out->cols[c].field, isnum = cell_number(field, r, &num) >= 0;

		/* cell_text has escaped for a reader already: the markup characters remain */
		cell_text(field, r, &out->cc, text, sizeof(text));
		fprintf(pg->f, "<td%s>", isnum ? " class=\"num\"" : "");
		html_text(pg->f, text);
		fputs("</td>", pg->f);
	}
	fputs("</tr>\n", pg->f);
}

static void summary(struct page *pg)
{
	const struct out *out = &pg->v->out;

	fputs("<h2 id=\"summary\">Summary</h2>\n<table class=\"summary\"><thead><tr>", pg->f);
	for (size_t c = 0; c < out->ncols; c++) {
		fputs("<th>", pg->f);
		html_text(pg->f, field_defs[out->cols[c].field].name);
		fputs("</th>", pg->f);
	}
	fputs("</tr></thead><tbody>\n", pg->f);
	for (size_t i = 0; i < pg->rep->n; i++) {
		const struct job *j = &pg->rep->jobs[i];

		if (!j->step_only)
			summary_row(pg, &j->row, "job");
		for (size_t k = 0; k < j->nsteps && (!pg->v->o->allocations || j->step_only); k++)
			summary_row(pg, &j->steps[k], "step");
	}
	fputs("</tbody></table>\n", pg->f);
}

/* ---- notes and advice: the terminal's text */

static void notes(struct page *pg)
{
	char lines[NOTES_MAX][NOTE_LEN];

	fputs("<h2 id=\"notes\">Notes</h2>\n", pg->f);
	for (size_t i = 0; i < pg->rep->n; i++) {
		const struct job *j = &pg->rep->jobs[i];
		size_t n = j->step_only ? 0 : view_job_notes(j, pg->v->o->units, lines);

		if (!n)
			continue;
		fputs("<h3 class=\"notes-of\">", pg->f);
		html_textf(pg->f, "%s %s%s%s%s, %s", j->row.kind == ROW_LOCAL ? "Run" : "Job",
			   j->row.jobid, j->row.jobname[0] ? " (" : "", j->row.jobname,
			   j->row.jobname[0] ? ")" : "", j->row.state);
		fputs("</h3>\n<ul class=\"notes\">\n", pg->f);
		for (size_t k = 0; k < n; k++) {
			fputs("<li>", pg->f);
			html_text(pg->f, lines[k]);
			fputs("</li>\n", pg->f);
		}
		fputs("</ul>\n", pg->f);
	}
}

static void advice(void *ctx, const char *heading, char *text)
{
	FILE *f = ctx;

	fputs("<p class=\"advice-of\">", f);
	html_text(f, heading);
	fputs("</p>\n<pre class=\"advice\">", f);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		html_text(f, line);
		fputc('\n', f);
	}
	fputs("</pre>\n", f);
}

/* ---- the tools of each step: data for the script, a place for its table */

static struct json_object *tool_cells(const struct row *r, const struct col *cols, size_t n,
				      const struct cellctx *cc)
{
	struct json_object *a = json_object_new_array();
	char text[1024];
	double num;

	for (size_t c = 0; a && c < n; c++) {
		struct json_object *cell = json_object_new_array();

		cell_text(cols[c].field, r, cc, text, sizeof(text));
		json_object_array_add(cell, json_object_new_string(text));
		json_object_array_add(cell, cell_number(cols[c].field, r, &num) == 1
						    ? json_object_new_double(num)
						    : NULL);
		json_object_array_add(a, cell);
	}
	return a;
}

static int step_tools(struct page *pg, const struct job *j, const struct row *s,
		      const struct col *cols, size_t ncols)
{
	struct json_object *t, *names, *rows;
	struct tooltable tt;
	char id[32];

	if (!s->f.nunits || s->f.nprocs == 0)
		return 0;
	if (tooltable_build(j, s, &tt) < 0) {
		tooltable_free(&tt);
		return -ENOMEM;
	}
	if (!tt.n) {
		tooltable_free(&tt);
		return 0;
	}
	snprintf(id, sizeof(id), "tools-%zu", pg->ntables++);
	fputs("<h3 class=\"tools-of\">", pg->f);
	html_text(pg->f, s->jobid);
	fprintf(pg->f, "</h3>\n<div class=\"tools\" id=\"%s\"></div>\n", id);
	t = json_object_new_object();
	names = json_object_new_array();
	rows = json_object_new_array();
	json_object_object_add(t, "id", json_object_new_string(id));
	json_object_object_add(t, "cols", names);
	json_object_object_add(t, "rows", rows);
	for (size_t c = 0; c < ncols; c++)
		json_object_array_add(names,
				      json_object_new_string(field_defs[cols[c].field].name));
	for (size_t k = 0; k < tt.n; k++) {
		exit_counts_format(&tt.t[k].ec, 1, tt.t[k].r.exit_codes,
				   sizeof(tt.t[k].r.exit_codes));
		json_object_array_add(rows, tool_cells(&tt.t[k].r, cols, ncols, &pg->v->out.cc));
	}
	json_object_array_add(pg->tools, t);
	tooltable_free(&tt);
	return 0;
}

static int tools(struct page *pg)
{
	struct col *cols = NULL;
	char err[256];
	int n = fields_parse(view_default_format(V_TOOLS), V_TOOLS, &cols, err, sizeof(err)), r = 0;

	if (n < 0)
		return -EINVAL;
	fputs("<h2 id=\"tools\">Tools</h2>\n<p class=\"meta\">Click a column's header to sort by "
	      "it.</p>\n",
	      pg->f);
	for (size_t i = 0; i < pg->rep->n && !r; i++) {
		const struct job *j = &pg->rep->jobs[i];

		if (j->row.kind == ROW_LOCAL)
			r = step_tools(pg, j, &j->row, cols, (size_t)n);
		for (size_t k = 0; k < j->nsteps && j->row.kind != ROW_LOCAL && !r; k++)
			r = step_tools(pg, j, &j->steps[k], cols, (size_t)n);
	}
	if (!pg->ntables)
		fputs("<p class=\"none\">No tool records were fetched.</p>\n", pg->f);
	free(cols);
	return r;
}

/* ---- the Gantt chart's legend: each tool's colour, each marker */

static void legend(struct page *pg)
{
	struct json_object *seen = json_object_new_object();
	char colour[32];

	fputs("<div class=\"legend-row\" id=\"legend\">", pg->f);
	for (size_t i = 0; seen && i < pg->rep->n; i++) {
		const struct job *j = &pg->rep->jobs[i];

		for (size_t u = 0; j->detail && u < j->nunits; u++)
			for (size_t k = 0;
			     k < j->detail[u].nprocs && json_object_object_length(seen) < 40; k++) {
				const char *tool = j->detail[u].procs[k].tool;

				if (json_object_object_get_ex(seen, tool, NULL))
					continue;
				json_object_object_add(seen, tool, NULL);
				html_tool_colour(colour, sizeof(colour), tool);
				fprintf(pg->f,
					"<span class=\"tool\"><span class=\"swatch\" "
					"style=\"background:%s\"></span>",
					colour);
				html_text(pg->f, tool);
				fputs("</span>", pg->f);
			}
	}
	json_object_put(seen);
	fputs("<span><span class=\"swatch\" style=\"background:#cbd5e0\"></span>step</span>"
	      "<span><span class=\"swatch\" style=\"background:#e53e3e\"></span>non-zero "
	      "exit</span><span><span class=\"swatch\" style=\"background:#742a2a\"></span>OOM "
	      "kill</span><span><span class=\"swatch\" style=\"background:#ed8936\"></span>"
	      "stall</span><span><span class=\"swatch\" style=\"background:#a0aec0\"></span>"
	      "idle</span></div>\n",
	      pg->f);
}

static int charts(struct page *pg)
{
	int r = 0;

	fputs("<h2 id=\"samples\">Over time</h2>\n<p class=\"meta\">Per step, from tracer's "
	      "samples: cores busy against the CPUs allocated, resident memory against the "
	      "memory it may use (--mem), read and write rates, threads waiting for a CPU or "
	      "for I/O.</p>\n",
	      pg->f);
	for (size_t i = 0; i < pg->rep->n && !r; i++)
		r = html_charts(pg->f, pg->rep, &pg->rep->jobs[i], pg->now_ns);
	return r;
}

/* the nodes that could not be asked, as the terminal's warnings say */
static void warnings(struct page *pg)
{
	for (size_t i = 0; i < pg->rep->nnodes; i++) {
		const struct node_info *c = &pg->rep->nodes[i];

		if (!c->failed)
			continue;
		fputs("<p class=\"warn\">", pg->f);
		html_textf(pg->f, "node %s: %s; its figures are missing", c->name, c->error);
		fputs("</p>\n", pg->f);
	}
}

static int page(struct page *pg)
{
	FILE *f = pg->f;
	struct json_object *data = json_object_new_object();
	char when[64];
	time_t now = (time_t)(pg->now_ns / 1000000000);
	struct tm tm;
	int r;

	pg->tools = json_object_new_array();
	if (!data || !pg->tools) {
		json_object_put(data);
		json_object_put(pg->tools);
		return -ENOMEM;
	}
	json_object_object_add(data, "tools", pg->tools);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&now, &tm));
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; script-src 'nonce-%s'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width\">\n<title>" JS_PROG ": ",
		pg->nonce);
	title(pg);
	fputs("</title>\n", f);
	html_style(f);
	fputs("</head>\n<body>\n<h1 id=\"title\">", f);
	title(pg);
	fprintf(f, "</h1>\n<p class=\"meta\">" JS_PROG " report of %s</p>\n", when);
	summary(pg);
	notes(pg);
	view_wfadvice(pg->rep, advice, f);
	warnings(pg);
	fputs("<h2 id=\"timeline\">Timeline</h2>\n", f);
	legend(pg);
	if ((r = html_gantt(f, pg->rep, pg->now_ns)) < 0 || (r = charts(pg)) < 0 ||
	    (r = tools(pg)) < 0)
		goto out;
	fputs("<script type=\"application/json\" id=\"report-data\">", f);
	if ((r = html_json(f, data)) < 0)
		goto out;
	fprintf(f, "</script>\n<script nonce=\"%s\">\n", pg->nonce);
	html_script(f);
	fputs("</script>\n</body>\n</html>\n", f);
out:
	json_object_put(data);
	return r;
}

static void make_nonce(char *out, size_t len)
{
	unsigned char b[16] = { 0 };
	struct timespec t;

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) { /* unlikely: still unguessed */
		clock_gettime(CLOCK_MONOTONIC, &t);
		memcpy(b, &t, sizeof(t) < sizeof(b) ? sizeof(t) : sizeof(b));
	}
	for (size_t i = 0; i < sizeof(b) && 2 * i + 2 < len; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

long html_report(struct viewctx *v, struct report *rep, const char *path)
{
	struct page pg = { .v = v, .rep = rep };
	struct timespec now;
	char *tmp = NULL;
	int fd = -1, r;

	if (!rep->n)
		return 0; /* no page of nothing: the caller says that nothing matched */
	clock_gettime(CLOCK_REALTIME, &now);
	pg.now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	make_nonce(pg.nonce, sizeof(pg.nonce));
	view_jobs_prepare(rep, 1, 1);
	if (asprintf(&tmp, "%s.tmp", path) < 0) {
		tmp = NULL;
		r = -ENOMEM;
		goto fail;
	}
	/* a new file of the user's own: never through a link someone left at path.tmp */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || !(pg.f = fdopen(fd, "w"))) {
		r = -errno;
		fputs(JS_PROG ": cannot write ", stderr);
		safe_text_fputs(tmp, stderr);
		fprintf(stderr, ": %s\n", strerror(-r));
		goto fail;
	}
	fd = -1;
	if ((r = page(&pg)) < 0) {
		fprintf(stderr, JS_PROG ": %s while writing the report\n", strerror(-r));
		goto fail;
	}
	r = fflush(pg.f) != 0 || fsync(fileno(pg.f)) != 0 ? -errno : 0;
	if (fclose(pg.f) != 0 && !r)
		r = -errno;
	pg.f = NULL;
	if (r < 0 || rename(tmp, path) < 0) {
		r = r < 0 ? r : -errno;
		fputs(JS_PROG ": cannot write ", stderr);
		safe_text_fputs(path, stderr);
		fprintf(stderr, ": %s\n", strerror(-r));
		goto fail;
	}
	free(tmp);
	return (long)rep->n;
fail:
	if (pg.f)
		fclose(pg.f);
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	return r;
}
