/* tracer.conf parser: "Key = Value" lines like slurm.conf, validated strictly so that a typo
 * stops the daemon with "file:line: what" instead of running with a surprising setting. */
#include "config.h"
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

/* the control socket's name: SocketDir/tracerd-NODE.sock */
#define SOCKET_PREFIX "tracerd-"
#define SOCKET_SUFFIX ".sock"

#define CONF_LINE_MAX 4096	    /* longest accepted line, newline excluded */
#define CONF_FILE_MAX (1024 * 1024) /* a config larger than this is a mistake, not a config */

#define SAMPLE_MIN_MS 100u
#define SAMPLE_MAX_MS (24u * 3600u * 1000u)
#define COMMIT_MIN_MS 10u
#define COMMIT_MAX_MS (60u * 1000u)
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

/* ---- value parsers: each returns NULL on success or a reason for the error message */

/* Unsigned decimal with overflow check; *end is set past the digits. */
static const char *parse_u64(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return "expected a number";
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return "number too large";
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return NULL;
}

/* "N", "Ns", "Nms", "Nm", "Nh", "Nd" (bare = seconds) into milliseconds. */
static const char *parse_duration(const char *s, uint64_t *ms)
{
	uint64_t v, mult;
	const char *suf, *why = parse_u64(s, &v, &suf);

	if (why)
		return "expected a duration like 500ms, 10s or 5m";
	if (!*suf || !strcasecmp(suf, "s"))
		mult = 1000;
	else if (!strcasecmp(suf, "ms"))
		mult = 1;
	else if (!strcasecmp(suf, "m"))
		mult = 60 * 1000;
	else if (!strcasecmp(suf, "h"))
		mult = 3600 * 1000;
	else if (!strcasecmp(suf, "d"))
		mult = 24ull * 3600 * 1000;
	else
		return "unknown duration unit (use ms, s, m, h or d)";
	if (v > UINT64_MAX / mult)
		return "duration too large";
	*ms = v * mult;
	return NULL;
}

/* "N", "NK", "NM", "NG" (binary multiples, bare = bytes). */
static const char *parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v, mult;
	const char *suf, *why = parse_u64(s, &v, &suf);

	if (why)
		return "expected a size like 64K, 16M or 1G";
	if (!*suf)
		mult = 1;
	else if (!strcasecmp(suf, "k"))
		mult = 1ull << 10;
	else if (!strcasecmp(suf, "m"))
		mult = 1ull << 20;
	else if (!strcasecmp(suf, "g"))
		mult = 1ull << 30;
	else
		return "unknown size unit (use K, M or G)";
	if (v > UINT64_MAX / mult)
		return "size too large";
	*bytes = v * mult;
	return NULL;
}

/* Node and user names end up in file and socket names: keep them to a safe alphabet. */
static const char *check_name(const char *s, size_t cap)
{
	size_t n = strlen(s);

	if (n == 0 || n >= cap)
		return n ? "too long (at most 63 characters)" : "empty name";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!isalnum(c) && c != '.' && c != '_' && c != '-')
			return "only letters, digits, '.', '_' and '-' are allowed";
	}
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "not a usable name";
	return NULL;
}

/* "NODE:PORT,...": each node a valid name, once; each port 1-65535 */
static const char *check_node_ports(const char *v, size_t cap)
{
	char name[64];

	if (strlen(v) >= cap)
		return "too long";
	for (const char *p = v; *p;) {
		size_t len = strcspn(p, ":,");
		const char *end;
		uint64_t port;

		if (p[len] != ':' || !len || len >= sizeof(name))
			return "expected NODE:PORT[,NODE:PORT...]";
		memcpy(name, p, len);
		name[len] = 0;
		if (check_name(name, sizeof(name)))
			return "a node name has letters, digits, '.', '_' and '-' only";
		if (parse_u64(p + len + 1, &port, &end) || (*end && *end != ',') || !port ||
		    port > 65535)
			return "each port must be a number from 1 to 65535";
		for (const char *q = v; q < p; q += strcspn(q, ",") + 1)
			if (strncmp(q, name, len) == 0 && q[len] == ':')
				return "a node is named twice";
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return "expected NODE:PORT after ','";
	}
	return NULL;
}

