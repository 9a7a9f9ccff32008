/* Request bodies of tracer's OTLP encoders for the receiver test (tests/integration/
 * test_otlp_encode.sh): each sample, a span, a log record and two metrics (a cumulative sum of
 * doubles named as the span, a gauge of ints) built from hostile strings, in both encodings,
 * plain and gzipped, one file each:
 *
 *   otlp_samples DIR    writes DIR/SAMPLE.{traces,logs,metrics}.{pb,json}[.gz]
 *   otlp_samples --reply pb|json FILE
 *                       reads a collector's reply with otlp_decode_response and prints
 *                       "rejected N message M", or "error E"
 *
 * The test knows each sample's strings on its own and checks what the receiver decoded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"

#define MANY 200 /* spans in the sample "many": lengths of several bytes at every level */

struct sample {
	const char *name;
	const char *span_name, *value, *body, *status;
	const char *argv;
	size_t argv_len;
};

/* times copies of the n bytes of unit (NULs and all), NUL-terminated */
static char *repeat(const char *unit, size_t n, size_t times)
{
	char *s = malloc(n * times + 1);

	if (!s)
		exit(1);
	for (size_t i = 0; i < times; i++)
		memcpy(s + i * n, unit, n);
	s[n * times] = 0;
	return s;
}

static int write_file(const char *dir, const char *name, const char *signal, const char *ext,
		      const struct otlp_buf *b)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s.%s", dir, name, signal, ext);
	f = fopen(path, "wb");
	if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f)) {
		fprintf(stderr, "otlp_samples: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The body in f, then gzipped */
static int write_both(const char *dir, const char *name, const char *signal, enum otlp_format f,
		      const struct otlp_buf *b)
{
	const char *ext = f == OTLP_JSON ? "json" : "pb";
	struct otlp_buf z = { 0 };
	char gz[16];
	int rc;

	snprintf(gz, sizeof(gz), "%s.gz", ext);
	rc = write_file(dir, name, signal, ext, b);
	if (!rc && (rc = otlp_gzip(b->data, b->len, &z)) == 0)
		rc = write_file(dir, name, signal, gz, &z);
	free(z.data);
	return rc;
}

static int write_sample(const char *dir, const struct sample *s, size_t index)
{
	const struct otlp_attr res_attrs[] = {
		{ .key = "service.name", .type = OTLP_STR, .s = "tracer" },
		{ .key = "host.name",
		  .type = OTLP_STR,
		  .s = "node\xff"
		       "1" },
	};
	const struct otlp_attr attrs[] = {
		{ .key = "sample", .type = OTLP_STR, .s = s->name },
		{ .key = "value", .type = OTLP_STR, .s = s->value },
		{ .key = "process.command_args",
		  .type = OTLP_STRINGS,
		  .s = s->argv,
		  .len = s->argv_len },
		{ .key = "process.pid", .type = OTLP_INT, .i = 4242 },
		{ .key = "process.exit_code", .type = OTLP_INT, .i = -9 },
		{ .key = "cpu.ratio", .type = OTLP_DOUBLE, .d = 0.25 },
		{ .key = "oom", .type = OTLP_BOOL, .i = 1 },
	};
	const struct otlp_resource res = { res_attrs, 2 };
	const struct otlp_scope scope = { "tracer", "0.1" };
	size_t n = strcmp(s->name, "many") ? 1 : MANY;
	struct otlp_span *spans = calloc(n, sizeof(*spans));
	struct otlp_log *logs = calloc(n, sizeof(*logs));
	struct otlp_point *sums = calloc(n, sizeof(*sums)), *gauges = calloc(n, sizeof(*gauges));
	const struct otlp_metric metrics[] = {
		{ s->span_name, s->status, "s", OTLP_SUM, 1, sums, n },
		{ "tracer.job.processes.running", "Its processes running now.", "{process}",
		  OTLP_GAUGE, 0, gauges, n },
	};
	int rc = 0;

	if (!spans || !logs || !sums || !gauges)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct otlp_span *sp = &spans[i];
		struct otlp_log *l = &logs[i];

		for (int k = 0; k < 16; k++)
			sp->trace_id[k] = (uint8_t)(0xf0 + k);
		sp->trace_id[0] = (uint8_t)index;
		for (int k = 0; k < 8; k++)
			sp->span_id[k] = (uint8_t)(0xa0 + k);
		sp->span_id[6] = (uint8_t)(i >> 8);
		sp->span_id[7] = (uint8_t)i;
		if (i) /* the first is the root, the others its children */
			memcpy(sp->parent_span_id, spans[0].span_id, 8);
		sp->name = s->span_name;
		sp->kind = OTLP_SPAN_INTERNAL;
		sp->start_unix_ns = 1700000000123456789ull + i;
		sp->end_unix_ns = 1700000001987654321ull + i;
		sp->status = s->status ? OTLP_STATUS_ERROR : OTLP_STATUS_UNSET;
		sp->status_message = s->status;
		sp->attrs = attrs;
		sp->nattrs = sizeof(attrs) / sizeof(attrs[0]);
		l->time_unix_ns = sp->end_unix_ns;
		l->observed_unix_ns = sp->end_unix_ns + 1;
		l->severity = OTLP_SEV_ERROR;
		l->severity_text = "ERROR";
		l->body = s->body;
		memcpy(l->trace_id, sp->trace_id, 16);
		memcpy(l->span_id, sp->span_id, 8);
		l->attrs = attrs;
		l->nattrs = sp->nattrs;
		sums[i] = (struct otlp_point){ attrs,		sp->nattrs,	sp->start_unix_ns,
					       sp->end_unix_ns, OTLP_AS_DOUBLE, 0,
					       1.5 + (double)i };
		gauges[i] =
			(struct otlp_point){ attrs,	  sp->nattrs,	      0, sp->end_unix_ns,
					     OTLP_AS_INT, -4242 - (int64_t)i, 0 };
	}
	for (int f = OTLP_PROTOBUF; f <= OTLP_JSON && !rc; f++) {
		struct otlp_buf b = { 0 };

		rc = otlp_encode_traces(f, &res, &scope, spans, n, &b);
		if (!rc)
			rc = write_both(dir, s->name, "traces", f, &b);
		b.len = 0;
		if (!rc)
			rc = otlp_encode_logs(f, &res, &scope, logs, n, &b);
		if (!rc)
			rc = write_both(dir, s->name, "logs", f, &b);
		b.len = 0;
		if (!rc)
			rc = otlp_encode_metrics(f, &res, &scope, metrics, 2, &b);
		if (!rc)
			rc = write_both(dir, s->name, "metrics", f, &b);
		free(b.data);
	}
	free(spans);
	free(logs);
	free(sums);
	free(gauges);
	return rc;
}

static int read_reply(const char *format, const char *path)
{
	char body[1 << 16], msg[256];
	FILE *f = fopen(path, "rb");
	int64_t rejected;
	size_t n;
	int rc;

	if (!f) {
		fprintf(stderr, "otlp_samples: %s: %s\n", path, strerror(errno));
		return 1;
	}
	n = fread(body, 1, sizeof(body), f);
	fclose(f);
	rc = otlp_decode_response(strcmp(format, "json") ? OTLP_PROTOBUF : OTLP_JSON, body, n,
				  &rejected, msg, sizeof(msg));
	if (rc)
		printf("error %s\n", strerror(-rc));
	else
		printf("rejected %lld message %s\n", (long long)rejected, msg);
	return 0;
}

int main(int argc, char **argv)
{
	static const char nul_argv[] = "sh\0-c\0echo \"hi\" \\\\ \x01\0\0bad\xff\xfe\0";
	char *xs = repeat("x", 1, 5000), *es = repeat("\xc3\xa9", 2, 5000);
	char *big = repeat("v", 1, 200000), *args = repeat("arg\0", 4, 3000);
	char *euros = repeat("\xe2\x82\xac", 3, 2000);
	const struct sample samples[] = {
		{ "plain", "samtools", "sort", "oom kill of samtools", NULL,
		  "samtools\0sort\0-o\0x.bam", 22 },
		{ "invalid-utf8", "bad\xff\xfename", "\xc3(",
		  "b\xed\xa0\x80"
		  "dy",
		  "st\xf4\x90\x80\x80", "a\xc0\xaf", 4 },
		{ "controls", "q\"b\\s\x01\x1b[2J\n\t", "\x7f\x1f\r", "line1\nline2\x07",
		  "exit \"1\"", "x", 1 },
		{ "long-ascii", xs, big, big, xs, args, 4 * 3000 },
		{ "long-multibyte", es, euros, es, NULL, euros, strlen(euros) },
		{ "argv-nul", "sh", "", "", NULL, nul_argv, sizeof(nul_argv) - 1 },
		{ "many", "step", "v", "b", "failed", "a\0b", 3 },
	};

	if (argc == 4 && !strcmp(argv[1], "--reply"))
		return read_reply(argv[2], argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: otlp_samples DIR | --reply pb|json FILE\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (write_sample(argv[1], &samples[i], i + 1)) {
			fprintf(stderr, "otlp_samples: %s: failed\n", samples[i].name);
			return 1;
		}
	free(xs);
	free(es);
	free(big);
	free(args);
	free(euros);
	return 0;
}
