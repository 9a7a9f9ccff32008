/* What the two OTLP encoders share (not part of otlp.h's interface): an appending writer over
 * an otlp_buf whose first failure sticks, and a user's text made fit to send. */
#ifndef TRACER_OTLP_WRITE_H
#define TRACER_OTLP_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "otlp.h"

/* Marks a string that was cut: U+2026 HORIZONTAL ELLIPSIS */
#define OTLP_CUT_MARK "\xe2\x80\xa6"
#define OTLP_CUT_MARK_LEN 3
/* Room for one cleaned string: OTLP_MAX_STRING, or the mark alone when the limit was smaller */
#define OTLP_TEXT_ROOM (OTLP_MAX_STRING + OTLP_CUT_MARK_LEN)

/* Appends to b; after a failure every call does nothing and otlp_w_end undoes it all. */
struct otlp_w {
	struct otlp_buf *b;
	size_t start; /* b->len when writing began */
	int err;
};

void otlp_w_init(struct otlp_w *w, struct otlp_buf *b);
/* 0, or the first error with b's length as it was at otlp_w_init */
int otlp_w_end(struct otlp_w *w);
/* otlp_w_room's slow path: grows b */
char *otlp_w_grow(struct otlp_w *w, size_t n);
/* Room for n more bytes at b->data + b->len (b->len unchanged); NULL after a failure. Inline:
 * the encoders call it for every field of every item. */
static inline char *otlp_w_room(struct otlp_w *w, size_t n)
{
	struct otlp_buf *b = w->b;

	if (!w->err && n <= b->cap - b->len)
		return b->data + b->len;
	return otlp_w_grow(w, n);
}

static inline void otlp_w_put(struct otlp_w *w, const void *p, size_t n)
{
	char *at = otlp_w_room(w, n);

	if (!at)
		return;
	if (n)
		memcpy(at, p, n);
	w->b->len += n;
}
void otlp_w_str(struct otlp_w *w, const char *s);
/* n bytes of id as lowercase hex */
void otlp_w_hex(struct otlp_w *w, const uint8_t *id, size_t n);
int otlp_id_zero(const uint8_t *id, size_t n);

/* The n bytes at s as OTLP sends a user's text, into out (OTLP_TEXT_ROOM bytes, not
 * NUL-terminated), its length returned: valid UTF-8, each invalid byte U+FFFD. When it comes to
 * more than limit bytes, the longest prefix that ends on a character and leaves room for
 * OTLP_CUT_MARK within limit, then the mark (the mark alone when limit is under its length),
 * and *cut set (cut may be NULL). Reads no further than it writes. */
size_t otlp_text_cut(char *out, size_t limit, const char *s, size_t n, int *cut);
/* A NUL-terminated string (NULL: empty) cleaned to OTLP_MAX_STRING */
size_t otlp_text(char *out, const char *s);

/* The strings of an OTLP_STRINGS value, one by one, cleaned: all of them together at most
 * OTLP_MAX_STRING bytes (each string counts one byte more, its NUL, so that a value of empty
 * strings is bounded too); the first that does not fit is the last, cut and marked. */
struct otlp_strings {
	const char *s;
	size_t left, budget;
	int done;
};
void otlp_strings_start(struct otlp_strings *it, const struct otlp_attr *a);
/* 1 and the next string into out (OTLP_TEXT_ROOM bytes), its length in *len; 0 at the end */
int otlp_strings_next(struct otlp_strings *it, char *out, size_t *len);

/* The two encodings of otlp_encode_traces, _logs and _metrics (otlp_pb.c, otlp_json.c) */
int otlp_pb_traces(const struct otlp_resource *res, const struct otlp_scope *scope,
		   const struct otlp_span *spans, size_t n, struct otlp_buf *out);
int otlp_pb_logs(const struct otlp_resource *res, const struct otlp_scope *scope,
		 const struct otlp_log *logs, size_t n, struct otlp_buf *out);
int otlp_pb_metrics(const struct otlp_resource *res, const struct otlp_scope *scope,
		    const struct otlp_metric *metrics, size_t n, struct otlp_buf *out);
int otlp_json_traces(const struct otlp_resource *res, const struct otlp_scope *scope,
		     const struct otlp_span *spans, size_t n, struct otlp_buf *out);
int otlp_json_logs(const struct otlp_resource *res, const struct otlp_scope *scope,
		   const struct otlp_log *logs, size_t n, struct otlp_buf *out);
int otlp_json_metrics(const struct otlp_resource *res, const struct otlp_scope *scope,
		      const struct otlp_metric *metrics, size_t n, struct otlp_buf *out);

#endif
