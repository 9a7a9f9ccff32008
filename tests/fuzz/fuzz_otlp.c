/* libFuzzer target: the OTLP encoders on what users choose (a command's name, its arguments,
 * environment-like values, a message; a run's or a tool's name in a metric's attributes) and
 * the reading of what a collector answers. Input: byte
 * 0 holds flags, then up to six fields separated by "\x01\x02": span name, an attribute's key,
 * its value, an argv (NUL-separated bytes), a log body, a status message; the whole input is
 * also a collector's reply in both encodings. Flags: bit 0 gzips the bodies (and inflates them
 * back), bit 1 makes the value a double, bit 2 a root span, bit 3 the metric a gauge of ints.
 * Checks that the JSON parses with json-c in its strict mode and validating UTF-8, that every
 * string in it is at most OTLP_MAX_STRING bytes (plus the mark), that the protobuf is well formed
 * field by field (otlp_wire.h), and that a reply gives 0 or -EBADMSG and a clean message. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <zlib.h>

#include "fuzz_check.h"
#include "otlp.h"
#include "otlp_wire.h"

#define SEP "\x01\x02"
#define NFIELDS 6

/* Every string in the document is within the bound */
static void check_json_strings(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_string:
		if (json_object_get_string_len(o) > OTLP_MAX_STRING + 3)
			abort();
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			check_json_strings(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			check_json_strings(v);
		}
		break;
	}
	default:
		break;
	}
}

static void check_json(const struct otlp_buf *b)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;

	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, b->data, (int)b->len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != b->len)
		abort();
	check_json_strings(o);
	json_object_put(o);
	json_tokener_free(tok);
}

static void check_gzip(const struct otlp_buf *b)
{
	struct otlp_buf z = { 0 };
	z_stream s = { 0 };
	char *back = malloc(b->len + 1);

	if (!back || otlp_gzip(b->data, b->len, &z) || inflateInit2(&s, 15 + 16) != Z_OK)
		abort();
	s.next_in = (Bytef *)z.data;
	s.avail_in = (uInt)z.len;
	s.next_out = (Bytef *)back;
	s.avail_out = (uInt)b->len + 1;
	if (inflate(&s, Z_FINISH) != Z_STREAM_END || s.total_out != b->len ||
	    memcmp(back, b->data, b->len))
		abort();
	inflateEnd(&s);
	free(z.data);
	free(back);
}

/* The span's attributes on two points of a metric named as the span, described as its status */
static void encode_metrics(enum otlp_format f, const struct otlp_resource *res,
			   const struct otlp_scope *scope, const struct otlp_span *sp, int gauge)
{
	struct otlp_point p[2];
	struct otlp_metric m = {
		sp->name, sp->status_message, "{process}", gauge ? OTLP_GAUGE : OTLP_SUM, 1, p, 2
	};
	struct ow_counts c = { 0 };
	struct otlp_buf b = { 0 };

	for (int i = 0; i < 2; i++)
		p[i] = (struct otlp_point){ sp->attrs + i,
					    sp->nattrs - (size_t)i,
					    sp->start_unix_ns,
					    sp->end_unix_ns,
					    gauge ? OTLP_AS_INT : OTLP_AS_DOUBLE,
					    -(int64_t)sp->start_unix_ns,
					    (double)sp->start_unix_ns / 7.0 };
	if (otlp_encode_metrics(f, res, scope, &m, 1, &b))
		abort();
	if (f == OTLP_JSON)
		check_json(&b);
	else if (ow_check(OW_METRICS_REQ, (const uint8_t *)b.data, b.len, &c, 0) ||
		 c.metrics != 1 || c.points != 2)
		abort();
	free(b.data);
}

