/* The appending writer the OTLP encoders share (otlp_write.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "otlp_write.h"

void otlp_w_init(struct otlp_w *w, struct otlp_buf *b)
{
	w->b = b;
	w->start = b->len;
	w->err = 0;
}

int otlp_w_end(struct otlp_w *w)
{
	if (w->err)
		w->b->len = w->start;
	return w->err;
}

char *otlp_w_grow(struct otlp_w *w, size_t n)
{
	struct otlp_buf *b = w->b;
	size_t cap;
	char *p;

	if (w->err)
		return NULL;
	if (n > SIZE_MAX / 2 - b->len) {
		w->err = -ENOMEM;
		return NULL;
	}
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			w->err = -ENOMEM;
			return NULL;
		}
		b->data = p;
		b->cap = cap;
	}
	return b->data + b->len;
}

void otlp_w_str(struct otlp_w *w, const char *s)
{
	otlp_w_put(w, s, strlen(s));
}

void otlp_w_hex(struct otlp_w *w, const uint8_t *id, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *at = otlp_w_room(w, 2 * n);

	if (!at)
		return;
	for (size_t i = 0; i < n; i++) {
		at[2 * i] = digits[id[i] >> 4];
		at[2 * i + 1] = digits[id[i] & 15];
	}
	w->b->len += 2 * n;
}

int otlp_id_zero(const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (id[i])
			return 0;
	return 1;
}
