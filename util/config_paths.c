/* Where tracer.conf puts a node's things: its name, its TCP port, its control socket, its pin
 * set. */
#include "config.h"
#include "config_values.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

/* the control socket's name: SocketDir/tracerd-NODE.sock */
#define SOCKET_PREFIX "tracerd-"
#define SOCKET_SUFFIX ".sock"

uint32_t config_listen_port(const struct tracer_config *cfg, const char *node)
{
	size_t nl = node ? strlen(node) : 0;

	for (const char *p = cfg->node_ports; nl && *p; p += strcspn(p, ","), p += *p == ',') {
		if (strncmp(p, node, nl) == 0 && p[nl] == ':')
			return (uint32_t)strtoul(p + nl + 1, NULL, 10);
	}
	return cfg->listen_port;
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
	return conf_check_name(*node, len) ? -EINVAL : 0;
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

/* dir/NODE then rest, the node as config_node gives it, checked to be a file name */
static int node_path(const struct tracer_config *cfg, const char *dir, const char *node,
		     const char *rest, char *out, size_t outlen)
{
	char def[64];
	int n, ret;

	if ((ret = resolve_node(cfg, &node, def, sizeof(def))) < 0)
		return ret;
	n = snprintf(out, outlen, "%s/%s%s", dir, node, rest);
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

int config_lock_path(const struct tracer_config *cfg, const char *node, char *out, size_t outlen)
{
	if (!cfg || !out || !outlen)
		return -EINVAL;
	return node_path(cfg, cfg->state_dir, node, ".lock", out, outlen);
}

int config_pin_path(const struct tracer_config *cfg, const char *node, const char *file, char *out,
		    size_t outlen)
{
	char rest[256];

	if (!cfg || !out || !outlen)
		return -EINVAL;
	if ((size_t)snprintf(rest, sizeof(rest), "%s%s", file ? "/" : "", file ? file : "") >=
	    sizeof(rest))
		return -ENAMETOOLONG;
	return node_path(cfg, cfg->pin_dir, node, rest, out, outlen);
}
