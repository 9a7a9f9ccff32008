/* Render: each step's samples over time in the HTML report, as --timeline works them out
 * (timeline_rows.h): cores busy against the CPUs allocated, resident memory against the
 * memory the step may use, read and write rates, and the threads waiting for a CPU or for
 * I/O. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "html_parts.h"
#include "html_text.h"
#include "timeline_rows.h"

#define PANEL_H 70
#define PANEL_GAP 34
#define SERIES 2
#define DOTS_MAX 60 /* intervals up to which each point is also a dot */

enum { P_CORES, P_RSS, P_IO, P_WAIT, PANELS };

struct panel {
	const char *title, *names[SERIES], *colours[SERIES];
	int nseries;
	int unit; /* sizes: the fmt_unit the values count in (U_NONE: bytes); -1 not a size */
	double *v[SERIES]; /* per interval, < 0 unknown */
	double limit;	   /* the allocation's, < 0 none */
	const char *limit_name;
};

static void value_text(char *out, size_t len, const struct panel *p, double v)
{
	if (p->unit < 0)
		snprintf(out, len, "%.2f", v);
	else
		fmt_size(out, len, v, (enum fmt_unit)p->unit, -1, 0);
}

static void draw_panel(FILE *f, const struct panel *p, const struct tl_grid *g,
		       const struct html_axis *a, double top)
{
	double most = p->limit > 0 ? p->limit : 0;
	char buf[32];

	for (int s = 0; s < p->nseries; s++)
		for (size_t i = 0; i < g->n; i++)
			most = p->v[s][i] > most ? p->v[s][i] : most;
	most = most > 0 ? most * 1.1 : 1;
	fprintf(f,
		"<text class=\"ptitle\" x=\"4\" y=\"%.1f\">%s</text>"
		"<rect class=\"pane\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>",
		top + 14, p->title, HTML_LABEL, top, HTML_W - 10 - HTML_LABEL, PANEL_H);
	value_text(buf, sizeof(buf), p, most);
	fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%s</text>", HTML_LABEL - 4, top + 9,
		buf);
	for (int s = 0; s < p->nseries; s++) {
		int open = 0;

		fprintf(f, "<text class=\"legend\" x=\"4\" y=\"%.1f\" fill=\"%s\">%s</text>",
			top + 30 + 13 * s, p->colours[s], p->names[s]);
		fprintf(f, "<path class=\"series\" stroke=\"%s\" d=\"", p->colours[s]);
		for (size_t i = 0; i < g->n; i++) {
			double v = p->v[s][i];

			if (v < 0) {
				open = 0; /* a gap stays a gap */
				continue;
			}
			fprintf(f, "%c%.1f %.1f", open ? 'L' : 'M',
				html_x(a,
				       g->origin_ns + (int64_t)i * g->width_ns + g->width_ns / 2),
				top + PANEL_H - v / most * PANEL_H);
			open = 1;
		}
		fputs("\"/>", f);
		/* a dot at each point where there are few: one interval alone draws no line */
		for (size_t i = 0; g->n <= DOTS_MAX && i < g->n; i++)
			if (p->v[s][i] >= 0)
				fprintf(f,
					"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\" fill=\"%s\"/>",
					html_x(a, g->origin_ns + (int64_t)i * g->width_ns +
							  g->width_ns / 2),
					top + PANEL_H - p->v[s][i] / most * PANEL_H, p->colours[s]);
	}
	if (p->limit > 0) {
		double y = top + PANEL_H - p->limit / most * PANEL_H;

		value_text(buf, sizeof(buf), p, p->limit);
		fprintf(f,
			"<line class=\"limit\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
			"<text class=\"limitt\" x=\"%d\" y=\"%.1f\">%s %s</text>",
			HTML_LABEL, y, HTML_W - 10, y, HTML_W - 14, y - 3, p->limit_name, buf);
	}
	fputc('\n', f);
}

