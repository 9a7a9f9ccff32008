/* OTLP/HTTP request bodies in the protobuf encoding (otlp.h). Field numbers are those of
 * opentelemetry-proto: collector/{trace,logs,metrics}/v1, trace/v1/trace.proto,
 * logs/v1/logs.proto, metrics/v1/metrics.proto, common/v1/common.proto,
 * resource/v1/resource.proto.
 *
 * A nested message is written after a one-byte length and the length put in when it is known,
 * the message moved up when its length needs more bytes: no sizing pass, no fixed buffer, and
 * lengths in the shortest form, as every protobuf library writes them. As proto3 wants, fields
 * with their default value are left out, except the members of a oneof (AnyValue's). */
#include <string.h>

#include "otlp_write.h"

enum wire { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2 };

/* ExportTraceServiceRequest, ExportLogsServiceRequest, ExportMetricsServiceRequest */
#define REQ_RESOURCE_ITEMS 1
/* ResourceSpans, ResourceLogs, ResourceMetrics */
#define RES_RESOURCE 1
#define RES_SCOPE_ITEMS 2
/* ScopeSpans, ScopeLogs, ScopeMetrics */
#define SCOPE_SCOPE 1
#define SCOPE_ITEMS 2
/* Resource */
#define RESOURCE_ATTRIBUTES 1
/* InstrumentationScope */
#define ISCOPE_NAME 1
#define ISCOPE_VERSION 2
/* Span */
#define SPAN_TRACE_ID 1
#define SPAN_SPAN_ID 2
#define SPAN_PARENT_SPAN_ID 4
#define SPAN_NAME 5
#define SPAN_KIND 6
#define SPAN_START 7
#define SPAN_END 8
#define SPAN_ATTRIBUTES 9
#define SPAN_STATUS 15
/* Status */
#define STATUS_MESSAGE 2
#define STATUS_CODE 3
/* LogRecord */
#define LOG_TIME 1
#define LOG_SEVERITY_NUMBER 2
#define LOG_SEVERITY_TEXT 3
#define LOG_BODY 5
#define LOG_ATTRIBUTES 6
#define LOG_TRACE_ID 9
#define LOG_SPAN_ID 10
#define LOG_OBSERVED_TIME 11
/* Metric */
#define METRIC_NAME 1
#define METRIC_DESCRIPTION 2
#define METRIC_UNIT 3
#define METRIC_GAUGE 5
#define METRIC_SUM 7
/* Gauge, Sum */
#define DATA_POINTS 1
#define SUM_TEMPORALITY 2
#define SUM_MONOTONIC 3
#define TEMPORALITY_CUMULATIVE 2
/* NumberDataPoint */
#define POINT_START 2
#define POINT_TIME 3
#define POINT_AS_DOUBLE 4 /* double */
#define POINT_AS_INT 6	  /* sfixed64: the same wire type as a double */
#define POINT_ATTRIBUTES 7
/* KeyValue */
#define KV_KEY 1
#define KV_VALUE 2
/* AnyValue */
#define ANY_STRING 1
#define ANY_BOOL 2
#define ANY_INT 3
#define ANY_DOUBLE 4
#define ANY_ARRAY 5
/* ArrayValue */
#define ARRAY_VALUES 1

static size_t varint_to(uint8_t out[10], uint64_t v)
{
	size_t n = 0;

	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static void pb_varint(struct otlp_w *w, uint64_t v)
{
	uint8_t b[10];

	otlp_w_put(w, b, varint_to(b, v));
}

static void pb_tag(struct otlp_w *w, unsigned field, enum wire t)
{
	pb_varint(w, (uint64_t)field << 3 | t);
}

static void pb_uint(struct otlp_w *w, unsigned field, uint64_t v)
{
	pb_tag(w, field, WIRE_VARINT);
	pb_varint(w, v);
}

/* v little-endian, as fixed64 and double are sent: 8 bytes */
static size_t fixed64_to(uint8_t out[8], uint64_t v)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (8 * i));
	return 8;
}

