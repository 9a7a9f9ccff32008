/* The OTLP metrics encoders (otlp_encode_metrics in nodeagent/export/otlp_{pb,json}.c): exact
 * bytes of a tiny request in both encodings (field numbers written out by hand from
 * metrics.proto, not from the encoder), a gauge's zero value still sent, hostile attribute values
 * (invalid UTF-8, quotes, controls, 200 kB), and many points. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "otlp.h"
#include "otlp_write.h"
#include "testlib.h"
#include "../fuzz/otlp_wire.h"

#define FFFD "\xef\xbf\xbd"

static const struct otlp_scope scope = { "t", NULL };

/* The request in f, NUL-terminated */
static struct otlp_buf encode(enum otlp_format f, const struct otlp_metric *m, size_t n)
{
	struct otlp_buf b = { 0 };

	assert_int_equal(otlp_encode_metrics(f, NULL, &scope, m, n, &b), 0);
	b.data = realloc(b.data, b.len + 1);
	b.data[b.len] = 0;
	return b;
}

/* The request's metrics array, parsed strictly (valid UTF-8, nothing after the object) */
static struct json_object *json_metrics(const struct otlp_buf *b, struct json_object **doc)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *rm, *sm;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	*doc = json_tokener_parse_ex(tok, b->data, (int)b->len);
	assert_non_null(*doc);
	assert_int_equal(json_tokener_get_parse_end(tok), b->len);
	json_tokener_free(tok);
	rm = json_object_array_get_idx(key(*doc, "resourceMetrics"), 0);
	sm = json_object_array_get_idx(key(rm, "scopeMetrics"), 0);
	return key(sm, "metrics");
}

