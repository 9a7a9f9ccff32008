/* Unix-socket server: one line_reader and one output buffer per client. A client's requests are
 * answered in order; while a reply is still being sent, nothing more is read from it, so a
 * client holds at most one request line and one bounded reply. Reads are budgeted per wakeup
 * so that a fast writer cannot hold the loop, and slots are shared out per uid with a few kept
 * for root and SlurmUser: the SPANK plugin, prolog and epilog always get in. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "auth.h"
#include "listen.h"
#include "log.h"
#include "protocol.h"
#include "requests.h"
#include "server.h"
#include "stream.h"
#include "subuid.h"

struct client {
	int fd;
	struct peer peer;
	struct line_reader in;
	char *out; /* pending reply bytes: out[out_off..out_len) */
	size_t out_len, out_off, out_cap;
	struct reply_stream *stream; /* the rest of a reply, read from the store as it is sent */
	uint32_t events;	     /* what epoll waits for on fd */
	int closing;		     /* close once the queued reply is sent */
	int eof;		     /* input ended: answer what is buffered, then close */
	int tcp;	    /* from another node: each request carries a MUNGE credential */
	int admin;	    /* root's or SlurmUser's: held to no per-user limit, counted in none */
	int64_t last_ms;    /* last progress either way: idle clients are let go */
	int64_t partial_ms; /* since when an unterminated request line is held, 0 none */
	struct parked park; /* a request waiting for the kernel (requests.h), PARK_NONE */
};

/* Other nodes' queries must never crowd out this node's own registrations: they get at most
 * half the unreserved slots, and lose them when idle. */
#define TCP_IDLE_MS 10000
/* A wakeup reads at most this much from one client; the rest waits for the next turn. */
#define READ_BUDGET (64 * 1024)
#define READ_CHUNK (16 * 1024)
/* Refusals are logged at most once per this many seconds, with the count since. */
#define REFUSAL_LOG_MS 10000
/* Rows of a streamed reply rendered per turn. */
#define STREAM_PAGE (64 * 1024)

struct server {
	int listen_fd, tcp_fd, epfd;
	int listen_paused; /* the table is full: the control socket's connections wait queued */
	int spare_fd;	   /* given up to accept and refuse a client when out of files */
	char munge_socket[PATH_MAX];
	char path[108];
	unsigned max_clients, per_user, reserved;
	int64_t idle_ms, line_ms;
	size_t out_max;
	struct client *clients; /* max_clients slots, fd -1 when free */
	int64_t refused_logged_ms;
	unsigned refused; /* refusals not logged yet */
	uint64_t refused_total;
	unsigned parked; /* clients whose request waits (struct parked) */
	struct subuids subuids;
};

int server_open(struct server **out, const char *path, const struct tracer_config *cfg, int epfd,
		unsigned tcp_port)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct server *s;
	unsigned i;
	int err;

	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->clients = calloc(cfg->max_clients, sizeof(*s->clients));
	if (!s->clients) {
		free(s);
		return -ENOMEM;
	}
	s->max_clients = cfg->max_clients;
	listen_fd_room(s->max_clients);
	for (i = 0; i < s->max_clients; i++)
		s->clients[i].fd = -1;
	/* at most half the slots are kept back, so that users always have some */
	s->reserved = cfg->reserved_clients < s->max_clients / 2 ? cfg->reserved_clients
								 : s->max_clients / 2;
	s->per_user = cfg->max_clients_per_user;
	subuids_init(&s->subuids, cfg->sub_uid_file);
	s->idle_ms = cfg->client_idle_ms;
	s->line_ms = cfg->client_line_ms;
	s->out_max = cfg->client_buffer_bytes;
	s->epfd = epfd;
	s->tcp_fd = -1;
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	snprintf(s->munge_socket, sizeof(s->munge_socket), "%s", cfg->munge_socket);
	strcpy(s->path, path);
	s->listen_fd = listen_unix(path);
	if (s->listen_fd < 0) {
		errno = -s->listen_fd;
		goto fail;
	}
	ev.data.fd = s->listen_fd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->listen_fd, &ev) < 0)
		goto fail;
	if (tcp_port) {
		s->tcp_fd = listen_tcp(tcp_port);
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
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	if (s->tcp_fd >= 0)
		close(s->tcp_fd);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	subuids_fini(&s->subuids);
	free(s->clients);
	free(s);
	return err;
}

