/* The OTLP request encoders, gzip and the reading of a collector's reply
 * (nodeagent/export/otlp*.c): exact bytes of a small request in both encodings, a user's
 * hostile strings (invalid UTF-8, NULs in an argv, 200 kB values, quotes and controls), gzip
 * undone by zlib's inflate, and good and hostile replies. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <zlib.h>

#include "otlp.h"
#include "otlp_write.h"
#include "safetext.h"
#include "testlib.h"
#include "../fuzz/otlp_wire.h"

#define MARK OTLP_CUT_MARK
#define FFFD "\xef\xbf\xbd"

static const struct otlp_scope scope = { "t", NULL };
static const uint8_t trace_id[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t span_id[8] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8 };

static struct otlp_span tiny_span(const struct otlp_attr *attrs, size_t nattrs)
{
	struct otlp_span s = { .name = "x",
			       .kind = OTLP_SPAN_INTERNAL,
			       .start_unix_ns = 1,
			       .end_unix_ns = 2,
			       .attrs = attrs,
			       .nattrs = nattrs };

	memcpy(s.trace_id, trace_id, 16);
	memcpy(s.span_id, span_id, 8);
	return s;
}

/* The request in f, as a NUL-terminated buffer */
static struct otlp_buf encode_span(enum otlp_format f, const struct otlp_span *s)
{
	struct otlp_buf b = { 0 };

	assert_int_equal(otlp_encode_traces(f, NULL, &scope, s, 1, &b), 0);
	b.data = realloc(b.data, b.len + 1);
	b.data[b.len] = 0;
	return b;
}

/* The one span of a JSON request, parsed by json-c */
static struct json_object *json_span(struct json_object *doc)
{
	struct json_object *rs = json_object_array_get_idx(key(doc, "resourceSpans"), 0);
	struct json_object *ss = json_object_array_get_idx(key(rs, "scopeSpans"), 0);

	return json_object_array_get_idx(key(ss, "spans"), 0);
}

static struct json_object *json_attr_value(struct json_object *span, size_t i)
{
	return key(json_object_array_get_idx(key(span, "attributes"), i), "value");
}

static void test_tiny_span_protobuf(void **state)
{
	const struct otlp_attr a = { .key = "k", .type = OTLP_STR, .s = "v" };
	struct otlp_span s = tiny_span(&a, 1);
	/* written out by hand from trace.proto and common.proto */
	/* clang-format off */
	static const uint8_t want[] = {
		0x0a, 0x46,			/* ExportTraceServiceRequest.resource_spans */
		0x12, 0x44,			/* ResourceSpans.scope_spans */
		0x0a, 0x03, 0x0a, 0x01, 't',	/* ScopeSpans.scope { name } */
		0x12, 0x3d,			/* ScopeSpans.spans */
		0x0a, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, /* trace_id */
		0x12, 0x08, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,	   /* span_id */
		0x2a, 0x01, 'x',		/* name */
		0x30, 0x01,			/* kind: INTERNAL */
		0x39, 1, 0, 0, 0, 0, 0, 0, 0,	/* start_time_unix_nano */
		0x41, 2, 0, 0, 0, 0, 0, 0, 0,	/* end_time_unix_nano */
		0x4a, 0x08, 0x0a, 0x01, 'k', 0x12, 0x03, 0x0a, 0x01, 'v', /* attributes { k: v } */
	};
	/* clang-format on */
	struct otlp_buf b;

	(void)state;
	b = encode_span(OTLP_PROTOBUF, &s);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	free(b.data);

	/* a status and a parent: Status { message = 2, code = 3 }, parent_span_id = 4 */
	s.status = OTLP_STATUS_ERROR;
	s.status_message = "m";
	s.parent_span_id[7] = 9;
	b = encode_span(OTLP_PROTOBUF, &s);
	assert_non_null(memmem(b.data, b.len, "\x22\x08\0\0\0\0\0\0\0\x09", 10));
	assert_memory_equal(b.data + b.len - 7, "\x7a\x05\x12\x01m\x18\x02", 7);
	free(b.data);
}