static void test_tiny_sum_protobuf(void **state)
{
	const struct otlp_attr a = { .key = "k", .type = OTLP_STR, .s = "v" };
	const struct otlp_point p = { &a, 1, 1, 2, OTLP_AS_INT, 5, 0 };
	const struct otlp_metric m = { "m", NULL, "s", OTLP_SUM, 1, &p, 1 };
	/* clang-format off */
	static const uint8_t want[] = {
		0x0a, 0x3c,			/* ExportMetricsServiceRequest.resource_metrics */
		0x12, 0x3a,			/* ResourceMetrics.scope_metrics */
		0x0a, 0x03, 0x0a, 0x01, 't',	/* ScopeMetrics.scope { name } */
		0x12, 0x33,			/* ScopeMetrics.metrics */
		0x0a, 0x01, 'm',		/* Metric.name */
		0x1a, 0x01, 's',		/* Metric.unit */
		0x3a, 0x2b,			/* Metric.sum = 7 */
		0x0a, 0x25,			/* Sum.data_points */
		0x11, 1, 0, 0, 0, 0, 0, 0, 0,	/* start_time_unix_nano = 2, fixed64 */
		0x19, 2, 0, 0, 0, 0, 0, 0, 0,	/* time_unix_nano = 3, fixed64 */
		0x31, 5, 0, 0, 0, 0, 0, 0, 0,	/* as_int = 6, sfixed64 */
		0x3a, 0x08, 0x0a, 0x01, 'k', 0x12, 0x03, 0x0a, 0x01, 'v', /* attributes = 7 */
		0x10, 0x02,			/* Sum.aggregation_temporality: CUMULATIVE */
		0x18, 0x01,			/* Sum.is_monotonic */
	};
	/* clang-format on */
	struct ow_counts c = { 0 };
	struct otlp_buf b;

	(void)state;
	b = encode(OTLP_PROTOBUF, &m, 1);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	assert_int_equal(ow_check(OW_METRICS_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_int_equal(c.metrics, 1);
	assert_int_equal(c.points, 1);
	free(b.data);
}

/* A gauge: Metric.gauge = 5, its zero as_double (a oneof member) still written, a negative int */
static void test_gauge_protobuf(void **state)
{
	const struct otlp_point p[2] = { { .time_unix_ns = 2, .type = OTLP_AS_DOUBLE, .d = 0 },
					 { .time_unix_ns = 2, .type = OTLP_AS_INT, .i = -1 } };
	const struct otlp_metric m = { "g", "d", NULL, OTLP_GAUGE, 0, p, 2 };
	/* clang-format off */
	static const uint8_t metric[] = {
		0x0a, 0x01, 'g', 0x12, 0x01, 'd',	/* name, description */
		0x2a, 0x28,				/* Metric.gauge = 5 */
		0x0a, 0x12,				/* Gauge.data_points */
		0x19, 2, 0, 0, 0, 0, 0, 0, 0,		/* time_unix_nano */
		0x21, 0, 0, 0, 0, 0, 0, 0, 0,		/* as_double = 4: 0.0 */
		0x0a, 0x12,
		0x19, 2, 0, 0, 0, 0, 0, 0, 0,
		0x31, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* as_int: -1 */
	};
	/* clang-format on */
	struct ow_counts c = { 0 };
	struct otlp_buf b;

	(void)state;
	b = encode(OTLP_PROTOBUF, &m, 1);
	assert_non_null(memmem(b.data, b.len, metric, sizeof(metric)));
	assert_int_equal(ow_check(OW_METRICS_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_int_equal(c.points, 2);
	free(b.data);
}

static void test_tiny_json(void **state)
{
	const struct otlp_attr a = { .key = "k", .type = OTLP_STR, .s = "v" };
	const struct otlp_point p[2] = { { &a, 1, 1, 2, OTLP_AS_INT, -5, 0 },
					 { NULL, 0, 0, 3, OTLP_AS_DOUBLE, 0, 0.5 } };
	const struct otlp_metric m[3] = { { "m", NULL, "s", OTLP_SUM, 1, p, 1 },
					  { "g", "d", "By", OTLP_GAUGE, 0, p + 1, 1 },
					  { "e", NULL, NULL, OTLP_SUM, 0, NULL, 0 } };
	struct otlp_buf b;

	(void)state;
	b = encode(OTLP_JSON, m, 3);
	assert_string_equal(
		b.data,
		"{\"resourceMetrics\":[{\"scopeMetrics\":[{\"scope\":{\"name\":\"t\"},\"metrics\":["
		"{\"name\":\"m\",\"unit\":\"s\",\"sum\":{\"dataPoints\":[{\"startTimeUnixNano\":"
		"\"1\","
		"\"timeUnixNano\":\"2\",\"asInt\":\"-5\",\"attributes\":[{\"key\":\"k\",\"value\":{"
		"\"stringValue\":\"v\"}}]}],\"aggregationTemporality\":2,\"isMonotonic\":true}},"
		"{\"name\":\"g\",\"description\":\"d\",\"unit\":\"By\",\"gauge\":{\"dataPoints\":[{"
		"\"timeUnixNano\":\"3\",\"asDouble\":0.5}]}},"
		"{\"name\":\"e\",\"sum\":{\"aggregationTemporality\":2}}]}]}]}");
	free(b.data);
}

/* Attribute values a user chose (a run's name, a tool's): valid UTF-8 out, framing kept, cut */
static void test_hostile_attributes(void **state)
{
	size_t big = 200 * 1024;
	char *v = malloc(big + 1);
	struct otlp_attr a[3] = {
		{ .key = "tracer.unit.name", .type = OTLP_STR, .s = NULL },
		{ .key = "k\"\\\x02\xff", .type = OTLP_STR, .s = "\x1b[2J\"}\xc3" },
		{ .key = "n", .type = OTLP_INT, .i = INT64_MIN }
	};
	const struct otlp_point p = { a, 3, 10, 20, OTLP_AS_DOUBLE, 0, NAN };
	const struct otlp_metric m = { "x\n\xfe", "\"", "{process}", OTLP_SUM, 1, &p, 1 };
	struct json_object *doc, *jm, *pt, *attrs;
	struct ow_counts c = { 0 };
	struct otlp_buf b;
	const char *s;

	(void)state;
	memset(v, '"', big);
	v[big] = 0;
	a[0].s = v;
	b = encode(OTLP_PROTOBUF, &m, 1);
	assert_int_equal(ow_check(OW_METRICS_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_true(b.len < 2 * OTLP_MAX_STRING);
	free(b.data);

	b = encode(OTLP_JSON, &m, 1);
	jm = json_object_array_get_idx(json_metrics(&b, &doc), 0);
	assert_string_equal(gets_(jm, "name"), "x\n" FFFD);
	assert_string_equal(gets_(jm, "description"), "\"");
	pt = json_object_array_get_idx(key(key(jm, "sum"), "dataPoints"), 0);
	assert_string_equal(gets_(pt, "asDouble"), "NaN");
	attrs = key(pt, "attributes");
	s = gets_(key(json_object_array_get_idx(attrs, 0), "value"), "stringValue");
	assert_int_equal(strlen(s), OTLP_MAX_STRING);
	assert_memory_equal(s + strlen(s) - 3, OTLP_CUT_MARK, 3);
	assert_string_equal(gets_(json_object_array_get_idx(attrs, 1), "key"), "k\"\\\x02" FFFD);
	assert_string_equal(gets_(key(json_object_array_get_idx(attrs, 1), "value"), "stringValue"),
			    "\x1b[2J\"}" FFFD);
	assert_string_equal(gets_(key(json_object_array_get_idx(attrs, 2), "value"), "intValue"),
			    "-9223372036854775808");
	for (size_t i = 0; i < b.len; i++) /* nothing raw below 0x20 */
		assert_true((unsigned char)b.data[i] >= 0x20);
	json_object_put(doc);
	free(b.data);
	free(v);
}

/* Many points and metrics: lengths of several bytes at every level, appended after what out held */
static void test_many(void **state)
{
	const struct otlp_attr a = { .key = "tracer.tool", .type = OTLP_STR, .s = "samtools" };
	struct otlp_point p[400];
	struct otlp_metric m[3];
	struct ow_counts c = { 0 };
	struct otlp_buf b = { 0 };
	struct json_object *doc, *jm;

	(void)state;
	for (size_t i = 0; i < 400; i++)
		p[i] = (struct otlp_point){ &a, 1, 1, 2 + i, OTLP_AS_INT, (int64_t)i, 0 };
	for (size_t i = 0; i < 3; i++)
		m[i] = (struct otlp_metric){ "tracer.job.processes.started",
					     "d",
					     "{process}",
					     i ? OTLP_GAUGE : OTLP_SUM,
					     1,
					     p,
					     400 };
	b.data = strdup("xyz");
	b.len = b.cap = 3;
	assert_int_equal(otlp_encode_metrics(OTLP_PROTOBUF, NULL, &scope, m, 3, &b), 0);
	assert_memory_equal(b.data, "xyz", 3);
	assert_int_equal(ow_check(OW_METRICS_REQ, (uint8_t *)b.data + 3, b.len - 3, &c, 0), 0);
	assert_int_equal(c.metrics, 3);
	assert_int_equal(c.points, 1200);
	b.len = 0;
	assert_int_equal(otlp_encode_metrics(OTLP_JSON, NULL, &scope, m, 3, &b), 0);
	jm = json_metrics(&b, &doc);
	assert_int_equal(json_object_array_length(jm), 3);
	assert_int_equal(json_object_array_length(
				 key(key(json_object_array_get_idx(jm, 2), "gauge"), "dataPoints")),
			 400);
	json_object_put(doc);
	assert_int_equal(otlp_encode_metrics((enum otlp_format)7, NULL, &scope, m, 1, &b), -EINVAL);
	free(b.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_sum_protobuf),
		cmocka_unit_test(test_gauge_protobuf),
		cmocka_unit_test(test_tiny_json),
		cmocka_unit_test(test_hostile_attributes),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
