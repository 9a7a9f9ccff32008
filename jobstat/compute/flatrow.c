/* Compute: a flat record's members, built and read (flatrow.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobstat.h"
#include "flatrow.h"

void flat_row_init(struct flat_row *r)
{
	memset(r, 0, sizeof(*r));
}

void flat_row_free(struct flat_row *r)
{
	free(r->text);
	flat_row_init(r);
}

void flat_row_reset(struct flat_row *r)
{
	r->n = 0;
	r->len = 0;
}

/* len bytes of s and a NUL into the row's text: their offset, or -ENOMEM */
static int64_t put_text(struct flat_row *r, const char *s, size_t len)
{
	size_t at = r->len;

	if (len > UINT32_MAX / 2 || r->len + len + 1 > UINT32_MAX)
		return -ENOMEM; /* offsets are 32-bit: a reply row is far below */
	if (r->len + len + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 1024;
		char *t;

		while (cap < r->len + len + 1)
			cap *= 2;
		if (!(t = realloc(r->text, cap)))
			return -ENOMEM;
		r->text = t;
		r->cap = cap;
	}
	memcpy(r->text + at, s, len);
	r->text[at + len] = 0;
	r->len += len + 1;
	return (int64_t)at;
}

static struct flat_field *add(struct flat_row *r, const char *key, size_t klen, enum flat_kind kind,
			      int *err)
{
	struct flat_field *f;
	int64_t k;

	if (r->n == FLAT_FIELDS_MAX) {
		*err = -E2BIG;
		return NULL;
	}
	if ((k = put_text(r, key, klen)) < 0) {
		*err = (int)k;
		return NULL;
	}
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	f->key = (uint32_t)k;
	f->klen = (uint32_t)klen;
	f->kind = kind;
	return f;
}

int flat_add_null(struct flat_row *r, const char *key, size_t klen)
{
	int err = 0;

	add(r, key, klen, FLAT_NULL, &err);
	return err;
}

int flat_add_other(struct flat_row *r, const char *key, size_t klen)
{
	int err = 0;

	add(r, key, klen, FLAT_OTHER, &err);
	return err;
}

int flat_add_bool(struct flat_row *r, const char *key, size_t klen, int v)
{
	int err = 0;
	struct flat_field *f = add(r, key, klen, FLAT_BOOL, &err);

	if (f)
		f->i = !!v;
	return err;
}

int flat_add_int(struct flat_row *r, const char *key, size_t klen, int64_t v)
{
	int err = 0;
	struct flat_field *f = add(r, key, klen, FLAT_INT, &err);

	if (f)
		f->i = v;
	return err;
}

int flat_add_real(struct flat_row *r, const char *key, size_t klen, double v)
{
	int err = 0;
	struct flat_field *f = add(r, key, klen, FLAT_REAL, &err);

	if (f)
		f->d = v;
	return err;
}

int flat_add_str(struct flat_row *r, const char *key, size_t klen, const char *s, size_t len)
{
	int err = 0;
	struct flat_field *f = add(r, key, klen, FLAT_STR, &err);
	int64_t at;

	if (!f)
		return err;
	if ((at = put_text(r, s, len)) < 0) {
		r->n--;
		return (int)at;
	}
	f->s = (uint32_t)at;
	return 0;
}

int flat_add_strs(struct flat_row *r, const char *key, size_t klen)
{
	int err = 0;
	struct flat_field *f = add(r, key, klen, FLAT_STRS, &err);

	if (f)
		f->s = (uint32_t)r->len; /* where its first string will be */
	return err;
}

int flat_add_strs_item(struct flat_row *r, const char *s, size_t len)
{
	int64_t at;

	if (!r->n || r->f[r->n - 1].kind != FLAT_STRS)
		return -EINVAL;
	if ((at = put_text(r, s, len)) < 0)
		return (int)at;
	r->f[r->n - 1].n++;
	return 0;
}