uint32_t config_listen_port(const struct tracer_config *cfg, const char *node)
{
	size_t nl = node ? strlen(node) : 0;

	for (const char *p = cfg->node_ports; nl && *p; p += strcspn(p, ","), p += *p == ',') {
		if (strncmp(p, node, nl) == 0 && p[nl] == ':')
			return (uint32_t)strtoul(p + nl + 1, NULL, 10);
	}
	return cfg->listen_port;
}

static int port_of(const char *v, uint16_t *port)
{
	const char *end;
	uint64_t n;

	if (parse_u64(v, &n, &end) || *end || n < 1 || n > 65535)
		return -EINVAL;
	*port = (uint16_t)n;
	return 0;
}

int config_metrics_addr(const char *v, struct sockaddr_storage *out, unsigned *len)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	char host[64];
	const char *colon;
	uint16_t port;

	if (!v[0])
		return -ENOENT;
	if (v[0] == '[') { /* [V6]:PORT */
		const char *close = strchr(v, ']');

		if (!close || close[1] != ':' || (size_t)(close - v - 1) >= sizeof(host) ||
		    port_of(close + 2, &port))
			return -EINVAL;
		memcpy(host, v + 1, (size_t)(close - v - 1));
		host[close - v - 1] = 0;
		if (inet_pton(AF_INET6, host, &a6.sin6_addr) != 1)
			return -EINVAL;
		a6.sin6_port = htons(port);
		memset(out, 0, sizeof(*out));
		memcpy(out, &a6, sizeof(a6));
		*len = sizeof(a6);
		return 0;
	}
	colon = strrchr(v, ':');
	if (!colon) {
		if (port_of(v, &port))
			return -EINVAL;
		a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		if ((size_t)(colon - v) >= sizeof(host) || port_of(colon + 1, &port))
			return -EINVAL;
		memcpy(host, v, (size_t)(colon - v));
		host[colon - v] = 0;
		if (inet_pton(AF_INET, host, &a4.sin_addr) != 1)
			return -EINVAL;
	}
	a4.sin_port = htons(port);
	memset(out, 0, sizeof(*out));
	memcpy(out, &a4, sizeof(a4));
	*len = sizeof(a4);
	return 0;
}

/* A whole number between lo and hi, with a minus sign only when lo is below 0. */
static const char *number_in(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	static char why[64];
	const char *end;
	int neg = lo < 0 && v[0] == '-';
	uint64_t n;

	if (parse_u64(v + neg, &n, &end) || *end)
		return "expected a number";
	if (n > (uint64_t)INT64_MAX || (*out = neg ? -(int64_t)n : (int64_t)n) < lo || *out > hi) {
		snprintf(why, sizeof(why), "must be between %lld and %lld", (long long)lo,
			 (long long)hi);
		return why;
	}
	return NULL;
}

/* ---- keys */

