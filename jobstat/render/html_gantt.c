/* Render: the report's Gantt chart. Steps in rows, under each its tools, each tool's
 * processes packed into a few lanes. A job of 100 000 processes cannot be drawn one by one: the
 * HTML_DRAWN most telling (those that failed, were killed or stalled, then the longest and
 * most costly) are, the others of each tool are folded into HTML_BUCKETS intervals, shaded by
 * how many ran in each, and the page says so. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "failures.h"
#include "format.h"
#include "html_parts.h"
#include "html_text.h"
#include "procs.h"
#include "signals.h"

#define NS ((int64_t)1000000000)
#define ROW_H 15
#define LANES 6	      /* lanes of one tool of a step */
#define TOOLS 16      /* tools of a step drawn apart; the others as one */
#define CMD_SHOWN 160 /* bytes of a command in a process's title */
#define OTHER_TOOLS "(other tools)"

double html_x(const struct html_axis *a, int64_t t)
{
	double span = (double)(a->t1 > a->t0 ? a->t1 - a->t0 : 1);

	if (t < a->t0)
		t = a->t0;
	if (t > a->t1)
		t = a->t1;
	return HTML_LABEL + (double)(t - a->t0) / span * (HTML_W - 10 - HTML_LABEL);
}

void html_axis_ticks(FILE *f, const struct html_axis *a, double top, double h)
{
	static const int64_t steps[] = { 1,   2,   5,	 10,   15,   30,    60,	   120,	  300,
					 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400 };
	int64_t span = (a->t1 - a->t0) / NS, step = steps[sizeof(steps) / sizeof(*steps) - 1];
	char buf[32];

	for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++)
		if (span / steps[i] <= 10) {
			step = steps[i];
			break;
		}
	for (int64_t s = 0; s * NS <= a->t1 - a->t0; s += step) {
		double x = html_x(a, a->t0 + s * NS);

		fmt_elapsed(buf, sizeof(buf), s);
		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			x, top, x, top + h, x, top + h + 11, buf);
	}
}

void html_tool_colour(char *out, size_t len, const char *tool)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)tool; *p; p++)
		h = (h ^ *p) * 16777619u;
	snprintf(out, len, "hsl(%u,55%%,52%%)", (unsigned)(h % 360));
}

/* ---- choosing what is drawn */

struct step_procs {
	const struct job *j;
	const struct row *s;
	struct procset ps;
	size_t first; /* its processes' index in the report's */
};

struct pick {
	double score;
	size_t at;
};

static int64_t end_of(const struct proc_rec *p, int64_t now)
{
	return p->end_ns != JS_NONE && p->end_ns > 0 ? p->end_ns : now;
}

static int failed(const struct proc_rec *p)
{
	return p->status != JS_NONE && p->status != 0;
}

static int oom_killed(const struct proc_rec *p)
{
	return p->flags != JS_NONE && (p->flags & PROC_FLAG_OOM);
}

static int stalled(const struct proc_rec *p)
{
	return p->stall_start_ns > 0 && p->stall_ns > 0;
}

static double score_of(const struct proc_rec *p, int64_t now)
{
	double s = (double)(end_of(p, now) - p->start_ns) + (p->cpu_ns > 0 ? (double)p->cpu_ns : 0);

	/* what went wrong is always worth a mark of its own */
	return failed(p) || oom_killed(p) || stalled(p) ? 1e30 + s : s;
}

static int by_score(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

/* ---- one step */

struct tool_group {
	char name[64];
	double cpu;
	int64_t lane_end[LANES];
	int nlanes;
	unsigned *buckets; /* HTML_BUCKETS processes folded, then as many failures */
	size_t folded, drawn;
};

struct gantt {
	FILE *f; /* the chart's rows (the SVG's height is known at the end) */
	struct html_axis a;
	int64_t now;
	double y;
	size_t drawn, folded;
	unsigned char *chosen; /* per process of the report */
};

/* the index of tool's group in g (a new one while there are fewer than TOOLS; else the
 * others' at TOOLS) */
static size_t group_of(struct tool_group *g, size_t *n, const char *tool)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(g[i].name, tool))
			return i;
	if (*n == TOOLS)
		return TOOLS;
	snprintf(g[*n].name, sizeof(g[*n].name), "%s", tool);
	return (*n)++;
}

