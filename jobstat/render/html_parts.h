/* The parts of the HTML report that html.c puts together: the Gantt chart of steps, tools and
 * processes (html_gantt.c), the charts of each step's samples (html_charts.c), and the page's
 * style and script (html_assets.c). Each writes SVG or HTML whose every string went through
 * html_text.h. */
#ifndef JOBSTAT_HTML_PARTS_H
#define JOBSTAT_HTML_PARTS_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

#define HTML_W 1100	 /* width of a chart's drawing, in SVG units */
#define HTML_LABEL 210	 /* the labels' column at its left */
#define HTML_DRAWN 1500	 /* processes drawn one by one at most, over the whole report */
#define HTML_BUCKETS 200 /* the others: folded per tool of a step into this many intervals */

/* The time axis of a chart: unix ns from t0 to t1 over [HTML_LABEL, HTML_W - 10]. */
struct html_axis {
	int64_t t0, t1;
};

/* The x of a time on the axis. */
double html_x(const struct html_axis *a, int64_t t_ns);
/* The ticks and their elapsed time under a chart of height h (and grid lines up to it). */
void html_axis_ticks(FILE *f, const struct html_axis *a, double top, double h);
/* The colour of a tool: a hue of its name, the same in every part of the page. */
void html_tool_colour(char *out, size_t len, const char *tool);

/* The Gantt chart of the report's steps, their tools and their processes (what the
 * processes fetched hold), with markers for non-zero exits, OOM kills, stalls and idle
 * stretches. 0 or -ENOMEM. */
int html_gantt(FILE *f, const struct report *rep, int64_t now_ns);
/* The charts of job j's steps from their samples: cores against the allocated CPUs, memory
 * against --mem, read and write rates, waits. 0 or -ENOMEM. */
int html_charts(FILE *f, const struct report *rep, const struct job *j, int64_t now_ns);

void html_style(FILE *f);
void html_script(FILE *f);

#endif
