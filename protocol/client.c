/* Client side of the control socket. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <munge.h>

#include "client.h"
#include "config.h"
#include "protocol.h"
#include "safetext.h"
#include "trust.h"

int client_config(const struct client_target *t, struct tracer_config *cfg)
{
	char err[512];
	int r;

	r = config_load_client(t->config, cfg, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "%s\n", err);
	return r;
}

int client_socket_path(const struct client_target *t, char *out, size_t len)
{
	struct tracer_config cfg;
	char node[64];
	int r;

	r = client_config(t, &cfg);
	if (r < 0)
		return r;
	if ((r = config_node(&cfg, t->node, node, sizeof(node))) < 0)
		return r;
	r = config_socket_path(&cfg, node, out, len);
	if (r < 0)
		fprintf(stderr, "socket path for node %s too long\n", node);
	return r;
}

#define BUSY_TRIES 60	   /* a refused connection is tried again this many times in all, */
#define BUSY_WAIT_US 50000 /* this far apart */

/* A refusal, as far as the caller wants it: the text into why, and for a credential meant
 * for another node, the node the daemon is (its "node") into node. */
struct refusal {
	char *why;
	size_t whylen;
	char *node;
	size_t nodelen;
};

/* Check a reply: 0 when ok, else -EBUSY for a refusal for want of a connection slot (worth
 * another try in a moment) or -EREMOTEIO, with tracerd's message in why. */
static int reply_ok(struct json_object *r, const struct refusal *f)
{
	struct json_object *ok, *msg;
	enum proto_code code = proto_reply_code(r);
	const char *text;

	if (json_object_object_get_ex(r, "ok", &ok) && json_object_get_boolean(ok))
		return 0;
	/* a missing or null message ("error":null) is no message */
	if (!json_object_object_get_ex(r, "error", &msg) || !(text = json_object_get_string(msg)))
		text = "tracerd refused the request";
	if (f->why && f->whylen) /* shown to whoever asked: it may quote another user's text */
		safe_text(f->why, f->whylen, text, strlen(text));
	/* a name cut short would name another node: none then */
	if (code == PROTO_E_WRONG_NODE && f->node && f->nodelen &&
	    strlen(reply_str(r, "node", "")) < f->nodelen)
		snprintf(f->node, f->nodelen, "%s", reply_str(r, "node", ""));
	return code == PROTO_E_BUSY ? -EBUSY : -EREMOTEIO;
}

/* Send req on fd (closed here) and check the reply; see client_request(). */
static int exchange(const char *where, int fd, struct json_object *req, int timeout_ms,
		    const struct proto_rows *rows, struct json_object **reply,
		    const struct refusal *f)
{
	struct json_object *r = NULL;
	char err[256] = "";
	int ret;

	ret = proto_call_rows(fd, req, timeout_ms, rows, &r, err, sizeof(err));
	close(fd);
	if (ret < 0) {
		proto_errf(f->why, f->whylen, "tracerd at %s: %s", where,
			   err[0] ? err : strerror(-ret));
		return ret;
	}
	if ((ret = reply_ok(r, f)) < 0) {
		json_object_put(r);
		return ret;
	}
	*reply = r;
	return 0;
}

/* A request's outcome: a failure is printed for prog and handed to the caller in why. */
static int failed(const char *prog, int ret, const char *msg, char *why, size_t whylen)
{
	if (ret < 0 && prog)
		fprintf(stderr, "%s: %s\n", prog, msg);
	if (ret < 0)
		proto_errf(why, whylen, "%s", msg);
	return ret;
}

static int request_once(const char *sock, struct json_object *req, int timeout_ms, int root,
			const struct proto_rows *rows, struct json_object **reply, char *why,
			size_t whylen)
{
	struct json_object *r = NULL;
	int fd, ret;

	if (root) {
		/* root's clients: only a trusted tracerd, and a short reply */
		if ((ret = trust_call(sock, req, timeout_ms, &r, why, whylen)) < 0)
			return ret;
		if ((ret = reply_ok(r, &(struct refusal){ why, whylen })) < 0) {
			json_object_put(r);
			return ret;
		}
		*reply = r;
		return 0;
	}
	fd = proto_connect(sock, timeout_ms < 0 ? 2000 : timeout_ms);
	if (fd == -ENOENT || fd == -ECONNREFUSED) {
		/* say what is wrong, not only the errno */
		proto_errf(why, whylen,
			   "no tracerd is running for this node: %s %s (start tracerd, or name "
			   "the node with -N)",
			   sock,
			   fd == -ENOENT ? "does not exist"
					 : "is left from a tracerd that stopped");
		return fd;
	}
	if (fd < 0) {
		proto_errf(why, whylen, "cannot reach tracerd at %s: %s", sock, strerror(-fd));
		return fd;
	}
	return exchange(sock, fd, req, timeout_ms, rows, reply, &(struct refusal){ why, whylen });
}

