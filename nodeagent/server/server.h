/* The control socket: accepts clients, frames their requests, queues replies. Every client is
 * bounded (slots per uid, buffered bytes, time) so that no user can crowd out another's
 * tracing, and root and SlurmUser always find a slot. */
#ifndef TRACER_SERVER_H
#define TRACER_SERVER_H

#include <stdint.h>
#include <sys/types.h>
#include "agent.h"

struct server;

/* Bind path (mode 0666, set before it is reachable: authorisation is per request, by
 * SO_PEERCRED) and add it to epfd; with tcp_port, also answer other nodes' queries there,
 * authenticated by MUNGE. Limits come from cfg (MaxClients, MaxClientsPerUser, ...). */
int server_open(struct server **out, const char *path, const struct tracer_config *cfg, int epfd,
		unsigned tcp_port);
void server_close(struct server *s);
/* Is fd one of ours (the listener or a client)? */
int server_owns(const struct server *s, int fd);
/* Let go of idle clients, slow readers and unfinished requests (call now and then). */
void server_expire(struct server *s);
/* Answer the parked requests that can be answered (requests.h, struct parked); from the loop. */
void server_resume(struct server *s, struct agent *a);
int server_has_parked(const struct server *s);
/* Clients connected now, and clients and requests refused since the start. */
void server_stats(const struct server *s, unsigned *clients, uint64_t *refused);
/* The user whose share uid counts in: the owner of the /etc/subuid range that holds it, else
 * uid itself (what the control socket's per-user limits count by, for other listeners too). */
uid_t server_user_of(struct server *s, uid_t uid);
/* The subordinate uid ranges server_user_of counts by (subuid.h). */
struct subuids *server_subuids(struct server *s);
/* Some client's reply is queued and not sent yet. */
int server_sending(const struct server *s);
/* Handle readiness of one of our fds. */
void server_handle(struct server *s, struct agent *a, int fd, uint32_t events);

#endif