static void proc_rect(struct gantt *g, const struct proc_rec *p, double y, const char *colour)
{
	int64_t end = end_of(p, g->now);
	double x0 = html_x(&g->a, p->start_ns), x1 = html_x(&g->a, end), w = x1 - x0;
	char d[32], st[64] = "";

	fmt_elapsed(d, sizeof(d), (end - p->start_ns) / NS);
	if (p->status != JS_NONE)
		failures_status_text(st, sizeof(st), p->status);
	fprintf(g->f,
		"<rect class=\"proc\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\"><title>",
		x0, y, w < 1 ? 1 : w, ROW_H - 3, colour);
	html_textf(g->f, "pid %" PRId64 " on %s, %s: ", p->pid, p->node, p->tool);
	html_text_cut(g->f, p->cmd ? p->cmd : "", CMD_SHOWN);
	html_textf(g->f, " (%s%s%s)", d, st[0] ? ", " : "", st);
	fputs("</title></rect>", g->f);
	if (stalled(p))
		fprintf(g->f,
			"<rect class=\"m-stall\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"3\">"
			"<title>stalled %" PRId64 " s: no CPU, I/O or network</title></rect>",
			html_x(&g->a, p->stall_start_ns), y + ROW_H - 6,
			html_x(&g->a, p->stall_start_ns + p->stall_ns) -
				html_x(&g->a, p->stall_start_ns) + 1,
			p->stall_ns / NS);
	if (oom_killed(p))
		fprintf(g->f,
			"<path class=\"m-oom\" d=\"M%.1f %.1fl-5 -4h10z\"><title>killed by the "
			"OOM killer</title></path><text class=\"m-oomt\" x=\"%.1f\" y=\"%.1f\">OOM"
			"</text>",
			x1, y, x1 + 6, y + 9);
	else if (failed(p)) {
		fprintf(g->f, "<path class=\"m-exit\" d=\"M%.1f %.1fl-4 -4h8z\"><title>", x1, y);
		html_text(g->f, st);
		fputs("</title></path>", g->f);
	}
	fputc('\n', g->f);
}

static void fold(struct gantt *g, struct tool_group *t, const struct proc_rec *p)
{
	double span = (double)(g->a.t1 > g->a.t0 ? g->a.t1 - g->a.t0 : 1);
	long b0 = (long)((double)(p->start_ns - g->a.t0) / span * HTML_BUCKETS),
	     b1 = (long)((double)(end_of(p, g->now) - g->a.t0) / span * HTML_BUCKETS);

	if (b0 < 0)
		b0 = 0;
	if (b1 >= HTML_BUCKETS)
		b1 = HTML_BUCKETS - 1;
	for (long b = b0; b <= b1; b++)
		t->buckets[b]++;
	if ((failed(p) || oom_killed(p)) && b1 >= 0)
		t->buckets[HTML_BUCKETS + b1]++;
	t->folded++;
}

static void folded_row(struct gantt *g, const struct tool_group *t, const char *colour)
{
	unsigned most = 1;
	double w = (double)(HTML_W - 10 - HTML_LABEL) / HTML_BUCKETS;
	int64_t bucket_ns = (g->a.t1 - g->a.t0) / HTML_BUCKETS;

	for (int b = 0; b < HTML_BUCKETS; b++)
		most = t->buckets[b] > most ? t->buckets[b] : most;
	for (int b = 0; b < HTML_BUCKETS; b++) {
		double x = HTML_LABEL + b * w;

		if (t->buckets[b])
			fprintf(g->f,
				"<rect class=\"fold\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
				"height=\"%d\" fill=\"%s\" fill-opacity=\"%.2f\"><title>%u "
				"processes at +%" PRId64 " s</title></rect>",
				x, g->y, w, ROW_H - 3, colour, 0.25 + 0.75 * t->buckets[b] / most,
				t->buckets[b], b * bucket_ns / NS);
		if (t->buckets[HTML_BUCKETS + b])
			fprintf(g->f,
				"<path class=\"m-exit\" d=\"M%.1f %.1fl-4 -4h8z\"><title>%u failed"
				"</title></path>",
				x + w, g->y, t->buckets[HTML_BUCKETS + b]);
	}
	fputc('\n', g->f);
}

