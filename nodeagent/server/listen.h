/* The sockets tracerd listens on, and room for the files its clients hold. */
#ifndef TRACER_LISTEN_H
#define TRACER_LISTEN_H

/* A listening unix socket at path, mode 0666 set before bind (no chmod of a path that could be
 * swapped for a link); a stale socket there is replaced. Returns the fd or -errno. */
int listen_unix(const char *path);
/* A listening TCP socket on port: IPv6 any with IPv4 mapped, else IPv4 any. fd or -errno. */
int listen_tcp(unsigned port);
/* Raise the open-files limit to what max_clients clients may hold, or say it cannot. */
void listen_fd_room(unsigned max_clients);

#endif