/* A full table leaves the control socket's connections in the kernel's queue (SOMAXCONN, see
 * listen.c) rather than refusing them: only root and SlurmUser can fill it (the others stop
 * short of the reserved slots), as when a stopped tracerd resumes with every job's prolog,
 * epilog and tasks waiting, and their requests are then carried out in turn, none refused. */
static void listener_pause(struct server *s, int pause)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = s->listen_fd };

	if (pause == s->listen_paused)
		return;
	if (epoll_ctl(s->epfd, pause ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, s->listen_fd, &ev) < 0) {
		log_error("epoll_ctl: %m");
		return;
	}
	s->listen_paused = pause;
}

static void client_close(struct server *s, struct client *c)
{
	if (c->park.kind != PARK_NONE) { /* at shutdown only: see server_handle */
		s->parked--;
		c->park.kind = PARK_NONE;
	}
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	line_reader_free(&c->in);
	free(c->out);
	reply_stream_free(c->stream);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	listener_pause(s, 0); /* a slot is free */
}

static unsigned clients_used(const struct server *s)
{
	unsigned used = 0;

	for (unsigned i = 0; i < s->max_clients; i++)
		used += s->clients[i].fd >= 0;
	return used;
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
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	unlink(s->path);
	subuids_fini(&s->subuids);
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

static void set_events(struct server *s, struct client *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = c->fd };

	if (c->events == events)
		return;
	c->events = events;
	if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0)
		log_error("epoll_ctl: %m");
}

/* One line now and then, however many are refused: a flood must not become a log flood. */
static void log_refusal(struct server *s, uid_t uid, const char *why)
{
	int64_t now = clock_mono_ms();

	s->refused++;
	s->refused_total++;
	if (s->refused_logged_ms && now - s->refused_logged_ms < REFUSAL_LOG_MS)
		return;
	if (uid == (uid_t)-1)
		log_warn("refused: %s (%u refusals since the last such line)", why, s->refused);
	else
		log_warn("refused uid %u: %s (%u refusals since the last such line)", uid, why,
			 s->refused);
	s->refused_logged_ms = now;
	s->refused = 0;
}

/* Why a new client may not have a slot, or NULL when it may. */
static const char *admit(const struct server *s, int tcp, uid_t counted, int admin)
{
	unsigned i, used = 0, tcp_used = 0, mine = 0, open = s->max_clients - s->reserved;

	for (i = 0; i < s->max_clients; i++) {
		const struct client *c = &s->clients[i];

		if (c->fd < 0)
			continue;
		used++;
		tcp_used += c->tcp;
		mine += !c->tcp && !c->admin && c->peer.owner == counted;
	}
	if (used >= s->max_clients)
		return "MaxClients reached";
	if (admin)
		return NULL;
	if (used >= open)
		return "the remaining slots are reserved for root and SlurmUser";
	if (tcp)
		return tcp_used >= (open + 1) / 2 ? "TCP clients already hold half the slots"
						  : NULL;
	return mine >= s->per_user ? "MaxClientsPerUser reached" : NULL;
}

