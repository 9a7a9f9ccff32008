/* Root's clients trust a tracerd only where no other user could have put one: they run as root
 * (slurmstepd, slurmd's prolog), and a fake server could otherwise feed them replies or learn
 * every job's registrations. */
#include "clock.h"
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"

#define WRITABLE (S_IWGRP | S_IWOTH)

/* One directory on the way: root's, and writable by nobody else; an ancestor may be writable by
 * others when sticky (/tmp), as they cannot then rename or remove root's entries in it. */
static int check_dir(const char *what, const char *path, const char *dir, const struct stat *st,
		     int is_parent, char *err, size_t errlen)
{
	if (!S_ISDIR(st->st_mode)) {
		proto_errf(err, errlen, "%s %s not trusted: %s is not a directory", what, path,
			   dir);
		return -EPERM;
	}
	if (st->st_uid != 0) {
		proto_errf(err, errlen,
			   "%s %s not trusted: directory %s is owned by uid %u, not root", what,
			   path, dir, (unsigned)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & WRITABLE) && (is_parent || !(st->st_mode & S_ISVTX))) {
		proto_errf(err, errlen,
			   "%s %s not trusted: directory %s is writable by %s (mode %04o)", what,
			   path, dir, st->st_mode & S_IWOTH ? "all users" : "its group",
			   (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int trust_parent(const char *what, const char *path, char *real, int *dfd_out, char *err,
		 size_t errlen)
{
	char *comp, *end, *slash = strrchr(real, '/'); /* real is absolute: there is one */
	struct stat st;
	int dfd, next, ret;

	dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		ret = -errno;
		proto_errf(err, errlen, "cannot check %s: /: %s", path, strerror(errno));
		goto out;
	}
	if ((ret = check_dir(what, path, "/", &st, slash == real, err, errlen)) < 0)
		goto out;
	/* down from "/", each component opened without following a link, relative to the last */
	for (comp = real + 1; comp < slash; comp = end + 1) {
		end = strchr(comp, '/');
		*end = '\0';
		next = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0) {
			ret = -errno;
			proto_errf(err, errlen, "%s %s not trusted: %s: %s", what, path, real,
				   errno == ELOOP || errno == ENOTDIR
					   ? "a component changed into a link"
					   : strerror(errno));
			*end = '/';
			if (next >= 0)
				close(next);
			if (ret == -ELOOP || ret == -ENOTDIR)
				ret = -EPERM;
			goto out;
		}
		close(dfd);
		dfd = next;
		ret = check_dir(what, path, real, &st, end == slash, err, errlen);
		*end = '/';
		if (ret < 0)
			goto out;
	}
	*dfd_out = dfd;
	return 0;
out:
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int trust_socket_path(const char *path, char *resolved, size_t len, char *err, size_t errlen)
{
	char real[PATH_MAX], *slash;
	struct stat st;
	int dfd, ret;

	if (!path || !*path || !resolved || !len) {
		proto_errf(err, errlen, "no socket path");
		return -EINVAL;
	}
	/* links are followed here only: every component of the result is checked as is */
	if (!realpath(path, real)) {
		ret = -errno;
		proto_errf(err, errlen, "cannot connect to %s: %s", path, strerror(errno));
		return ret;
	}
	if (strlen(real) >= len) {
		proto_errf(err, errlen, "socket path %s too long", real);
		return -ENAMETOOLONG;
	}
	if ((ret = trust_parent("socket", path, real, &dfd, err, errlen)) < 0)
		return ret;
	slash = strrchr(real, '/');
	if (fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = -errno;
		proto_errf(err, errlen, "cannot connect to %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISSOCK(st.st_mode)) {
		ret = -EPERM;
		proto_errf(err, errlen, "socket %s not trusted: %s is not a socket", path, real);
		goto out;
	}
	memcpy(resolved, real, strlen(real) + 1);
	ret = 0;
out:
	close(dfd);
	return ret;
}

int trust_peer(int fd, const char *path, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t sl = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &sl) < 0) {
		int ret = -errno;

		proto_errf(err, errlen, "socket %s: cannot tell who serves it: %s", path,
			   strerror(errno));
		return ret;
	}
	if (cred.uid != 0) {
		proto_errf(err, errlen,
			   "socket %s not trusted: its server (pid %d) runs as uid %u, not root",
			   path, (int)cred.pid, (unsigned)cred.uid);
		return -EPERM;
	}
	return 0;
}

int trust_connect(const char *path, int timeout_ms, char *err, size_t errlen)
{
	char real[PATH_MAX];
	int fd, ret;

	if ((ret = trust_socket_path(path, real, sizeof(real), err, errlen)) < 0)
		return ret;
	fd = proto_connect(real, timeout_ms);
	if (fd < 0) {
		proto_errf(err, errlen, "cannot connect to %s: %s", path, strerror(-fd));
		return fd;
	}
	if ((ret = trust_peer(fd, path, err, errlen)) < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/* One exchange with a trusted tracerd: the reply read into *reply, or (reply NULL) the request
 * only sent. One deadline for the whole exchange: connecting spends part of it. */
static int exchange(const char *path, struct json_object *req, int timeout_ms,
		    struct json_object **reply, char *err, size_t errlen)
{
	int64_t t0 = clock_mono_ms();
	char why[256] = "";
	int fd, left, ret;

	fd = trust_connect(path, timeout_ms, err, errlen);
	if (fd < 0)
		return fd;
	left = timeout_ms < 0 ? -1 : timeout_ms - (int)(clock_mono_ms() - t0);
	if (timeout_ms >= 0 && left < 1)
		left = 1;
	ret = reply ? proto_call_max(fd, req, left, TRACER_ROOT_REPLY_MAX, reply, why, sizeof(why))
		    : proto_send(fd, req, left, why, sizeof(why));
	close(fd);
	if (ret < 0)
		proto_errf(err, errlen, "tracerd at %s: %s", path, why);
	return ret;
}

int trust_call(const char *path, struct json_object *req, int timeout_ms,
	       struct json_object **reply, char *err, size_t errlen)
{
	*reply = NULL;
	return exchange(path, req, timeout_ms, reply, err, errlen);
}

int trust_send(const char *path, struct json_object *req, int timeout_ms, char *err, size_t errlen)
{
	return exchange(path, req, timeout_ms, NULL, err, errlen);
}
