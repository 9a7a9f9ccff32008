/* Rows copied into one buffer for the committing thread (row_queue.h). A row is a header (its
 * length, its op, its unit, how many columns) and its columns, each its index, its kind and its
 * value: an integer, or a length and the bytes of a string (with its NUL) or of a blob. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "row_queue.h"
#include "store_internal.h"

struct row_head {
	uint32_t len; /* of the row, this header included */
	uint16_t cols;
	uint8_t op;
	uint8_t pad;
	uint64_t unit;
};

enum { COL_INT, COL_TEXT, COL_BLOB };

/* How column i of t is kept: a blob's bytes, a string with its NUL, or an integer (a string
 * left NULL too: the thread binds by the column's kind, which leaves it NULL) */
static int col_kind(const struct rec_table *t, const struct rec_row *r, size_t i)
{
	switch (t->cols[i].kind) {
	case REC_BLOB:
		return r->s[i] && r->len[i] ? COL_BLOB : COL_INT;
	case REC_TEXT:
	case REC_STATE:
		return r->s[i] ? COL_TEXT : COL_INT;
	default:
		return COL_INT;
	}
}

/* q's buffer with room for need more bytes; its rows stay where they are, relative to it */
static int reserve(struct row_queue *q, size_t need)
{
	size_t cap;
	uint8_t *buf;

	if (need <= q->cap - q->len)
		return 0;
	if (need > UINT32_MAX)
		return -EINVAL;
	cap = q->cap ? q->cap : 65536;
	while (cap - q->len < need)
		cap *= 2;
	buf = realloc(q->buf, cap);
	if (!buf)
		return -ENOMEM;
	q->buf = buf;
	q->cap = cap;
	return 0;
}

static uint8_t *put(uint8_t *at, const void *v, size_t len)
{
	memcpy(at, v, len);
	return at + len;
}

/* One pass over the columns: room for each integer is made for all of them at once, and for a
 * string when its length is known (working the lengths out first cost as much as the copy) */
int row_queue_put(struct row_queue *q, enum row_op op, uint64_t unit, const struct rec_table *t,
		  const struct rec_row *r)
{
	struct row_head h = { .op = (uint8_t)op, .unit = unit };
	size_t end = sizeof(h), fixed = sizeof(h) + t->n * (2 + 8);
	uint8_t *at, kind;
	uint32_t len;
	int err;

	if (t->n > REC_MAX)
		return -EINVAL;
	if ((err = reserve(q, fixed)))
		return err;
	for (size_t i = 0; i < t->n; i++) {
		if (!r->set[i])
			continue;
		h.cols++;
		kind = (uint8_t)col_kind(t, r, i);
		if (kind != COL_INT) {
			len = kind == COL_BLOB ? r->len[i] : (uint32_t)strlen(r->s[i]) + 1;
			fixed = fixed + 4 + (size_t)len - 8; /* its 8 bytes counted above */
			if ((err = reserve(q, fixed)))
				return err; /* q's rows as they were: its length has not moved */
		}
		at = q->buf + q->len + end;
		*at++ = (uint8_t)i;
		*at++ = kind;
		at = kind == COL_INT ? put(at, &r->i[i], 8) : put(put(at, &len, 4), r->s[i], len);
		end = (size_t)(at - (q->buf + q->len));
	}
	h.len = (uint32_t)end;
	memcpy(q->buf + q->len, &h, sizeof(h));
	q->len += end;
	q->n++;
	if (op == ROW_PROCESS || op == ROW_FOLD || op == ROW_FOLD_OTHER)
		unit_counts_add(&q->procs, unit, 1);
	return 0;
}

int row_queue_next(const struct row_queue *q, size_t *at, enum row_op *op, uint64_t *unit,
		   struct rec_row *r)
{
	const uint8_t *p, *end;
	struct row_head h;
	uint32_t len;
	uint8_t col, kind;

	if (*at >= q->len)
		return 0;
	if (q->len - *at < sizeof(h))
		return -EINVAL;
	memcpy(&h, q->buf + *at, sizeof(h));
	if (h.len < sizeof(h) || h.len > q->len - *at)
		return -EINVAL;
	p = q->buf + *at + sizeof(h);
	end = q->buf + *at + h.len;
	rec_row_clear(r);
	for (unsigned c = 0; c < h.cols; c++) {
		if (end - p < 2)
			return -EINVAL;
		col = *p++;
		kind = *p++;
		if (col >= REC_MAX)
			return -EINVAL;
		r->set[col] = 1;
		r->s[col] = NULL;
		r->len[col] = 0;
		r->i[col] = 0;
		if (kind == COL_INT) {
			if (end - p < 8)
				return -EINVAL;
			memcpy(&r->i[col], p, 8);
			p += 8;
			continue;
		}
		if (end - p < 4)
			return -EINVAL;
		memcpy(&len, p, 4);
		p += 4;
		if ((size_t)(end - p) < len || (kind == COL_TEXT && (!len || p[len - 1])))
			return -EINVAL;
		r->s[col] = (const char *)p;
		if (kind == COL_BLOB)
			r->len[col] = len;
		p += len;
	}
	*op = (enum row_op)h.op;
	*unit = h.unit;
	*at += h.len;
	return 1;
}

void row_queue_clear(struct row_queue *q)
{
	q->len = 0;
	q->n = 0;
	memset(&q->procs, 0, sizeof(q->procs));
}

void unit_counts_add(struct unit_counts *c, uint64_t unit, uint64_t n)
{
	unsigned i;

	for (i = 0; i < c->n && c->u[i].unit != unit; i++)
		;
	if (i == c->n) {
		if (c->n == UNIT_COUNTS) {
			c->rest += n; /* more units than counted: unattributed */
			return;
		}
		c->u[c->n].unit = unit;
		c->u[c->n++].n = 0;
	}
	c->u[i].n += n;
}

void row_queue_free(struct row_queue *q)
{
	free(q->buf);
	memset(q, 0, sizeof(*q));
}
