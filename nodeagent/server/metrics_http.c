/* The Prometheus endpoint over HTTP (metrics_http.h). One request per connection: the head is
 * read into a fixed buffer, the reply built once from memory (metrics.h) and sent as the
 * socket takes it, then the connection is closed. Nothing here waits: a scraper that is slow
 * to send or to read only runs out its own time. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "tcp_peer.h"

/* connections taken per wakeup of the listener at most: a flood does not hold the loop */
#define ACCEPT_BUDGET 64
/* refusals are logged at most once per this many ms, with their count */
#define REFUSAL_LOG_MS 10000

struct conn {
	int fd;
	struct tcp_peer peer; /* a local user, or a remote address */
	int writing;	      /* the reply is queued: wait for EPOLLOUT */
	int64_t start_ms;     /* accepted */
	char in[METRICS_HEAD_MAX];
	size_t in_len;
	char head[512]; /* the reply's status line and headers (and an error's text) */
	size_t head_len;
	struct prom_buf body;
	size_t off; /* sent of head and body */
};

struct metrics_http {
	int fd; /* the listener, -1 while its address is not ours */
	int epfd;
	char listen[64];	      /* MetricsListen, as given */
	struct sockaddr_storage addr; /* what it says */
	unsigned addr_len;
	int error;	   /* the last try's errno while not listening */
	unsigned tries;	   /* failed in a row */
	int64_t tried_ms;  /* monotonic: the last try that failed */
	uint32_t retry_ms; /* MetricsRetryInterval */
	struct conn conns[METRICS_SCRAPERS_MAX];
	uint64_t refused;
	unsigned refused_unlogged;
	int64_t refused_logged_ms;
};

static void refusal(struct metrics_http *m, const char *why)
{
	int64_t now = clock_mono_ms();

	m->refused++;
	m->refused_unlogged++;
	if (m->refused_logged_ms && now - m->refused_logged_ms < REFUSAL_LOG_MS)
		return;
	log_warn("metrics: refused a scraper: %s (%u refusals since the last such line)", why,
		 m->refused_unlogged);
	m->refused_logged_ms = now;
	m->refused_unlogged = 0;
}

/* Bind and listen on the address: 0, or -errno with nothing kept. Another program (any local
 * user's) holding the port is no reason to stop tracing: the caller tries again later. */
