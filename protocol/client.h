/* What tracerctl and tracer-jobstat share: finding the node's tracerd and asking it. */
#ifndef TRACER_CLIENT_H
#define TRACER_CLIENT_H

#include <stdint.h>
#include <json-c/json.h>

struct client_target {
	const char *config; /* -c, else the environment's, else the default (config_load_client) */
	const char *node;   /* -N, else NodeName, else the short host name (config_node) */
};

/* Load the target's tracer.conf (errors printed). */
struct tracer_config;
int client_config(const struct client_target *t, struct tracer_config *cfg);
/* Resolve the socket path of the target's tracerd. Errors are printed to stderr. */
int client_socket_path(const struct client_target *t, char *out, size_t len);
/* Connect, send req, read the reply (timeout_ms < 0: wait). Returns 0 and *reply when the
 * daemon answered ok; otherwise prints "PROG: message" to stderr (nothing when prog is NULL) and
 * returns -errno (-EREMOTEIO when the daemon answered with an error, -EBUSY when it had no
 * connection slot free). */
int client_request(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
		   struct json_object **reply);
/* The same, the reply's big array left to its reader (struct proto_rows, protocol.h) */
struct proto_rows;
int client_request_rows(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
			const struct proto_rows *rows, struct json_object **reply);
/* The same; why a request failed is also put in why[whylen] (when not NULL). */
int client_request_why(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
		       struct json_object **reply, char *why, size_t whylen);
/* The same for root's own clients (tracer-prolog, tracer-epilog): only with a tracerd that
 * trust_call() accepts (a root-owned socket directory no one else can write, a root server, a
 * reply of at most TRACER_ROOT_REPLY_MAX); why a request failed is also put in why[whylen]. */
int client_request_root(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
			struct json_object **reply, char *why, size_t whylen);
/* The same with node's tracerd over TCP at host:port, the request carried in a MUNGE
 * credential (munge_socket: NULL or empty for libmunge's default). */
int client_request_tcp(const char *prog, const char *host, unsigned port, const char *node,
		       const char *munge_socket, struct json_object *req, int timeout_ms,
		       struct json_object **reply);
int client_request_tcp_rows(const char *prog, const char *host, unsigned port, const char *node,
			    const char *munge_socket, struct json_object *req, int timeout_ms,
			    const struct proto_rows *rows, struct json_object **reply);
/* The same; a refusal's message also into why, and when the daemon refused a credential for
 * another node (code wrong_node), the node it is into is_node (each when not NULL). */
int client_request_tcp_why(const char *prog, const char *host, unsigned port, const char *node,
			   const char *munge_socket, struct json_object *req, int timeout_ms,
			   struct json_object **reply, char *why, size_t whylen, char *is_node,
			   size_t nodelen);

/* Fields of a reply, with a default when absent. */
int64_t reply_int(struct json_object *o, const char *key, int64_t dflt);
const char *reply_str(struct json_object *o, const char *key, const char *dflt);

#endif
