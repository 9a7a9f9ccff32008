/* tracer.conf's Otlp* keys and the OTEL_EXPORTER_OTLP_* variables, resolved per signal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_config.h"
#include "otlp_settings.h"
#include "safetext.h"

const char *const export_signal_names[EXPORT_TARGETS] = { "traces", "logs", "metrics" };
static const char *const upper_names[EXPORT_TARGETS] = { "TRACES", "LOGS", "METRICS" };

/* One setting's sources, most specific first */
struct lookup {
	export_getenv_fn env;
	int sig;
	char name[96];	   /* of the variable that gave the value, for errors */
	const char *value; /* NULL: set nowhere */
	int from_signal;   /* the signal's own variable gave it */
};

static const char *env_value(export_getenv_fn env, const char *name)
{
	const char *v = env ? env(name) : NULL;

	return v && *v ? v : NULL;
}

/* OTEL_EXPORTER_OTLP_<SIGNAL>_<x>, else conf (when set, named key), else OTEL_EXPORTER_OTLP_<x> */
static void look(struct lookup *l, const char *x, const char *conf, const char *key)
{
	snprintf(l->name, sizeof(l->name), "OTEL_EXPORTER_OTLP_%s_%s", upper_names[l->sig], x);
	l->from_signal = 1;
	if ((l->value = env_value(l->env, l->name)))
		return;
	l->from_signal = 0;
	snprintf(l->name, sizeof(l->name), "%s", key);
	if ((l->value = conf && *conf ? conf : NULL))
		return;
	snprintf(l->name, sizeof(l->name), "OTEL_EXPORTER_OTLP_%s", x);
	l->value = env_value(l->env, l->name);
}

static int refuse(const struct lookup *l, const char *why, char *err, size_t errlen)
{
	char shown[80];

	safe_text(shown, sizeof(shown), l->value, strlen(l->value));
	snprintf(err, errlen, "%s: bad value \"%s\": %s", l->name, shown, why);
	return -EINVAL;
}

static int copy_path(const struct lookup *l, char *out, size_t len, char *err, size_t errlen)
{
	if (!l->value)
		return 0;
	if (l->value[0] != '/')
		return refuse(l, "must be an absolute path", err, errlen);
	if (strlen(l->value) >= len)
		return refuse(l, "path too long", err, errlen);
	strcpy(out, l->value);
	return 0;
}

/* "N" milliseconds as the variables give it, or the conf's */
static int timeout_of(const struct lookup *l, uint32_t *out, char *err, size_t errlen)
{
	char *end;
	unsigned long long v;

	if (!l->value) {
		*out = OTLP_TIMEOUT_DEFAULT_MS;
		return 0;
	}
	errno = 0;
	v = strtoull(l->value, &end, 10);
	if (errno || *end || end == l->value || v < 1000 || v > 24ull * 3600 * 1000)
		return refuse(l, "must be milliseconds between 1000 and 86400000", err, errlen);
	*out = (uint32_t)v;
	return 0;
}

static int resolve_signal(const struct tracer_config *cfg, export_getenv_fn env, int sig,
			  struct export_target *t, char *err, size_t errlen)
{
	struct lookup l = { .env = env, .sig = sig };
	enum otlp_protocol_setting proto = cfg->otlp_protocol;
	enum otlp_compression_setting comp = cfg->otlp_compression;
	char path[16];
	const char *why;
	int r;

	memset(t, 0, sizeof(*t));
	look(&l, "ENDPOINT", cfg->otlp_endpoint, "OtlpEndpoint");
	if (l.value) {
		if ((why = otlp_check_endpoint(l.value)) ||
		    (!l.from_signal && (why = otlp_check_base(l.value))))
			return refuse(&l, why, err, errlen);
		snprintf(path, sizeof(path), "v1/%s", export_signal_names[sig]);
		if (l.from_signal)
			snprintf(t->url, sizeof(t->url), "%s", l.value);
		else if (otlp_signal_url(l.value, path, t->url, sizeof(t->url)))
			return refuse(&l, "URL too long", err, errlen);
	}
	look(&l, "PROTOCOL", NULL, "OtlpProtocol");
	if (l.value && (!proto || l.from_signal) && (why = otlp_parse_protocol(l.value, &proto)))
		return refuse(&l, why, err, errlen);
	t->format = proto == OTLP_PROTOCOL_JSON ? OTLP_JSON : OTLP_PROTOBUF;
	look(&l, "COMPRESSION", NULL, "OtlpCompression");
	if (l.value && (!comp || l.from_signal) && (why = otlp_parse_compression(l.value, &comp)))
		return refuse(&l, why, err, errlen);
	t->gzip = comp == OTLP_COMPRESSION_GZIP;
	look(&l, "HEADERS", cfg->otlp_headers, "OtlpHeaders");
	if (l.value) {
		if ((why = otlp_parse_headers(l.value, NULL, NULL)))
			return refuse(&l, why, err, errlen);
		snprintf(t->headers, sizeof(t->headers), "%s", l.value);
	}
	look(&l, "CERTIFICATE", cfg->otlp_certificate, "OtlpCertificate");
	if ((r = copy_path(&l, t->ca_file, sizeof(t->ca_file), err, errlen)))
		return r;
	look(&l, "CLIENT_CERTIFICATE", cfg->otlp_client_certificate, "OtlpClientCertificate");
	if ((r = copy_path(&l, t->cert_file, sizeof(t->cert_file), err, errlen)))
		return r;
	look(&l, "CLIENT_KEY", cfg->otlp_client_key, "OtlpClientKey");
	if ((r = copy_path(&l, t->key_file, sizeof(t->key_file), err, errlen)))
		return r;
	if (!!t->cert_file[0] != !!t->key_file[0]) {
		snprintf(err, errlen,
			 "OtlpClientCertificate and OtlpClientKey (or their "
			 "OTEL_EXPORTER_OTLP_* variables) go together");
		return -EINVAL;
	}
	look(&l, "TIMEOUT", NULL, "OtlpTimeout");
	if (cfg->otlp_timeout_ms && !l.from_signal) {
		t->timeout_ms = cfg->otlp_timeout_ms;
		return 0;
	}
	return timeout_of(&l, &t->timeout_ms, err, errlen);
}

int export_settings_resolve(const struct tracer_config *cfg, export_getenv_fn env,
			    struct export_settings *out, char *err, size_t errlen)
{
	struct export_settings s;
	int sig, r;

	for (sig = 0; sig < EXPORT_TARGETS; sig++)
		if ((r = resolve_signal(cfg, env, sig, &s.sig[sig], err, errlen)))
			return r;
	if (!cfg->otlp_metrics_interval_ms)
		s.sig[EXPORT_METRICS].url[0] = 0;
	s.backoff_max_ms = cfg->otlp_backoff_max_ms;
	*out = s;
	return 0;
}

int export_settings_on(const struct export_settings *s)
{
	for (int sig = 0; sig < EXPORT_TARGETS; sig++)
		if (s->sig[sig].url[0])
			return 1;
	return 0;
}

int export_conf_has_secret(const struct tracer_config *cfg)
{
	char shown[OTLP_URL_MAX];

	if (cfg->otlp_headers[0])
		return 1;
	/* what status would mask is what a reader of the file must not see */
	otlp_url_shown(cfg->otlp_endpoint, shown, sizeof(shown));
	return strcmp(shown, cfg->otlp_endpoint) != 0;
}
