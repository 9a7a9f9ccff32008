/* A check of an OTLP protobuf request as tracer writes it, shared by the unit test and the fuzz
 * target: every byte belongs to a field of the message it is in (opentelemetry-proto's field
 * numbers, written out here from the .proto files, not from the encoder), with the wire type
 * of its declaration, lengths within their message, ids of their size, strings valid UTF-8 of
 * at most OTLP_MAX_STRING bytes (plus the mark of a cut), an AnyValue with one value. */
#ifndef TRACER_OTLP_WIRE_H
#define TRACER_OTLP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "otlp.h"
#include "safetext.h"

enum ow_msg {
	OW_TRACE_REQ,
	OW_LOGS_REQ,
	OW_RESOURCE_SPANS,
	OW_RESOURCE_LOGS,
	OW_RESOURCE,
	OW_SCOPE_SPANS,
	OW_SCOPE_LOGS,
	OW_SCOPE,
	OW_SPAN,
	OW_STATUS,
	OW_LOG,
	OW_KV,
	OW_ANY,
	OW_ARRAY,
};
enum ow_kind { OW_STR, OW_ID16, OW_ID8, OW_VARINT, OW_F64, OW_SUB };

struct ow_rule {
	enum ow_msg msg;
	unsigned field;
	enum ow_kind kind;
	enum ow_msg sub;
};

static const struct ow_rule ow_rules[] = {
	{ OW_TRACE_REQ, 1, OW_SUB, OW_RESOURCE_SPANS },
	{ OW_LOGS_REQ, 1, OW_SUB, OW_RESOURCE_LOGS },
	{ OW_RESOURCE_SPANS, 1, OW_SUB, OW_RESOURCE },
	{ OW_RESOURCE_SPANS, 2, OW_SUB, OW_SCOPE_SPANS },
	{ OW_RESOURCE_LOGS, 1, OW_SUB, OW_RESOURCE },
	{ OW_RESOURCE_LOGS, 2, OW_SUB, OW_SCOPE_LOGS },
	{ OW_RESOURCE, 1, OW_SUB, OW_KV },
	{ OW_SCOPE_SPANS, 1, OW_SUB, OW_SCOPE },
	{ OW_SCOPE_SPANS, 2, OW_SUB, OW_SPAN },
	{ OW_SCOPE_LOGS, 1, OW_SUB, OW_SCOPE },
	{ OW_SCOPE_LOGS, 2, OW_SUB, OW_LOG },
	{ OW_SCOPE, 1, OW_STR, 0 },
	{ OW_SCOPE, 2, OW_STR, 0 },
	{ OW_SPAN, 1, OW_ID16, 0 },
	{ OW_SPAN, 2, OW_ID8, 0 },
	{ OW_SPAN, 4, OW_ID8, 0 },
	{ OW_SPAN, 5, OW_STR, 0 },
	{ OW_SPAN, 6, OW_VARINT, 0 },
	{ OW_SPAN, 7, OW_F64, 0 },
	{ OW_SPAN, 8, OW_F64, 0 },
	{ OW_SPAN, 9, OW_SUB, OW_KV },
	{ OW_SPAN, 15, OW_SUB, OW_STATUS },
	{ OW_STATUS, 2, OW_STR, 0 },
	{ OW_STATUS, 3, OW_VARINT, 0 },
	{ OW_LOG, 1, OW_F64, 0 },
	{ OW_LOG, 2, OW_VARINT, 0 },
	{ OW_LOG, 3, OW_STR, 0 },
	{ OW_LOG, 5, OW_SUB, OW_ANY },
	{ OW_LOG, 6, OW_SUB, OW_KV },
	{ OW_LOG, 9, OW_ID16, 0 },
	{ OW_LOG, 10, OW_ID8, 0 },
	{ OW_LOG, 11, OW_F64, 0 },
	{ OW_KV, 1, OW_STR, 0 },
	{ OW_KV, 2, OW_SUB, OW_ANY },
	{ OW_ANY, 1, OW_STR, 0 },
	{ OW_ANY, 2, OW_VARINT, 0 },
	{ OW_ANY, 3, OW_VARINT, 0 },
	{ OW_ANY, 4, OW_F64, 0 },
	{ OW_ANY, 5, OW_SUB, OW_ARRAY },
	{ OW_ARRAY, 1, OW_SUB, OW_ANY },
};

struct ow_counts {
	size_t spans, logs, strings;
};

static int ow_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int i = 0; i < 10 && *p < end; i++) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int ow_utf8(const uint8_t *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0, l; i < n; i += l)
		if (!(l = safe_text_char((const char *)s + i, n - i, &cp)))
			return -1;
	return 0;
}

/* 0 when the n bytes at p are a well-formed message of type m; counts what it holds */
static int ow_check(enum ow_msg m, const uint8_t *p, size_t n, struct ow_counts *c, int depth)
{
	const uint8_t *end = p + n;
	unsigned anys = 0;

	if (depth > 8)
		return -1;
	if (m == OW_SPAN)
		c->spans++;
	if (m == OW_LOG)
		c->logs++;
	while (p < end) {
		const struct ow_rule *r = NULL;
		uint64_t tag, v;

		if (ow_varint(&p, end, &tag))
			return -1;
		for (size_t i = 0; i < sizeof(ow_rules) / sizeof(ow_rules[0]); i++)
			if (ow_rules[i].msg == m && ow_rules[i].field == tag >> 3)
				r = &ow_rules[i];
		if (!r)
			return -1; /* tracer writes no field it does not know */
		anys++;
		if (r->kind == OW_VARINT) {
			if ((tag & 7) != 0 || ow_varint(&p, end, &v))
				return -1;
			continue;
		}
		if (r->kind == OW_F64) {
			if ((tag & 7) != 1 || end - p < 8)
				return -1;
			p += 8;
			continue;
		}
		if ((tag & 7) != 2 || ow_varint(&p, end, &v) || v > (uint64_t)(end - p))
			return -1;
		if ((r->kind == OW_ID16 && v != 16) || (r->kind == OW_ID8 && v != 8))
			return -1;
		if (r->kind == OW_STR) {
			if (v > OTLP_MAX_STRING + 3 || ow_utf8(p, v))
				return -1;
			c->strings++;
		}
		if (r->kind == OW_SUB && ow_check(r->sub, p, v, c, depth + 1))
			return -1;
		p += v;
	}
	return m == OW_ANY && anys != 1 ? -1 : 0;
}

#endif
