/* tracer.conf parser: "Key = Value" lines like slurm.conf, validated strictly so that a typo
 * stops the daemon with "file:line: what" instead of running with a surprising setting. */
#include "config.h"
#include "config_values.h"
#include "readfile.h"
#include "safetext.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CONF_LINE_MAX 4096	    /* longest accepted line, newline excluded */
#define CONF_FILE_MAX (1024 * 1024) /* a config larger than this is a mistake, not a config */

#define SAMPLE_MIN_MS 100u
#define SAMPLE_MAX_MS (24u * 3600u * 1000u)
#define COMMIT_MIN_MS 10u
#define COMMIT_MAX_MS (60u * 1000u)
#define HOUSEKEEPING_MIN_MS 100u
#define HOUSEKEEPING_MAX_MS (3600u * 1000u)
#define METRICS_RETRY_MIN_MS 1000u
#define METRICS_RETRY_MAX_MS (3600u * 1000u)
#define BACKOFF_MIN_MS 1000u
#define RING_MIN (64ull * 1024)
#define RING_MAX (1024ull * 1024 * 1024)
#define CLIENTS_MIN 1u
#define CLIENTS_MAX 4096u
#define RETENTION_MIN_MS (60ull * 1000)
#define STORESIZE_MIN (1ull << 20)
#define UNITSIZE_MIN (64ull << 10)
#define RATE_MAX 10000u
#define TIMEOUT_MIN_MS 1000u
#define TIMEOUT_MAX_MS (24u * 3600u * 1000u)
#define CLIENT_BUF_MIN (64ull * 1024)
#define CLIENT_BUF_MAX (1024ull * 1024 * 1024)

void config_defaults(struct tracer_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	/* node_name stays empty: resolved to the short host name when used, so that one file
	 * can serve every node. */
	snprintf(cfg->socket_dir, sizeof(cfg->socket_dir), "%s", "/run/tracer");
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", "/var/lib/tracer");
	snprintf(cfg->pin_dir, sizeof(cfg->pin_dir), "%s", "/sys/fs/bpf/tracer");
	snprintf(cfg->slurm_user, sizeof(cfg->slurm_user), "%s", "slurm");
	cfg->sample_interval_ms = 10 * 1000;
	cfg->stall_after_ms = STALL_AFTER_DEFAULT_MS;
	cfg->otlp_metrics_interval_ms = 30 * 1000;
	cfg->commit_interval_ms = 1000;
	cfg->housekeeping_ms = 10 * 1000;
	/* a tracerctl ends its run within milliseconds of its command's end: 10 s is ample */
	cfg->orphan_after_ms = 10 * 1000;
	cfg->metrics_retry_ms = 60 * 1000;
	cfg->otlp_backoff_max_ms = OTLP_BACKOFF_MAX_DEFAULT_MS;
	cfg->ring_buffer_bytes = 4ull * 1024 * 1024;
	cfg->max_clients = 64;
	cfg->max_clients_per_user = 8;
	cfg->reserved_clients = 4;
	cfg->client_idle_ms = 60 * 1000;
	cfg->client_line_ms = 10 * 1000;
	cfg->client_buffer_bytes = 1024 * 1024;
	snprintf(cfg->tool_rules, sizeof(cfg->tool_rules), "%s", TRACER_TOOL_RULES_DEFAULT);
	snprintf(cfg->slurmd_spool_dir, sizeof(cfg->slurmd_spool_dir), "%s", "/var/spool/slurmd");
	snprintf(cfg->sub_uid_file, sizeof(cfg->sub_uid_file), "%s", "/etc/subuid");
	cfg->log_level = LOG_LEVEL_INFO;
	cfg->nice = -10;
	cfg->store_retention_ms = 180ull * 24 * 3600 * 1000;
	cfg->store_max_bytes = 4ull << 30;
	cfg->store_unit_max_bytes = 256ull << 20;
	cfg->max_units_per_user = 64;
	cfg->unit_rate_per_user = 20;
}

/* ---- keys */

