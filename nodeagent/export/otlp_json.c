/* OTLP/HTTP request bodies in the JSON encoding (otlp.h), as the OTLP specification maps the
 * protobuf messages: lowerCamelCase keys, trace and span ids as lowercase hex (not base64),
 * 64-bit integers as decimal strings, enums as integers. Fields with their default value are
 * left out, as in the protobuf encoding; a oneof member (AnyValue's) never is.
 *
 * Written here rather than built as a json-c tree: a batch is large and flat, and every string
 * in it is already valid UTF-8 (otlp_text), so escaping is the short list of RFC 8259. */
#include <math.h>
#include <stdio.h>

#include "otlp_write.h"

/* An object or array being written: whether a comma is due */
struct jctx {
	struct otlp_w *w;
	int n;
};

static void j_sep(struct jctx *c)
{
	if (c->n++)
		otlp_w_put(c->w, ",", 1);
}

static void j_key(struct jctx *c, const char *key)
{
	j_sep(c);
	otlp_w_put(c->w, "\"", 1);
	otlp_w_str(c->w, key);
	otlp_w_put(c->w, "\":", 2);
}

/* n bytes of valid UTF-8 as a JSON string: quotes, backslashes and controls escaped */
static void j_quote(struct otlp_w *w, const char *t, size_t n)
{
	size_t run = 0;
	char e[8];

	otlp_w_put(w, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)t[i];

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		otlp_w_put(w, t + run, i - run);
		run = i + 1;
		if (ch == '"' || ch == '\\') {
			e[0] = '\\', e[1] = (char)ch;
			otlp_w_put(w, e, 2);
		} else if (ch == '\n') {
			otlp_w_put(w, "\\n", 2);
		} else if (ch == '\t') {
			otlp_w_put(w, "\\t", 2);
		} else if (ch == '\r') {
			otlp_w_put(w, "\\r", 2);
		} else {
			snprintf(e, sizeof(e), "\\u%04x", ch);
			otlp_w_put(w, e, 6);
		}
	}
	otlp_w_put(w, t + run, n - run);
	otlp_w_put(w, "\"", 1);
}

/* A user's string under key, cleaned; left out when empty */
static void j_text(struct jctx *c, const char *key, const char *s)
{
	char t[OTLP_TEXT_ROOM];
	size_t n = otlp_text(t, s);

	if (!n)
		return;
	j_key(c, key);
	j_quote(c->w, t, n);
}

static void j_u64(struct jctx *c, const char *key, uint64_t v, int quoted)
{
	char num[24];
	int n = snprintf(num, sizeof(num), quoted ? "\"%llu\"" : "%llu", (unsigned long long)v);

	j_key(c, key);
	otlp_w_put(c->w, num, (size_t)n);
}

static void j_id(struct jctx *c, const char *key, const uint8_t *id, size_t n, int always)
{
	if (!always && otlp_id_zero(id, n))
		return;
	j_key(c, key);
	otlp_w_put(c->w, "\"", 1);
	otlp_w_hex(c->w, id, n);
	otlp_w_put(c->w, "\"", 1);
}

