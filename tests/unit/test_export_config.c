/* The export's settings (nodeagent/export/export_config.c, util/otlp_settings.c): tracer.conf's
 * Otlp* keys and the OTEL_EXPORTER_OTLP_* variables, which wins, the URLs built from a base
 * endpoint, and the values refused, headers that would smuggle another header first. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "export_config.h"
#include "otlp_settings.h"

/* The environment of a test: NAME=value pairs */
static const char *const *test_env;

static const char *getenv_test(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = test_env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static struct tracer_config conf(const char *text)
{
	struct tracer_config c;
	char err[512];

	if (config_parse(text, strlen(text), "t.conf", &c, err, sizeof(err)))
		fail_msg("%s", err);
	return c;
}

static int resolve(const char *text, const char *const *env, struct export_settings *s, char *err,
		   size_t errlen)
{
	struct tracer_config c = conf(text);

	test_env = env;
	return export_settings_resolve(&c, getenv_test, s, err, errlen);
}

static void test_off_by_default(void **state)
{
	struct export_settings s;
	char err[256];
	(void)state;

	assert_int_equal(resolve("", NULL, &s, err, sizeof(err)), 0);
	assert_false(export_settings_on(&s));
}

static void test_base_endpoint(void **state)
{
	struct export_settings s;
	char err[256];
	(void)state;

	assert_int_equal(
		resolve("OtlpEndpoint = http://collector:4318\n", NULL, &s, err, sizeof(err)), 0);
	assert_true(export_settings_on(&s));
	assert_string_equal(s.sig[EXPORT_TRACES].url, "http://collector:4318/v1/traces");
	assert_string_equal(s.sig[EXPORT_LOGS].url, "http://collector:4318/v1/logs");
	/* the specification's defaults */
	assert_int_equal(s.sig[EXPORT_TRACES].format, OTLP_PROTOBUF);
	assert_int_equal(s.sig[EXPORT_TRACES].gzip, 0);
	assert_int_equal(s.sig[EXPORT_TRACES].timeout_ms, 10000);
	/* ports at both ends, an IPv6 literal, a password that holds a ':' */
	assert_int_equal(resolve("OtlpEndpoint = http://c:1\n", NULL, &s, err, sizeof(err)), 0);
	assert_int_equal(resolve("OtlpEndpoint = http://c:65535/x\n", NULL, &s, err, sizeof(err)),
			 0);
	assert_int_equal(resolve("OtlpEndpoint = http://[::1]:4318\n", NULL, &s, err, sizeof(err)),
			 0);
	assert_int_equal(resolve("OtlpEndpoint = http://[::1]/\n", NULL, &s, err, sizeof(err)), 0);
	assert_int_equal(
		resolve("OtlpEndpoint = https://u:p:w@c.example\n", NULL, &s, err, sizeof(err)), 0);
	/* a path and a trailing slash */
	assert_int_equal(
		resolve("OtlpEndpoint = https://c.example/otlp/\n", NULL, &s, err, sizeof(err)), 0);
	assert_string_equal(s.sig[EXPORT_LOGS].url, "https://c.example/otlp/v1/logs");
}

/* Metrics: /v1/metrics, their own variables, and off with OtlpMetricsInterval = 0 */
static void test_metrics_target(void **state)
{
	static const char *const env[] = { "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=http://m:9/own",
					   "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=http/json", NULL };
	struct export_settings s;
	char err[256];
	(void)state;

	assert_int_equal(
		resolve("OtlpEndpoint = http://collector:4318\n", NULL, &s, err, sizeof(err)), 0);
	assert_string_equal(s.sig[EXPORT_METRICS].url, "http://collector:4318/v1/metrics");
	assert_int_equal(resolve("OtlpEndpoint = http://collector:4318\nOtlpMetricsInterval = 0\n",
				 NULL, &s, err, sizeof(err)),
			 0);
	assert_string_equal(s.sig[EXPORT_METRICS].url, "");
	assert_true(export_settings_on(&s)); /* traces and logs still */
	/* metrics alone, from their own variables */
	assert_int_equal(resolve("", env, &s, err, sizeof(err)), 0);
	assert_true(export_settings_on(&s));
	assert_string_equal(s.sig[EXPORT_TRACES].url, "");
	assert_string_equal(s.sig[EXPORT_METRICS].url, "http://m:9/own");
	assert_int_equal(s.sig[EXPORT_METRICS].format, OTLP_JSON);
}

/* For each setting: the signal's variable > tracer.conf > the general variable */
static void test_precedence(void **state)
{
	static const char *const env[] = {
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://general:4318",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://traces:9999/custom/path",
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/json",
		"OTEL_EXPORTER_OTLP_LOGS_COMPRESSION=gzip",
		"OTEL_EXPORTER_OTLP_HEADERS=x-general=1",
		"OTEL_EXPORTER_OTLP_LOGS_HEADERS=x-logs=2",
		"OTEL_EXPORTER_OTLP_TIMEOUT=2500",
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=7000",
		NULL,
	};
	static const char *const only_general[] = {
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://general:4318",
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/json",
		"OTEL_EXPORTER_OTLP_TIMEOUT=2500",
		"OTEL_EXPORTER_OTLP_COMPRESSION=",
		NULL,
	};
	struct export_settings s;
	char err[256];
	(void)state;

	/* the environment alone */
	assert_int_equal(resolve("", env, &s, err, sizeof(err)), 0);
	assert_string_equal(s.sig[EXPORT_TRACES].url, "http://traces:9999/custom/path");
	assert_string_equal(s.sig[EXPORT_LOGS].url, "http://general:4318/v1/logs");
	assert_int_equal(s.sig[EXPORT_TRACES].format, OTLP_JSON);
	assert_int_equal(s.sig[EXPORT_TRACES].gzip, 0);
	assert_int_equal(s.sig[EXPORT_LOGS].gzip, 1);
	assert_string_equal(s.sig[EXPORT_TRACES].headers, "x-general=1");
	assert_string_equal(s.sig[EXPORT_LOGS].headers, "x-logs=2");
	assert_int_equal(s.sig[EXPORT_TRACES].timeout_ms, 7000);
	assert_int_equal(s.sig[EXPORT_LOGS].timeout_ms, 2500);

	/* tracer.conf over the general variables, under the signals' own */
	assert_int_equal(resolve("OtlpEndpoint = http://conf:4318\nOtlpProtocol = http/protobuf\n"
				 "OtlpTimeout = 30s\nOtlpHeaders = x-conf=3\n",
				 env, &s, err, sizeof(err)),
			 0);
	assert_string_equal(s.sig[EXPORT_TRACES].url, "http://traces:9999/custom/path");
	assert_string_equal(s.sig[EXPORT_LOGS].url, "http://conf:4318/v1/logs");
	assert_int_equal(s.sig[EXPORT_LOGS].format, OTLP_PROTOBUF);
	assert_int_equal(s.sig[EXPORT_TRACES].timeout_ms, 7000);
	assert_int_equal(s.sig[EXPORT_LOGS].timeout_ms, 30000);
	assert_string_equal(s.sig[EXPORT_TRACES].headers, "x-conf=3");
	assert_string_equal(s.sig[EXPORT_LOGS].headers, "x-logs=2");

	/* an empty variable is unset */
	assert_int_equal(resolve("", only_general, &s, err, sizeof(err)), 0);
	assert_int_equal(s.sig[EXPORT_LOGS].gzip, 0);
	assert_int_equal(s.sig[EXPORT_LOGS].format, OTLP_JSON);

	/* a signal's endpoint alone exports that signal alone */
	{
		static const char *const traces_only[] = {
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://t:1/x", NULL
		};

		assert_int_equal(resolve("", traces_only, &s, err, sizeof(err)), 0);
		assert_string_equal(s.sig[EXPORT_TRACES].url, "http://t:1/x");
		assert_string_equal(s.sig[EXPORT_LOGS].url, "");
	}
}

static void test_env_refused(void **state)
{
	static const struct {
		const char *var, *want;
	} cases[] = {
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=ftp://x", "OTEL_EXPORTER_OTLP_ENDPOINT: bad value" },
		{ "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT=http://", "the URL has no host" },
		{ "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "grpc is not supported" },
		{ "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION=brotli", "must be gzip or none" },
		{ "OTEL_EXPORTER_OTLP_TIMEOUT=10s", "milliseconds" },
		{ "OTEL_EXPORTER_OTLP_TIMEOUT=5", "milliseconds" },
		{ "OTEL_EXPORTER_OTLP_HEADERS=a=b%0d%0aX-Evil: 1", "control character" },
		{ "OTEL_EXPORTER_OTLP_CERTIFICATE=relative.pem", "absolute path" },
		{ "OTEL_EXPORTER_OTLP_CLIENT_KEY=/k.pem", "go together" },
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4318/?k=v", "no query or fragment" },
		/* a port libcurl would take as it comes, or fail at late and vaguely */
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://h:99999", "from 1 to 65535" },
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://h:65536/", "from 1 to 65535" },
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://h:0", "from 1 to 65535" },
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://h:43l8", "from 1 to 65535" },
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://h:-1", "from 1 to 65535" },
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://h:", "the port is empty" },
		{ "OTEL_EXPORTER_OTLP_ENDPOINT=http://u:p@h:4318:1", "from 1 to 65535" },
		{ "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://[::1]:70000/v1/traces",
		  "from 1 to 65535" },
		{ "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://[::1/v1/traces", "no closing" },
		{ "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://[::1]x/v1/traces", "expected :port" },
	};
	struct export_settings s;
	char err[256];
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *env[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=http://ok:4318", cases[i].var,
				      NULL };

		if (!strncmp(cases[i].var, "OTEL_EXPORTER_OTLP_ENDPOINT=", 28))
			env[0] = cases[i].var, env[1] = NULL;
		err[0] = 0;
		assert_int_equal(resolve("", env, &s, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("%s: \"%s\" does not say \"%s\"", cases[i].var, err,
				 cases[i].want);
	}
}

struct seen {
	char lines[8][OTLP_HEADER_MAX];
	int n;
};

static void collect(void *ctx, const char *line)
{
	struct seen *s = ctx;

	if (s->n < 8)
		snprintf(s->lines[s->n++], OTLP_HEADER_MAX, "%s", line);
}

static void test_headers(void **state)
{
	static const char *const refused[] = {
		"novalue", "=v",     "a b=c",	 "k=%zz",  "k=%4",  "k=a%0ab",
		"k=a%00b", "k=\x7f", "a=1,,b=2", "k(x)=1", "k=%7F",
	};
	struct seen s = { 0 };
	char many[2048] = "";
	(void)state;

	assert_null(otlp_parse_headers(
		" api-key = secret%20value , X-Scope-OrgID=tenant%2C1,e=", collect, &s));
	assert_int_equal(s.n, 3);
	assert_string_equal(s.lines[0], "api-key: secret value");
	assert_string_equal(s.lines[1], "X-Scope-OrgID: tenant,1");
	assert_string_equal(s.lines[2], "e: ");
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		if (!otlp_parse_headers(refused[i], NULL, NULL))
			fail_msg("<<%s>> was taken", refused[i]);
	for (int i = 0; i < OTLP_HEADERS_MAX + 1; i++)
		strcat(many, "k=v,");
	assert_non_null(otlp_parse_headers(many, NULL, NULL));
}

/* What status and the log show of an endpoint: no password, no token in a query */
static void test_url_shown(void **state)
{
	static const char *const cases[][2] = {
		{ "https://c.example:4318/v1/traces", "https://c.example:4318/v1/traces" },
		{ "https://u:pw@c.example:4318/v1/traces", "https://***@c.example:4318/v1/traces" },
		{ "https://c.example/v1/logs?api_key=s3cret", "https://c.example/v1/logs?***" },
		{ "https://u:p@w@c.example?k=s#f", "https://***@c.example?***" },
		{ "http://c.example/p@th#frag", "http://c.example/p@th?***" },
		{ "http://c.example?", "http://c.example?***" },
	};
	char out[256];
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		otlp_url_shown(cases[i][0], out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
	otlp_url_shown("https://u:pw@c.example/x", out, 12);
	assert_null(strstr(out, "pw"));
}

static void test_conf_keys(void **state)
{
	struct tracer_config c;
	char err[512];
	(void)state;

	c = conf("OtlpEndpoint = https://c:4318\nOtlpProtocol = http/json\n"
		 "OtlpCompression = gzip\nOtlpHeaders = \"a=1,b=2\"\n"
		 "OtlpCertificate = /etc/ca.pem\nOtlpClientCertificate = /etc/c.pem\n"
		 "OtlpClientKey = /etc/k.pem\nOtlpTimeout = 3s\n");
	assert_string_equal(c.otlp_endpoint, "https://c:4318");
	assert_int_equal(c.otlp_protocol, OTLP_PROTOCOL_JSON);
	assert_int_equal(c.otlp_compression, OTLP_COMPRESSION_GZIP);
	assert_string_equal(c.otlp_headers, "a=1,b=2");
	assert_string_equal(c.otlp_client_key, "/etc/k.pem");
	assert_int_equal(c.otlp_timeout_ms, 3000);
	assert_int_equal(c.otlp_backoff_max_ms, OTLP_BACKOFF_MAX_DEFAULT_MS);
	assert_int_equal(
		config_parse("OtlpEndpoint = collector:4318\n", 29, "t.conf", &c, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "t.conf:1: OtlpEndpoint: bad value"));
	assert_int_equal(config_parse("OtlpEndpoint = http://c:4318/?x\n", 32, "t.conf", &c, err,
				      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "no query or fragment"));
	assert_int_equal(config_parse("OtlpProtocol = grpc\n", 20, "t.conf", &c, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "grpc is not supported"));
}

/* OtlpBackoffMax: no variable sets it; every signal's retries wait at most that */
static void test_backoff_max(void **state)
{
	static const char *const env[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=http://env:4318", NULL };
	struct export_settings s;
	char err[256];
	(void)state;

	assert_int_equal(resolve("", env, &s, err, sizeof(err)), 0);
	assert_int_equal(s.backoff_max_ms, OTLP_BACKOFF_MAX_DEFAULT_MS);
	assert_int_equal(resolve("OtlpBackoffMax = 2s\n", env, &s, err, sizeof(err)), 0);
	assert_int_equal(s.backoff_max_ms, 2000);
	assert_int_equal(resolve("OtlpEndpoint = http://c:4318\nOtlpBackoffMax = 5m\n", NULL, &s,
				 err, sizeof(err)),
			 0);
	assert_int_equal(s.backoff_max_ms, OTLP_WAIT_MAX_MS);
}

/* What tracer.conf must not hold while every user reads it */
static void test_conf_secret(void **state)
{
	struct tracer_config c;
	(void)state;

	c = conf("");
	assert_false(export_conf_has_secret(&c));
	c = conf("OtlpEndpoint = http://collector:4318/otlp\n");
	assert_false(export_conf_has_secret(&c));
	c = conf("OtlpEndpoint = http://collector:4318\nOtlpHeaders = api-key=s3cret\n");
	assert_true(export_conf_has_secret(&c));
	c = conf("OtlpEndpoint = https://u:s3cret@collector\n");
	assert_true(export_conf_has_secret(&c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_by_default), cmocka_unit_test(test_base_endpoint),
		cmocka_unit_test(test_metrics_target), cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_env_refused),    cmocka_unit_test(test_headers),
		cmocka_unit_test(test_conf_keys),      cmocka_unit_test(test_url_shown),
		cmocka_unit_test(test_conf_secret),    cmocka_unit_test(test_backoff_max),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
