/* The checks of the OTLP exporter's settings (otlp_settings.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "otlp_settings.h"

const char *otlp_parse_protocol(const char *v, enum otlp_protocol_setting *out)
{
	if (!strcmp(v, "http/protobuf"))
		*out = OTLP_PROTOCOL_PROTOBUF;
	else if (!strcmp(v, "http/json"))
		*out = OTLP_PROTOCOL_JSON;
	else if (!strcmp(v, "grpc"))
		return "grpc is not supported: use http/protobuf or http/json";
	else
		return "must be http/protobuf or http/json";
	return NULL;
}

const char *otlp_parse_compression(const char *v, enum otlp_compression_setting *out)
{
	if (!strcasecmp(v, "gzip"))
		*out = OTLP_COMPRESSION_GZIP;
	else if (!strcasecmp(v, "none"))
		*out = OTLP_COMPRESSION_NONE;
	else
		return "must be gzip or none";
	return NULL;
}

/* The port of the authority that begins at host (after any user:password@), if one is given:
 * digits, 1 to 65535 (libcurl would take another as it comes, or fail late and vaguely) */
static const char *check_port(const char *host)
{
	const char *end = host + strcspn(host, "/?#"), *at, *colon;
	unsigned long port = 0;

	at = memrchr(host, '@', (size_t)(end - host));
	if (at)
		host = at + 1;
	if (*host == '[') { /* an IPv6 literal */
		const char *close = memchr(host, ']', (size_t)(end - host));

		if (!close)
			return "an IPv6 address has no closing ']'";
		colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
		if (!colon && close + 1 != end)
			return "expected :port after the IPv6 address";
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
	}
	if (!colon)
		return NULL;
	if (colon + 1 == end)
		return "the port is empty";
	for (const char *c = colon + 1; c < end; c++) {
		if (*c < '0' || *c > '9')
			return "the port must be a number from 1 to 65535";
		if ((port = port * 10 + (unsigned long)(*c - '0')) > 65535)
			return "the port must be a number from 1 to 65535";
	}
	return port ? NULL : "the port must be a number from 1 to 65535";
}

const char *otlp_check_endpoint(const char *v)
{
	size_t n = strlen(v), skip;

	if (!strncasecmp(v, "http://", 7))
		skip = 7;
	else if (!strncasecmp(v, "https://", 8))
		skip = 8;
	else
		return "must be an http:// or https:// URL";
	if (n + sizeof("/v1/traces") > OTLP_URL_MAX)
		return "URL too long";
	if (!v[skip] || v[skip] == '/' || v[skip] == ':' || v[skip] == '?' || v[skip] == '#')
		return "the URL has no host";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c <= ' ' || c == 0x7f)
			return "a URL holds no blanks or control characters";
	}
	return check_port(v + skip);
}

const char *otlp_check_base(const char *v)
{
	if (strpbrk(v, "?#"))
		return "a base endpoint has no query or fragment: /v1/traces is appended to it (a"
		       " signal's own endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, is used whole)";
	return NULL;
}

/* RFC 9110's token characters */
static int is_tchar(unsigned char c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Blanks off both ends of [*s, *e) */
static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/* One "key=value" of [p, end) as "Key: value" into line[OTLP_HEADER_MAX] */
static const char *one_header(const char *p, const char *end, char *line)
{
	const char *eq = memchr(p, '=', (size_t)(end - p)), *k = p, *ke, *v, *ve;
	size_t at;

	if (!eq)
		return "expected key=value[,key=value...]";
	ke = eq;
	v = eq + 1;
	ve = end;
	trim(&k, &ke);
	trim(&v, &ve);
	if (k == ke)
		return "a header has no name";
	if ((size_t)(ke - k) + 2 >= OTLP_HEADER_MAX)
		return "a header is too long";
	for (const char *c = k; c < ke; c++)
		if (!is_tchar((unsigned char)*c))
			return "a header name holds letters, digits and !#$%&'*+-.^_`|~ only";
	memcpy(line, k, (size_t)(ke - k));
	at = (size_t)(ke - k);
	line[at++] = ':';
	line[at++] = ' ';
	for (const char *c = v; c < ve; c++) {
		int ch = (unsigned char)*c;

		if (ch == '%') {
			int hi = c + 2 < ve ? hexval(c[1]) : -1, lo = hi >= 0 ? hexval(c[2]) : -1;

			if (hi < 0 || lo < 0)
				return "a header value has a '%' not followed by two hex digits";
			ch = hi * 16 + lo;
			c += 2;
		}
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return "a header value holds a control character";
		if (at + 1 >= OTLP_HEADER_MAX)
			return "a header is too long";
		line[at++] = (char)ch;
	}
	line[at] = 0;
	return NULL;
}

const char *otlp_parse_headers(const char *v, void (*fn)(void *ctx, const char *line), void *ctx)
{
	char line[OTLP_HEADER_MAX];
	const char *why, *p = v, *end;
	unsigned n = 0;

	if (strlen(v) >= OTLP_HEADERS_TEXT_MAX)
		return "too long";
	for (; *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ",");
		if (++n > OTLP_HEADERS_MAX)
			return "too many headers";
		if ((why = one_header(p, end, line)))
			return why;
		if (fn)
			fn(ctx, line);
	}
	return NULL;
}

int otlp_signal_url(const char *base, const char *path, char *out, size_t len)
{
	size_t n = strlen(base);
	int w;

	while (n && base[n - 1] == '/')
		n--;
	w = snprintf(out, len, "%.*s/%s", (int)n, base, path);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

void otlp_url_shown(const char *url, char *out, size_t len)
{
	const char *host = strstr(url, "://"), *at, *end, *query;

	host = host ? host + 3 : url;
	end = host + strcspn(host, "/?#");
	at = memrchr(host, '@', (size_t)(end - host));
	query = end + strcspn(end, "?#");
	snprintf(out, len, "%.*s%s%.*s%s", (int)(host - url), url, at ? "***" : "",
		 (int)(query - (at ? at : host)), at ? at : host, *query ? "?***" : "");
}
