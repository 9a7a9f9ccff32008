/* The peer of a TCP connection (tcp_peer.h), through NETLINK_SOCK_DIAG for loopback peers. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "log.h"
#include "tcp_peer.h"

/* An address as IPv6 (IPv4 mapped), and whether it is loopback */
static int addr_of(const struct sockaddr_storage *ss, uint8_t out[16], int *loopback)
{
	static const uint8_t v6_loop[16] = { [15] = 1 };

	memset(out, 0, 16);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		out[10] = out[11] = 0xff;
		memcpy(out + 12, &s4->sin_addr, 4);
		*loopback = out[12] == 127;
		return 0;
	}
	if (ss->ss_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
		*loopback = !memcmp(out, v6_loop, 16) ||
			    (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)out) && out[12] == 127);
		return 0;
	}
	return -EAFNOSUPPORT;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
					: ((const struct sockaddr_in6 *)ss)->sin6_port;
}

static void put_addr(__be32 *dst, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		memcpy(dst, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	else
		memcpy(dst, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
}

/* The uid owning the socket that connected from peer to local (its source is our peer) */
static int loopback_uid(const struct sockaddr_storage *local, const struct sockaddr_storage *peer,
			uid_t *uid)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg = {
		.nlh = { .nlmsg_len = sizeof(msg),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST },
		.req = { .sdiag_family = (uint8_t)peer->ss_family,
			 .sdiag_protocol = IPPROTO_TCP,
			 .idiag_states = ~0u },
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	union {
		struct nlmsghdr h;
		char buf[1024];
	} reply;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	ssize_t n;
	int fd, err = -ENOENT;

	msg.req.id.idiag_sport = port_of(peer);
	msg.req.id.idiag_dport = port_of(local);
	put_addr(msg.req.id.idiag_src, peer);
	put_addr(msg.req.id.idiag_dst, local);
	msg.req.id.idiag_cookie[0] = msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	/* the kernel answers at once; a bound all the same, the loop must not wait */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
		err = -errno;
		goto out;
	}
	n = recv(fd, &reply, sizeof(reply), 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	for (struct nlmsghdr *h = &reply.h; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
		    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
			*uid = ((struct inet_diag_msg *)NLMSG_DATA(h))->idiag_uid;
			err = 0;
			break;
		}
		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
			break;
	}
out:
	close(fd);
	return err;
}

void tcp_peer_of(int fd, struct tcp_peer *out)
{
	struct sockaddr_storage local, peer;
	socklen_t llen = sizeof(local), plen = sizeof(peer);
	int loopback = 0;

	memset(out, 0, sizeof(*out));
	if (getsockname(fd, (struct sockaddr *)&local, &llen) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &plen) < 0 ||
	    addr_of(&peer, out->addr, &loopback) < 0)
		return;
	if (!loopback) {
		out->kind = TCP_PEER_ADDR;
		return;
	}
	if (loopback_uid(&local, &peer, &out->uid) == 0)
		out->kind = TCP_PEER_UID;
	else
		log_debug("tcp_peer_of: the local socket behind fd %d is not known", fd);
}

int tcp_peer_same(const struct tcp_peer *a, const struct tcp_peer *b)
{
	if (a->kind != b->kind || a->kind == TCP_PEER_UNKNOWN)
		return 0;
	return a->kind == TCP_PEER_UID ? a->uid == b->uid : !memcmp(a->addr, b->addr, 16);
}
