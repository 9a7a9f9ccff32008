/* Collect: a reply's array of records, parsed by events (yajl) into one reused flat row each,
 * handed on one by one: no tree of objects, so a 100 000-process reply is read at the speed of
 * its bytes. The grammar is yajl's (strict JSON); what a row may hold is checked here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "flatrow.h"
#include "rows_parse.h"

/* a key longer than this is no member of ours: the row is refused */
#define KEY_MAX 128

struct parse {
	struct flat_row *row;
	rows_fn fn;
	void *ctx;
	int depth; /* 1 in the array, 2 in a row, 3 and deeper in a member's value */
	char key[KEY_MAX];
	size_t klen;
	int err;       /* what stopped the parse: a callback's, or ours */
	char why[128]; /* ours, said */
};

static int stop(struct parse *p, int err, const char *why)
{
	p->err = err;
	snprintf(p->why, sizeof(p->why), "%s", why);
	return 0;
}

static int ok(struct parse *p, int err)
{
	return err ? stop(p, err, err == -E2BIG ? "a row with too many members" : "out of memory")
		   : 1;
}

/* Where a scalar goes: a member of a row (depth 2: 1, and add() says), an element of a
 * member's array (3: the array is then no list of strings), or deeper (ignored). 0 stops. */
static int scalar_at(struct parse *p)
{
	if (p->depth == 3)
		p->row->f[p->row->n - 1].kind = FLAT_OTHER;
	if (p->depth < 2)
		return stop(p, -EPROTO, "a record expected");
	return p->depth == 2;
}

static int on_null(void *ctx)
{
	struct parse *p = ctx;

	return scalar_at(p) ? ok(p, flat_add_null(p->row, p->key, p->klen)) : !p->err;
}

static int on_bool(void *ctx, int v)
{
	struct parse *p = ctx;

	return scalar_at(p) ? ok(p, flat_add_bool(p->row, p->key, p->klen, v)) : !p->err;
}

static int on_int(void *ctx, long long v)
{
	struct parse *p = ctx;

	return scalar_at(p) ? ok(p, flat_add_int(p->row, p->key, p->klen, v)) : !p->err;
}

static int on_real(void *ctx, double v)
{
	struct parse *p = ctx;

	return scalar_at(p) ? ok(p, flat_add_real(p->row, p->key, p->klen, v)) : !p->err;
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct parse *p = ctx;
	struct flat_row *r = p->row;

	if (p->depth == 2)
		return ok(p, flat_add_str(r, p->key, p->klen, (const char *)s, len));
	if (p->depth == 3 && r->f[r->n - 1].kind == FLAT_STRS)
		return ok(p, flat_add_strs_item(r, (const char *)s, len));
	if (p->depth < 2)
		return stop(p, -EPROTO, "a record expected");
	return 1;
}

static int on_key(void *ctx, const unsigned char *key, size_t len)
{
	struct parse *p = ctx;

	if (p->depth != 2)
		return 1; /* a key inside a member's value: not ours */
	if (len >= KEY_MAX)
		return stop(p, -EPROTO, "a member's name too long");
	memcpy(p->key, key, len);
	p->key[len] = 0;
	p->klen = len;
	return 1;
}

static int on_start_map(void *ctx)
{
	struct parse *p = ctx;

	if (p->depth == 0)
		return stop(p, -EPROTO, "an array of records expected");
	if (p->depth == 1)
		flat_row_reset(p->row);
	else if (p->depth == 2 && !ok(p, flat_add_other(p->row, p->key, p->klen)))
		return 0;
	else if (p->depth == 3)
		p->row->f[p->row->n - 1].kind = FLAT_OTHER;
	p->depth++;
	return 1;
}

static int on_end_map(void *ctx)
{
	struct parse *p = ctx;
	int err;

	if (--p->depth == 1 && (err = p->fn(p->ctx, p->row)) < 0)
		return stop(p, err, "");
	return 1;
}

static int on_start_array(void *ctx)
{
	struct parse *p = ctx;

	if (p->depth == 1)
		return stop(p, -EPROTO, "a record expected");
	if (p->depth == 2 && !ok(p, flat_add_strs(p->row, p->key, p->klen)))
		return 0;
	if (p->depth == 3)
		p->row->f[p->row->n - 1].kind = FLAT_OTHER;
	p->depth++;
	return 1;
}

static int on_end_array(void *ctx)
{
	((struct parse *)ctx)->depth--;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_integer = on_int,
	.yajl_double = on_real,
	.yajl_string = on_string,
	.yajl_map_key = on_key,
	.yajl_start_map = on_start_map,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

int rows_parse(const char *text, size_t len, rows_fn fn, void *ctx, char *why, size_t whylen)
{
	struct flat_row row;
	struct parse p = { .row = &row, .fn = fn, .ctx = ctx };
	yajl_handle h;
	yajl_status st;
	unsigned char *msg;

	flat_row_init(&row);
	if (!(h = yajl_alloc(&callbacks, NULL, &p))) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/* strings are bytes users gave (argv): shown escaped by the views, not refused here */
	yajl_config(h, yajl_dont_validate_strings, 1);
	st = yajl_parse(h, (const unsigned char *)text, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	if (st == yajl_status_client_canceled) {
		snprintf(why, whylen, "%s", p.why);
	} else if (st != yajl_status_ok) {
		msg = yajl_get_error(h, 0, (const unsigned char *)text, len);
		snprintf(why, whylen, "%s", msg ? (const char *)msg : "invalid JSON");
		/* the message ends with a newline: not ours to print */
		why[strcspn(why, "\n")] = 0;
		yajl_free_error(h, msg);
		p.err = -EPROTO;
	}
	yajl_free(h);
	flat_row_free(&row);
	return p.err;
}
