/* A POST to a collector with libcurl, bounded (deliver.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <curl/curl.h>

#include "deliver.h"
#include "log.h"
#include "otlp_settings.h"
#include "retry.h"

struct deliver {
	CURL *curl;
	struct curl_slist *headers;
	const volatile int *stop;
	const struct export_target *t; /* the exporter's, for as long as d lives */
	char url[OTLP_URL_MAX];
	struct deliver_result *res; /* the post under way's */
	char body[DELIVER_REPLY_MAX];
	size_t len;
	int cut, bad_header;
};

/* The reply's first DELIVER_REPLY_MAX bytes; past them, a short count aborts the transfer */
static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct deliver *d = ctx;
	size_t bytes = size * n, room = sizeof(d->body) - d->len;

	if (bytes > room) {
		memcpy(d->body + d->len, data, room);
		d->len += room;
		d->cut = 1;
		return 0;
	}
	memcpy(d->body + d->len, data, bytes);
	d->len += bytes;
	return bytes;
}

/* Retry-After, from the reply's headers (each at most libcurl's own bound) */
static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	static const char name[] = "retry-after:";
	struct deliver *d = ctx;
	size_t bytes = size * n, vlen;
	char value[80];

	if (bytes > sizeof(name) - 1 && !strncasecmp(data, name, sizeof(name) - 1)) {
		vlen = bytes - (sizeof(name) - 1);
		if (vlen >= sizeof(value))
			return bytes; /* no value of ours is that long */
		memcpy(value, data + sizeof(name) - 1, vlen);
		value[vlen] = 0;
		value[strcspn(value, "\r\n")] = 0;
		if (retry_after_parse(value, time(NULL), &d->res->retry_after_ms) == 0)
			d->res->has_retry_after = 1;
	}
	return bytes;
}

/* Called while a post waits: a stop abandons it */
static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct deliver *d = ctx;

	(void)dt, (void)dn, (void)ut, (void)un;
	return *d->stop;
}

static void add_header(void *ctx, const char *line)
{
	struct deliver *d = ctx;
	struct curl_slist *l = curl_slist_append(d->headers, line);

	if (!l)
		d->bad_header = 1;
	else
		d->headers = l;
}

static int set_options(struct deliver *d, const struct export_target *t)
{
	CURL *c = d->curl;
	int bad = 0;

	add_header(d, t->format == OTLP_JSON ? "Content-Type: application/json"
					     : "Content-Type: application/x-protobuf");
	if (t->gzip)
		add_header(d, "Content-Encoding: gzip");
	add_header(d, "Expect:"); /* no 100-continue round trip */
	otlp_parse_headers(t->headers, add_header, d);
	if (d->bad_header)
		return -ENOMEM;
	bad |= curl_easy_setopt(c, CURLOPT_URL, d->url);
	bad |= curl_easy_setopt(c, CURLOPT_HTTPHEADER, d->headers);
	bad |= curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	bad |= curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	bad |= curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* a thread of tracerd's */
	bad |= curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)t->timeout_ms);
	bad |= curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
				(long)(t->timeout_ms < DELIVER_CONNECT_MAX_MS
					       ? t->timeout_ms
					       : DELIVER_CONNECT_MAX_MS));
	bad |= curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	bad |= curl_easy_setopt(c, CURLOPT_WRITEDATA, d);
	bad |= curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	bad |= curl_easy_setopt(c, CURLOPT_HEADERDATA, d);
	bad |= curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	bad |= curl_easy_setopt(c, CURLOPT_XFERINFODATA, d);
	bad |= curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	bad |= curl_easy_setopt(c, CURLOPT_USERAGENT, "tracer");
	if (t->ca_file[0])
		bad |= curl_easy_setopt(c, CURLOPT_CAINFO, t->ca_file);
	if (t->cert_file[0]) {
		bad |= curl_easy_setopt(c, CURLOPT_SSLCERT, t->cert_file);
		bad |= curl_easy_setopt(c, CURLOPT_SSLKEY, t->key_file);
	}
	if (bad) {
		log_error("libcurl refuses an option for %s", d->url);
		return -EINVAL;
	}
	return 0;
}

int deliver_new(struct deliver **out, const struct export_target *t, const volatile int *stop)
{
	struct deliver *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return -ENOMEM;
	d->stop = stop;
	d->t = t;
	snprintf(d->url, sizeof(d->url), "%s", t->url);
	if (!(d->curl = curl_easy_init())) {
		free(d);
		return -ENOMEM;
	}
	err = set_options(d, t);
	if (err) {
		deliver_free(d);
		return err;
	}
	*out = d;
	return 0;
}

void deliver_free(struct deliver *d)
{
	if (!d)
		return;
	curl_easy_cleanup(d->curl);
	curl_slist_free_all(d->headers);
	free(d);
}

/* libcurl's codes for a TLS handshake that failed, on our side or the collector's */
static int tls_failure(CURLcode rc)
{
	switch (rc) {
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_USE_SSL_FAILED:
		return 1;
	default:
		return 0;
	}
}

/* s after out's text, cut to len: a path past it is cut, and still named */
static void append(char *out, size_t len, const char *s)
{
	size_t at = strlen(out), n = strlen(s);

	if (at + 1 >= len)
		return;
	if (n > len - at - 1)
		n = len - at - 1;
	memcpy(out + at, s, n);
	out[at + n] = 0;
}

/* libcurl's word for rc, and for a TLS failure the files it was set up with: its own words
 * ("Problem with the SSL CA cert (path? access rights?)") name none */
static void say_error(const struct deliver *d, CURLcode rc, char *out, size_t len)
{
	const struct export_target *t = d->t;

	snprintf(out, len, "%s", curl_easy_strerror(rc));
	if (!tls_failure(rc))
		return;
	append(out, len, " (TLS with CA file ");
	append(out, len, t->ca_file[0] ? t->ca_file : "none: the system's CA store");
	if (t->cert_file[0]) {
		append(out, len, ", client certificate ");
		append(out, len, t->cert_file);
		append(out, len, ", client key ");
		append(out, len, t->key_file);
	} else {
		append(out, len, ", no client certificate");
	}
	append(out, len, ")");
}

int deliver_post(struct deliver *d, const char *body, size_t len, struct deliver_result *res)
{
	CURLcode rc;

	memset(res, 0, sizeof(*res));
	d->res = res;
	d->len = 0;
	d->cut = 0;
	curl_easy_setopt(d->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(d->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	rc = curl_easy_perform(d->curl);
	curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &res->http);
	/* a reply cut short still said its status: a 2xx took the batch */
	if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && d->cut)) {
		say_error(d, rc, res->error, sizeof(res->error));
		if (rc != CURLE_HTTP_RETURNED_ERROR)
			res->http = res->http >= 200 && res->http < 300 ? 0 : res->http;
	}
	res->body = d->body;
	res->body_len = d->len;
	res->body_cut = d->cut;
	d->res = NULL;
	return 0;
}