enum key_type {
	K_NAME,
	K_PATH,
	K_SAMPLE,
	K_COMMIT,
	K_HOUSEKEEPING,
	K_METRICS_RETRY,
	K_BACKOFF,
	K_RING,
	K_CLIENTS,
	K_RESERVED,
	K_TIMEOUT,
	K_CLIENT_BUF,
	K_LOGLEVEL,
	K_PORT,
	K_RETENTION,
	K_STORESIZE,
	K_UNITSIZE,
	K_RATE,
	K_NODEPORTS,
	K_OFF_OR_SECONDS,
	K_NICE,
	K_METRICS,
	K_OTLP_URL,
	K_OTLP_PROTOCOL,
	K_OTLP_HEADERS,
	K_OTLP_COMPRESSION
};

struct key_def {
	const char *name;
	enum key_type type;
	size_t off, size;
};

#define KEY(n, t, f)                                                                            \
	{                                                                                       \
		n, t, offsetof(struct tracer_config, f), sizeof(((struct tracer_config *)0)->f) \
	}
static const struct key_def keys[] = {
	KEY("NodeName", K_NAME, node_name),
	KEY("SocketDir", K_PATH, socket_dir),
	KEY("StateDir", K_PATH, state_dir),
	KEY("PinDir", K_PATH, pin_dir),
	KEY("SlurmUser", K_NAME, slurm_user),
	KEY("ClusterName", K_NAME, cluster_name),
	KEY("SampleInterval", K_SAMPLE, sample_interval_ms),
	KEY("StallAfter", K_OFF_OR_SECONDS, stall_after_ms),
	KEY("CommitInterval", K_COMMIT, commit_interval_ms),
	KEY("HousekeepingInterval", K_HOUSEKEEPING, housekeeping_ms),
	KEY("OrphanAfter", K_TIMEOUT, orphan_after_ms),
	KEY("RingBufferSize", K_RING, ring_buffer_bytes),
	KEY("MaxClients", K_CLIENTS, max_clients),
	KEY("MaxClientsPerUser", K_CLIENTS, max_clients_per_user),
	KEY("ReservedClients", K_RESERVED, reserved_clients),
	KEY("ClientIdleTimeout", K_TIMEOUT, client_idle_ms),
	KEY("ClientRequestTimeout", K_TIMEOUT, client_line_ms),
	KEY("ClientBufferSize", K_CLIENT_BUF, client_buffer_bytes),
	KEY("LogLevel", K_LOGLEVEL, log_level),
	KEY("ListenPort", K_PORT, listen_port),
	KEY("NodePorts", K_NODEPORTS, node_ports),
	KEY("MungeSocket", K_PATH, munge_socket),
	KEY("ToolRules", K_PATH, tool_rules),
	KEY("BtfPath", K_PATH, btf_path),
	KEY("StoreRetention", K_RETENTION, store_retention_ms),
	KEY("StoreMaxSize", K_STORESIZE, store_max_bytes),
	KEY("StoreUnitMaxSize", K_UNITSIZE, store_unit_max_bytes),
	KEY("MaxUnitsPerUser", K_CLIENTS, max_units_per_user),
	KEY("UnitRatePerUser", K_RATE, unit_rate_per_user),
	KEY("SlurmdSpoolDir", K_PATH, slurmd_spool_dir),
	KEY("SubUidFile", K_PATH, sub_uid_file),
	KEY("Nice", K_NICE, nice),
	KEY("MetricsListen", K_METRICS, metrics_listen),
	KEY("MetricsRetryInterval", K_METRICS_RETRY, metrics_retry_ms),
	KEY("OtlpEndpoint", K_OTLP_URL, otlp_endpoint),
	KEY("OtlpProtocol", K_OTLP_PROTOCOL, otlp_protocol),
	KEY("OtlpHeaders", K_OTLP_HEADERS, otlp_headers),
	KEY("OtlpCompression", K_OTLP_COMPRESSION, otlp_compression),
	KEY("OtlpCertificate", K_PATH, otlp_certificate),
	KEY("OtlpClientCertificate", K_PATH, otlp_client_certificate),
	KEY("OtlpClientKey", K_PATH, otlp_client_key),
	KEY("OtlpTimeout", K_TIMEOUT, otlp_timeout_ms),
	KEY("OtlpBackoffMax", K_BACKOFF, otlp_backoff_max_ms),
	KEY("OtlpMetricsInterval", K_OFF_OR_SECONDS, otlp_metrics_interval_ms),
};
#undef KEY
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

