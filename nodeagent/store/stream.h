/* Replies too big to build whole (a unit's processes, its tools, its live samples, the units a
 * selector names):
 * the reply's head goes out first, then its array row by row, read from the store on a
 * read-only connection of its own as the client takes it. The daemon holds one page per
 * client, whatever the reply's size, and the reader's snapshot never holds up the writer. */
#ifndef TRACER_STREAM_H
#define TRACER_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include "process_row.h"
#include "store.h"

enum stream_kind { STREAM_UNITS, STREAM_PROCESSES, STREAM_TOOLS, STREAM_SAMPLES };

struct reply_stream;

/* What the daemon knows beyond the store: rows to follow the stored ones (a running unit's
 * live processes), and what to add to a unit's totals. */
struct stream_extra {
	struct json_object *tail; /* an array, taken over by the stream; NULL: none */
	int (*totals)(void *ctx, uint64_t unit, struct json_object *totals);
	void *ctx;
	int64_t offset_ns;	  /* unix time = boot time + this, on this boot (samples' starts) */
	struct row_fields fields; /* a processes listing's columns (none set: all) */
	int no_totals;		  /* a unit's processes or tools without its totals */
};

/* The rows of one listing: units matching selector for uid (ANY_UID: anyone's, each with
 * its "totals"), or the processes or tools of unit (then the reply's "totals" are the unit's;
 * processes of a uid other than uid have their argv withheld, ANY_UID: shown to all), or the
 * points of unit's timeline (store_query_samples; no totals).
 * The caller commits the store first, so that the reader sees what was written so far. */
int reply_stream_new(struct store *s, enum stream_kind kind, uint64_t unit, const char *selector,
		     uint32_t uid, const struct stream_extra *extra, struct reply_stream **out);
/* Take the serialised head ("{...}\n", *len bytes, a non-empty object) for a reply that goes
 * on with the rows: *len is cut to leave the object open. -EINVAL for anything else. */
int reply_stream_head(const char *head, size_t *len);
/* Emit at least want bytes of rows (or all that is left) through emit. Returns 1 when more
 * rows follow, 0 when the reply is complete, or -errno. */
int reply_stream_fill(struct reply_stream *rs, size_t want,
		      int (*emit)(void *ctx, const char *data, size_t n), void *ctx);
void reply_stream_free(struct reply_stream *rs);

#endif