static void test_tiny_span_json(void **state)
{
	const struct otlp_attr a[] = {
		{ .key = "k", .type = OTLP_STR, .s = "v" },
		{ .key = "n", .type = OTLP_INT, .i = -5 },
		{ .key = "b", .type = OTLP_BOOL, .i = 1 },
		{ .key = "d", .type = OTLP_DOUBLE, .d = 0.5 },
		{ .key = "argv", .type = OTLP_STRINGS, .s = "a\0b", .len = 4 },
	};
	struct otlp_span s = tiny_span(a, 5);
	struct otlp_buf b;

	(void)state;
	b = encode_span(OTLP_JSON, &s);
	assert_string_equal(
		b.data,
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":\"t\"},\"spans\":[{"
		"\"traceId\":\"0102030405060708090a0b0c0d0e0f10\",\"spanId\":\"a1a2a3a4a5a6a7a8\","
		"\"name\":\"x\",\"kind\":1,\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\","
		"\"attributes\":[{\"key\":\"k\",\"value\":{\"stringValue\":\"v\"}},"
		"{\"key\":\"n\",\"value\":{\"intValue\":\"-5\"}},"
		"{\"key\":\"b\",\"value\":{\"boolValue\":true}},"
		"{\"key\":\"d\",\"value\":{\"doubleValue\":0.5}},"
		"{\"key\":\"argv\",\"value\":{\"arrayValue\":{\"values\":[{\"stringValue\":\"a\"},"
		"{\"stringValue\":\"b\"}]}}}]}]}]}]}");
	free(b.data);
}