static void label(struct gantt *g, const char *cls, const char *text, const char *extra)
{
	fprintf(g->f, "<text class=\"%s\" x=\"4\" y=\"%.1f\">", cls, g->y + ROW_H - 4);
	html_text_cut(g->f, text, 34);
	html_text(g->f, extra);
	fputs("</text>", g->f);
}

/* the step's bar, its stalls and idle stretches from its units */
static void step_row(struct gantt *g, const struct job *j, const struct row *s)
{
	int64_t a = s->f.unit_start_ns, b = s->f.unit_end_ns == JS_NONE ? g->now : s->f.unit_end_ns;
	char name[260];

	/* with its workflow step, or a run's name: "r12 align" says more than "r12" */
	snprintf(name, sizeof(name), "%.127s %.127s", s->jobid,
		 s->step[0]		? s->step
		 : s->kind == ROW_LOCAL ? s->jobname
					: "");
	label(g, "lstep", name, "");
	if (a != JS_NONE && a > 0) {
		fprintf(g->f,
			"<rect class=\"step\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
			"<title>",
			html_x(&g->a, a), g->y, html_x(&g->a, b) - html_x(&g->a, a) + 1, ROW_H - 3);
		html_textf(g->f, "%s %s", s->jobid, s->state);
		fputs("</title></rect>", g->f);
	}
	for (size_t i = 0; i < j->nunits; i++) {
		const struct unit_rec *u = &j->units[i];
		const char *p = u->idle_windows;
		int64_t x, y;

		if (s->kind != ROW_LOCAL && u->step_id != s->step_id)
			continue;
		while (idle_window_next(&p, &x, &y))
			if (y > x)
				fprintf(g->f,
					"<rect class=\"m-idle\" x=\"%.1f\" y=\"%.1f\" "
					"width=\"%.1f\" "
					"height=\"%d\"><title>idle %" PRId64
					" s: no CPU, no I/O wait"
					"</title></rect>",
					html_x(&g->a, x), g->y, html_x(&g->a, y) - html_x(&g->a, x),
					ROW_H - 3, (y - x) / NS);
		if (u->stall_start_ns > 0 && u->stall_ns > 0) {
			fprintf(g->f,
				"<rect class=\"m-stall\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"4\"><title>",
				html_x(&g->a, u->stall_start_ns), g->y + ROW_H - 7,
				html_x(&g->a, u->stall_start_ns + u->stall_ns) -
					html_x(&g->a, u->stall_start_ns) + 1);
			html_textf(g->f, "%s stalled %" PRId64 " s (%s)", u->stall_tool,
				   u->stall_ns / NS, u->stall_reason);
			fputs("</title></rect>", g->f);
		}
	}
	fputc('\n', g->f);
	g->y += ROW_H;
}

/* one tool's processes of a step: in lanes (each in the first lane free at its start: they
 * come by start) while they are chosen and a lane is free, else folded */
