/* The export cursors' file (cursor.h): one line per signal, "traces 1234". */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"
#include "export_config.h"
#include "log.h"
#include "readfile.h"

#define CURSOR_TEXT_MAX (EXPORT_SIGNALS * (CURSOR_URL_MAX + 48))

int cursor_load(const char *path, int64_t seq[EXPORT_SIGNALS],
		char url[EXPORT_SIGNALS][CURSOR_URL_MAX])
{
	int64_t got[EXPORT_SIGNALS] = { 0 };
	char urls[EXPORT_SIGNALS][CURSOR_URL_MAX] = { { 0 } };
	char *text, *line, *save = NULL, err[256];
	size_t len;
	int r, sig;

	r = readfile(path, CURSOR_TEXT_MAX, 0, &text, &len, err, sizeof(err));
	if (r == -ENOENT) {
		memset(seq, 0, sizeof(got));
		memset(url, 0, sizeof(urls));
		return r;
	}
	if (r < 0) {
		log_error("%s", err);
		return r;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[16], *end;
		long long v;
		int used = 0;

		if (sscanf(line, "%15s %n", name, &used) != 1 || !used)
			goto bad;
		for (sig = 0; sig < EXPORT_SIGNALS; sig++)
			if (!strcmp(name, export_signal_names[sig]))
				break;
		errno = 0;
		v = strtoll(line + used, &end, 10);
		if (sig == EXPORT_SIGNALS || errno || end == line + used || v < 0)
			goto bad;
		if (*end == ' ') {
			end++;
			if (strlen(end) >= CURSOR_URL_MAX || strchr(end, ' ') ||
			    strncmp(end, "http", 4))
				goto bad;
			snprintf(urls[sig], CURSOR_URL_MAX, "%s", end);
		} else if (*end) {
			goto bad;
		}
		got[sig] = v;
	}
	free(text);
	memcpy(seq, got, sizeof(got));
	memcpy(url, urls, sizeof(urls));
	return 0;
bad:
	free(text);
	log_error("%s does not read as export cursors: not used", path);
	return -EINVAL;
}

int cursor_save(const char *path, const int64_t seq[EXPORT_SIGNALS],
		const char *const url[EXPORT_SIGNALS])
{
	char tmp[PATH_MAX], dir[PATH_MAX], text[CURSOR_TEXT_MAX];
	size_t len = 0;
	int fd, dfd, err = 0;

	for (int sig = 0; sig < EXPORT_SIGNALS; sig++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %" PRId64 "%s%.*s\n",
					export_signal_names[sig], seq[sig],
					url[sig] && *url[sig] ? " " : "", CURSOR_URL_MAX - 1,
					url[sig] ? url[sig] : "");
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		log_error("%s: %m", tmp);
		return err;
	}
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		err = errno ? -errno : -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		log_error("cannot write %s: %s", path, strerror(-err));
		unlink(tmp);
		return err;
	}
	/* the rename itself, past a power loss */
	snprintf(dir, sizeof(dir), "%s", path);
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}
