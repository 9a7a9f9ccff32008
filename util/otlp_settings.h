/* The OTLP exporter's settings as text: the checks tracer.conf's Otlp* keys and the standard
 * OTEL_EXPORTER_OTLP_* variables share, so that a value means the same wherever it is given.
 * Pure: no I/O. Each check returns NULL, or why the value is refused. */
#ifndef TRACER_OTLP_SETTINGS_H
#define TRACER_OTLP_SETTINGS_H

#include <stddef.h>

#define OTLP_URL_MAX 1024	      /* an endpoint, with /v1/traces appended */
#define OTLP_HEADERS_TEXT_MAX 2048    /* "k=v,k=v" as given */
#define OTLP_HEADER_MAX 1024	      /* one header, "Key: value", decoded */
#define OTLP_HEADERS_MAX 32	      /* headers in one setting */
#define OTLP_TIMEOUT_DEFAULT_MS 10000 /* the specification's */
/* OtlpBackoffMax's default: the longest wait of the retries' backoff, within which a collector
 * back after an outage of any length is delivered to (OpenTelemetry's collectors use the same) */
#define OTLP_BACKOFF_MAX_DEFAULT_MS (30 * 1000)
/* No wait between tries is longer, Retry-After's or OtlpBackoffMax's: a backend cannot park
 * delivery for a day */
#define OTLP_WAIT_MAX_MS (300 * 1000)

enum otlp_protocol_setting { OTLP_PROTOCOL_UNSET, OTLP_PROTOCOL_PROTOBUF, OTLP_PROTOCOL_JSON };
enum otlp_compression_setting {
	OTLP_COMPRESSION_UNSET,
	OTLP_COMPRESSION_NONE,
	OTLP_COMPRESSION_GZIP
};

/* "http/protobuf" or "http/json" ("grpc" is refused: tracerd speaks OTLP/HTTP only). */
const char *otlp_parse_protocol(const char *v, enum otlp_protocol_setting *out);
/* "gzip" or "none" */
const char *otlp_parse_compression(const char *v, enum otlp_compression_setting *out);
/* An http:// or https:// URL with a host, a port (when given) from 1 to 65535, no blanks or
 * control characters, short enough to have /v1/traces appended. */
const char *otlp_check_endpoint(const char *v);
/* ... and of a base endpoint, to which a signal's path is appended: no query or fragment,
 * which the path would land after. */
const char *otlp_check_base(const char *v);
/* "key=value,key=value" as OTEL_EXPORTER_OTLP_HEADERS: blanks around keys and values are
 * dropped, values are URL-decoded (%XX). Each header is given to fn (when not NULL) as the
 * line "Key: value". A key is an HTTP token; a decoded value holds no control character (a
 * header cannot smuggle another one, or a second request). */
const char *otlp_parse_headers(const char *v, void (*fn)(void *ctx, const char *line), void *ctx);
/* A base endpoint (OtlpEndpoint, OTEL_EXPORTER_OTLP_ENDPOINT) turned into a signal's URL:
 * path ("v1/traces") appended after one '/'. 0, or -ENAMETOOLONG. */
int otlp_signal_url(const char *base, const char *path, char *out, size_t len);
/* url as it may be shown to anyone (status is any user's to read, and so is the log on many
 * nodes): what its userinfo (user:password@) and its query and fragment hold (an api_key=...)
 * each replaced by "***"; cut to len. */
void otlp_url_shown(const char *url, char *out, size_t len);

#endif