static void encode(enum otlp_format f, const struct otlp_span *sp, const struct otlp_log *lg,
		   int gzip, int gauge)
{
	const struct otlp_scope scope = { "tracer", "1" };
	const struct otlp_resource res = { sp->attrs, 1 };
	struct ow_counts c = { 0 };
	struct otlp_buf b = { 0 };

	if (otlp_encode_traces(f, &res, &scope, sp, 1, &b))
		abort();
	if (f == OTLP_JSON)
		check_json(&b);
	else if (ow_check(OW_TRACE_REQ, (const uint8_t *)b.data, b.len, &c, 0) || c.spans != 1)
		abort();
	if (gzip)
		check_gzip(&b);
	b.len = 0;
	if (otlp_encode_logs(f, &res, &scope, lg, 1, &b))
		abort();
	if (f == OTLP_JSON)
		check_json(&b);
	else if (ow_check(OW_LOGS_REQ, (const uint8_t *)b.data, b.len, &c, 0) || c.logs != 1)
		abort();
	free(b.data);
	encode_metrics(f, &res, &scope, sp, gauge);
}

static void reply(enum otlp_format f, const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1), msg[64];
	int64_t rejected = -1;
	int rc;

	if (!copy)
		abort();
	memcpy(copy, data, size); /* a block of its own size: ASan sees a read past it */
	rc = otlp_decode_response(f, copy, size, &rejected, msg, sizeof(msg));
	if (rc == 0) {
		if (rejected < 0)
			abort();
		fuzz_check_field(msg, sizeof(msg));
	} else if (rc != -EBADMSG) {
		abort();
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	char *field[NFIELDS] = { NULL };
	size_t flen[NFIELDS] = { 0 };
	struct otlp_attr attrs[3];
	struct otlp_span sp = { 0 };
	struct otlp_log lg = { 0 };
	unsigned flags;

	if (size < 1)
		return 0;
	reply(OTLP_PROTOBUF, data, size);
	reply(OTLP_JSON, data, size);
	flags = data[0];
	for (int n = 0; n < NFIELDS && p <= end; n++) {
		const char *sep = n < NFIELDS - 1 ? memmem(p, (size_t)(end - p), SEP, 2) : NULL;
		size_t len = (size_t)((sep ? sep : end) - p);

		field[n] = malloc(len + 1);
		if (!field[n])
			abort();
		memcpy(field[n], p, len);
		field[n][len] = 0;
		flen[n] = len;
		if (!sep)
			break;
		p = sep + 2;
	}
	for (int n = 0; n < NFIELDS; n++)
		if (!field[n] && !(field[n] = calloc(1, 1)))
			abort();

	attrs[0] = (struct otlp_attr){ .key = field[1], .type = OTLP_STR, .s = field[2] };
	if (flags & 2)
		attrs[0] = (struct otlp_attr){ .key = field[1],
					       .type = OTLP_DOUBLE,
					       .d = (double)flen[2] / 3.0 };
	attrs[1] = (struct otlp_attr){
		.key = "argv", .type = OTLP_STRINGS, .s = field[3], .len = flen[3]
	};
	attrs[2] = (struct otlp_attr){ .key = "n", .type = OTLP_INT, .i = -(int64_t)flen[0] };
	memset(sp.trace_id, 0xab, sizeof(sp.trace_id));
	memset(sp.span_id, 0xcd, sizeof(sp.span_id));
	if (!(flags & 4))
		sp.parent_span_id[0] = 1;
	sp.name = field[0];
	sp.kind = OTLP_SPAN_INTERNAL;
	sp.start_unix_ns = (uint64_t)flen[0] << 40;
	sp.end_unix_ns = UINT64_MAX;
	sp.status = flen[5] ? OTLP_STATUS_ERROR : OTLP_STATUS_UNSET;
	sp.status_message = field[5];
	sp.attrs = attrs;
	sp.nattrs = 3;
	lg.time_unix_ns = 1;
	lg.severity = OTLP_SEV_WARN;
	lg.severity_text = "WARN";
	lg.body = field[4];
	lg.attrs = attrs;
	lg.nattrs = 3;
	memcpy(lg.trace_id, sp.trace_id, sizeof(lg.trace_id));

	encode(OTLP_PROTOBUF, &sp, &lg, flags & 1, flags & 8);
	encode(OTLP_JSON, &sp, &lg, flags & 1, flags & 8);
	for (int n = 0; n < NFIELDS; n++)
		free(field[n]);
	return 0;
}
