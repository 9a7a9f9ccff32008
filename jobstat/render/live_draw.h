/* --live's rows as text: a frame of the terminal (rows cut to its width, every name escaped
 * by safetext.h) and the snapshot printed when stdout is no terminal (a table, -P, or JSON). */
#ifndef JOBSTAT_LIVE_DRAW_H
#define JOBSTAT_LIVE_DRAW_H

#include <stdio.h>

#include "live_tree.h"

struct live_frame {
	const struct live_tree *t;
	const size_t *idx; /* the rows shown, in order (live_tree_visible) */
	size_t n;
	const struct live_view *v;
	size_t cursor, top; /* in idx */
	int rows, cols;
	int paused, help, colour;
	const char *prompt;   /* the filter being typed, NULL when none */
	const char *status;   /* nodes that did not answer, or a message; "" none */
	double took_ms;	      /* the last refresh took */
	long long refresh_ms; /* --refresh */
};

/* The frame's bytes, from the screen's top left (*out: malloc'd, *len). 0 or -ENOMEM. */
int live_draw(const struct live_frame *f, char **out, size_t *len);
/* The rows below the header a frame has room for. */
int live_draw_body_rows(int rows);

/* The snapshot of the rows idx (n) on out: a table, fields joined by delim when parsable,
 * or JSON ({"v":1,"rows":[...]}). 0 or -ENOMEM. */
int live_snapshot(FILE *out, const struct live_tree *t, const size_t *idx, size_t n, int parsable,
		  const char *delim, int noheader, int json);

#endif