enum key_type {
	K_NAME,
	K_PATH,
	K_SAMPLE,
	K_COMMIT,
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
	KEY("SampleInterval", K_SAMPLE, sample_interval_ms),
	KEY("StallAfter", K_OFF_OR_SECONDS, stall_after_ms),
	KEY("CommitInterval", K_COMMIT, commit_interval_ms),
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
	KEY("OtlpEndpoint", K_OTLP_URL, otlp_endpoint),
	KEY("OtlpProtocol", K_OTLP_PROTOCOL, otlp_protocol),
	KEY("OtlpHeaders", K_OTLP_HEADERS, otlp_headers),
	KEY("OtlpCompression", K_OTLP_COMPRESSION, otlp_compression),
	KEY("OtlpCertificate", K_PATH, otlp_certificate),
	KEY("OtlpClientCertificate", K_PATH, otlp_client_certificate),
	KEY("OtlpClientKey", K_PATH, otlp_client_key),
	KEY("OtlpTimeout", K_TIMEOUT, otlp_timeout_ms),
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
		if ((why = check_name(v, k->size)))
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
		if ((why = parse_duration(v, &n)))
			return why;
		if (n != 0 && (n < SAMPLE_MIN_MS || n > SAMPLE_MAX_MS))
			return "must be 0 (off) or between 100ms and 24h";
		cfg->sample_interval_ms = (uint32_t)n;
		return NULL;
	case K_COMMIT:
		if ((why = parse_duration(v, &n)))
			return why;
		if (n < COMMIT_MIN_MS || n > COMMIT_MAX_MS)
			return "must be between 10ms and 60s";
		cfg->commit_interval_ms = (uint32_t)n;
		return NULL;
	case K_RING:
		if ((why = parse_size(v, &n)))
			return why;
		if (n < RING_MIN || n > RING_MAX || (n & (n - 1)))
			return "must be a power of two between 64K and 1G";
		cfg->ring_buffer_bytes = n;
		return NULL;
	case K_CLIENTS:
		if ((why = number_in(v, CLIENTS_MIN, CLIENTS_MAX, &i)))
			return why;
		*(uint32_t *)field = (uint32_t)i;
		return NULL;
	case K_RESERVED:
		if ((why = number_in(v, 0, CLIENTS_MAX, &i)))
			return why;
		cfg->reserved_clients = (uint32_t)i;
		return NULL;
	case K_OFF_OR_SECONDS:
		if ((why = parse_duration(v, &n)))
			return why;
		if (n != 0 && (n < TIMEOUT_MIN_MS || n > TIMEOUT_MAX_MS))
			return "must be 0 (off) or between 1s and 24h";
		*(uint32_t *)field = (uint32_t)n;
		return NULL;
	case K_TIMEOUT:
		if ((why = parse_duration(v, &n)))
			return why;
		if (n < TIMEOUT_MIN_MS || n > TIMEOUT_MAX_MS)
			return "must be between 1s and 24h";
		*(uint32_t *)field = (uint32_t)n;
		return NULL;
	case K_CLIENT_BUF:
		if ((why = parse_size(v, &n)))
			return why;
		if (n < CLIENT_BUF_MIN || n > CLIENT_BUF_MAX)
			return "must be between 64K and 1G";
		cfg->client_buffer_bytes = n;
		return NULL;
	case K_PORT: {
		const char *end;
		if (parse_u64(v, &n, &end) || *end)
			return "expected a number";
		if (n > 65535)
			return "must be 0 (off) or a TCP port up to 65535";
		cfg->listen_port = (uint32_t)n;
		return NULL;
	}
	case K_RETENTION:
		if ((why = parse_duration(v, &n)))
			return why;
		if (n != 0 && n < RETENTION_MIN_MS)
			return "must be 0 (keep for ever) or at least 1m";
		cfg->store_retention_ms = n;
		return NULL;
	case K_STORESIZE:
		if ((why = parse_size(v, &n)))
			return why;
		if (n != 0 && n < STORESIZE_MIN)
			return "must be 0 (no limit) or at least 1M";
		cfg->store_max_bytes = n;
		return NULL;
	case K_UNITSIZE:
		if ((why = parse_size(v, &n)))
			return why;
		if (n < UNITSIZE_MIN)
			return "must be at least 64K";
		cfg->store_unit_max_bytes = n;
		return NULL;
	case K_RATE:
		if ((why = number_in(v, 1, RATE_MAX, &i)))
			return why;
		cfg->unit_rate_per_user = (uint32_t)i;
		return NULL;
	case K_NODEPORTS:
		if ((why = check_node_ports(v, k->size)))
			return why;
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	case K_METRICS: {
		struct sockaddr_storage ss;
		unsigned len;

		if (strlen(v) >= k->size || (v[0] && config_metrics_addr(v, &ss, &len) < 0))
			return "expected PORT, ADDRESS:PORT or [IPv6 ADDRESS]:PORT (1-65535)";
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	}
	case K_NICE:
		if ((why = number_in(v, -20, 19, &i)))
			return why;
		cfg->nice = (int32_t)i;
		return NULL;
	case K_OTLP_URL:
	case K_OTLP_HEADERS:
		if ((why = k->type == K_OTLP_URL ? otlp_check_endpoint(v)
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

int config_default_node(char *out, size_t outlen)
{
	char host[256];
	char *dot;

	if (!out || !outlen)
		return -EINVAL;
	if (gethostname(host, sizeof(host)) < 0)
		return -errno;
	host[sizeof(host) - 1] = '\0'; /* gethostname may not terminate on truncation */
	if ((dot = strchr(host, '.')))
		*dot = '\0';
	if (!host[0])
		return -EINVAL;
	if (strlen(host) >= outlen)
		return -ENAMETOOLONG;
	memcpy(out, host, strlen(host) + 1);
	return 0;
}

int config_node(const struct tracer_config *cfg, const char *given, char *out, size_t outlen)
{
	const char *node = given && given[0] ? given : cfg->node_name;

	if (!node[0])
		return config_default_node(out, outlen);
	return snprintf(out, outlen, "%s", node) < (int)outlen ? 0 : -ENAMETOOLONG;
}

/* The node (config_node), checked to be a file name: it becomes part of paths. */
static int resolve_node(const struct tracer_config *cfg, const char **node, char *def, size_t len)
{
	int ret;

	if (!*node || !(*node)[0]) {
		if ((ret = config_node(cfg, NULL, def, len)) < 0)
			return ret;
		*node = def;
	}
	/* The node name becomes part of a file name: no '/' or other surprises. */
	return check_name(*node, len) ? -EINVAL : 0;
}

int config_socket_path(const struct tracer_config *cfg, const char *node, char *out, size_t outlen)
{
	char def[64];
	struct sockaddr_un sun;
	int n, ret;

	if (!cfg || !out || !outlen)
		return -EINVAL;
	if ((ret = resolve_node(cfg, &node, def, sizeof(def))) < 0)
		return ret;
	n = snprintf(NULL, 0, "%s/" SOCKET_PREFIX "%s" SOCKET_SUFFIX, cfg->socket_dir, node);
	/* A path that cannot be bound is useless even if the caller's buffer is larger. */
	if (n < 0 || (size_t)n >= outlen || (size_t)n >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	snprintf(out, outlen, "%s/" SOCKET_PREFIX "%s" SOCKET_SUFFIX, cfg->socket_dir, node);
	return 0;
}

int config_socket_node(const char *file, char *node, size_t len)
{
	size_t l = strlen(file), pre = strlen(SOCKET_PREFIX), suf = strlen(SOCKET_SUFFIX);

	if (l <= pre + suf || strncmp(file, SOCKET_PREFIX, pre) ||
	    strcmp(file + l - suf, SOCKET_SUFFIX) || l - pre - suf >= len)
		return -1;
	snprintf(node, len, "%.*s", (int)(l - pre - suf), file + pre);
	return 0;
}

int config_pin_path(const struct tracer_config *cfg, const char *node, const char *file, char *out,
		    size_t outlen)
{
	char def[64];
	int n, ret;

	if (!cfg || !out || !outlen)
		return -EINVAL;
	if ((ret = resolve_node(cfg, &node, def, sizeof(def))) < 0)
		return ret;
	n = snprintf(out, outlen, "%s/%s%s%s", cfg->pin_dir, node, file ? "/" : "",
		     file ? file : "");
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}