static void pb_fixed64(struct otlp_w *w, unsigned field, uint64_t v)
{
	uint8_t b[8];

	pb_tag(w, field, WIRE_FIXED64);
	otlp_w_put(w, b, fixed64_to(b, v));
}

static void pb_bytes(struct otlp_w *w, unsigned field, const void *p, size_t n)
{
	pb_tag(w, field, WIRE_LEN);
	pb_varint(w, n);
	otlp_w_put(w, p, n);
}

/* A user's string, cleaned; left out when empty unless always (a oneof member) */
static void pb_text(struct otlp_w *w, unsigned field, const char *s, int always)
{
	char t[OTLP_TEXT_ROOM];
	size_t n = otlp_text(t, s);

	if (n || always)
		pb_bytes(w, field, t, n);
}

static void pb_id(struct otlp_w *w, unsigned field, const uint8_t *id, size_t n)
{
	if (!otlp_id_zero(id, n))
		pb_bytes(w, field, id, n);
}

/* A nested message begins: its tag and a one-byte length to be put in by pb_close */
static size_t pb_open(struct otlp_w *w, unsigned field)
{
	pb_tag(w, field, WIRE_LEN);
	otlp_w_put(w, "", 1);
	return w->b->len - 1;
}

static void pb_close(struct otlp_w *w, size_t at)
{
	uint8_t v[10];
	size_t len, n;
	char *d;

	if (w->err)
		return;
	len = w->b->len - at - 1;
	n = varint_to(v, len);
	if (n > 1) {
		if (!otlp_w_room(w, n - 1))
			return;
		d = w->b->data;
		memmove(d + at + n, d + at + 1, len);
		w->b->len += n - 1;
	}
	memcpy(w->b->data + at, v, n);
}

