/* Listening sockets: the control socket's mode is set before it is reachable. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "listen.h"
#include "log.h"

/* TCP for other nodes' queries: IPv6 any with IPv4 mapped, or IPv4 any where v6 is off */
int listen_tcp(unsigned port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
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

/* Bind the unix socket with its final mode: the mode is set on the socket before bind (and the
 * umask kept out of it), so no chmod ever follows a path that someone could swap for a link. */
int listen_unix(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, r, err;

	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0666) < 0)
		goto fail;
	/* a stale socket from a crashed daemon would make bind fail */
	if (unlink(path) < 0 && errno != ENOENT)
		goto fail;
	old = umask(0);
	r = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old);
	/* The kernel's most (net.core.somaxconn, 4096 by default): while tracerd is stopped or
	 * hung, every job's prolog, epilog and tasks leave their request in this queue, and a
	 * request refused for want of room never reaches tracerd. */
	if (r < 0 || listen(fd, SOMAXCONN) < 0)
		goto fail;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/* Each client may hold its socket and a store reader (three files): make room for all of them,
 * or say that MaxClients cannot be reached. */
void listen_fd_room(unsigned max_clients)
{
	rlim_t need = (rlim_t)max_clients * 4 + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < need)
		log_warn("open files limited to %llu, fewer than MaxClients needs (%llu)",
			 (unsigned long long)rl.rlim_cur, (unsigned long long)need);
}
