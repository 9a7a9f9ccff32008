/* The attributes of one item (items_attrs.c), for items.c: a row's columns, its numbers and
 * names, as OTLP attributes whose values the batch owns. */
#ifndef TRACER_EXPORT_ITEMS_ATTRS_H
#define TRACER_EXPORT_ITEMS_ATTRS_H

#include <sqlite3.h>
#include "source_internal.h"

#define ATTRS_MAX 48 /* attributes of one item at most */

/* Built here, then copied to the batch at their number (attrs_end): an item's array takes what
 * it holds, not ATTRS_MAX. */
struct attrs {
	struct export_batch *b;
	struct otlp_attr a[ATTRS_MAX];
	size_t n;
	int oom; /* out of memory on the way, or past ATTRS_MAX: the item is left out */
};

/* A column's text ("" when NULL) and number (0 when NULL) */
static inline const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? (const char *)t : "";
}

static inline int64_t num(sqlite3_stmt *st, int col)
{
	return sqlite3_column_int64(st, col);
}

/* Begin an item's attributes in b. */
void attrs_begin(struct attrs *as, struct export_batch *b);
/* The attributes as the batch's, into *out and *n: 0, or -ENOMEM (as->oom on the way too). */
int attrs_end(struct attrs *as, const struct otlp_attr **out, size_t *n);
/* n attributes made before (their values the batch's already), appended */
void attrs_add(struct attrs *as, const struct otlp_attr *a, size_t n);
/* One more attribute of type; NULL (and as->oom) past ATTRS_MAX. */
struct otlp_attr *attr(struct attrs *as, const char *key, enum otlp_value_type type);
/* A string (len bytes, copied), left out when empty */
void attr_str(struct attrs *as, const char *key, const char *v, size_t len);
/* A column's text or number, left out where NULL */
void attr_col(struct attrs *as, const char *key, sqlite3_stmt *st, int col);
void attr_num(struct attrs *as, const char *key, sqlite3_stmt *st, int col);
void attr_int(struct attrs *as, const char *key, int64_t v);
void attr_bool(struct attrs *as, const char *key, int v);
/* uid's user name, or its number */
void attr_owner(struct attrs *as, const char *key, uint32_t uid);

#endif
