/* Client side of the control socket. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "config.h"
#include "protocol.h"

int client_socket_path(const struct client_target *t, char *out, size_t len)
{
        struct tracer_config cfg;
        const char *path = t->config ? t->config : getenv("TRACER_CONF");
        char err[512], node[64];
        int r;

        r = config_load(path ? path : TRACER_CONF_DEFAULT, !path, &cfg, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "%s\n", err);
                return r;
        }
        if (t->node)
                snprintf(node, sizeof(node), "%s", t->node);
        else if (cfg.node_name[0])
                snprintf(node, sizeof(node), "%s", cfg.node_name);
        else if ((r = config_default_node(node, sizeof(node))) < 0)
                return r;
        r = config_socket_path(&cfg, node, out, len);
        if (r < 0)
                fprintf(stderr, "socket path for node %s too long\n", node);
        return r;
}

struct json_object *client_new_request(const char *op)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "v", json_object_new_int(TRACER_PROTO_VERSION));
        json_object_object_add(o, "op", json_object_new_string(op));
        return o;
}

int client_request(const char *prog, const char *sock, struct json_object *req, int timeout_ms,
                   struct json_object **reply)
{
        struct json_object *r = NULL, *ok, *msg;
        char err[256] = "";
        int fd, ret;

        fd = proto_connect(sock, timeout_ms < 0 ? 2000 : timeout_ms);
        if (fd < 0) {
                if (prog)
                        fprintf(stderr, "%s: cannot reach tracerd at %s: %s\n", prog, sock, strerror(-fd));
                return fd;
        }
        ret = proto_call(fd, req, timeout_ms, &r, err, sizeof(err));
        close(fd);
        if (ret < 0) {
                if (prog)
                        fprintf(stderr, "%s: tracerd at %s: %s\n", prog, sock, err[0] ? err : strerror(-ret));
                return ret;
        }
        if (!json_object_object_get_ex(r, "ok", &ok) || !json_object_get_boolean(ok)) {
                if (prog)
                        fprintf(stderr, "%s: %s\n", prog,
                                json_object_object_get_ex(r, "error", &msg) ? json_object_get_string(msg)
                                                                             : "tracerd refused the request");
                json_object_put(r);
                return -EREMOTEIO;
        }
        *reply = r;
        return 0;
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
