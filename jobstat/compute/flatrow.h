/* A flat record: one row of a reply (a process, a sample), its members decoded without a tree
 * of objects, so that a 100 000-process unit costs what its bytes cost. Keys and strings live in
 * the row's own buffer; the row is reused from one record to the next. Built by collect (from
 * the reply's text) or from a parsed object (flat_from_json); read by compute. */
#ifndef JOBSTAT_FLATROW_H
#define JOBSTAT_FLATROW_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "records.h"

enum flat_kind {
	FLAT_NULL,
	FLAT_BOOL,
	FLAT_INT,
	FLAT_REAL,
	FLAT_STR,
	FLAT_STRS,  /* an array of strings (argv) */
	FLAT_OTHER, /* any other value: present, of no kind a record reads */
};

struct flat_field {
	uint32_t key, klen; /* the key: offset into text, length */
	enum flat_kind kind;
	int64_t i;  /* INT, BOOL */
	double d;   /* REAL */
	uint32_t s; /* STR, STRS: offset of the (first) string, each NUL-terminated */
	uint32_t n; /* STRS: how many */
};

/* A record has at most this many members; past it, the row is refused */
#define FLAT_FIELDS_MAX 128

struct flat_row {
	struct flat_field f[FLAT_FIELDS_MAX];
	size_t n;
	size_t hint; /* where the last lookup found its key: rows list keys in one order */
	char *text;
	size_t len, cap;
};

void flat_row_init(struct flat_row *r);
void flat_row_free(struct flat_row *r);
/* empty, keeping its buffer */
void flat_row_reset(struct flat_row *r);

/* Building: a member named key (not NUL-terminated), then its value. Each returns 0, -ENOMEM, or
 * -E2BIG past FLAT_FIELDS_MAX members. A string of an array (flat_add_strs_item) follows
 * flat_add_strs; each item adds to the last member. */
int flat_add_null(struct flat_row *r, const char *key, size_t klen);
int flat_add_bool(struct flat_row *r, const char *key, size_t klen, int v);
int flat_add_int(struct flat_row *r, const char *key, size_t klen, int64_t v);
int flat_add_real(struct flat_row *r, const char *key, size_t klen, double v);
int flat_add_str(struct flat_row *r, const char *key, size_t klen, const char *s, size_t len);
int flat_add_strs(struct flat_row *r, const char *key, size_t klen);
int flat_add_strs_item(struct flat_row *r, const char *s, size_t len);
int flat_add_other(struct flat_row *r, const char *key, size_t klen);

/* A parsed object as a flat row: -EINVAL when o is not an object */
int flat_from_json(struct json_object *o, struct flat_row *r);

/* Reading, as the json_* readers of aggregate.h do: the member named key, NULL when absent */
const struct flat_field *flat_get(struct flat_row *r, const char *key);
/* a number (integer or real), JS_NONE when absent or of another type */
int64_t flat_int(struct flat_row *r, const char *key);
/* a string, NULL when absent or of another type */
const char *flat_str(struct flat_row *r, const char *key);
/* the strings of an array member: how many, the first into *first (each NUL-terminated, one after
 * the other); 0 when absent or of another type */
size_t flat_strs(struct flat_row *r, const char *key, const char **first);
/* the next string of an array member's after s */
const char *flat_next_str(const char *s);
/* Decode into dst at the slots' places, as json_to_rec */
void flat_to_rec(struct flat_row *r, const struct rec_slot *slots, size_t n, void *dst);

#endif
