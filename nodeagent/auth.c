/* MUNGE authentication of TCP requests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <munge.h>

#include "auth.h"
#include "protocol.h"

int auth_munge_request(const char *munge_socket, struct json_object *req, uid_t *uid, gid_t *gid,
                       char *err, size_t errlen)
{
        struct json_object *cred_o;
        const char *body;
        char *cred;
        munge_ctx_t ctx;
        munge_err_t e;
        void *payload = NULL;
        int len = 0, r = 0;
        uid_t u;
        gid_t g;

        if (!json_object_object_get_ex(req, "cred", &cred_o) || !json_object_is_type(cred_o, json_type_string)) {
                proto_errf(err, errlen, "requests over TCP need a MUNGE credential (\"cred\")");
                return -EPERM;
        }
        cred = strdup(json_object_get_string(cred_o));
        if (!cred)
                return -ENOMEM;
        json_object_object_del(req, "cred");
        body = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
        ctx = munge_ctx_create();
        if (!ctx) {
                free(cred);
                proto_errf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (munge_socket && *munge_socket)
                munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket);
        e = munge_decode(cred, ctx, &payload, &len, &u, &g);
        if (e != EMUNGE_SUCCESS) {
                /* replayed, expired, forged or munged unreachable: all refused */
                proto_errf(err, errlen, "credential refused: %s", munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e));
                r = -EPERM;
        } else if (len < 0 || (size_t)len != strlen(body) || memcmp(payload, body, len) != 0) {
                proto_errf(err, errlen, "credential refused: it was issued for another request");
                r = -EPERM;
        } else {
                *uid = u;
                *gid = g;
        }
        free(payload);
        free(cred);
        munge_ctx_destroy(ctx);
        return r;
}