static void accept_clients(struct server *s, struct agent *a, int lfd)
{
	struct ucred cred = { 0, (uid_t)-1, (gid_t)-1 };
	socklen_t len = sizeof(cred);
	struct client *c;
	const char *why;
	int fd, admin, tcp = lfd == s->tcp_fd;
	uid_t counted;

	for (;;) {
		if (!tcp && clients_used(s) >= s->max_clients) {
			listener_pause(s, 1);
			return;
		}
		if ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
			break;
		if (!tcp && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			log_refusal(s, (uid_t)-1, "no peer credentials");
			close(fd);
			continue;
		}
		/* a TCP peer is nobody until a request proves otherwise */
		admin = !tcp && agent_is_admin(a, &(struct peer){ .uid = cred.uid });
		/* a user namespace's uids are its owner's: they share the owner's slots */
		counted = tcp ? (uid_t)-1 : subuids_owner(&s->subuids, cred.uid);
		why = admit(s, tcp, counted, admin);
		if (why) {
			char busy[160];

			snprintf(busy, sizeof(busy), "too many clients: %s", why);
			if (proto_refuse(fd, PROTO_E_BUSY, busy) < 0)
				log_debug("client gone before the refusal: %m");
			log_refusal(s, tcp ? (uid_t)-1 : cred.uid, why);
			close(fd);
			continue;
		}
		c = client_of(s, -1);
		c->fd = fd;
		c->tcp = tcp;
		c->admin = admin;
		c->last_ms = clock_mono_ms();
		c->peer.pid = tcp ? 0 : cred.pid;
		c->peer.uid = tcp ? (uid_t)-1 : cred.uid;
		c->peer.gid = tcp ? (gid_t)-1 : cred.gid;
		c->peer.owner = counted; /* and its units, their rate and its store share */
		line_reader_init(&c->in);
		c->events = EPOLLIN;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd,
			      &(struct epoll_event){ .events = EPOLLIN, .data.fd = fd }) < 0) {
			log_error("epoll_ctl: %m");
			client_close(s, c);
		}
	}
	/* Out of files, a pending connection would keep the listener ready and the loop
	 * spinning: take it with the spare descriptor and let it go. */
	if ((errno == EMFILE || errno == ENFILE) && s->spare_fd >= 0) {
		close(s->spare_fd);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		log_refusal(s, (uid_t)-1, "out of open files");
	}
}

void server_expire(struct server *s)
{
	int64_t now = clock_mono_ms();
	unsigned i;

	for (i = 0; i < s->max_clients; i++) {
		struct client *c = &s->clients[i];

		if (c->fd < 0 || c->park.kind != PARK_NONE) /* a parked end is answered soon */
			continue;
		/* (a request line waiting behind a reply being sent is not late: it is
		 * not read until then) */
		if (c->partial_ms && (c->events & EPOLLIN) && now - c->partial_ms > s->line_ms) {
			/* best effort: the client is about to lose its slot anyway */
			if (proto_refuse(c->fd, PROTO_E_TIMEOUT, "request not completed in time") <
			    0)
				log_debug("client gone before the timeout reply: %m");
			log_refusal(s, c->peer.uid, "request line not completed in time");
			client_close(s, c);
		} else if (now - c->last_ms > (c->tcp ? TCP_IDLE_MS : s->idle_ms)) {
			log_debug("client of uid %u idle: let go", c->peer.uid);
			client_close(s, c);
		}
	}
}

/* Over TCP only queries (the op table, ops.h, says which), each inside a valid MUNGE credential
 * naming its sender. */
static struct json_object *tcp_request(struct server *s, struct agent *a, struct client *c,
				       struct json_object *outer, struct reply_stream **stream)
{
	struct json_object *req = NULL, *reply;
	struct peer peer = { 0 };
	struct parked park;
	char err[256];
	int r;

	r = auth_munge_request(s->munge_socket, agent_node(a), outer, &req, &peer.uid, &peer.gid,
			       err, sizeof(err));
	if (r < 0) {
		log_refusal(s, (uid_t)-1, err);
		c->closing = 1;
		return auth_refusal(r, err, agent_node(a));
	}
	peer.owner = peer.uid; /* another node's user: its subordinate uids are not known here */
	reply = auth_tcp_refused(req);
	if (!reply)
		reply = request_handle(a, &peer, req, stream, &park);
	if (!reply && park.kind == PARK_LISTING) /* a TCP peer's is answered at once */
		reply = request_resume(a, &park, stream);
	json_object_put(req);
	return reply;
}

/* Append n bytes to the client's output. What was sent is dropped first, so that the buffer
 * holds only what is pending, however slowly the client reads. */
