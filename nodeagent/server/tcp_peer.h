/* Who is at the other end of an accepted TCP connection, for limits per peer: on loopback the
 * uid that owns the connecting socket (the kernel's socket diagnostics say it: every local user
 * connects from 127.0.0.1, so the address tells nothing), else the peer's address. */
#ifndef TRACER_TCP_PEER_H
#define TRACER_TCP_PEER_H

#include <stdint.h>
#include <sys/types.h>

enum tcp_peer_kind { TCP_PEER_UNKNOWN, TCP_PEER_UID, TCP_PEER_ADDR };

struct tcp_peer {
	enum tcp_peer_kind kind;
	uid_t uid;	  /* TCP_PEER_UID */
	uint8_t addr[16]; /* TCP_PEER_ADDR: IPv6, or IPv4 mapped into it */
};

/* fd's peer: a local socket's owner when it connected over loopback and the kernel still
 * knows the socket, else its address; TCP_PEER_UNKNOWN when neither can be told (a loopback
 * peer gone already, no socket diagnostics). Never blocks: one netlink round trip in the
 * kernel. */
void tcp_peer_of(int fd, struct tcp_peer *out);

/* Are a and b the same peer? Two unknown peers are not. */
int tcp_peer_same(const struct tcp_peer *a, const struct tcp_peer *b);

#endif