static void pb_any_string(struct otlp_w *w, unsigned field, const char *t, size_t n)
{
	size_t any = pb_open(w, field);

	pb_bytes(w, ANY_STRING, t, n);
	pb_close(w, any);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A tag and a length, at p: the bytes written */
static size_t head_to(uint8_t *p, unsigned field, size_t len)
{
	size_t n = varint_to(p, (uint64_t)field << 3 | WIRE_LEN);

	return n + varint_to(p + n, len);
}

/* A scalar's AnyValue field (int, bool or double: its tag and value) at out: the bytes */
static size_t scalar_to(uint8_t out[19], const struct otlp_attr *a)
{
	uint64_t bits;
	size_t n;

	if (a->type == OTLP_DOUBLE) {
		memcpy(&bits, &a->d, sizeof(bits));
		n = varint_to(out, ANY_DOUBLE << 3 | WIRE_FIXED64);
		return n + fixed64_to(out + n, bits);
	}
	n = varint_to(out, (a->type == OTLP_BOOL ? ANY_BOOL : ANY_INT) << 3 | WIRE_VARINT);
	/* int64: two's complement, 10 bytes if < 0 */
	return n + varint_to(out + n, a->type == OTLP_BOOL ? a->i != 0 : (uint64_t)a->i);
}

/* A KeyValue whose AnyValue holds one string (t, tlen) or another scalar: both lengths counted
 * first, the whole written at once. Attributes are most of what a span is, and this is most of
 * them. */
static void pb_attr_scalar(struct otlp_w *w, unsigned field, const char *key, size_t klen,
			   const struct otlp_attr *a, const char *t, size_t tlen)
{
	uint8_t val[19];
	size_t vlen = a->type == OTLP_STR ? 0 : scalar_to(val, a), any, kv, at;
	uint8_t *p;

	any = a->type == OTLP_STR ? 1 + varint_len(tlen) + tlen : vlen;
	kv = (klen ? 1 + varint_len(klen) + klen : 0) + 1 + varint_len(any) + any;
	if (!(p = (uint8_t *)otlp_w_room(w,
					 varint_len((uint64_t)field << 3) + varint_len(kv) + kv)))
		return;
	at = head_to(p, field, kv);
	if (klen) {
		at += head_to(p + at, KV_KEY, klen);
		memcpy(p + at, key, klen);
		at += klen;
	}
	at += head_to(p + at, KV_VALUE, any);
	if (a->type == OTLP_STR) {
		at += head_to(p + at, ANY_STRING, tlen);
		memcpy(p + at, t, tlen);
		at += tlen;
	} else {
		memcpy(p + at, val, vlen);
		at += vlen;
	}
	w->b->len += at;
}

static void pb_attr(struct otlp_w *w, unsigned field, const struct otlp_attr *a)
{
	char key[OTLP_TEXT_ROOM], t[OTLP_TEXT_ROOM];
	size_t kv, any, arr, n, klen = otlp_text(key, a->key);
	struct otlp_strings it;

	if (a->type != OTLP_STRINGS) {
		pb_attr_scalar(w, field, key, klen, a, t,
			       a->type == OTLP_STR ? otlp_text(t, a->s) : 0);
		return;
	}
	kv = pb_open(w, field);
	if (klen)
		pb_bytes(w, KV_KEY, key, klen);
	any = pb_open(w, KV_VALUE);
	arr = pb_open(w, ANY_ARRAY);
	otlp_strings_start(&it, a);
	while (otlp_strings_next(&it, t, &n))
		pb_any_string(w, ARRAY_VALUES, t, n);
	pb_close(w, arr);
	pb_close(w, any);
	pb_close(w, kv);
}

static void pb_attrs(struct otlp_w *w, unsigned field, const struct otlp_attr *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pb_attr(w, field, &a[i]);
}

/* The request's one resource and one scope; returns where the scope's message begins */
static size_t pb_begin(struct otlp_w *w, const struct otlp_resource *res,
		       const struct otlp_scope *scope, size_t *items)
{
	size_t rsrc, sc;

	*items = pb_open(w, REQ_RESOURCE_ITEMS);
	if (res) {
		rsrc = pb_open(w, RES_RESOURCE);
		pb_attrs(w, RESOURCE_ATTRIBUTES, res->attrs, res->nattrs);
		pb_close(w, rsrc);
	}
	sc = pb_open(w, RES_SCOPE_ITEMS);
	if (scope) {
		size_t is = pb_open(w, SCOPE_SCOPE);

		pb_text(w, ISCOPE_NAME, scope->name, 0);
		pb_text(w, ISCOPE_VERSION, scope->version, 0);
		pb_close(w, is);
	}
	return sc;
}

static void pb_span(struct otlp_w *w, const struct otlp_span *s)
{
	size_t span = pb_open(w, SCOPE_ITEMS), st;

	pb_bytes(w, SPAN_TRACE_ID, s->trace_id, sizeof(s->trace_id));
	pb_bytes(w, SPAN_SPAN_ID, s->span_id, sizeof(s->span_id));
	pb_id(w, SPAN_PARENT_SPAN_ID, s->parent_span_id, sizeof(s->parent_span_id));
	pb_text(w, SPAN_NAME, s->name, 0);
	if (s->kind)
		pb_uint(w, SPAN_KIND, (uint64_t)s->kind);
	if (s->start_unix_ns)
		pb_fixed64(w, SPAN_START, s->start_unix_ns);
	if (s->end_unix_ns)
		pb_fixed64(w, SPAN_END, s->end_unix_ns);
	pb_attrs(w, SPAN_ATTRIBUTES, s->attrs, s->nattrs);
	if (s->status || (s->status_message && *s->status_message)) {
		st = pb_open(w, SPAN_STATUS);
		pb_text(w, STATUS_MESSAGE, s->status_message, 0);
		if (s->status)
			pb_uint(w, STATUS_CODE, (uint64_t)s->status);
		pb_close(w, st);
	}
	pb_close(w, span);
}

static void pb_log(struct otlp_w *w, const struct otlp_log *l)
{
	size_t rec = pb_open(w, SCOPE_ITEMS), body;

	if (l->time_unix_ns)
		pb_fixed64(w, LOG_TIME, l->time_unix_ns);
	if (l->severity)
		pb_uint(w, LOG_SEVERITY_NUMBER, (uint64_t)l->severity);
	pb_text(w, LOG_SEVERITY_TEXT, l->severity_text, 0);
	if (l->body) {
		body = pb_open(w, LOG_BODY);
		pb_text(w, ANY_STRING, l->body, 1);
		pb_close(w, body);
	}
	pb_attrs(w, LOG_ATTRIBUTES, l->attrs, l->nattrs);
	pb_id(w, LOG_TRACE_ID, l->trace_id, sizeof(l->trace_id));
	pb_id(w, LOG_SPAN_ID, l->span_id, sizeof(l->span_id));
	if (l->observed_unix_ns)
		pb_fixed64(w, LOG_OBSERVED_TIME, l->observed_unix_ns);
	pb_close(w, rec);
}

static void pb_point(struct otlp_w *w, const struct otlp_point *p)
{
	size_t at = pb_open(w, DATA_POINTS);
	uint64_t bits;

	if (p->start_unix_ns)
		pb_fixed64(w, POINT_START, p->start_unix_ns);
	if (p->time_unix_ns)
		pb_fixed64(w, POINT_TIME, p->time_unix_ns);
	if (p->type == OTLP_AS_DOUBLE) { /* a oneof member: written even when 0 */
		memcpy(&bits, &p->d, sizeof(bits));
		pb_fixed64(w, POINT_AS_DOUBLE, bits);
	} else {
		pb_fixed64(w, POINT_AS_INT, (uint64_t)p->i);
	}
	pb_attrs(w, POINT_ATTRIBUTES, p->attrs, p->nattrs);
	pb_close(w, at);
}

static void pb_metric(struct otlp_w *w, const struct otlp_metric *m)
{
	size_t metric = pb_open(w, SCOPE_ITEMS), data;

	pb_text(w, METRIC_NAME, m->name, 0);
	pb_text(w, METRIC_DESCRIPTION, m->description, 0);
	pb_text(w, METRIC_UNIT, m->unit, 0);
	data = pb_open(w, m->kind == OTLP_SUM ? METRIC_SUM : METRIC_GAUGE);
	for (size_t i = 0; i < m->npoints; i++)
		pb_point(w, &m->points[i]);
	if (m->kind == OTLP_SUM) {
		pb_uint(w, SUM_TEMPORALITY, TEMPORALITY_CUMULATIVE);
		if (m->monotonic)
			pb_uint(w, SUM_MONOTONIC, 1);
	}
	pb_close(w, data);
	pb_close(w, metric);
}

int otlp_pb_traces(const struct otlp_resource *res, const struct otlp_scope *scope,
		   const struct otlp_span *spans, size_t n, struct otlp_buf *out)
{
	struct otlp_w w;
	size_t items, sc;

	otlp_w_init(&w, out);
	sc = pb_begin(&w, res, scope, &items);
	for (size_t i = 0; i < n; i++)
		pb_span(&w, &spans[i]);
	pb_close(&w, sc);
	pb_close(&w, items);
	return otlp_w_end(&w);
}

int otlp_pb_logs(const struct otlp_resource *res, const struct otlp_scope *scope,
		 const struct otlp_log *logs, size_t n, struct otlp_buf *out)
{
	struct otlp_w w;
	size_t items, sc;

	otlp_w_init(&w, out);
	sc = pb_begin(&w, res, scope, &items);
	for (size_t i = 0; i < n; i++)
		pb_log(&w, &logs[i]);
	pb_close(&w, sc);
	pb_close(&w, items);
	return otlp_w_end(&w);
}

int otlp_pb_metrics(const struct otlp_resource *res, const struct otlp_scope *scope,
		    const struct otlp_metric *metrics, size_t n, struct otlp_buf *out)
{
	struct otlp_w w;
	size_t items, sc;

	otlp_w_init(&w, out);
	sc = pb_begin(&w, res, scope, &items);
	for (size_t i = 0; i < n; i++)
		pb_metric(&w, &metrics[i]);
	pb_close(&w, sc);
	pb_close(&w, items);
	return otlp_w_end(&w);
}