static void tool_rows(struct gantt *g, const struct step_procs *sp, struct tool_group *tg,
		      const size_t *gi, size_t k, int *lane)
{
	char colour[32];
	double y0 = g->y;
	size_t n = sp->ps.n;

	html_tool_colour(colour, sizeof(colour), tg->name);
	for (size_t i = 0; i < n; i++) {
		const struct proc_rec *p = &sp->ps.p[i];
		int l;

		lane[i] = -1;
		if (gi[i] != k)
			continue;
		for (l = 0; l < tg->nlanes && tg->lane_end[l] > p->start_ns; l++)
			;
		if (!g->chosen[sp->first + i] || l == LANES || p->start_ns <= 0) {
			fold(g, tg, p);
			continue;
		}
		if (l == tg->nlanes)
			tg->nlanes++;
		tg->lane_end[l] = end_of(p, g->now);
		lane[i] = l;
		tg->drawn++;
	}
	label(g, "ltool", tg->name, "");
	for (size_t i = 0; i < n; i++)
		if (lane[i] >= 0)
			proc_rect(g, &sp->ps.p[i], y0 + lane[i] * ROW_H, colour);
	g->y += tg->nlanes * ROW_H;
	if (tg->folded) {
		char more[64];

		snprintf(more, sizeof(more), "+%zu folded", tg->folded);
		if (tg->nlanes)
			label(g, "lfold", more, "");
		folded_row(g, tg, colour);
		g->y += ROW_H;
	}
	g->drawn += tg->drawn;
	g->folded += tg->folded;
}

