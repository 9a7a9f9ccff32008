/* tracer.conf's values read and checked: numbers, durations, sizes, names, node ports and
 * listening addresses (config_values.h). */
#include "config.h"
#include "config_values.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* Unsigned decimal with overflow check; *end is set past the digits. */
const char *conf_parse_u64(const char *s, uint64_t *out, const char **end)
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
const char *conf_parse_duration(const char *s, uint64_t *ms)
{
	uint64_t v, mult;
	const char *suf, *why = conf_parse_u64(s, &v, &suf);

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
const char *conf_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v, mult;
	const char *suf, *why = conf_parse_u64(s, &v, &suf);

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
const char *conf_check_name(const char *s, size_t cap)
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
const char *conf_check_node_ports(const char *v, size_t cap)
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
		if (conf_check_name(name, sizeof(name)))
			return "a node name has letters, digits, '.', '_' and '-' only";
		if (conf_parse_u64(p + len + 1, &port, &end) || (*end && *end != ',') || !port ||
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

static int port_of(const char *v, uint16_t *port)
{
	const char *end;
	uint64_t n;

	if (conf_parse_u64(v, &n, &end) || *end || n < 1 || n > 65535)
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
const char *conf_number_in(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	static char why[64];
	const char *end;
	int neg = lo < 0 && v[0] == '-';
	uint64_t n;

	if (conf_parse_u64(v + neg, &n, &end) || *end)
		return "expected a number";
	if (n > (uint64_t)INT64_MAX || (*out = neg ? -(int64_t)n : (int64_t)n) < lo || *out > hi) {
		snprintf(why, sizeof(why), "must be between %lld and %lld", (long long)lo,
			 (long long)hi);
		return why;
	}
	return NULL;
}

const char *config_metrics_check(const char *v)
{
	const char *colon = strrchr(v, ':');
	struct sockaddr_storage ss;
	uint16_t port;
	unsigned len;

	if (!v[0] || config_metrics_addr(v, &ss, &len) == 0)
		return NULL;
	/* a port that is right: the address before it is what is wrong */
	if (colon && colon != v && !port_of(colon + 1, &port)) {
		if (v[0] != '[' && memchr(v, ':', (size_t)(colon - v)))
			return "an IPv6 address goes in brackets: [::1]:PORT";
		return "ADDRESS must be numeric, a host name (localhost) is never looked up: "
		       "127.0.0.1:PORT, or an IPv6 address in brackets, [::1]:PORT";
	}
	return "expected PORT, ADDRESS:PORT or [IPv6 ADDRESS]:PORT (1-65535)";
}
