/* Who sent a request that came over TCP, and whether it may be asked so. The message is the
 * envelope PROTO_OP_MUNGE (ops.h) with "cred":"MUNGE:…",
 * and the credential's payload is the request itself, naming the node it is for: munged
 * vouches for the sender, and the credential serves no other request or node. */
#ifndef TRACER_AUTH_H
#define TRACER_AUTH_H

#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

/* Check outer's credential; on success *req is the request it carries (caller puts) and
 * uid/gid its sender. Otherwise the reason in err, and -EPERM (forged, expired, replayed,
 * munged not answering), -EXDEV (for another node) or -EINVAL / -EPROTO (not a valid
 * request). */
int auth_munge_request(const char *munge_socket, const char *node, struct json_object *outer,
		       struct json_object **req, uid_t *uid, gid_t *gid, char *err, size_t errlen);

/* A refused TCP message's reply: auth_munge_request's r and err with their code; one for
 * another node names this node. */
struct json_object *auth_refusal(int r, const char *err, const char *node);
/* NULL when other nodes may ask req's op (the op table says: queries only), else its refusal. */
struct json_object *auth_tcp_refused(struct json_object *req);

#endif
