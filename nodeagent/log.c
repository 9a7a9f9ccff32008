/* Logging: "ident: level: message" on stderr in the foreground, syslog(3) otherwise. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "safetext.h"

#define LOG_LINE_MAX 2048

static char log_ident[64] = "tracer";
static int log_to_stderr = 1; /* until log_open: tools log before they know better */
static enum tracer_log_level log_level = LOG_LEVEL_INFO;

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARNING] = "warning",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

static const int level_prio[] = {
	[LOG_LEVEL_ERROR] = LOG_ERR,
	[LOG_LEVEL_WARNING] = LOG_WARNING,
	[LOG_LEVEL_INFO] = LOG_INFO,
	[LOG_LEVEL_DEBUG] = LOG_DEBUG,
};

static enum tracer_log_level clamp_level(enum tracer_log_level level)
{
	if ((int)level < (int)LOG_LEVEL_ERROR)
		return LOG_LEVEL_ERROR;
	if ((int)level > (int)LOG_LEVEL_DEBUG)
		return LOG_LEVEL_DEBUG;
	return level;
}

void log_open(const char *ident, int to_stderr, enum tracer_log_level level)
{
	int saved = errno;

	if (ident && ident[0])
		snprintf(log_ident, sizeof(log_ident), "%s", ident);
	log_to_stderr = to_stderr;
	log_level = clamp_level(level);
	/* syslog keeps the ident pointer: ours is static storage. */
	if (!to_stderr)
		openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	errno = saved;
}

void log_set_level(enum tracer_log_level level)
{
	log_level = clamp_level(level);
}

void log_msg(enum tracer_log_level level, const char *fmt, ...)
{
	int saved = errno; /* so that %m (and the caller) see the errno of the failure */
	char msg[LOG_LINE_MAX], line[LOG_LINE_MAX + 96];
	va_list ap;
	size_t n;
	int len;

	level = clamp_level(level);
	if (level > log_level) {
		errno = saved;
		return;
	}
	va_start(ap, fmt);
	errno = saved;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	/* Messages quote outside input (ops, paths, names): one message = one log line, and
	 * nothing a terminal acts on (safetext.h) */
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	safe_text_inplace(msg, sizeof(msg));

	if (log_to_stderr) {
		/* One write per line, so lines from several processes do not interleave. */
		len = snprintf(line, sizeof(line), "%s: %s: %s\n", log_ident, level_names[level],
			       msg);
		if (len > 0) {
			size_t off = 0,
			       total = (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1;
			while (off < total) {
				ssize_t w = write(STDERR_FILENO, line + off, total - off);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					break;
				off += (size_t)w;
			}
		}
	} else {
		syslog(level_prio[level], "%s", msg);
	}
	errno = saved;
}