static int step_chart(struct gantt *g, const struct step_procs *sp)
{
	struct tool_group *t = calloc(TOOLS + 1, sizeof(*t));
	size_t nt = 0, n = sp->ps.n, *gi = malloc((n + 1) * sizeof(*gi)), order[TOOLS + 1], no = 0;
	int *lane = malloc((n + 1) * sizeof(*lane)), err = -ENOMEM;

	if (!t || !gi || !lane)
		goto out;
	snprintf(t[TOOLS].name, sizeof(t[TOOLS].name), OTHER_TOOLS);
	step_row(g, sp->j, sp->s);
	for (size_t i = 0; i < n; i++) {
		const struct proc_rec *p = &sp->ps.p[i];

		gi[i] = group_of(t, &nt, p->tool);
		t[gi[i]].cpu += p->cpu_ns > 0 ? (double)p->cpu_ns : 0;
		t[gi[i]].drawn = 1; /* has processes; counted again in tool_rows */
	}
	for (size_t k = 0; k <= TOOLS; k++)
		if (t[k].drawn)
			order[no++] = k, t[k].drawn = 0;
	/* the most CPU first, the others last */
	for (size_t a = 1; a < no; a++)
		for (size_t b = a; b > 0 && order[b] != TOOLS &&
				   (order[b - 1] == TOOLS || t[order[b]].cpu > t[order[b - 1]].cpu);
		     b--) {
			size_t x = order[b];

			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	for (size_t k = 0; k < no; k++) {
		struct tool_group *tg = &t[order[k]];

		if (!(tg->buckets = calloc(2 * HTML_BUCKETS, sizeof(*tg->buckets))))
			goto out;
		tool_rows(g, sp, tg, gi, order[k], lane);
	}
	err = 0;
out:
	for (size_t k = 0; t && k <= TOOLS; k++)
		free(t[k].buckets);
	free(t);
	free(gi);
	free(lane);
	return err;
}

/* ---- the report's chart */

/* the steps with processes fetched, each with its set; the axis over them all */
static int gather(const struct report *rep, struct gantt *g, struct step_procs **out, size_t *n,
		  size_t *nprocs)
{
	size_t cap = 16;
	struct step_procs *sp = malloc(cap * sizeof(*sp));

	*n = *nprocs = 0;
	if (!sp)
		return -ENOMEM;
	g->a.t0 = INT64_MAX;
	g->a.t1 = INT64_MIN;
	for (size_t i = 0; i < rep->n; i++) {
		const struct job *j = &rep->jobs[i];
		size_t ns = j->row.kind == ROW_LOCAL ? 1 : j->nsteps;

		for (size_t k = 0; k < ns; k++) {
			const struct row *s = j->row.kind == ROW_LOCAL ? &j->row : &j->steps[k];
			int64_t a = s->f.unit_start_ns, b = s->f.unit_end_ns;

			if (!s->f.nunits || a == JS_NONE || a <= 0)
				continue;
			if (*n == cap) {
				struct step_procs *m = realloc(sp, (cap *= 2) * sizeof(*sp));

				if (!m)
					goto fail;
				sp = m;
			}
			sp[*n] = (struct step_procs){ .j = j, .s = s, .first = *nprocs };
			if (procs_of_step(j, s, &sp[*n].ps) < 0)
				goto fail;
			*nprocs += sp[*n].ps.n;
			g->a.t0 = a < g->a.t0 ? a : g->a.t0;
			b = b == JS_NONE ? g->now : b;
			g->a.t1 = b > g->a.t1 ? b : g->a.t1;
			for (size_t p = 0; p < sp[*n].ps.n;
			     p++) /* a process may outlive its unit */
				if (end_of(&sp[*n].ps.p[p], g->now) > g->a.t1)
					g->a.t1 = end_of(&sp[*n].ps.p[p], g->now);
			(*n)++;
		}
	}
	*out = sp;
	return 0;
fail:
	for (size_t k = 0; k < *n; k++)
		procs_free(&sp[k].ps);
	free(sp);
	return -ENOMEM;
}

/* the HTML_DRAWN processes of the report drawn one by one */
static int choose(struct gantt *g, const struct step_procs *sp, size_t n, size_t nprocs)
{
	struct pick *pk = malloc((nprocs + 1) * sizeof(*pk));

	if (!pk || !(g->chosen = calloc(nprocs + 1, 1))) {
		free(pk);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < sp[k].ps.n; i++)
			pk[sp[k].first + i] =
				(struct pick){ score_of(&sp[k].ps.p[i], g->now), sp[k].first + i };
	if (nprocs > HTML_DRAWN)
		qsort(pk, nprocs, sizeof(*pk), by_score);
	for (size_t i = 0; i < nprocs && i < HTML_DRAWN; i++)
		g->chosen[pk[i].at] = 1;
	free(pk);
	return 0;
}

int html_gantt(FILE *f, const struct report *rep, int64_t now_ns)
{
	struct gantt g = { .now = now_ns, .y = 4 };
	struct step_procs *sp = NULL;
	size_t n = 0, nprocs = 0, len = 0;
	char *body = NULL;
	int err;

	if ((err = gather(rep, &g, &sp, &n, &nprocs)) < 0)
		return err;
	if (!n) {
		fputs("<p class=\"none\">No step of these jobs was recorded.</p>\n", f);
		goto out;
	}
	if (g.a.t1 <= g.a.t0)
		g.a.t1 = g.a.t0 + NS;
	err = -ENOMEM;
	if (choose(&g, sp, n, nprocs) < 0 || !(g.f = open_memstream(&body, &len)))
		goto out;
	for (size_t k = 0; k < n; k++)
		if ((err = step_chart(&g, &sp[k])) < 0)
			goto out;
	if (fclose(g.f) != 0) {
		g.f = NULL;
		err = -ENOMEM;
		goto out;
	}
	g.f = NULL;
	fprintf(f, "<p class=\"drawn\" id=\"gantt-drawn\">%zu processes: ", nprocs);
	if (g.folded)
		fprintf(f,
			"%zu drawn one by one (those that failed, were killed or stalled, then the "
			"longest and most costly), %zu folded per tool into %d intervals, shaded "
			"by "
			"how many ran in each.",
			g.drawn, g.folded, HTML_BUCKETS);
	else
		fputs("each drawn.", f);
	fprintf(f,
		"</p>\n<svg class=\"gantt\" id=\"gantt\" viewBox=\"0 0 %d %.0f\" width=\"%d\" "
		"height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		HTML_W, g.y + 20, HTML_W, g.y + 20);
	html_axis_ticks(f, &g.a, 0, g.y);
	fwrite(body, 1, len, f);
	fputs("</svg>\n", f);
	err = 0;
out:
	if (g.f)
		fclose(g.f);
	free(body);
	free(g.chosen);
	for (size_t k = 0; k < n; k++)
		procs_free(&sp[k].ps);
	free(sp);
	return err;
}
