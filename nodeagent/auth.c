/* MUNGE authentication of TCP requests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <munge.h>

#include "auth.h"
#include "protocol.h"

int auth_munge_request(const char *munge_socket, const char *node, struct json_object *outer,
                       struct json_object **req, uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
        struct json_object *cred_o, *inner = NULL, *node_o;
        munge_ctx_t ctx;
        munge_err_t e;
        void *payload = NULL;
        int len = 0, r;
        uid_t u;
        gid_t g;

        if (!json_object_object_get_ex(outer, "cred", &cred_o) || !json_object_is_type(cred_o, json_type_string)) {
                proto_errf(err, errlen, "requests over TCP need a MUNGE credential (\"cred\")");
                return -EPERM;
        }
        ctx = munge_ctx_create();
        if (!ctx) {
                proto_errf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (munge_socket && *munge_socket)
                munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket);
        e = munge_decode(json_object_get_string(cred_o), ctx, &payload, &len, &u, &g);
        if (e != EMUNGE_SUCCESS) {
                /* replayed, expired, forged or munged unreachable: all refused */
                proto_errf(err, errlen, "credential refused: %s",
                           munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e));
                r = -EPERM;
                goto out;
        }
        /* the credential carries the request itself, so it vouches for nothing else */
        r = proto_parse_request(payload ? payload : "", len > 0 ? (size_t)len : 0, &inner, err, errlen);
        if (r < 0)
                goto out;
        /* ... and names the node it is for: a credential seen on the wire is no key elsewhere */
        if (!json_object_object_get_ex(inner, "node", &node_o) ||
            strcmp(json_object_get_string(node_o), node) != 0) {
                proto_errf(err, errlen, "credential refused: the request is not for node %s", node);
                json_object_put(inner);
                r = -EPERM;
                goto out;
        }
        *req = inner;
        *uid = u;
        *gid = g;
out:
        free(payload);
        munge_ctx_destroy(ctx);
        return r;
}