static int out_append(void *ctx, const char *data, size_t n)
{
	struct client *c = ctx;

	if (c->out_off) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->out_len + n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *nb;

		while (cap < c->out_len + n)
			cap *= 2;
		nb = realloc(c->out, cap);
		if (!nb)
			return -ENOMEM;
		c->out = nb;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, data, n);
	c->out_len += n;
	return 0;
}

/* Queue a reply; the client then waits in EPOLLOUT until it is sent. A reply larger than
 * ClientBufferSize is refused whole, unless it is streamed from the store page by page. */
static void queue_reply(struct server *s, struct client *c, struct json_object *reply,
			struct reply_stream *stream)
{
	size_t len = 0;
	char *text = reply ? proto_serialize(reply, &len) : NULL;
	int r = text ? 0 : -ENOMEM;

	json_object_put(reply);
	if (text && len > s->out_max) {
		log_refusal(s, c->peer.uid, "reply larger than ClientBufferSize");
		free(text);
		reply = proto_reply_error(PROTO_E_TOO_BIG,
					  "reply larger than ClientBufferSize (%zu bytes)",
					  s->out_max);
		text = reply ? proto_serialize(reply, &len) : NULL;
		json_object_put(reply);
		r = text ? 0 : -ENOMEM;
	}
	if (!r && stream)
		r = reply_stream_head(text, &len); /* the head, left open for the rows */
	if (!r)
		r = out_append(c, text, len);
	free(text);
	if (r) {
		log_error("out of memory for a reply to uid %u: closing client", c->peer.uid);
		reply_stream_free(stream);
		client_close(s, c);
		return;
	}
	c->stream = stream;
	set_events(s, c, EPOLLOUT);
}

/* Answer the next complete request, if any. */
static void serve_next(struct server *s, struct agent *a, struct client *c)
{
	struct json_object *req = NULL, *reply;
	struct reply_stream *stream = NULL;
	char err[256], *line;
	size_t len;
	int r;

	r = line_reader_next(&c->in, &line, &len);
	if (r <= 0) {
		if (c->eof) /* nothing left to answer */
			client_close(s, c);
		return;
	}
	r = proto_parse_request(line, len, &req, err, sizeof(err));
	free(line);
	if (r) {
		char why[300];

		snprintf(why, sizeof(why), "malformed request from pid %d: %s", c->peer.pid, err);
		log_refusal(s, c->peer.uid, why);
		c->closing = 1;
		queue_reply(s, c,
			    proto_reply_error(PROTO_E_MALFORMED, "malformed request: %s", err),
			    NULL);
		return;
	}
	reply = c->tcp ? tcp_request(s, a, c, req, &stream)
		       : request_handle(a, &c->peer, req, &stream, &c->park);
	json_object_put(req);
	if (!reply && c->park.kind != PARK_NONE) {
		/* neither read nor written until server_resume hands it its reply */
		set_events(s, c, 0);
		s->parked++;
		return;
	}
	queue_reply(s, c, reply, stream);
}

uid_t server_user_of(struct server *s, uid_t uid)
{
	return subuids_owner(&s->subuids, uid);
}

struct subuids *server_subuids(struct server *s)
{
	return &s->subuids;
}

void server_stats(const struct server *s, unsigned *clients, uint64_t *refused)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->max_clients; i++)
		n += s->clients[i].fd >= 0;
	*clients = n;
	*refused = s->refused_total;
}

int server_has_parked(const struct server *s)
{
	return s->parked > 0;
}

int server_sending(const struct server *s)
{
	unsigned i;

	for (i = 0; i < s->max_clients; i++)
		if (s->clients[i].fd >= 0 && (s->clients[i].events & EPOLLOUT))
			return 1;
	return 0;
}

void server_resume(struct server *s, struct agent *a)
{
	struct reply_stream *stream;
	struct json_object *reply;
	struct parked park;
	unsigned i;

	for (i = 0; i < s->max_clients && s->parked; i++) {
		struct client *c = &s->clients[i];

		if (c->fd < 0 || c->park.kind == PARK_NONE || !request_ready(a, &c->park))
			continue;
		/* unparked before the reply is queued: a failing queue_reply closes it */
		park = c->park;
		c->park.kind = PARK_NONE;
		s->parked--;
		c->last_ms = clock_mono_ms();
		stream = NULL;
		reply = request_resume(a, &park, &stream);
		queue_reply(s, c, reply, stream);
	}
}

