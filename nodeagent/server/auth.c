/* MUNGE authentication of TCP requests. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <munge.h>

#include "auth.h"
#include "protocol.h"

/* munged answers in microseconds; a hung or flooded munged must not hold tracerd's loop. The
 * decode runs in a thread of its own and is given up after this long; while one given up is
 * still stuck, further credentials are refused at once rather than waited for again. */
#define DECODE_MS 250

struct decode {
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	int done, abandoned;
	char *cred, *socket;
	void *payload;
	int len;
	uid_t uid;
	gid_t gid;
	munge_err_t e;
	char why[160];
};

static atomic_int stuck; /* decodes given up and not returned yet */

static void decode_free(struct decode *d)
{
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->done_cv);
	free(d->cred);
	free(d->socket);
	free(d->payload);
	free(d);
}

static void *decode_run(void *arg)
{
	struct decode *d = arg;
	munge_ctx_t ctx = munge_ctx_create();
	int abandoned;

	if (!ctx) {
		d->e = EMUNGE_NO_MEMORY;
	} else {
		if (d->socket)
			munge_ctx_set(ctx, MUNGE_OPT_SOCKET, d->socket);
		d->e = munge_decode(d->cred, ctx, &d->payload, &d->len, &d->uid, &d->gid);
		snprintf(d->why, sizeof(d->why), "%s",
			 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(d->e));
		munge_ctx_destroy(ctx);
	}
	pthread_mutex_lock(&d->lock);
	d->done = 1;
	abandoned = d->abandoned;
	pthread_cond_signal(&d->done_cv);
	pthread_mutex_unlock(&d->lock);
	if (abandoned) {
		atomic_fetch_sub(&stuck, 1);
		decode_free(d);
	}
	return NULL;
}

/* Decode cred within DECODE_MS. 0 with *out (caller frees with decode_free), or -errno. */
static int decode_bounded(const char *socket, const char *cred, struct decode **out, char *err,
			  size_t errlen)
{
	struct decode *d;
	struct timespec until;
	pthread_condattr_t ca;
	pthread_t t;
	int rc = 0;

	if (atomic_load(&stuck)) {
		proto_errf(err, errlen, "credential refused: munged is not answering");
		return -EAGAIN;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->cred = strdup(cred)) ||
	    (socket && *socket && !(d->socket = strdup(socket)))) {
		if (d)
			free(d->cred);
		free(d);
		proto_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* a wall clock step must not move it */
	pthread_cond_init(&d->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&t, NULL, decode_run, d) != 0) {
		decode_free(d);
		proto_errf(err, errlen, "cannot start a MUNGE decode");
		return -EAGAIN;
	}
	pthread_setname_np(t, "tracerd-munge");
	pthread_detach(t);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += (long)DECODE_MS * 1000000;
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	pthread_mutex_lock(&d->lock);
	while (!d->done && rc == 0)
		rc = pthread_cond_timedwait(&d->done_cv, &d->lock, &until);
	if (!d->done) {
		d->abandoned = 1; /* the thread frees it when munged finally answers */
		atomic_fetch_add(&stuck, 1);
		pthread_mutex_unlock(&d->lock);
		proto_errf(err, errlen, "credential refused: munged did not answer within %d ms",
			   DECODE_MS);
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&d->lock);
	*out = d;
	return 0;
}

int auth_munge_request(const char *munge_socket, const char *node, struct json_object *outer,
		       struct json_object **req, uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
	struct json_object *cred_o, *inner = NULL, *node_o;
	struct decode *d = NULL;
	int r;

	if (!json_object_object_get_ex(outer, "cred", &cred_o) ||
	    !json_object_is_type(cred_o, json_type_string)) {
		proto_errf(err, errlen, "requests over TCP need a MUNGE credential (\"cred\")");
		return -EPERM;
	}
	r = decode_bounded(munge_socket, json_object_get_string(cred_o), &d, err, errlen);
	if (r < 0)
		return -EPERM;
	if (d->e != EMUNGE_SUCCESS) {
		/* replayed, expired, forged or munged unreachable: all refused */
		proto_errf(err, errlen, "credential refused: %s", d->why);
		r = -EPERM;
		goto out;
	}
	/* the credential carries the request itself, so it vouches for nothing else */
	r = proto_parse_request(d->payload ? d->payload : "", d->len > 0 ? (size_t)d->len : 0,
				&inner, err, errlen);
	if (r < 0)
		goto out;
	/* ... and names the node it is for: a credential seen on the wire is no key elsewhere */
	if (!json_object_object_get_ex(inner, "node", &node_o) ||
	    !json_object_is_type(node_o, json_type_string) ||
	    strcmp(json_object_get_string(node_o), node) != 0) {
		proto_errf(err, errlen, "credential refused: the request is not for node %s", node);
		json_object_put(inner);
		r = -EXDEV;
		goto out;
	}
	*req = inner;
	*uid = d->uid;
	*gid = d->gid;
out:
	decode_free(d);
	return r;
}

struct json_object *auth_refusal(int r, const char *err, const char *node)
{
	struct json_object *reply = proto_reply_error(r == -EXDEV   ? PROTO_E_WRONG_NODE
						      : r == -EPERM ? PROTO_E_DENIED
								    : PROTO_E_MALFORMED,
						      "%s", err);

	/* a client that knew only the address learns the node to ask for */
	if (reply && r == -EXDEV)
		json_object_object_add(reply, "node", json_object_new_string(node));
	return reply;
}

struct json_object *auth_tcp_refused(struct json_object *req)
{
	struct json_object *op;
	int i;

	json_object_object_get_ex(req, "op", &op);
	i = proto_op_find(json_object_get_string(op));
	if (i >= 0 && proto_ops[i].tcp)
		return NULL;
	return proto_reply_error(PROTO_E_DENIED, "op '%s' is not served over TCP",
				 json_object_get_string(op));
}