/* one step's series as four panels */
static int step_panels(FILE *f, const struct tl_grid *g, const struct tl_cell *cells,
		       const struct tl_span *sp, const struct row *s)
{
	double *v = calloc(g->n * 7 + 1, sizeof(*v));
	struct panel p[PANELS] = {
		{ "Cores busy", { "cores" }, { "#2b6cb0" }, 1, -1, { v }, -1, "AllocCPUS" },
		{ "Memory (RSS)", { "RSS" }, { "#2f855a" }, 1, U_K, { v + g->n }, -1, "limit" },
		{ "I/O per second",
		  { "read", "write" },
		  { "#6b46c1", "#dd6b20" },
		  2,
		  U_NONE,
		  { v + 2 * g->n, v + 3 * g->n },
		  -1,
		  "" },
		{ "Threads waiting",
		  { "for a CPU", "for I/O" },
		  { "#c53030", "#718096" },
		  2,
		  -1,
		  { v + 4 * g->n, v + 5 * g->n },
		  -1,
		  "" },
	};
	struct html_axis a = { g->origin_ns, g->origin_ns + (int64_t)g->n * g->width_ns };
	double h = PANELS * (PANEL_H + PANEL_GAP);

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < 6 * g->n; i++)
		v[i] = -1;
	for (size_t i = 0; i < g->n; i++) {
		struct row r;
		struct tl_line l;
		double secs;

		if (!tl_row_of(g, i, cells, sp, s, &r, &l))
			continue;
		secs = (double)(l.span_ns > 0 ? l.span_ns : 1) / 1e9;
		p[P_CORES].v[0][i] = l.cores;
		p[P_RSS].v[0][i] = l.rss_kb == JS_NONE ? -1 : (double)l.rss_kb;
		p[P_IO].v[0][i] = l.read_rate;
		p[P_IO].v[1][i] = l.write_rate;
		if (r.f.cpu_wait_ns != JS_NONE)
			p[P_WAIT].v[0][i] = (double)r.f.cpu_wait_ns / 1e9 / secs;
		if (r.f.iowait_ns != JS_NONE)
			p[P_WAIT].v[1][i] = (double)r.f.iowait_ns / 1e9 / secs;
	}
	if (s->alloc_cpus != JS_NONE && s->alloc_cpus > 0)
		p[P_CORES].limit = (double)s->alloc_cpus;
	if (s->req_mem_share_mb != JS_NONE && s->req_mem_share_mb > 0)
		p[P_RSS].limit = (double)s->req_mem_share_mb * 1024, p[P_RSS].limit_name = "--mem";
	fputs("<h3 class=\"series-of\">", f);
	html_text(f, s->jobid);
	if (s->step[0] || s->jobname[0]) {
		fputs(" ", f);
		html_text(f, s->step[0] ? s->step : s->jobname);
	}
	fprintf(f,
		"</h3>\n<svg class=\"samples\" viewBox=\"0 0 %d %.0f\" width=\"%d\" "
		"height=\"%.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		HTML_W, h + 6, HTML_W, h + 6);
	for (int k = 0; k < PANELS; k++) {
		draw_panel(f, &p[k], g, &a, 4 + k * (PANEL_H + PANEL_GAP));
		html_axis_ticks(f, &a, 4 + k * (PANEL_H + PANEL_GAP), PANEL_H);
	}
	fputs("</svg>\n", f);
	free(v);
	return 0;
}

static int filled(const struct tl_cell *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].filled)
			return 1;
	return 0;
}

int html_charts(FILE *f, const struct report *rep, const struct job *j, int64_t now_ns)
{
	struct tl_grid g;
	size_t ns = j->row.kind == ROW_LOCAL ? 1 : j->nsteps, shown = 0;
	struct tl_cell *cells = NULL;
	int err = 0;

	if (tl_job_grid(j, rep->sample_ns, 0, now_ns, &g) < 0)
		return 0; /* no unit: nothing sampled */
	if (!(cells = malloc(g.n * sizeof(*cells))))
		return -ENOMEM;
	for (size_t k = 0; k < ns && !err; k++) {
		const struct row *s = j->row.kind == ROW_LOCAL ? &j->row : &j->steps[k];
		struct tl_span sp = { .start_ns = JS_NONE, .end_ns = JS_NONE };

		if (!s->f.nunits)
			continue;
		memset(cells, 0, g.n * sizeof(*cells));
		if ((err = tl_step_cells(j, s, &g, now_ns, cells, &sp)) < 0)
			break;
		/* a step that ran nothing (the extern step) has nothing to draw */
		if (s->f.nprocs == 0 && !filled(cells, g.n))
			continue;
		err = step_panels(f, &g, cells, &sp, s);
		shown++;
	}
	if (!err && !shown)
		fputs("<p class=\"none\">No samples were recorded for this job.</p>\n", f);
	free(cells);
	return err;
}
