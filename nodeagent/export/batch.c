/* A batch of OTLP items: it owns every string and attribute array its items point to, in
 * blocks that never move, so that rows are read once and encoded whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"
#include "version.h"

#define ARENA_BLOCK 65536

int export_batch_new(struct export_batch **out, const char *node)
{
	struct export_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	snprintf(b->node, sizeof(b->node), "%s", node);
	*out = b;
	return 0;
}

static void arena_free(struct export_batch *b)
{
	struct arena_block *k, *next;

	for (k = b->blocks; k; k = next) {
		next = k->next;
		free(k);
	}
	b->blocks = NULL;
}

void export_batch_free(struct export_batch *b)
{
	if (!b)
		return;
	arena_free(b);
	free(b->spans);
	free(b->logs);
	free(b);
}

size_t export_batch_count(const struct export_batch *b)
{
	return b->signal == EXPORT_TRACES ? b->nspans : b->nlogs;
}

size_t export_batch_rows(const struct export_batch *b)
{
	return b->rows;
}

void *batch_alloc(struct export_batch *b, size_t n)
{
	struct arena_block *k = b->blocks;
	size_t at;

	n = (n + 7) & ~(size_t)7;
	if (!k || k->size - k->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		k = malloc(sizeof(*k) + size);
		if (!k)
			return NULL;
		k->size = size;
		k->used = 0;
		k->next = b->blocks;
		b->blocks = k;
	}
	at = k->used;
	k->used += n;
	return k->data + at;
}

const char *batch_text(struct export_batch *b, const void *s, size_t n)
{
	char *t;

	if (!s)
		return NULL;
	t = batch_alloc(b, n + 1);
	if (!t)
		return NULL;
	memcpy(t, s, n);
	t[n] = 0;
	return t;
}

struct otlp_span *batch_span(struct export_batch *b)
{
	if (b->nspans == b->span_cap)
		return NULL;
	memset(&b->spans[b->nspans], 0, sizeof(*b->spans));
	return &b->spans[b->nspans++];
}

struct otlp_log *batch_log(struct export_batch *b)
{
	if (b->nlogs == b->log_cap)
		return NULL;
	memset(&b->logs[b->nlogs], 0, sizeof(*b->logs));
	return &b->logs[b->nlogs++];
}

int batch_reset(struct export_batch *b, enum export_signal signal, size_t max)
{
	size_t want = signal == EXPORT_TRACES ? max : max * ITEMS_LOGS_MAX;

	arena_free(b);
	b->signal = signal;
	b->nspans = b->nlogs = 0;
	b->rows = 0;
	b->nowners = 0;
	memset(&b->unit, 0, sizeof(b->unit)); /* its values were in the blocks just freed */
	if (signal == EXPORT_TRACES && b->span_cap < want) {
		struct otlp_span *s = realloc(b->spans, want * sizeof(*s));

		if (!s)
			return -ENOMEM;
		b->spans = s;
		b->span_cap = want;
	}
	if (signal == EXPORT_LOGS && b->log_cap < want) {
		struct otlp_log *l = realloc(b->logs, want * sizeof(*l));

		if (!l)
			return -ENOMEM;
		b->logs = l;
		b->log_cap = want;
	}
	return 0;
}

int export_batch_encode(const struct export_batch *b, enum otlp_format f,
			const struct otlp_resource *res, struct otlp_buf *out)
{
	static const struct otlp_scope scope = { "tracer", TRACER_VERSION };

	if (b->signal == EXPORT_TRACES)
		return otlp_encode_traces(f, res, &scope, b->spans, b->nspans, out);
	return otlp_encode_logs(f, res, &scope, b->logs, b->nlogs, out);
}
