/* Where and how tracerd sends each signal: tracer.conf's Otlp* keys and the standard
 * OTEL_EXPORTER_OTLP_* variables (of tracerd's environment, the systemd unit's) resolved into
 * one setting per signal. Pure but for the environment, which the caller gives. */
#ifndef TRACER_EXPORT_CONFIG_H
#define TRACER_EXPORT_CONFIG_H

#include <limits.h>
#include <stdint.h>

#include "config.h"
#include "otlp.h"
#include "source.h"

struct export_target {
	char url[OTLP_URL_MAX]; /* empty: this signal is not exported */
	char headers[OTLP_HEADERS_TEXT_MAX];
	enum otlp_format format;
	int gzip;
	char ca_file[PATH_MAX], cert_file[PATH_MAX], key_file[PATH_MAX]; /* empty: none */
	uint32_t timeout_ms;
};

struct export_settings {
	struct export_target sig[EXPORT_TARGETS];
	/* OtlpBackoffMax, every signal's: no OTEL_EXPORTER_OTLP_* variable sets it */
	uint32_t backoff_max_ms;
};

/* The variables' names' signal part, and the path appended to a base endpoint */
extern const char *const export_signal_names[EXPORT_TARGETS]; /* "traces", "logs", "metrics" */

typedef const char *(*export_getenv_fn)(const char *name);

/* For each setting of each signal, the most specific wins (the specification's rule that a
 * signal's own option overrides the general one, with tracer.conf as the explicit setting
 * that overrides the environment's general one):
 *   OTEL_EXPORTER_OTLP_<SIGNAL>_<X>  >  tracer.conf's Otlp<X>  >  OTEL_EXPORTER_OTLP_<X>
 * A base endpoint gets /v1/<signal> appended; a signal's own is used as it is. An empty
 * variable counts as unset. 0, or -EINVAL with "NAME: bad value ...: why" in err. */
int export_settings_resolve(const struct tracer_config *cfg, export_getenv_fn env,
			    struct export_settings *out, char *err, size_t errlen);
/* Metrics are exported only with OtlpMetricsInterval above 0 (its url is left empty else).
 * Is any signal exported? */
int export_settings_on(const struct export_settings *s);

/* Does tracer.conf itself hold a secret of the export's: OtlpHeaders (an api key), or an
 * OtlpEndpoint with a user:password@ or a query (an api_key=...)? */
int export_conf_has_secret(const struct tracer_config *cfg);

#endif
