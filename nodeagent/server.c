/* Unix-socket server: one line_reader and one output queue per client. A client's requests are
 * answered in order; while a reply is still being sent, its further input waits. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "log.h"
#include "protocol.h"
#include "server.h"

struct client {
        int fd;
        struct peer peer;
        struct line_reader in;
        char *out;
        size_t out_len, out_off;
        int closing; /* close once the queued reply is sent */
        int tcp;     /* from another node: each request carries a MUNGE credential */
        time_t last; /* last activity: idle TCP clients are let go */
};

/* Other nodes' queries must never crowd out this node's own registrations: they get at most
 * half the slots, and lose them when idle. */
#define TCP_IDLE_SECONDS 10

struct server {
        int listen_fd, tcp_fd, epfd;
        char munge_socket[PATH_MAX];
        char path[108];
        unsigned max_clients;
        struct client *clients; /* max_clients slots, fd -1 when free */
};

/* TCP for other nodes' queries: IPv6 any with IPv4 mapped, or IPv4 any where v6 is off */
static int tcp_listen(unsigned port)
{
        struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_ANY_INIT };
        struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY) };
        int fd, one = 1, zero = 0, err;

        fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd >= 0) {
                setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
                if (bind(fd, (struct sockaddr *)&a6, sizeof(a6)) == 0 && listen(fd, 128) == 0)
                        return fd;
                close(fd);
        }
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)) < 0 || listen(fd, 128) < 0) {
                err = -errno;
                close(fd);
                return err;
        }
        return fd;
}

int server_open(struct server **out, const char *path, unsigned max_clients, int epfd,
                unsigned tcp_port, const char *munge_socket)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        struct epoll_event ev = { .events = EPOLLIN };
        struct server *s;
        unsigned i;
        int err;

        if (strlen(path) >= sizeof(addr.sun_path))
                return -ENAMETOOLONG;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->clients = calloc(max_clients, sizeof(*s->clients));
        if (!s->clients) {
                free(s);
                return -ENOMEM;
        }
        for (i = 0; i < max_clients; i++)
                s->clients[i].fd = -1;
        s->max_clients = max_clients;
        s->epfd = epfd;
        s->tcp_fd = -1;
        snprintf(s->munge_socket, sizeof(s->munge_socket), "%s", munge_socket ? munge_socket : "");
        strcpy(s->path, path);
        strcpy(addr.sun_path, path);
        s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (s->listen_fd < 0)
                goto fail;
        /* a stale socket from a crashed daemon would make bind fail */
        unlink(path);
        if (bind(s->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || chmod(path, 0666) < 0 ||
            listen(s->listen_fd, 128) < 0)
                goto fail;
        ev.data.fd = s->listen_fd;
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->listen_fd, &ev) < 0)
                goto fail;
        if (tcp_port) {
                s->tcp_fd = tcp_listen(tcp_port);
                if (s->tcp_fd < 0) {
                        errno = -s->tcp_fd;
                        log_error("cannot listen on TCP port %u: %m", tcp_port);
                        err = s->tcp_fd;
                        s->tcp_fd = -1;
                        goto fail_closed;
                }
                ev.data.fd = s->tcp_fd;
                if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->tcp_fd, &ev) < 0)
                        goto fail;
                log_info("answering other nodes' queries on TCP port %u (MUNGE)", tcp_port);
        }
        *out = s;
        return 0;
fail:
        err = -errno;
        log_error("cannot listen on %s: %m", path);
fail_closed:
        if (s->tcp_fd >= 0)
                close(s->tcp_fd);
        if (s->listen_fd >= 0)
                close(s->listen_fd);
        free(s->clients);
        free(s);
        return err;
}

static void client_close(struct server *s, struct client *c)
{
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        line_reader_free(&c->in);
        free(c->out);
        memset(c, 0, sizeof(*c));
        c->fd = -1;
}

void server_close(struct server *s)
{
        unsigned i;

        if (!s)
                return;
        for (i = 0; i < s->max_clients; i++)
                if (s->clients[i].fd >= 0)
                        client_close(s, &s->clients[i]);
        close(s->listen_fd);
        if (s->tcp_fd >= 0)
                close(s->tcp_fd);
        unlink(s->path);
        free(s->clients);
        free(s);
}

static struct client *client_of(const struct server *s, int fd)
{
        unsigned i;

        for (i = 0; i < s->max_clients; i++)
                if (s->clients[i].fd == fd)
                        return &s->clients[i];
        return NULL;
}

int server_owns(const struct server *s, int fd)
{
        return fd == s->listen_fd || (fd == s->tcp_fd && fd >= 0) || client_of(s, fd);
}

static unsigned tcp_clients(const struct server *s)
{
        unsigned i, n = 0;

        for (i = 0; i < s->max_clients; i++)
                n += s->clients[i].fd >= 0 && s->clients[i].tcp;
        return n;
}

void server_expire(struct server *s)
{
        time_t now = time(NULL);
        unsigned i;

        for (i = 0; i < s->max_clients; i++) {
                struct client *c = &s->clients[i];

                if (c->fd >= 0 && c->tcp && now - c->last > TCP_IDLE_SECONDS) {
                        log_debug("idle TCP client let go");
                        client_close(s, c);
                }
        }
}