static void flush_out(struct server *s, struct agent *a, struct client *c)
{
	size_t page = s->out_max / 2 < STREAM_PAGE ? s->out_max / 2 : STREAM_PAGE;
	int r, filled = 0;
	ssize_t n;

	for (;;) {
		/* one page per turn: a streamed reply never sits whole in memory, and a fast
		 * reader of a big one does not hold the loop either */
		if (c->stream && !filled && c->out_len - c->out_off < page) {
			filled = 1;
			/* a streamed reply progresses by pages: one read a few bytes at a
			 * time would hold its store snapshot for ever */
			c->last_ms = clock_mono_ms();
			r = reply_stream_fill(c->stream, page, out_append, c);
			if (r < 0) { /* the head is sent already: the client sees a cut reply */
				log_error("reply to uid %u cut: %s", c->peer.uid, strerror(-r));
				client_close(s, c);
				return;
			}
			if (r == 0) {
				reply_stream_free(c->stream);
				c->stream = NULL;
			}
		}
		if (c->out_off == c->out_len) {
			if (c->stream)
				return; /* the next page on the next turn */
			break;
		}
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			client_close(s, c);
			return;
		}
		c->out_off += n;
		if (!c->stream)
			c->last_ms = clock_mono_ms();
	}
	c->out_off = c->out_len = 0;
	if (c->out_cap > READ_CHUNK) { /* give back what a big reply grew */
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	}
	if (c->closing) {
		client_close(s, c);
		return;
	}
	set_events(s, c, EPOLLIN);
	if (c->partial_ms) /* its time runs from now that it is read again */
		c->partial_ms = clock_mono_ms();
	serve_next(s, a, c); /* a pipelined request may be waiting already */
}

/* Read what this turn allows, and stop at the first complete request: the rest stays in the
 * socket (the sender's problem, not the daemon's memory) until that one is answered. */
static void read_in(struct server *s, struct agent *a, struct client *c)
{
	char buf[READ_CHUNK];
	size_t got = 0;
	ssize_t n;

	while (got < READ_BUDGET && !line_reader_has_line(&c->in)) {
		n = recv(c->fd, buf, sizeof(buf), 0);
		if (n == 0) {
			c->eof = 1;
			break;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			client_close(s, c);
			return;
		}
		got += n;
		c->last_ms = clock_mono_ms();
		if (line_reader_feed(&c->in, buf, n) < 0) {
			log_refusal(s, c->peer.uid, "request line too long");
			c->closing = 1;
			queue_reply(s, c,
				    proto_reply_error(PROTO_E_MALFORMED,
						      "request longer than %d bytes",
						      TRACER_MSG_MAX),
				    NULL);
			return;
		}
	}
	if (!line_reader_partial(&c->in))
		c->partial_ms = 0;
	else if (!c->partial_ms)
		c->partial_ms = clock_mono_ms();
	serve_next(s, a, c);
}

void server_handle(struct server *s, struct agent *a, int fd, uint32_t events)
{
	struct client *c;

	if (fd == s->listen_fd || fd == s->tcp_fd) {
		accept_clients(s, a, fd);
		return;
	}
	c = client_of(s, fd);
	if (!c)
		return;
	if (c->park.kind != PARK_NONE) {
		/* a parked client that hangs up: its request is carried out now (the end of a
		 * unit does not depend on its client listening), without the wait */
		if (events & (EPOLLHUP | EPOLLERR)) {
			s->parked--;
			if (c->park.kind != PARK_LISTING) /* a listing has no one left to read it */
				json_object_put(request_resume(a, &c->park, NULL));
			c->park.kind = PARK_NONE;
			client_close(s, c);
		}
		return;
	}
	if (c->events & EPOLLOUT) {
		if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
			flush_out(s, a, c);
	} else if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		read_in(s, a, c);
	}
}