/* A log record in both encodings: fields by number, ids only when set */
static void test_log(void **state)
{
	struct otlp_log l = { .time_unix_ns = 3,
			      .observed_unix_ns = 4,
			      .severity = OTLP_SEV_ERROR,
			      .severity_text = "ERROR",
			      .body = "oom kill" };
	const struct otlp_attr a = { .key = "pid", .type = OTLP_INT, .i = 300 };
	static const char rec_bytes[] = "\x09\x03\0\0\0\0\0\0\0\x10\x11\x1a\x05"
					"ERROR\x2a\x0a\x0a\x08oom kill";
	struct otlp_resource res = { &a, 1 };
	struct ow_counts c = { 0 };
	struct json_object *doc, *rec;
	struct otlp_buf b = { 0 };

	(void)state;
	assert_int_equal(otlp_encode_logs(OTLP_PROTOBUF, &res, &scope, &l, 1, &b), 0);
	assert_int_equal(ow_check(OW_LOGS_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_int_equal(c.logs, 1);
	/* LogRecord: time (1, fixed64), severity_number (2), severity_text (3), body (5) */
	assert_non_null(memmem(b.data, b.len, rec_bytes, sizeof(rec_bytes) - 1));
	assert_null(memmem(b.data, b.len, "\x4a\x10", 2)); /* no trace id */
	free(b.data);

	memcpy(l.trace_id, trace_id, 16);
	memcpy(l.span_id, span_id, 8);
	b = (struct otlp_buf){ 0 };
	assert_int_equal(otlp_encode_logs(OTLP_JSON, &res, &scope, &l, 1, &b), 0);
	doc = json_tokener_parse(strndupa(b.data, b.len));
	assert_non_null(doc);
	rec = json_object_array_get_idx(
		key(json_object_array_get_idx(
			    key(json_object_array_get_idx(key(doc, "resourceLogs"), 0),
				"scopeLogs"),
			    0),
		    "logRecords"),
		0);
	assert_string_equal(gets_(rec, "timeUnixNano"), "3");
	assert_string_equal(gets_(rec, "observedTimeUnixNano"), "4");
	assert_int_equal(geti(rec, "severityNumber"), 17);
	assert_true(json_object_is_type(key(rec, "severityNumber"), json_type_int));
	assert_string_equal(gets_(key(rec, "body"), "stringValue"), "oom kill");
	assert_string_equal(gets_(rec, "traceId"), "0102030405060708090a0b0c0d0e0f10");
	assert_string_equal(gets_(rec, "spanId"), "a1a2a3a4a5a6a7a8");
	json_object_put(doc);
	free(b.data);
}

static void test_text_cut(void **state)
{
	char out[OTLP_TEXT_ROOM];
	size_t n;
	int cut;

	(void)state;
	n = otlp_text_cut(out, 100, "ok \xc3\xa9", 5, &cut);
	assert_int_equal(n, 5);
	assert_int_equal(cut, 0);
	/* a stray byte, a cut sequence, an overlong form, a surrogate: U+FFFD each byte */
	n = otlp_text_cut(out, 100,
			  "a\x80"
			  "b\xc3"
			  "c\xc0\xaf\xed\xa0\x80",
			  10, &cut);
	assert_int_equal(n, 3 + 7 * 3);
	assert_memory_equal(out, "a" FFFD "b" FFFD "c" FFFD FFFD FFFD FFFD FFFD, n);
	/* cut on a character with the mark inside the limit: 'é' is 2 bytes */
	n = otlp_text_cut(out, 8, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, &cut);
	assert_int_equal(n, 8);
	assert_int_equal(cut, 0);
	n = otlp_text_cut(out, 8, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9x", 9, &cut);
	assert_int_equal(cut, 1);
	assert_int_equal(n, 7);
	assert_memory_equal(out, "\xc3\xa9\xc3\xa9" MARK, 7);
	/* a limit under the mark's length: the mark alone */
	n = otlp_text_cut(out, 1, "xy", 2, &cut);
	assert_int_equal(n, 3);
	assert_memory_equal(out, MARK, 3);
}

/* The cut character by character, as otlp_text_cut worked before its run of plain ASCII was
 * copied at once: the oracle the faster one must agree with byte for byte. */
static size_t cut_by_char(char *out, size_t limit, const char *s, size_t n, int *cut)
{
	size_t at = 0, keep = 0, i = 0, l, ul;
	const char *u;
	uint32_t cp;

	while (i < n) {
		l = safe_text_char(s + i, n - i, &cp);
		u = l ? s + i : FFFD;
		ul = l ? l : sizeof(FFFD) - 1;
		if (at + ul > limit) {
			memcpy(out + keep, MARK, OTLP_CUT_MARK_LEN);
			*cut = 1;
			return keep + OTLP_CUT_MARK_LEN;
		}
		memcpy(out + at, u, ul);
		at += ul;
		i += l ? l : 1;
		if (at + OTLP_CUT_MARK_LEN <= limit)
			keep = at;
	}
	*cut = 0;
	return at;
}

/* Text of ASCII runs, controls, UTF-8 and stray bytes, cut at every limit: as by the oracle */
static void test_text_cut_runs(void **state)
{
	static const char *const parts[] = {
		"abc ", "x",	"\t",		"\xc3\xa9",	    "\xe2\x82\xac",
		"\x80", "\xff", "--flag=value", "\xf0\x9f\x98\x80", "\x7f"
	};
	char in[256], a[OTLP_TEXT_ROOM], b[OTLP_TEXT_ROOM];
	unsigned seed = 7;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		size_t n = 0, na, nb;
		int ca, cb;

		while (n < 120) {
			const char *p;

			seed = seed * 1103515245 + 12345;
			p = parts[(seed >> 16) % (sizeof(parts) / sizeof(*parts))];
			memcpy(in + n, p, strlen(p));
			n += strlen(p);
		}
		for (size_t limit = 0; limit < 90; limit++) {
			na = otlp_text_cut(a, limit, in, n, &ca);
			nb = cut_by_char(b, limit, in, n, &cb);
			assert_int_equal(na, nb);
			assert_int_equal(ca, cb);
			assert_memory_equal(a, b, na);
		}
	}
}

/* 200 kB values: each cut at OTLP_MAX_STRING on a character, marked; an argv bounded whole */
static void test_long_values(void **state)
{
	size_t big = 200 * 1024, n = 0;
	char *v = malloc(big + 1), *argv = malloc(big);
	struct otlp_attr a[2] = { { .key = "cmd", .type = OTLP_STR },
				  { .key = "argv", .type = OTLP_STRINGS } };
	struct otlp_span s = tiny_span(a, 2);
	struct json_object *doc, *sp, *vals;
	struct ow_counts c = { 0 };
	struct otlp_buf b;
	const char *str;
	size_t total = 0;

	(void)state;
	for (size_t i = 0; i < big; i += 3) /* '€' is 3 bytes: 4096 is no boundary */
		memcpy(v + i, "\xe2\x82\xac", big - i < 3 ? big - i : 3);
	v[big - big % 3] = 0;
	a[0].s = v;
	memset(argv, 'a', big);
	for (size_t i = 9; i < big; i += 10)
		argv[i] = 0; /* 9-byte strings */
	a[1].s = argv;
	a[1].len = big;
	s.name = v;

	b = encode_span(OTLP_PROTOBUF, &s);
	assert_int_equal(ow_check(OW_TRACE_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_true(b.len < 4 * OTLP_MAX_STRING);
	free(b.data);

	b = encode_span(OTLP_JSON, &s);
	doc = json_tokener_parse(b.data);
	assert_non_null(doc);
	sp = json_span(doc);
	str = gets_(json_attr_value(sp, 0), "stringValue");
	n = strlen(str);
	assert_true(n <= OTLP_MAX_STRING && n > OTLP_MAX_STRING - 6);
	assert_memory_equal(str + n - 3, MARK, 3);
	assert_int_equal((n - 3) % 3, 0); /* whole euros before the mark */
	assert_string_equal(gets_(sp, "name"), str);
	vals = key(key(json_attr_value(sp, 1), "arrayValue"), "values");
	for (size_t i = 0; i < json_object_array_length(vals); i++) {
		str = gets_(json_object_array_get_idx(vals, i), "stringValue");
		total += strlen(str) + 1;
		if (i + 1 < json_object_array_length(vals))
			assert_string_equal(str, "aaaaaaaaa");
	}
	assert_true(total <= OTLP_MAX_STRING + 3);
	assert_true(json_object_array_length(vals) >= OTLP_MAX_STRING / 10);
	assert_memory_equal(str + strlen(str) - 3, MARK, 3);
	json_object_put(doc);
	free(b.data);
	free(v);
	free(argv);
}

/* Invalid UTF-8, NULs inside an argv, quotes, backslashes, controls: JSON that parses to the
 * cleaned text, protobuf whose strings are valid */
static void test_hostile_strings(void **state)
{
	static const char argv[] = "sh\0-c\0echo \"x\\\"\n\t\x01\x7f\0\0\xff\xfe end";
	struct otlp_attr a[2] = {
		{ .key = "argv", .type = OTLP_STRINGS, .s = argv, .len = sizeof(argv) - 1 },
		{ .key = "k\"\\\x02", .type = OTLP_STR, .s = "\x1b[2J\xc3" }
	};
	struct otlp_span s = tiny_span(a, 2);
	struct json_object *doc, *sp, *vals;
	struct ow_counts c = { 0 };
	struct otlp_buf b;

	(void)state;
	s.name = "n\x80\"";
	b = encode_span(OTLP_JSON, &s);
	doc = json_tokener_parse(b.data);
	assert_non_null(doc);
	sp = json_span(doc);
	assert_string_equal(gets_(sp, "name"), "n" FFFD "\"");
	vals = key(key(json_attr_value(sp, 0), "arrayValue"), "values");
	assert_int_equal(json_object_array_length(vals), 5);
	assert_string_equal(gets_(json_object_array_get_idx(vals, 0), "stringValue"), "sh");
	assert_string_equal(gets_(json_object_array_get_idx(vals, 2), "stringValue"),
			    "echo \"x\\\"\n\t\x01\x7f");
	assert_string_equal(gets_(json_object_array_get_idx(vals, 3), "stringValue"), "");
	assert_string_equal(gets_(json_object_array_get_idx(vals, 4), "stringValue"),
			    FFFD FFFD " end");
	assert_string_equal(gets_(json_object_array_get_idx(key(sp, "attributes"), 1), "key"),
			    "k\"\\\x02");
	assert_string_equal(gets_(json_attr_value(sp, 1), "stringValue"), "\x1b[2J" FFFD);
	/* nothing raw below 0x20 in the body */
	for (size_t i = 0; i < b.len; i++)
		assert_true((unsigned char)b.data[i] >= 0x20);
	json_object_put(doc);
	free(b.data);

	b = encode_span(OTLP_PROTOBUF, &s);
	assert_int_equal(ow_check(OW_TRACE_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_int_equal(c.spans, 1);
	assert_non_null(memmem(b.data, b.len, "\x0a\x0a" FFFD FFFD " end", 12));
	free(b.data);
}

/* Many spans: lengths of several bytes at every level; appended after what out held */
static void test_many_spans(void **state)
{
	const struct otlp_attr a = { .key = "k", .type = OTLP_STR, .s = "value" };
	struct otlp_span s[300];
	struct ow_counts c = { 0 };
	struct otlp_buf b = { 0 };
	struct json_object *doc;

	(void)state;
	for (size_t i = 0; i < 300; i++)
		s[i] = tiny_span(&a, 1);
	b.data = strdup("xyz");
	b.len = b.cap = 3;
	assert_int_equal(otlp_encode_traces(OTLP_PROTOBUF, NULL, &scope, s, 300, &b), 0);
	assert_memory_equal(b.data, "xyz", 3);
	assert_int_equal(ow_check(OW_TRACE_REQ, (uint8_t *)b.data + 3, b.len - 3, &c, 0), 0);
	assert_int_equal(c.spans, 300);
	b.len = 0;
	assert_int_equal(otlp_encode_traces(OTLP_JSON, NULL, &scope, s, 300, &b), 0);
	doc = json_tokener_parse(strndupa(b.data, b.len));
	assert_int_equal(
		json_object_array_length(
			key(json_object_array_get_idx(
				    key(json_object_array_get_idx(key(doc, "resourceSpans"), 0),
					"scopeSpans"),
				    0),
			    "spans")),
		300);
	json_object_put(doc);
	assert_int_equal(otlp_encode_traces((enum otlp_format)7, NULL, &scope, s, 1, &b), -EINVAL);
	free(b.data);
}

static void test_gzip(void **state)
{
	size_t n = 300000, got;
	char *in = malloc(n), *back = malloc(n + 1);
	struct otlp_buf b = { 0 };
	z_stream z = { 0 };

	(void)state;
	for (size_t i = 0; i < n; i++)
		in[i] = (char)(i * 7 % 251);
	b.data = strdup("ab");
	b.len = b.cap = 2;
	assert_int_equal(otlp_gzip(in, n, &b), 0);
	assert_memory_equal(b.data, "ab\x1f\x8b", 4); /* appended; the gzip magic */
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)b.data + 2;
	z.avail_in = (uInt)(b.len - 2);
	z.next_out = (Bytef *)back;
	z.avail_out = (uInt)n + 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	got = z.total_out;
	inflateEnd(&z);
	assert_int_equal(got, n);
	assert_memory_equal(back, in, n);
	b.len = 0;
	assert_int_equal(otlp_gzip("", 0, &b), 0);
	assert_true(b.len >= 20);
	free(b.data);
	free(in);
	free(back);
}

#define REPLY(f, lit, rej, m, sz) otlp_decode_response(f, lit, sizeof(lit) - 1, rej, m, sz)

static void test_response_good(void **state)
{
	int64_t rej = -1;
	char msg[64];

	(void)state;
	assert_int_equal(otlp_decode_response(OTLP_PROTOBUF, "", 0, &rej, msg, sizeof(msg)), 0);
	assert_int_equal(rej, 0);
	assert_string_equal(msg, "");
	/* partial_success { rejected 7, error_message "x" }, unknown fields skipped */
	assert_int_equal(REPLY(OTLP_PROTOBUF, "\x0a\x05\x08\x07\x12\x01x", &rej, msg, sizeof(msg)),
			 0);
	assert_int_equal(rej, 7);
	assert_string_equal(msg, "x");
	assert_int_equal(REPLY(OTLP_PROTOBUF,
			       "\x10\x05\x1d\0\0\0\0\x0a\x09\x08\xac\x02\x12\x02\x1b[\x20\x01",
			       &rej, msg, sizeof(msg)),
			 0);
	assert_int_equal(rej, 300);
	assert_string_equal(msg, "\\x1b["); /* a message to log: escaped */
	assert_int_equal(REPLY(OTLP_JSON, " \n", &rej, msg, sizeof(msg)), 0);
	assert_int_equal(rej, 0);
	assert_int_equal(REPLY(OTLP_JSON, "{}", &rej, msg, sizeof(msg)), 0);
	assert_int_equal(
		REPLY(OTLP_JSON,
		      "{\"partialSuccess\":{\"rejectedSpans\":\"12\",\"errorMessage\":\"full\"}"
		      ",\"other\":[1]}\n",
		      &rej, msg, sizeof(msg)),
		0);
	assert_int_equal(rej, 12);
	assert_string_equal(msg, "full");
	assert_int_equal(
		REPLY(OTLP_JSON, "{\"partialSuccess\":{\"rejectedLogRecords\":3}}", &rej, msg, 4),
		0);
	assert_int_equal(rej, 3);
	assert_int_equal(REPLY(OTLP_JSON, "{\"partialSuccess\":{\"errorMessage\":\"abcdef\"}}",
			       &rej, msg, 4),
			 0);
	assert_int_equal(rej, 0);
	assert_string_equal(msg, "abc"); /* cut to msglen */
}

static void test_response_hostile(void **state)
{
	static const char *const pb[] = {
		"\x0a\x05\x08\x07",					/* length past the end */
		"\x0a\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", /* 11-byte varint */
		"\x0a\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", /* 10th byte past 64 bits */
		"\x0a\x02\x0a\x00", /* rejected count, wrong wire type */
		"\x08\x01",	    /* partial_success not a message */
		"\x0b\x0c",	    /* a group */
		"\x0a\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", /* negative count */
		"\x80",							/* a cut tag */
		"\x00\x00",						/* field 0 */
		"\x09\x01\x02",						/* fixed64 cut */
		"\x0a",							/* no length */
	};
	static const char *const js[] = {
		"{\"partialSuccess\":{\"rejectedSpans\":\"12x\"}}",
		"{\"partialSuccess\":{\"rejectedSpans\":\"-1\"}}",
		"{\"partialSuccess\":{\"rejectedSpans\":-1}}",
		"{\"partialSuccess\":{\"rejectedSpans\":1.5}}",
		"{\"partialSuccess\":{\"rejectedSpans\":\"99999999999999999999\"}}",
		"{\"partialSuccess\":{\"rejectedSpans\":1,\"rejectedLogRecords\":1}}",
		"{\"partialSuccess\":{\"errorMessage\":5}}",
		"{\"partialSuccess\":[]}",
		"{\"partialSuccess\":{}} x",
		"[1]",
		"{\"partialSuccess\":",
		"<html>502 Bad Gateway</html>",
	};
	char deep[20001], msg[16] = "keep";
	int64_t rej = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(pb) / sizeof(pb[0]); i++) {
		size_t n = i == 8 ? 2 : strlen(pb[i]);

		assert_int_equal(otlp_decode_response(OTLP_PROTOBUF, pb[i], n, &rej, msg, 16),
				 -EBADMSG);
	}
	for (size_t i = 0; i < sizeof(js) / sizeof(js[0]); i++)
		assert_int_equal(
			otlp_decode_response(OTLP_JSON, js[i], strlen(js[i]), &rej, msg, 16),
			-EBADMSG);
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = 0;
	assert_int_equal(otlp_decode_response(OTLP_JSON, deep, strlen(deep), &rej, msg, 16),
			 -EBADMSG);
	/* a NUL inside: json-c would stop there */
	assert_int_equal(otlp_decode_response(OTLP_JSON, "{}\0{", 4, &rej, msg, 16), -EBADMSG);
	/* nothing is read past len */
	assert_int_equal(otlp_decode_response(OTLP_PROTOBUF, "\x0a\x02\x08\x07", 3, &rej, msg, 16),
			 -EBADMSG);
	/* outputs untouched on failure */
	assert_int_equal(rej, 42);
	assert_string_equal(msg, "keep");
}

/* Why a collector said no: a google.rpc.Status's message, else the body's text, 200 bytes of
 * it at most (never half a character), escaped */
static void test_reply_reason(void **state)
{
	/* Status { code: 16, message: "bad key\n" } */
	static const char status[] = "\x08\x10\x12\x08"
				     "bad key\n";
	char out[1024], body[5000];
	(void)state;

	otlp_reply_reason(OTLP_PROTOBUF, status, sizeof(status) - 1, out, sizeof(out));
	assert_string_equal(out, "bad key");
	/* not a Status: the text as it came, its controls escaped */
	otlp_reply_reason(OTLP_PROTOBUF, "invalid \x1b[31mkey\r\n", 18, out, sizeof(out));
	assert_string_equal(out, "invalid \\x1b[31mkey");
	otlp_reply_reason(OTLP_JSON, "{\"code\":16,\"message\":\"x\"}", 25, out, sizeof(out));
	assert_string_equal(out, "{\"code\":16,\"message\":\"x\"}");
	otlp_reply_reason(OTLP_JSON, "", 0, out, sizeof(out));
	assert_string_equal(out, "");
	/* a long body: its first OTLP_REASON_BYTES bytes */
	memset(body, 'a', sizeof(body));
	otlp_reply_reason(OTLP_JSON, body, sizeof(body), out, sizeof(out));
	assert_int_equal(strlen(out), OTLP_REASON_BYTES);
	/* a character across the cut is left out whole */
	memset(body, 'a', sizeof(body));
	memcpy(body + OTLP_REASON_BYTES - 1, "\xc3\xa9", 2);
	otlp_reply_reason(OTLP_JSON, body, sizeof(body), out, sizeof(out));
	assert_int_equal(strlen(out), OTLP_REASON_BYTES - 1);
	/* binary: escaped, within out */
	memset(body, 0x01, sizeof(body));
	otlp_reply_reason(OTLP_JSON, body, sizeof(body), out, 64);
	assert_true(strlen(out) < 64);
	assert_null(strchr(out, 0x01));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_span_protobuf),
		cmocka_unit_test(test_tiny_span_json),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_text_cut),
		cmocka_unit_test(test_text_cut_runs),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_hostile_strings),
		cmocka_unit_test(test_many_spans),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_response_good),
		cmocka_unit_test(test_response_hostile),
		cmocka_unit_test(test_reply_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