static int listen_now(struct metrics_http *m)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int one = 1, fd, err;

	fd = socket(m->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ev.data.fd = fd;
	if (bind(fd, (struct sockaddr *)&m->addr, m->addr_len) < 0 || listen(fd, 16) < 0 ||
	    epoll_ctl(m->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	m->fd = fd;
	return 0;
}

/* One try; a failure is said when it is new, or the first */
static void try_listen(struct metrics_http *m)
{
	int err = listen_now(m);

	if (!err) {
		log_info("metrics: Prometheus endpoint on %s%s", m->listen,
			 m->tries ? " (its address is free again)" : "");
		m->tries = 0;
		m->error = 0;
		return;
	}
	if (!m->tries || -err != m->error)
		log_error("metrics: cannot listen on %s: %s; tracerd runs without its Prometheus "
			  "endpoint and tries again every %g s",
			  m->listen, strerror(-err), m->retry_ms / 1e3);
	m->error = -err;
	m->tries++;
	m->tried_ms = clock_mono_ms();
}

int metrics_http_open(struct metrics_http **out, const char *listen_on, uint32_t retry_ms, int epfd)
{
	struct metrics_http *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	if (config_metrics_addr(listen_on, &m->addr, &m->addr_len) ||
	    strlen(listen_on) >= sizeof(m->listen)) {
		log_error("metrics: MetricsListen '%s' is no address", listen_on);
		free(m);
		return -EINVAL;
	}
	snprintf(m->listen, sizeof(m->listen), "%s", listen_on);
	for (unsigned i = 0; i < METRICS_SCRAPERS_MAX; i++)
		m->conns[i].fd = -1;
	m->fd = -1;
	m->epfd = epfd;
	m->retry_ms = retry_ms;
	try_listen(m);
	*out = m;
	return 0;
}

void metrics_http_retry(struct metrics_http *m)
{
	if (m && m->fd < 0 && clock_mono_ms() - m->tried_ms >= m->retry_ms)
		try_listen(m);
}

void metrics_http_set_retry(struct metrics_http *m, uint32_t retry_ms)
{
	if (m)
		m->retry_ms = retry_ms;
}

struct json_object *metrics_http_status_json(const struct metrics_http *m)
{
	struct json_object *o = json_object_new_object();
	int64_t left;

	json_object_object_add(o, "enabled", json_object_new_boolean(m != NULL));
	if (!m)
		return o;
	json_object_object_add(o, "listen", json_object_new_string(m->listen));
	json_object_object_add(o, "listening", json_object_new_boolean(m->fd >= 0));
	if (m->fd >= 0)
		return o;
	left = m->tried_ms + m->retry_ms - clock_mono_ms();
	json_object_object_add(o, "error", json_object_new_string(strerror(m->error)));
	json_object_object_add(o, "tries", json_object_new_int64(m->tries));
	json_object_object_add(o, "retry_in_ms", json_object_new_int64(left > 0 ? left : 0));
	return o;
}

static void conn_close(struct metrics_http *m, struct conn *c)
{
	epoll_ctl(m->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	prom_free(&c->body);
	c->fd = -1;
}

void metrics_http_close(struct metrics_http *m)
{
	if (!m)
		return;
	for (unsigned i = 0; i < METRICS_SCRAPERS_MAX; i++)
		if (m->conns[i].fd >= 0)
			conn_close(m, &m->conns[i]);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

static struct conn *conn_of(struct metrics_http *m, int fd)
{
	for (unsigned i = 0; i < METRICS_SCRAPERS_MAX; i++)
		if (m->conns[i].fd == fd)
			return &m->conns[i];
	return NULL;
}

int metrics_http_owns(const struct metrics_http *m, int fd)
{
	if (!m || fd < 0)
		return 0;
	return fd == m->fd || conn_of((struct metrics_http *)m, fd);
}

/* Connections of peer now */
static unsigned peer_conns(struct metrics_http *m, const struct tcp_peer *peer)
{
	unsigned n = 0;

	for (unsigned i = 0; i < METRICS_SCRAPERS_MAX; i++)
		n += m->conns[i].fd >= 0 && tcp_peer_same(&m->conns[i].peer, peer);
	return n;
}

static void accept_conns(struct metrics_http *m, struct server *srv)
{
	struct tcp_peer peer;
	struct conn *c;
	int fd;

	for (unsigned n = 0; n < ACCEPT_BUDGET; n++) {
		fd = accept4(m->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warn("metrics: accept: %m");
			return;
		}
		/* one user (a user namespace's uids are its owner's) or address holds one slot at
		 * most: a user's idle sockets must not shut the site's scraper out */
		tcp_peer_of(fd, &peer);
		if (peer.kind == TCP_PEER_UID)
			peer.uid = server_user_of(srv, peer.uid);
		if (peer_conns(m, &peer) >= METRICS_PER_PEER_MAX) {
			refusal(m, "its user or address has a connection open already");
			close(fd);
			continue;
		}
		c = conn_of(m, -1);
		if (!c) { /* at the cap: closed at once, never waited on */
			refusal(m, "too many connections at once");
			close(fd);
			continue;
		}
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->peer = peer;
		c->start_ms = clock_mono_ms();
		if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, fd,
			      &(struct epoll_event){ .events = EPOLLIN, .data.fd = fd }) < 0) {
			log_error("metrics: epoll_ctl: %m");
			close(fd);
			c->fd = -1;
		}
	}
}

/* Queue the reply and wait until the socket takes it. */
static void reply(struct metrics_http *m, struct conn *c, const char *status, const char *type,
		  const char *extra, const char *text)
{
	int n = snprintf(c->head, sizeof(c->head),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n%s",
			 status, type, c->body.len + strlen(text), extra, text);

	c->head_len = n > 0 && (size_t)n < sizeof(c->head) ? (size_t)n : 0;
	c->writing = 1;
	if (epoll_ctl(m->epfd, EPOLL_CTL_MOD, c->fd,
		      &(struct epoll_event){ .events = EPOLLOUT, .data.fd = c->fd }) < 0) {
		log_error("metrics: epoll_ctl: %m");
		conn_close(m, c);
	}
}

static void reply_error(struct metrics_http *m, struct conn *c, const char *status,
			const char *extra)
{
	char text[64];

	refusal(m, status);
	prom_free(&c->body);
	/* a line that says what went wrong, for a human with curl */
	snprintf(text, sizeof(text), "%s\n", status);
	reply(m, c, status, "text/plain; charset=utf-8", extra, text);
}

/* The request line of a complete head: GET /metrics (a query string is ignored). */
static void answer(struct metrics_http *m, struct agent *a, const struct server *srv,
		   struct conn *c)
{
	char *line = c->in, *sp1, *sp2, *end;
	struct metrics_serving sv = { 0 };
	size_t tlen;

	/* a NUL would end the line early for the string functions below: malformed anyway */
	end = memchr(c->in, 0, c->in_len) ? NULL : strpbrk(c->in, "\r\n");
	if (!end) {
		reply_error(m, c, "400 Bad Request", "");
		return;
	}
	*end = 0;
	sp1 = strchr(line, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strncmp(sp2 + 1, "HTTP/1.", 7) || sp2 == sp1 + 1) {
		reply_error(m, c, "400 Bad Request", "");
		return;
	}
	*sp1 = *sp2 = 0;
	if (strcmp(line, "GET")) {
		reply_error(m, c, "405 Method Not Allowed", "Allow: GET\r\n");
		return;
	}
	tlen = strcspn(sp1 + 1, "?");
	if (tlen != strlen("/metrics") || strncmp(sp1 + 1, "/metrics", tlen)) {
		reply_error(m, c, "404 Not Found", "");
		return;
	}
	server_stats(srv, &sv.clients, &sv.client_refusals);
	for (unsigned i = 0; i < METRICS_SCRAPERS_MAX; i++)
		sv.scrapers += m->conns[i].fd >= 0;
	sv.scrape_refusals = m->refused;
	prom_init(&c->body, METRICS_REPLY_MAX);
	if (metrics_render(a, &sv, &c->body) < 0) {
		log_error("metrics: out of memory for a scrape");
		reply_error(m, c, "503 Service Unavailable", "");
		return;
	}
	reply(m, c, "200 OK", PROM_CONTENT_TYPE, "", "");
}

static int head_complete(const struct conn *c)
{
	return memmem(c->in, c->in_len, "\r\n\r\n", 4) || memmem(c->in, c->in_len, "\n\n", 2);
}

static void read_head(struct metrics_http *m, struct agent *a, const struct server *srv,
		      struct conn *c)
{
	ssize_t n;

	while (c->in_len < sizeof(c->in) - 1) {
		n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			conn_close(m, c); /* gone before its request was whole */
			return;
		}
		if (n < 0)
			return;
		c->in_len += (size_t)n;
		c->in[c->in_len] = 0;
		if (head_complete(c)) {
			answer(m, a, srv, c);
			return;
		}
	}
	/* what is left unread stays in the socket, dropped with it */
	reply_error(m, c, "431 Request Header Fields Too Large", "");
}

static void write_out(struct metrics_http *m, struct conn *c)
{
	for (;;) {
		const char *p;
		size_t left;
		ssize_t n;

		if (c->off < c->head_len) {
			p = c->head + c->off;
			left = c->head_len - c->off;
		} else if (c->off < c->head_len + c->body.len) {
			p = c->body.data + (c->off - c->head_len);
			left = c->head_len + c->body.len - c->off;
		} else {
			shutdown(c->fd, SHUT_WR);
			conn_close(m, c);
			return;
		}
		n = send(c->fd, p, left, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				conn_close(m, c);
			return;
		}
		c->off += (size_t)n;
	}
}

void metrics_http_handle(struct metrics_http *m, struct agent *a, struct server *srv, int fd,
			 uint32_t events)
{
	struct conn *c;

	if (fd == m->fd) {
		accept_conns(m, srv);
		return;
	}
	c = conn_of(m, fd);
	if (!c)
		return;
	if (c->writing)
		write_out(m, c);
	else if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		read_head(m, a, srv, c);
}

void metrics_http_expire(struct metrics_http *m)
{
	int64_t now = clock_mono_ms();

	if (!m)
		return;
	for (unsigned i = 0; i < METRICS_SCRAPERS_MAX; i++) {
		struct conn *c = &m->conns[i];

		if (c->fd < 0)
			continue;
		if (!c->writing && now - c->start_ms > METRICS_HEAD_MS) {
			refusal(m, "request not whole in time");
			conn_close(m, c);
		} else if (now - c->start_ms > METRICS_CONN_MS) {
			refusal(m, "reply not read in time");
			conn_close(m, c);
		}
	}
}
