/* Control-socket protocol, client side: bounded connect, one request, one reply line. The
 * SPANK plugin runs this inside slurmstepd, so every wait has a deadline. */
#include "clock.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Milliseconds left until deadline for poll(): -1 = forever, 0 = expired. */
static int remaining(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - clock_mono_ms();
	if (left <= 0)
		return 0;
	return left > INT32_MAX ? INT32_MAX : (int)left;
}

/* Wait for events on fd until deadline: 0 when ready, -ETIMEDOUT, or -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		int left = remaining(deadline);
		int n;

		if (left == 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > 0)
			return 0; /* ready, or HUP/ERR: the next call reports which */
	}
}

static int set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

/* Connect a new socket of this family to sa, within the deadline when timeout_ms >= 0. */
static int connect_to(int family, const struct sockaddr *sa, socklen_t salen, int timeout_ms)
{
	int64_t deadline = timeout_ms >= 0 ? clock_mono_ms() + timeout_ms : -1;
	int fd, ret;

	/* With a timeout, never block: the SPANK plugin must not stall a job on a hung daemon. */
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | (timeout_ms >= 0 ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (connect(fd, sa, salen) == 0)
			break;
		ret = -errno;
		if (ret == -EINTR && timeout_ms < 0)
			continue;
		if (ret == -EINPROGRESS) {
			int soerr = 0;
			socklen_t sl = sizeof(soerr);

			if ((ret = wait_fd(fd, POLLOUT, deadline)) < 0)
				goto fail;
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0) {
				ret = -errno;
				goto fail;
			}
			if (soerr) {
				ret = -soerr;
				goto fail;
			}
			break;
		}
		if (ret == -EAGAIN && timeout_ms >= 0 && family == AF_UNIX) {
			/* AF_UNIX says EAGAIN when the listen backlog is full; it cannot be
			 * polled, so retry briefly until the deadline. */
			int left = remaining(deadline);
			if (left == 0) {
				ret = -ETIMEDOUT;
				goto fail;
			}
			usleep((useconds_t)(left < 10 ? left : 10) * 1000);
			continue;
		}
		goto fail;
	}
	if (timeout_ms >= 0 && (ret = set_nonblock(fd, false)) < 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return ret;
}

int proto_connect(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (!path || !path[0])
		return -EINVAL;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	return connect_to(AF_UNIX, (struct sockaddr *)&sa, sizeof(sa), timeout_ms);
}

int proto_connect_tcp(const char *host, unsigned port, int timeout_ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char service[16];
	int fd = -EHOSTUNREACH;

	if (!host || !*host || !port || port > 65535)
		return -EINVAL;
	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &res) != 0)
		return -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = connect_to(ai->ai_family, ai->ai_addr, ai->ai_addrlen, timeout_ms);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	return fd;
}

static int send_all(int fd, const char *p, size_t n, int64_t deadline)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		int ret;

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return (errno == EPIPE || errno == ECONNRESET) ? -ECONNRESET
									       : -errno;
			if ((ret = wait_fd(fd, POLLOUT, deadline)) < 0)
				return ret;
			continue;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* recv without waiting: the bytes received, 0 when there are none yet (try again), or -errno
 * (-ECONNRESET also when the peer has closed). */
static ssize_t recv_now(int fd, char *buf, size_t len, int flags)
{
	ssize_t n = recv(fd, buf, len, flags | MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0)
		return errno == ECONNRESET || errno == EPIPE ? -ECONNRESET : -errno;
	return n ? n : -ECONNRESET;
}

/* Read exactly one line: peek first so that bytes after the '\n' stay in the socket for the
 * next call on this connection. */
static int recv_line(int fd, struct line_reader *lr, int64_t deadline, char **line, size_t *len)
{
	char buf[65536];

	for (;;) {
		ssize_t n;
		const char *nl;
		size_t take;
		int ret = line_reader_next(lr, line, len);

		if (ret != 0)
			return ret;
		if ((ret = wait_fd(fd, POLLIN, deadline)) < 0)
			return ret;
		if ((n = recv_now(fd, buf, sizeof(buf), MSG_PEEK)) <= 0) {
			if (n == 0)
				continue;
			return (int)n;
		}
		nl = memchr(buf, '\n', (size_t)n);
		take = nl ? (size_t)(nl - buf) + 1 : (size_t)n;
		if ((n = recv_now(fd, buf, take, 0)) <= 0) {
			if (n == 0)
				continue;
			return (int)n;
		}
		if ((ret = line_reader_feed(lr, buf, (size_t)n)) < 0)
			return ret;
	}
}