static void accept_clients(struct server *s, int lfd)
{
        struct epoll_event ev = { .events = EPOLLIN };
        struct ucred cred;
        socklen_t len = sizeof(cred);
        struct client *c;
        int fd, tcp = lfd == s->tcp_fd;

        while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                c = tcp && tcp_clients(s) >= (s->max_clients + 1) / 2 ? NULL : client_of(s, -1);
                if (!c || (!tcp && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)) {
                        static const char busy[] = "{\"v\":1,\"ok\":false,\"error\":\"too many clients\"}\n";

                        if (!c && write(fd, busy, sizeof(busy) - 1) < 0)
                                log_debug("client gone before the refusal: %m");
                        log_warn("client refused: %s", c ? "no peer credentials" : "MaxClients reached");
                        close(fd);
                        continue;
                }
                c->fd = fd;
                c->tcp = tcp;
                c->last = time(NULL);
                /* a TCP peer is nobody until a request proves otherwise */
                c->peer.pid = tcp ? 0 : cred.pid;
                c->peer.uid = tcp ? (uid_t)-1 : cred.uid;
                c->peer.gid = tcp ? (gid_t)-1 : cred.gid;
                line_reader_init(&c->in);
                ev.data.fd = fd;
                if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
                        log_error("epoll_ctl: %m");
                        client_close(s, c);
                }
        }
}

/* Over TCP only queries, each inside a valid MUNGE credential naming its sender. */
static struct json_object *tcp_request(struct server *s, struct agent *a, struct client *c,
                                       struct json_object *outer)
{
        static const char *const allowed[] = { "status", "units", "processes", "tools" };
        struct json_object *op, *req = NULL, *reply;
        struct peer peer = { 0 };
        char err[256];
        size_t i;

        if (auth_munge_request(s->munge_socket, a->node, outer, &req, &peer.uid, &peer.gid, err,
                               sizeof(err)) < 0) {
                log_warn("TCP request refused: %s", err);
                c->closing = 1;
                return proto_reply_error("%s", err);
        }
        json_object_object_get_ex(req, "op", &op);
        for (i = 0; i < sizeof(allowed) / sizeof(*allowed); i++)
                if (strcmp(json_object_get_string(op), allowed[i]) == 0)
                        break;
        reply = i < sizeof(allowed) / sizeof(*allowed)
                        ? agent_request(a, &peer, req)
                        : proto_reply_error("op '%s' is not served over TCP", json_object_get_string(op));
        json_object_put(req);
        return reply;
}

/* Queue a reply; the client then waits in EPOLLOUT until it is sent. */
static void queue_reply(struct server *s, struct client *c, struct json_object *reply)
{
        struct epoll_event ev = { .events = EPOLLOUT, .data.fd = c->fd };
        size_t len = 0;
        char *text = reply ? proto_serialize(reply, &len) : NULL;

        json_object_put(reply);
        if (!text) {
                log_error("out of memory for a reply: closing client");
                c->closing = 1;
                return;
        }
        free(c->out);
        c->out = text;
        c->out_len = len;
        c->out_off = 0;
        epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Answer the next complete request, if any. */
static void serve_next(struct server *s, struct agent *a, struct client *c)
{
        struct json_object *req = NULL;
        char err[256], *line;
        size_t len;
        int r;

        r = line_reader_next(&c->in, &line, &len);
        if (r <= 0)
                return;
        r = proto_parse_request(line, len, &req, err, sizeof(err));
        free(line);
        if (r) {
                log_warn("malformed request from pid %d uid %u: %s", c->peer.pid, c->peer.uid, err);
                c->closing = 1;
                queue_reply(s, c, proto_reply_error("malformed request: %s", err));
                return;
        }
        queue_reply(s, c, c->tcp ? tcp_request(s, a, c, req) : agent_request(a, &c->peer, req));
        json_object_put(req);
}

static void flush_out(struct server *s, struct agent *a, struct client *c)
{
        struct epoll_event ev = { .events = EPOLLIN, .data.fd = c->fd };
        ssize_t n;

        while (c->out_off < c->out_len) {
                n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EAGAIN)
                                return;
                        client_close(s, c);
                        return;
                }
                c->out_off += n;
        }
        free(c->out);
        c->out = NULL;
        c->out_len = c->out_off = 0;
        if (c->closing) {
                client_close(s, c);
                return;
        }
        epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
        serve_next(s, a, c); /* a pipelined request may be waiting already */
}

static void read_in(struct server *s, struct agent *a, struct client *c)
{
        char buf[16384];
        ssize_t n;

        for (;;) {
                n = recv(c->fd, buf, sizeof(buf), 0);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                        client_close(s, c);
                        return;
                }
                if (n < 0)
                        break;
                if (line_reader_feed(&c->in, buf, n) < 0) {
                        log_warn("request from pid %d uid %u too long: closing", c->peer.pid, c->peer.uid);
                        c->closing = 1;
                        queue_reply(s, c, proto_reply_error("request longer than %d bytes", TRACER_MSG_MAX));
                        return;
                }
        }
        serve_next(s, a, c);
}

void server_handle(struct server *s, struct agent *a, int fd, uint32_t events)
{
        struct client *c;

        if (fd == s->listen_fd || fd == s->tcp_fd) {
                accept_clients(s, fd);
                return;
        }
        c = client_of(s, fd);
        if (!c)
                return;
        c->last = time(NULL);
        if (events & EPOLLOUT)
                flush_out(s, a, c);
        else if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                read_in(s, a, c);
}