static int request(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
		   int root, const struct proto_rows *rows, struct json_object **reply, char *why,
		   size_t whylen)
{
	char buf[2 * PATH_MAX + 256] = "";
	int ret, tries;

	/* a refusal for want of a slot comes before the request is read: safe to send again,
	 * as a burst of one user's requests may find their slots taken for a moment */
	for (tries = 1;; tries++) {
		ret = request_once(sock, req, timeout_ms, root, rows, reply, buf, sizeof(buf));
		if (ret != -EBUSY || tries == BUSY_TRIES)
			break;
		usleep(BUSY_WAIT_US);
	}
	return failed(prog, ret, buf, why, whylen);
}

int client_request(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
		   struct json_object **reply)
{
	return request(prog, sock, req, timeout_ms, 0, NULL, reply, NULL, 0);
}

int client_request_rows(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
			const struct proto_rows *rows, struct json_object **reply)
{
	return request(prog, sock, req, timeout_ms, 0, rows, reply, NULL, 0);
}

int client_request_why(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
		       struct json_object **reply, char *why, size_t whylen)
{
	return request(prog, sock, req, timeout_ms, 0, NULL, reply, why, whylen);
}

int client_request_root(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
			struct json_object **reply, char *why, size_t whylen)
{
	return request(prog, sock, req, timeout_ms, 1, NULL, reply, why, whylen);
}

static int tcp_request(const char *prog, const char *host, unsigned port, const char *node,
		       const char *munge_socket, struct json_object *req, int timeout_ms,
		       const struct proto_rows *rows, struct json_object **reply, char *why,
		       size_t whylen, char *is_node, size_t nodelen)
{
	struct json_object *signed_req = NULL, *outer; /* deep_copy wants NULL */
	munge_ctx_t ctx = munge_ctx_create();
	const char *body;
	char where[300], err[512], *cred = NULL;
	munge_err_t e;
	int fd, r;

	snprintf(where, sizeof(where), "%s:%u", host, port);
	if (!ctx)
		return -ENOMEM;
	if (munge_socket && *munge_socket)
		munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket);
	/* the credential carries the request, naming its node: it vouches for nothing else */
	if (json_object_deep_copy(req, &signed_req, NULL) < 0) {
		if (prog)
			fprintf(stderr, "%s: out of memory\n", prog);
		munge_ctx_destroy(ctx);
		return -ENOMEM;
	}
	json_object_object_add(signed_req, "node", json_object_new_string(node));
	body = json_object_to_json_string_ext(signed_req, JSON_C_TO_STRING_PLAIN);
	e = munge_encode(&cred, ctx, body, strlen(body));
	json_object_put(signed_req);
	if (e != EMUNGE_SUCCESS) {
		if (prog)
			fprintf(stderr, "%s: no MUNGE credential: %s\n", prog,
				munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return -EPERM;
	}
	munge_ctx_destroy(ctx);
	outer = proto_request_named(PROTO_OP_MUNGE);
	json_object_object_add(outer, "cred", json_object_new_string(cred));
	free(cred);
	fd = proto_connect_tcp(host, port, timeout_ms < 0 ? 2000 : timeout_ms);
	if (fd < 0) {
		if (prog)
			fprintf(stderr, "%s: cannot reach tracerd at %s: %s\n", prog, where,
				strerror(-fd));
		json_object_put(outer);
		return fd;
	}
	r = exchange(where, fd, outer, timeout_ms, rows, reply,
		     &(struct refusal){ err, sizeof(err), is_node, nodelen });
	json_object_put(outer);
	return failed(prog, r, err, why, whylen);
}

int client_request_tcp(const char *prog, const char *host, unsigned port, const char *node,
		       const char *munge_socket, struct json_object *req, int timeout_ms,
		       struct json_object **reply)
{
	return tcp_request(prog, host, port, node, munge_socket, req, timeout_ms, NULL, reply, NULL,
			   0, NULL, 0);
}

int client_request_tcp_rows(const char *prog, const char *host, unsigned port, const char *node,
			    const char *munge_socket, struct json_object *req, int timeout_ms,
			    const struct proto_rows *rows, struct json_object **reply)
{
	return tcp_request(prog, host, port, node, munge_socket, req, timeout_ms, rows, reply, NULL,
			   0, NULL, 0);
}

int client_request_tcp_why(const char *prog, const char *host, unsigned port, const char *node,
			   const char *munge_socket, struct json_object *req, int timeout_ms,
			   struct json_object **reply, char *why, size_t whylen, char *is_node,
			   size_t nodelen)
{
	return tcp_request(prog, host, port, node, munge_socket, req, timeout_ms, NULL, reply, why,
			   whylen, is_node, nodelen);
}

int64_t reply_int(struct json_object *o, const char *key, int64_t dflt)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : dflt;
}

const char *reply_str(struct json_object *o, const char *key, const char *dflt)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : dflt;
}
