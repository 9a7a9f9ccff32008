/* Who sent a request that came over TCP: a MUNGE credential, checked by munged, whose payload
 * is the request itself (so a credential cannot be moved to another request). */
#ifndef TRACER_AUTH_H
#define TRACER_AUTH_H

#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

/* Take "cred" out of req and check it against the rest. 0 and the sender's uid/gid, or -EPERM /
 * -EINVAL with the reason in err (forged, expired, replayed, wrong payload, absent). */
int auth_munge_request(const char *munge_socket, struct json_object *req, uid_t *uid, gid_t *gid,
                       char *err, size_t errlen);

#endif
