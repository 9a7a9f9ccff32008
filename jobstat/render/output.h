/* Printing rows as sacct does: aligned columns, or -p/-P with a delimiter; or JSON. */
#ifndef JOBSTAT_OUTPUT_H
#define JOBSTAT_OUTPUT_H

#include <stdio.h>
#include <json-c/json.h>

#include "fields.h"

enum parsable { P_NONE, P_TRAILING /* -p */, P_PLAIN /* -P */ };

/* The widest a column grows to fit its values: this, or twice its default width. */
#define FIT_MAX 40

struct out_cellbuf {
	char *text;
	int colour;
};

struct out {
	FILE *f;
	struct col *cols;
	size_t ncols;
	enum parsable parsable;
	const char *delim; /* "|" unless --delimiter */
	int noheader;
	int colour; /* ANSI colours on efficiencies */
	struct cellctx cc;
	int delim_warned;	  /* a value held the delimiter: said once on stderr */
	int fit;		  /* aligned: columns without %W widen to their values, up to
				   * FIT_MAX; rows are held until out_flush */
	struct out_cellbuf *held; /* nheld rows of ncols cells */
	size_t nheld, capheld;
	int header_held;
};

/* One cell of an aligned table: value cut to |width| (the last character then '+', as sacct
 * marks it), right-aligned for a positive width, left for a negative one, and a blank after
 * it. colour: -1 red, 1 green, 0 none (the escape codes do not count in the width). Writes
 * at most len - 1 bytes. */
void out_cell(char *buf, size_t len, const char *value, int width, int colour);
/* The colour of field f's cell in row r (-1 red, 1 green, 0 none). Colours follow the state,
 * not only the percentage: a job stopped at its memory or time limit is red there, and a job
 * that did not complete is never green. */
int out_colour(int f, const struct row *r);
/* Write the header (names, and for aligned output a line of dashes) unless noheader. */
void out_header(struct out *o);
/* Write one row (held when o->fit). */
void out_row(struct out *o, const struct row *r);
/* With o->fit: widen the columns to the rows held, write the header and the rows, and
 * release them. Returns -ENOMEM when a row could not be held (it is then lost: said). */
int out_flush(struct out *o);

/* Fields that JSON output carries for a view (every one that applies to it). */
const char *view_json_format(enum view v);
/* A row as a JSON object with these columns' fields as keys (null for unknown). */
struct json_object *out_row_json(const struct row *r, const struct col *cols, size_t n,
				 const struct cellctx *c);

/* Where rows go: the table, or a JSON array (jarr) with the jcols fields. */
struct emit {
	struct out *o;
	int json;
	const struct col *jcols;
	size_t njcols;
	struct json_object *jarr;
	int header_done;
};
/* The header of a table, once, before its first row (none in JSON). */
void emit_header(struct emit *e);
/* Print the row, or append it as JSON and return the object (to add keys to); NULL when
 * printed. */
struct json_object *emit_row(struct emit *e, const struct row *r);

/* Should efficiencies be coloured: stdout is a terminal, NO_COLOR is not set, and the
 * output is neither parsable nor JSON. */
int out_want_colour(int fd, int parsable, int json);

#endif
