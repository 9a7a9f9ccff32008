/* OTLP/HTTP request bodies (opentelemetry-proto, collector/{trace,logs,metrics}/v1): what tracerd
 * sends to a site's collector, in either encoding of the specification. Pure: no I/O, no store.
 *
 * Every string here is bytes a user controls (command lines, names). What comes out is valid
 * UTF-8 (an invalid byte becomes U+FFFD), each string at most OTLP_MAX_STRING bytes (cut on a
 * character boundary and marked with a trailing "…"), and nothing in it can break the framing
 * of either encoding: lengths are counted, JSON is escaped. As proto3 wants, a field with its
 * default value (0, an empty string, an all-zero id) is left out in both encodings; a value of
 * an attribute never is. JSON follows the OTLP mapping: lowerCamelCase keys, ids in lowercase
 * hex, 64-bit integers (times, OTLP_INT) as decimal strings, enums as integers. */
#ifndef TRACER_OTLP_H
#define TRACER_OTLP_H

#include <stddef.h>
#include <stdint.h>

#define OTLP_MAX_STRING 4096 /* bytes of one attribute value or body, after cleaning */

enum otlp_format { OTLP_PROTOBUF, OTLP_JSON };

enum otlp_value_type { OTLP_STR, OTLP_INT, OTLP_DOUBLE, OTLP_BOOL, OTLP_STRINGS };

/* One attribute. OTLP_STR: s NUL-terminated (NULL: empty). OTLP_STRINGS: s holds
 * NUL-terminated strings back to back, len bytes in all, the last NUL optional (a process's
 * argv as the store keeps it), sent as an array of strings; all of them together take at most
 * OTLP_MAX_STRING bytes, each counting its NUL, and the first that does not fit is cut, marked
 * and the last (so an array's text is at most OTLP_MAX_STRING bytes and the mark). */
struct otlp_attr {
	const char *key;
	enum otlp_value_type type;
	const char *s;
	size_t len; /* OTLP_STRINGS only */
	int64_t i;  /* OTLP_INT, OTLP_BOOL */
	double d;
};

struct otlp_resource {
	const struct otlp_attr *attrs;
	size_t nattrs;
};

/* The instrumentation scope: tracer and its version */
struct otlp_scope {
	const char *name;
	const char *version;
};

enum otlp_span_kind { OTLP_SPAN_INTERNAL = 1 };
enum otlp_status { OTLP_STATUS_UNSET = 0, OTLP_STATUS_OK = 1, OTLP_STATUS_ERROR = 2 };

struct otlp_span {
	uint8_t trace_id[16];
	uint8_t span_id[8];
	uint8_t parent_span_id[8]; /* all zero: a root span */
	const char *name;
	enum otlp_span_kind kind;
	uint64_t start_unix_ns, end_unix_ns;
	enum otlp_status status;
	const char *status_message; /* NULL: none */
	const struct otlp_attr *attrs;
	size_t nattrs;
};

/* SeverityNumber of the logs data model */
enum otlp_severity {
	OTLP_SEV_INFO = 9,
	OTLP_SEV_WARN = 13,
	OTLP_SEV_ERROR = 17,
};

struct otlp_log {
	uint64_t time_unix_ns, observed_unix_ns;
	enum otlp_severity severity;
	const char *severity_text; /* "INFO", "WARN", "ERROR" */
	const char *body;
	uint8_t trace_id[16]; /* all zero: none */
	uint8_t span_id[8];
	const struct otlp_attr *attrs;
	size_t nattrs;
};

/* A metric's kind: a gauge (the value now), or a sum, cumulative since its points' start */
enum otlp_metric_kind { OTLP_GAUGE, OTLP_SUM };
enum otlp_number { OTLP_AS_INT, OTLP_AS_DOUBLE };

/* NumberDataPoint: one series' value at time_unix_ns; start_unix_ns (0: none) is when a
 * cumulative sum began */
struct otlp_point {
	const struct otlp_attr *attrs;
	size_t nattrs;
	uint64_t start_unix_ns, time_unix_ns;
	enum otlp_number type;
	int64_t i;
	double d;
};

/* A Metric: a gauge, or a sum with CUMULATIVE temporality, monotonic or not. unit as UCUM
 * writes it ("s", "By", "{process}"). */
struct otlp_metric {
	const char *name;
	const char *description;
	const char *unit;
	enum otlp_metric_kind kind;
	int monotonic; /* OTLP_SUM */
	const struct otlp_point *points;
	size_t npoints;
};

/* A growing output buffer; free(data) when done. */
struct otlp_buf {
	char *data;
	size_t len, cap;
};

/* An ExportTraceServiceRequest (one ResourceSpans, one ScopeSpans) or an
 * ExportLogsServiceRequest (one ResourceLogs, one ScopeLogs), appended to out (whose data may
 * move). res or scope NULL: left out. 0, or -ENOMEM (-EINVAL for an unknown format) with
 * out's length as it was. */
int otlp_encode_traces(enum otlp_format f, const struct otlp_resource *res,
		       const struct otlp_scope *scope, const struct otlp_span *spans, size_t n,
		       struct otlp_buf *out);
int otlp_encode_logs(enum otlp_format f, const struct otlp_resource *res,
		     const struct otlp_scope *scope, const struct otlp_log *logs, size_t n,
		     struct otlp_buf *out);

/* An ExportMetricsServiceRequest (one ResourceMetrics, one ScopeMetrics), as above */
int otlp_encode_metrics(enum otlp_format f, const struct otlp_resource *res,
			const struct otlp_scope *scope, const struct otlp_metric *metrics, size_t n,
			struct otlp_buf *out);

/* A collector's reply body (Export*ServiceResponse) in f: the count of items its
 * partial_success rejected (rejected_spans, _log_records or _data_points: in JSON any key, as a
 * string or a number) into *rejected, 0 when none; its error_message into msg, escaped as
 * safe_text does for a log line and cut to msglen ("" when none). An empty body is full
 * success. Unknown fields are skipped. -EBADMSG for a body that does not decode (a varint past
 * 10 bytes, a length past its message, a wrong wire type, a negative count, JSON that is not
 * one object or nests past 16 levels), with *rejected and msg untouched; nothing is read
 * beyond len bytes. */
int otlp_decode_response(enum otlp_format f, const char *body, size_t len, int64_t *rejected,
			 char *msg, size_t msglen);

/* Why a collector said no, from the body of its reply (any status but 2xx), for the log and
 * status: a protobuf google.rpc.Status's message (what the OTLP/HTTP specification has a
 * collector answer), else the body's own text; at most OTLP_REASON_BYTES bytes of it (never
 * half a character), escaped (safetext.h) into out. "" for an empty body. */
#define OTLP_REASON_BYTES 200
void otlp_reply_reason(enum otlp_format f, const char *body, size_t len, char *out, size_t outlen);

/* gzip (RFC 1952) of in, appended to out: 0 or -ENOMEM/-EIO with out's length as it was
 * (-ENOMEM too for an input past 2 GiB, which zlib does not count in one call). */
int otlp_gzip(const char *in, size_t len, struct otlp_buf *out);

#endif
