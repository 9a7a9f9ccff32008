/* Which tracerd root's own clients (the SPANK plugin in slurmstepd, tracer-prolog, tracer-epilog)
 * may talk to: only one that no other user could have put in tracerd's place. */
#ifndef TRACER_TRUST_H
#define TRACER_TRUST_H

#include <stddef.h>
#include <json-c/json.h>

/* Longest reply root's clients read: theirs are a few hundred bytes, and slurmstepd must not
 * buffer whatever a server chooses to send. */
#define TRACER_ROOT_REPLY_MAX (64 * 1024)

/* Check the socket at path: it resolves (links followed once, by realpath) to a socket whose
 * directory is owned by root and not group- or world-writable, and whose every ancestor is owned
 * by root and not group- or world-writable unless sticky. Each component is checked without
 * following links, from "/" down. Writes the resolved path to resolved[len]. Returns 0,
 * -EPERM when the path is not trusted, or another negative errno (-ENOENT: no socket there);
 * err says which path and what is wrong. */
int trust_socket_path(const char *path, char *resolved, size_t len, char *err, size_t errlen);

/* The directory of real (an absolute path without links, as realpath gives it), checked as
 * trust_socket_path checks a socket's: from "/" down, each component opened without following a
 * link, every one root's and writable by nobody else (an ancestor may be when sticky). Its
 * descriptor (O_PATH, for openat; the caller closes it) in *dfd: what is then opened from it
 * by name without following a link is what was checked. 0, -EPERM with err saying
 * "WHAT PATH not trusted: ...", or another negative errno. */
int trust_parent(const char *what, const char *path, char *real, int *dfd, char *err,
		 size_t errlen);

/* Is the server on connected unix socket fd root (SO_PEERCRED)? 0 or -EPERM, err naming path. */
int trust_peer(int fd, const char *path, char *err, size_t errlen);

/* Connect to a trusted socket (both checks above, before anything is sent) within timeout_ms.
 * Returns the fd or a negative errno with a message in err. */
int trust_connect(const char *path, int timeout_ms, char *err, size_t errlen);

/* One exchange with a trusted tracerd, reading a reply of at most TRACER_ROOT_REPLY_MAX bytes,
 * all within timeout_ms. Returns 0 and *reply (caller puts), or a negative errno with err. */
int trust_call(const char *path, struct json_object *req, int timeout_ms,
	       struct json_object **reply, char *err, size_t errlen);

/* trust_call's request without the wait for its reply: sent whole within timeout_ms, and the
 * connection closed (tracerd carries out a request whose sender has gone). 0 or -errno. */
int trust_send(const char *path, struct json_object *req, int timeout_ms, char *err, size_t errlen);

#endif