const char *config_key_name(size_t i)
{
	return i < NKEYS ? keys[i].name : NULL;
}

/* Apply one value to cfg; returns NULL or why the value is refused. */
static const char *set_value(struct tracer_config *cfg, const struct key_def *k, const char *v)
{
	char *field = (char *)cfg + k->off;
	uint64_t n;
	int64_t i;
	const char *why;

	switch (k->type) {
	case K_NAME:
		if ((why = conf_check_name(v, k->size)))
			return why;
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	case K_PATH: {
		size_t len = strlen(v);
		if (v[0] != '/')
			return "must be an absolute path";
		/* Trailing slashes would double up when file names are appended. */
		while (len > 1 && v[len - 1] == '/')
			len--;
		if (len >= k->size)
			return "path too long";
		memcpy(field, v, len);
		field[len] = '\0';
		return NULL;
	}
	case K_SAMPLE:
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n != 0 && (n < SAMPLE_MIN_MS || n > SAMPLE_MAX_MS))
			return "must be 0 (off) or between 100ms and 24h";
		cfg->sample_interval_ms = (uint32_t)n;
		return NULL;
	case K_COMMIT:
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n < COMMIT_MIN_MS || n > COMMIT_MAX_MS)
			return "must be between 10ms and 60s";
		cfg->commit_interval_ms = (uint32_t)n;
		return NULL;
	case K_HOUSEKEEPING:
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n < HOUSEKEEPING_MIN_MS || n > HOUSEKEEPING_MAX_MS)
			return "must be between 100ms and 1h";
		cfg->housekeeping_ms = (uint32_t)n;
		return NULL;
	case K_METRICS_RETRY:
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n < METRICS_RETRY_MIN_MS || n > METRICS_RETRY_MAX_MS)
			return "must be between 1s and 1h";
		cfg->metrics_retry_ms = (uint32_t)n;
		return NULL;
	case K_BACKOFF: /* no wait between tries is longer than OTLP_WAIT_MAX_MS */
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n < BACKOFF_MIN_MS || n > OTLP_WAIT_MAX_MS)
			return "must be between 1s and 5m";
		cfg->otlp_backoff_max_ms = (uint32_t)n;
		return NULL;
	case K_RING:
		if ((why = conf_parse_size(v, &n)))
			return why;
		if (n < RING_MIN || n > RING_MAX || (n & (n - 1)))
			return "must be a power of two between 64K and 1G";
		cfg->ring_buffer_bytes = n;
		return NULL;
	case K_CLIENTS:
		if ((why = conf_number_in(v, CLIENTS_MIN, CLIENTS_MAX, &i)))
			return why;
		*(uint32_t *)field = (uint32_t)i;
		return NULL;
	case K_RESERVED:
		if ((why = conf_number_in(v, 0, CLIENTS_MAX, &i)))
			return why;
		cfg->reserved_clients = (uint32_t)i;
		return NULL;
	case K_OFF_OR_SECONDS:
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n != 0 && (n < TIMEOUT_MIN_MS || n > TIMEOUT_MAX_MS))
			return "must be 0 (off) or between 1s and 24h";
		*(uint32_t *)field = (uint32_t)n;
		return NULL;
	case K_TIMEOUT:
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n < TIMEOUT_MIN_MS || n > TIMEOUT_MAX_MS)
			return "must be between 1s and 24h";
		*(uint32_t *)field = (uint32_t)n;
		return NULL;
	case K_CLIENT_BUF:
		if ((why = conf_parse_size(v, &n)))
			return why;
		if (n < CLIENT_BUF_MIN || n > CLIENT_BUF_MAX)
			return "must be between 64K and 1G";
		cfg->client_buffer_bytes = n;
		return NULL;
	case K_PORT: {
		const char *end;
		if (conf_parse_u64(v, &n, &end) || *end)
			return "expected a number";
		if (n > 65535)
			return "must be 0 (off) or a TCP port up to 65535";
		cfg->listen_port = (uint32_t)n;
		return NULL;
	}
	case K_RETENTION:
		if ((why = conf_parse_duration(v, &n)))
			return why;
		if (n != 0 && n < RETENTION_MIN_MS)
			return "must be 0 (keep for ever) or at least 1m";
		cfg->store_retention_ms = n;
		return NULL;
	case K_STORESIZE:
		if ((why = conf_parse_size(v, &n)))
			return why;
		if (n != 0 && n < STORESIZE_MIN)
			return "must be 0 (no limit) or at least 1M";
		cfg->store_max_bytes = n;
		return NULL;
	case K_UNITSIZE:
		if ((why = conf_parse_size(v, &n)))
			return why;
		if (n < UNITSIZE_MIN)
			return "must be at least 64K";
		cfg->store_unit_max_bytes = n;
		return NULL;
	case K_RATE:
		if ((why = conf_number_in(v, 1, RATE_MAX, &i)))
			return why;
		cfg->unit_rate_per_user = (uint32_t)i;
		return NULL;
	case K_NODEPORTS:
		if ((why = conf_check_node_ports(v, k->size)))
			return why;
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	case K_METRICS:
		if ((why = strlen(v) >= k->size ? "too long" : config_metrics_check(v)))
			return why;
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	case K_NICE:
		if ((why = conf_number_in(v, -20, 19, &i)))
			return why;
		cfg->nice = (int32_t)i;
		return NULL;
	case K_OTLP_URL:
	case K_OTLP_HEADERS:
		if ((why = k->type == K_OTLP_URL ? (otlp_check_endpoint(v) ?: otlp_check_base(v))
						 : otlp_parse_headers(v, NULL, NULL)))
			return why;
		memcpy(field, v, strlen(v) + 1); /* both checks bound the length */
		return NULL;
	case K_OTLP_PROTOCOL:
		return otlp_parse_protocol(v, &cfg->otlp_protocol);
	case K_OTLP_COMPRESSION:
		return otlp_parse_compression(v, &cfg->otlp_compression);
	case K_LOGLEVEL:
		if (!strcasecmp(v, "error"))
			cfg->log_level = LOG_LEVEL_ERROR;
		else if (!strcasecmp(v, "warning") || !strcasecmp(v, "warn"))
			cfg->log_level = LOG_LEVEL_WARNING;
		else if (!strcasecmp(v, "info"))
			cfg->log_level = LOG_LEVEL_INFO;
		else if (!strcasecmp(v, "debug"))
			cfg->log_level = LOG_LEVEL_DEBUG;
		else
			return "must be error, warning, info or debug";
		return NULL;
	}
	return "internal error";
}