int proto_call(int fd, struct json_object *req, int timeout_ms, struct json_object **reply,
	       char *err, size_t errlen)
{
	return proto_call_max(fd, req, timeout_ms, TRACER_REPLY_MAX, reply, err, errlen);
}

/* The request whole by deadline: 0 or -errno, with a message in err except for -ECONNRESET
 * (the server closed: its refusal may wait to be read). */
static int send_request(int fd, struct json_object *req, int64_t deadline, char *err, size_t errlen)
{
	size_t mlen;
	char *msg;
	int sent;

	if (fd < 0 || !req) {
		proto_errf(err, errlen, "invalid argument");
		return -EINVAL;
	}
	msg = proto_serialize(req, &mlen);
	if (!msg) {
		proto_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	sent = send_all(fd, msg, mlen, deadline);
	free(msg);
	if (sent == -ETIMEDOUT)
		proto_errf(err, errlen, "timed out sending request");
	else if (sent < 0 && sent != -ECONNRESET)
		proto_errf(err, errlen, "sending request: %s", strerror(-sent));
	return sent < 0 ? sent : 0;
}

int proto_send(int fd, struct json_object *req, int timeout_ms, char *err, size_t errlen)
{
	int r = send_request(fd, req, timeout_ms >= 0 ? clock_mono_ms() + timeout_ms : -1, err,
			     errlen);

	if (r == -ECONNRESET)
		proto_errf(err, errlen, "connection closed while sending request");
	return r;
}

static int call(int fd, struct json_object *req, int timeout_ms, size_t max,
		const struct proto_rows *rows, struct json_object **reply, char *err, size_t errlen)
{
	int64_t deadline = timeout_ms >= 0 ? clock_mono_ms() + timeout_ms : -1;
	struct line_reader lr;
	char *line = NULL;
	size_t llen = 0;
	int ret, sent;

	if (!reply) {
		proto_errf(err, errlen, "invalid argument");
		return -EINVAL;
	}
	sent = send_request(fd, req, deadline, err, errlen);
	if (sent < 0 && sent != -ECONNRESET)
		return sent;

	/* Read the reply, also when the daemon closed before taking the whole request: a
	 * refusal (too many clients) is sent before the request is read, and waits there. */
	line_reader_init(&lr);
	/* line_reader_feed refuses a line past max before storing it: memory stays bounded */
	lr.max = max && max < TRACER_REPLY_MAX ? max : TRACER_REPLY_MAX;
	max = lr.max;
	ret = recv_line(fd, &lr, deadline, &line, &llen);
	line_reader_free(&lr);
	if (ret < 0 && sent < 0) {
		proto_errf(err, errlen, "connection closed while sending request");
		return sent;
	}
	if (ret < 0) {
		if (ret == -EMSGSIZE) {
			proto_errf(err, errlen, "reply longer than %zu bytes", max);
			ret = -EPROTO;
		} else if (ret == -ETIMEDOUT) {
			proto_errf(err, errlen, "no reply within %d ms", timeout_ms);
		} else if (ret == -ECONNRESET) {
			proto_errf(err, errlen, "connection closed before a reply");
		} else {
			proto_errf(err, errlen, "reading reply: %s", strerror(-ret));
		}
		return ret;
	}

	ret = proto_parse_reply_rows(line, llen, rows, reply, err, errlen);
	free(line);
	return ret;
}

int proto_call_max(int fd, struct json_object *req, int timeout_ms, size_t max,
		   struct json_object **reply, char *err, size_t errlen)
{
	return call(fd, req, timeout_ms, max, NULL, reply, err, errlen);
}

int proto_call_rows(int fd, struct json_object *req, int timeout_ms, const struct proto_rows *rows,
		    struct json_object **reply, char *err, size_t errlen)
{
	return call(fd, req, timeout_ms, TRACER_REPLY_MAX, rows, reply, err, errlen);
}
