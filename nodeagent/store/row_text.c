/* A stored row as JSON text, written straight from its columns: what store_row_to_json's object
 * serialises to, byte for byte (test_store checks it), without an object per row. A listing of
 * a 100 000-process unit spends its time in SQLite, not in building and freeing objects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "store_internal.h"

static int grow(struct row_text *t, size_t more)
{
	size_t cap = t->cap ? t->cap : 4096;
	char *p;

	if (t->len + more <= t->cap)
		return 0;
	while (cap < t->len + more)
		cap *= 2;
	if (!(p = realloc(t->p, cap)))
		return -ENOMEM;
	t->p = p;
	t->cap = cap;
	return 0;
}

static int put(struct row_text *t, const char *s, size_t n)
{
	if (grow(t, n))
		return -ENOMEM;
	memcpy(t->p + t->len, s, n);
	t->len += n;
	return 0;
}

/* a JSON string, escaped as json-c escapes (no "\/"): quotes, backslashes, controls */
static int put_string(struct row_text *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *o;

	if (grow(t, 6 * n + 2)) /* \u00XX at most per byte */
		return -ENOMEM;
	o = t->p + t->len;
	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '\b':
			*o++ = '\\', *o++ = 'b';
			break;
		case '\n':
			*o++ = '\\', *o++ = 'n';
			break;
		case '\r':
			*o++ = '\\', *o++ = 'r';
			break;
		case '\t':
			*o++ = '\\', *o++ = 't';
			break;
		case '\f':
			*o++ = '\\', *o++ = 'f';
			break;
		case '"':
			*o++ = '\\', *o++ = '"';
			break;
		case '\\':
			*o++ = '\\', *o++ = '\\';
			break;
		default:
			if (c < 0x20) {
				memcpy(o, "\\u00", 4);
				o[4] = hex[c >> 4];
				o[5] = hex[c & 15];
				o += 6;
			} else {
				*o++ = (char)c;
			}
		}
	}
	*o++ = '"';
	t->len = (size_t)(o - t->p);
	return 0;
}

/* NUL-separated strings (argv) as an array of them */
static int put_strings(struct row_text *t, const char *b, size_t len)
{
	size_t at = 0;
	int err = put(t, "[", 1);

	while (!err && at < len) {
		size_t l = strnlen(b + at, len - at);

		err = at ? put(t, ",", 1) : 0;
		err = err ? err : put_string(t, b + at, l);
		at += l + 1;
	}
	return err ? err : put(t, "]", 1);
}

/* a real as json-c writes it: rare in rows, so by json-c itself */
static int put_real(struct row_text *t, double d)
{
	struct json_object *o = json_object_new_double(d);
	const char *s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : NULL;
	int err = s ? put(t, s, strlen(s)) : -ENOMEM;

	json_object_put(o);
	return err;
}

/* the statement's columns, once: their keys as text, where uid and argv are */
static int learn_columns(sqlite3_stmt *st, struct row_text *t)
{
	struct row_text keys = { 0 };
	int n = sqlite3_column_count(st), err = 0;
	size_t *koff = malloc(((size_t)n + 1) * sizeof(*koff));

	if (!koff)
		return -ENOMEM;
	t->uid_col = t->argv_col = -1;
	for (int i = 0; i < n && !err; i++) {
		const char *name = sqlite3_column_name(st, i);

		if (!name)
			err = -ENOMEM;
		else if (!strcmp(name, "argv"))
			t->argv_col = i;
		else if (!strcmp(name, "uid"))
			t->uid_col = i;
		koff[i] = keys.len;
		err = err ? err : put_string(&keys, name, strlen(name));
		err = err ? err : put(&keys, ":", 1);
	}
	koff[n] = keys.len;
	if (err) {
		free(keys.p);
		free(koff);
		return err;
	}
	free(t->keys);
	free(t->koff);
	t->keys = keys.p;
	t->koff = koff;
	t->ncols = n;
	t->cols_of = st;
	return 0;
}

static int put_col_key(struct row_text *t, int i, int first)
{
	int err = first ? 0 : put(t, ",", 1);

	return err ? err : put(t, t->keys + t->koff[i], t->koff[i + 1] - t->koff[i]);
}

/* an integer's digits, without printf's machinery: a listing writes millions */
static int put_int(struct row_text *t, int64_t v)
{
	char num[24], *e = num + sizeof(num), *o = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--o = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		*--o = '-';
	return put(t, o, (size_t)(e - o));
}

int store_row_text(sqlite3_stmt *st, uint32_t viewer, struct row_text *t)
{
	int first = 1, err = 0, hide = 0, argv_done = 0;

	if (t->cols_of != st && (err = learn_columns(st, t)))
		return err;
	/* a process of another user: its argv withheld (null), and said so at the end */
	hide = viewer != ANY_UID && t->uid_col >= 0 &&
	       sqlite3_column_type(st, t->uid_col) != SQLITE_NULL &&
	       (uint32_t)sqlite3_column_int64(st, t->uid_col) != viewer;
	t->len = 0;
	err = put(t, "{", 1);
	for (int i = 0; i < t->ncols && !err; i++) {
		int type = sqlite3_column_type(st, i);

		if (type == SQLITE_NULL)
			continue; /* absent key, printed as unknown */
		if ((err = put_col_key(t, i, first)))
			break;
		first = 0;
		if (hide && i == t->argv_col) {
			err = put(t, "null", 4);
			argv_done = 1;
			continue;
		}
		switch (type) {
		case SQLITE_INTEGER:
			err = put_int(t, (int64_t)sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			err = put_real(t, sqlite3_column_double(st, i));
			break;
		case SQLITE_TEXT:
			/* to its first NUL, as json_object_new_string takes it */
			err = put_string(t, (const char *)sqlite3_column_text(st, i),
					 strlen((const char *)sqlite3_column_text(st, i)));
			break;
		default: /* SQLITE_BLOB */
			err = put_strings(t, sqlite3_column_blob(st, i),
					  (size_t)sqlite3_column_bytes(st, i));
			break;
		}
	}
	if (!err && hide && !argv_done) { /* no argv stored: null all the same */
		err = put(t, first ? "\"argv\":null" : ",\"argv\":null", first ? 11 : 12);
		first = 0;
	}
	if (!err && hide)
		err = put(t, ",\"argv_hidden\":true", 19);
	return err ? err : put(t, "}", 1);
}

void store_row_text_free(struct row_text *t)
{
	free(t->p);
	free(t->keys);
	free(t->koff);
	memset(t, 0, sizeof(*t));
}