/* ---- error reporting */

static void set_err(char *err, size_t errlen, const char *name, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void set_err(char *err, size_t errlen, const char *name, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "%s:%u: ", name, line);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Quote user text for an error message: bounded, escaped as every tool shows text others
 * wrote (safetext.h), "..." when cut, so a hostile file cannot inject lines or terminal
 * escapes into logs or a terminal. */
static void show(char *dst, size_t cap, const char *s, size_t n)
{
	size_t read, at = safe_text_cut(dst, cap, s, n, &read);

	if (read < n) { /* room for "..." */
		at = safe_text_cut(dst, cap - 3, s, n, &read);
		memcpy(dst + at, "...", 4);
	}
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- the parser */

int config_parse(const char *text, size_t len, const char *name, struct tracer_config *cfg,
		 char *err, size_t errlen)
{
	struct tracer_config tmp;
	unsigned seen[NKEYS] = { 0 }; /* line where each key was set, 0 = not yet */
	char value[CONF_LINE_MAX + 1], shown[80];
	size_t pos = 0;
	unsigned lineno = 0;

	if (!name)
		name = "(config)";
	if (!text && len)
		return -EINVAL;
	config_defaults(&tmp);

	/* A UTF-8 byte-order mark from some editors is not part of the first key. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		pos = 3;

	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		size_t i = 0, kstart, klen, vlen;
		const struct key_def *k = NULL;
		const char *why;

		lineno++;
		pos += n + (nl ? 1 : 0);
		if (n && line[n - 1] == '\r') /* CRLF files */
			n--;
		if (n > CONF_LINE_MAX) {
			set_err(err, errlen, name, lineno, "line too long (more than %d bytes)",
				CONF_LINE_MAX);
			return -EINVAL;
		}
		if (memchr(line, '\0', n)) {
			set_err(err, errlen, name, lineno, "NUL byte in text");
			return -EINVAL;
		}

		while (i < n && is_blank(line[i]))
			i++;
		if (i == n || line[i] == '#')
			continue;

		/* Key: everything up to blank or '='. */
		kstart = i;
		while (i < n && !is_blank(line[i]) && line[i] != '=')
			i++;
		klen = i - kstart;
		show(shown, sizeof(shown), line + kstart, klen);
		if (klen == 0) {
			set_err(err, errlen, name, lineno, "missing key before '='");
			return -EINVAL;
		}
		while (i < n && is_blank(line[i]))
			i++;
		if (i == n || line[i] != '=') {
			set_err(err, errlen, name, lineno, "missing '=' after '%s'", shown);
			return -EINVAL;
		}
		i++;
		for (size_t j = 0; j < NKEYS; j++)
			if (strlen(keys[j].name) == klen &&
			    !strncasecmp(keys[j].name, line + kstart, klen))
				k = &keys[j];
		if (!k) {
			set_err(err, errlen, name, lineno, "unknown key '%s'", shown);
			return -EINVAL;
		}
		if (seen[k - keys]) {
			set_err(err, errlen, name, lineno,
				"duplicate key %s (first set on line %u)", k->name, seen[k - keys]);
			return -EINVAL;
		}
		seen[k - keys] = lineno;

		/* Value: quoted (may hold '#' and blanks) or bare up to a comment. */
		while (i < n && is_blank(line[i]))
			i++;
		if (i < n && line[i] == '"') {
			const char *q = memchr(line + i + 1, '"', n - i - 1);
			if (!q) {
				set_err(err, errlen, name, lineno,
					"%s: bad value: missing closing '\"'", k->name);
				return -EINVAL;
			}
			vlen = (size_t)(q - (line + i + 1));
			memcpy(value, line + i + 1, vlen);
			i = (size_t)(q - line) + 1;
			while (i < n && is_blank(line[i]))
				i++;
			if (i < n && line[i] != '#') {
				set_err(err, errlen, name, lineno,
					"%s: bad value: unexpected text after closing '\"'",
					k->name);
				return -EINVAL;
			}
		} else {
			size_t vs = i;
			while (i < n && line[i] != '#')
				i++;
			while (i > vs && is_blank(line[i - 1]))
				i--;
			vlen = i - vs;
			memcpy(value, line + vs, vlen);
		}
		value[vlen] = '\0';
		show(shown, sizeof(shown), value, vlen);
		if (vlen == 0) {
			set_err(err, errlen, name, lineno, "%s: bad value: empty", k->name);
			return -EINVAL;
		}
		for (size_t j = 0; j < vlen; j++) {
			unsigned char c = (unsigned char)value[j];
			if (c < 0x20 || c == 0x7f) {
				set_err(err, errlen, name, lineno,
					"%s: bad value \"%s\": control character", k->name, shown);
				return -EINVAL;
			}
		}
		if ((why = set_value(&tmp, k, value))) {
			set_err(err, errlen, name, lineno, "%s: bad value \"%s\": %s", k->name,
				shown, why);
			return -EINVAL;
		}
	}

	*cfg = tmp;
	return 0;
}

int config_load(const char *path, int path_is_default, struct tracer_config *cfg, char *err,
		size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	if (!path)
		path = TRACER_CONF_DEFAULT;
	ret = readfile(path, CONF_FILE_MAX, 0, &buf, &len, err, errlen);
	if (ret == -ENOENT && path_is_default) {
		/* No file installed yet: run on defaults. */
		config_defaults(cfg);
		return 0;
	}
	if (ret < 0)
		return ret;
	ret = config_parse(buf, len, path, cfg, err, errlen);
	free(buf);
	return ret;
}

int config_load_client(const char *path, struct tracer_config *cfg, char *err, size_t errlen)
{
	if (!path)
		path = getenv(TRACER_CONF_ENV);
	return config_load(path ? path : TRACER_CONF_DEFAULT, !path, cfg, err, errlen);
}