/* The proto3 JSON mapping of a double: a number, or one of three strings */
static void j_double(struct otlp_w *w, double d)
{
	char num[32];
	int n;

	if (isnan(d))
		n = snprintf(num, sizeof(num), "\"NaN\"");
	else if (isinf(d))
		n = snprintf(num, sizeof(num), d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	else
		n = snprintf(num, sizeof(num), "%.17g", d);
	otlp_w_put(w, num, (size_t)n);
}

static void j_attr_value(struct otlp_w *w, const struct otlp_attr *a)
{
	struct jctx v = { w, 0 }, arr = { w, 0 };
	struct otlp_strings it;
	char t[OTLP_TEXT_ROOM];
	char num[24];
	size_t n;

	otlp_w_put(w, "{", 1);
	switch (a->type) {
	case OTLP_STR:
		j_key(&v, "stringValue");
		j_quote(w, t, otlp_text(t, a->s));
		break;
	case OTLP_INT:
		j_key(&v, "intValue");
		n = (size_t)snprintf(num, sizeof(num), "\"%lld\"", (long long)a->i);
		otlp_w_put(w, num, n);
		break;
	case OTLP_BOOL:
		j_key(&v, "boolValue");
		otlp_w_str(w, a->i ? "true" : "false");
		break;
	case OTLP_DOUBLE:
		j_key(&v, "doubleValue");
		j_double(w, a->d);
		break;
	case OTLP_STRINGS:
		j_key(&v, "arrayValue");
		otlp_w_str(w, "{\"values\":[");
		otlp_strings_start(&it, a);
		while (otlp_strings_next(&it, t, &n)) {
			j_sep(&arr);
			otlp_w_str(w, "{\"stringValue\":");
			j_quote(w, t, n);
			otlp_w_put(w, "}", 1);
		}
		otlp_w_str(w, "]}");
		break;
	}
	otlp_w_put(w, "}", 1);
}

static void j_attrs(struct jctx *c, const char *key, const struct otlp_attr *a, size_t n)
{
	struct jctx list = { c->w, 0 }, kv;

	if (!n)
		return;
	j_key(c, key);
	otlp_w_put(c->w, "[", 1);
	for (size_t i = 0; i < n; i++) {
		j_sep(&list);
		kv = (struct jctx){ c->w, 0 };
		otlp_w_put(c->w, "{", 1);
		j_text(&kv, "key", a[i].key);
		j_key(&kv, "value");
		j_attr_value(c->w, &a[i]);
		otlp_w_put(c->w, "}", 1);
	}
	otlp_w_put(c->w, "]", 1);
}

/* {"resourceX":[{"resource":{...},"scopeX":[{"scope":{...},"items":[  ...  ]}]}]} */
static void j_begin(struct otlp_w *w, const char *resource_items, const char *scope_items,
		    const char *items, const struct otlp_resource *res,
		    const struct otlp_scope *scope)
{
	struct jctx top = { w, 0 }, r = { w, 0 }, s = { w, 0 }, x;

	otlp_w_put(w, "{", 1);
	j_key(&top, resource_items);
	otlp_w_put(w, "[{", 2);
	if (res) {
		j_key(&r, "resource");
		otlp_w_put(w, "{", 1);
		x = (struct jctx){ w, 0 };
		j_attrs(&x, "attributes", res->attrs, res->nattrs);
		otlp_w_put(w, "}", 1);
	}
	j_key(&r, scope_items);
	otlp_w_put(w, "[{", 2);
	if (scope) {
		j_key(&s, "scope");
		otlp_w_put(w, "{", 1);
		x = (struct jctx){ w, 0 };
		j_text(&x, "name", scope->name);
		j_text(&x, "version", scope->version);
		otlp_w_put(w, "}", 1);
	}
	j_key(&s, items);
	otlp_w_put(w, "[", 1);
}

static void j_end(struct otlp_w *w)
{
	otlp_w_str(w, "]}]}]}");
}

static void j_span(struct otlp_w *w, const struct otlp_span *sp)
{
	struct jctx c = { w, 0 }, st = { w, 0 };

	otlp_w_put(w, "{", 1);
	j_id(&c, "traceId", sp->trace_id, sizeof(sp->trace_id), 1);
	j_id(&c, "spanId", sp->span_id, sizeof(sp->span_id), 1);
	j_id(&c, "parentSpanId", sp->parent_span_id, sizeof(sp->parent_span_id), 0);
	j_text(&c, "name", sp->name);
	if (sp->kind)
		j_u64(&c, "kind", (uint64_t)sp->kind, 0);
	if (sp->start_unix_ns)
		j_u64(&c, "startTimeUnixNano", sp->start_unix_ns, 1);
	if (sp->end_unix_ns)
		j_u64(&c, "endTimeUnixNano", sp->end_unix_ns, 1);
	j_attrs(&c, "attributes", sp->attrs, sp->nattrs);
	if (sp->status || (sp->status_message && *sp->status_message)) {
		j_key(&c, "status");
		otlp_w_put(w, "{", 1);
		j_text(&st, "message", sp->status_message);
		if (sp->status)
			j_u64(&st, "code", (uint64_t)sp->status, 0);
		otlp_w_put(w, "}", 1);
	}
	otlp_w_put(w, "}", 1);
}

static void j_log(struct otlp_w *w, const struct otlp_log *l)
{
	struct jctx c = { w, 0 };
	char t[OTLP_TEXT_ROOM];

	otlp_w_put(w, "{", 1);
	if (l->time_unix_ns)
		j_u64(&c, "timeUnixNano", l->time_unix_ns, 1);
	if (l->observed_unix_ns)
		j_u64(&c, "observedTimeUnixNano", l->observed_unix_ns, 1);
	if (l->severity)
		j_u64(&c, "severityNumber", (uint64_t)l->severity, 0);
	j_text(&c, "severityText", l->severity_text);
	if (l->body) {
		j_key(&c, "body");
		otlp_w_str(w, "{\"stringValue\":");
		j_quote(w, t, otlp_text(t, l->body));
		otlp_w_put(w, "}", 1);
	}
	j_attrs(&c, "attributes", l->attrs, l->nattrs);
	j_id(&c, "traceId", l->trace_id, sizeof(l->trace_id), 0);
	j_id(&c, "spanId", l->span_id, sizeof(l->span_id), 0);
	otlp_w_put(w, "}", 1);
}

int otlp_json_traces(const struct otlp_resource *res, const struct otlp_scope *scope,
		     const struct otlp_span *spans, size_t n, struct otlp_buf *out)
{
	struct otlp_w w;

	otlp_w_init(&w, out);
	j_begin(&w, "resourceSpans", "scopeSpans", "spans", res, scope);
	for (size_t i = 0; i < n; i++) {
		if (i)
			otlp_w_put(&w, ",", 1);
		j_span(&w, &spans[i]);
	}
	j_end(&w);
	return otlp_w_end(&w);
}

int otlp_json_logs(const struct otlp_resource *res, const struct otlp_scope *scope,
		   const struct otlp_log *logs, size_t n, struct otlp_buf *out)
{
	struct otlp_w w;

	otlp_w_init(&w, out);
	j_begin(&w, "resourceLogs", "scopeLogs", "logRecords", res, scope);
	for (size_t i = 0; i < n; i++) {
		if (i)
			otlp_w_put(&w, ",", 1);
		j_log(&w, &logs[i]);
	}
	j_end(&w);
	return otlp_w_end(&w);
}
