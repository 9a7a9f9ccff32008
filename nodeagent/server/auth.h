/* Who sent a request that came over TCP. The message is {"v":1,"op":"munge","cred":"MUNGE:…"}
 * and the credential's payload is the request itself, naming the node it is for: munged
 * vouches for the sender, and the credential serves no other request or node. */
#ifndef TRACER_AUTH_H
#define TRACER_AUTH_H

#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

/* Check outer's credential; on success *req is the request it carries (caller puts) and
 * uid/gid its sender. -EPERM / -EINVAL / -EPROTO with the reason in err otherwise: forged,
 * expired, replayed, for another node, or not a valid request. */
int auth_munge_request(const char *munge_socket, const char *node, struct json_object *outer,
		       struct json_object **req, uid_t *uid, gid_t *gid, char *err, size_t errlen);

#endif