/* one member of an object, by its value's type */
static int from_value(struct flat_row *r, const char *key, struct json_object *v)
{
	size_t klen = strlen(key), n;
	int err;

	switch (json_object_get_type(v)) {
	case json_type_null:
		return flat_add_null(r, key, klen);
	case json_type_boolean:
		return flat_add_bool(r, key, klen, json_object_get_boolean(v));
	case json_type_int:
		return flat_add_int(r, key, klen, json_object_get_int64(v));
	case json_type_double:
		return flat_add_real(r, key, klen, json_object_get_double(v));
	case json_type_string:
		return flat_add_str(r, key, klen, json_object_get_string(v),
				    (size_t)json_object_get_string_len(v));
	case json_type_array:
		n = json_object_array_length(v);
		for (size_t i = 0; i < n; i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
				return flat_add_other(r, key, klen);
		if ((err = flat_add_strs(r, key, klen)) < 0)
			return err;
		for (size_t i = 0; i < n && !err; i++) {
			struct json_object *s = json_object_array_get_idx(v, i);

			err = flat_add_strs_item(r, json_object_get_string(s),
						 (size_t)json_object_get_string_len(s));
		}
		return err;
	default:
		return flat_add_other(r, key, klen);
	}
}

int flat_from_json(struct json_object *o, struct flat_row *r)
{
	int err = 0;

	flat_row_reset(r);
	if (!o || !json_object_is_type(o, json_type_object))
		return -EINVAL;
	json_object_object_foreach(o, key, v) {
		if ((err = from_value(r, key, v)) < 0)
			return err;
	}
	return 0;
}

/* ---- reading */

static int is_key(const struct flat_row *r, const struct flat_field *f, const char *key,
		  size_t klen)
{
	return f->klen == klen && !memcmp(r->text + f->key, key, klen);
}

const struct flat_field *flat_get(struct flat_row *r, const char *key)
{
	size_t klen = strlen(key);

	/* from where the last one was found: a row's keys come in the order they are asked for */
	for (size_t k = 0; k < r->n; k++) {
		size_t i = (r->hint + k) % r->n;

		if (is_key(r, &r->f[i], key, klen)) {
			r->hint = i + 1;
			return &r->f[i];
		}
	}
	return NULL;
}

/* a real as an integer, as json-c reads one: clamped to int64's range (NaN: unknown) */
static int64_t real_int(double d)
{
	if (d != d)
		return JS_NONE;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

int64_t flat_int(struct flat_row *r, const char *key)
{
	const struct flat_field *f = flat_get(r, key);

	if (!f)
		return JS_NONE;
	return f->kind == FLAT_INT ? f->i : f->kind == FLAT_REAL ? real_int(f->d) : JS_NONE;
}

const char *flat_str(struct flat_row *r, const char *key)
{
	const struct flat_field *f = flat_get(r, key);

	return f && f->kind == FLAT_STR ? r->text + f->s : NULL;
}

size_t flat_strs(struct flat_row *r, const char *key, const char **first)
{
	const struct flat_field *f = flat_get(r, key);

	if (!f || f->kind != FLAT_STRS || !f->n)
		return 0;
	*first = r->text + f->s;
	return f->n;
}

const char *flat_next_str(const char *s)
{
	return s + strlen(s) + 1;
}

void flat_to_rec(struct flat_row *r, const struct rec_slot *slots, size_t n, void *dst)
{
	size_t hint = 0;

	/* every slot unknown, then each member into its slot: slots and members come in one
	 * order, so that each is found a step or two after the last */
	for (size_t i = 0; i < n; i++) {
		char *at = (char *)dst + slots[i].off;
		int64_t none = JS_NONE;
		double unset = -1;

		if (slots[i].kind == REC_INT || slots[i].kind == REC_INT0)
			memcpy(at, &none, sizeof(none));
		else if (slots[i].kind == REC_REAL)
			memcpy(at, &unset, sizeof(unset));
		else if (slots[i].kind != REC_BLOB && slots[i].size)
			at[0] = 0;
	}
	for (size_t k = 0; k < r->n && n; k++) {
		const struct flat_field *f = &r->f[k];
		size_t i, j;

		for (j = 0; j < n; j++) {
			i = (hint + j) % n;
			/* strncmp first: most names differ early, and no strlen per try */
			if (slots[i].kind != REC_BLOB &&
			    !strncmp(slots[i].name, r->text + f->key, f->klen) &&
			    strnlen(slots[i].name, f->klen + 1) == f->klen)
				break;
		}
		if (j == n)
			continue;
		hint = i + 1;
		char *at = (char *)dst + slots[i].off;
		int64_t v;
		double d;

		switch (slots[i].kind) {
		case REC_INT:
		case REC_INT0:
			if (f->kind == FLAT_INT || f->kind == FLAT_REAL) {
				v = f->kind == FLAT_INT ? f->i : real_int(f->d);
				memcpy(at, &v, sizeof(v));
			}
			break;
		case REC_REAL:
			if (f->kind == FLAT_INT || f->kind == FLAT_REAL) {
				d = f->kind == FLAT_REAL ? f->d : (double)f->i;
				memcpy(at, &d, sizeof(d));
			}
			break;
		case REC_TEXT:
		case REC_BOOT:
		case REC_STATE:
			if (f->kind == FLAT_STR)
				snprintf(at, slots[i].size, "%s", r->text + f->s);
			break;
		case REC_BLOB:
			break;
		}
	}
}
