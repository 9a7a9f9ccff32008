/* Logging: "ident: level: message" on stderr in the foreground, syslog(3) otherwise. A line
 * said again and again (a user's flood of requests) is said LOG_BURST times a window, then
 * summed: its last one, "... and N more like it". */
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "safetext.h"

#define LOG_LINE_MAX 2048
#define LOG_BURST 10	/* lines of one call site per window */
#define LOG_WINDOW_S 10 /* seconds */
#define LOG_SITES 16	/* call sites followed at once; one whose window is over gives way */

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

/* The sites below are shared by tracerd's threads (the loop and the export thread) */
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;

/* A call site (its format string) and its lines in the current window. */
static struct log_site {
	const char *fmt;
	int64_t window;
	unsigned lines, held; /* said, and held back, in this window */
	enum tracer_log_level level;
	char last[LOG_LINE_MAX]; /* the last held back */
} sites[LOG_SITES],
	/* the lines of every further site while all LOG_SITES are in their window, summed as
	 * one site's: a site given a fresh entry would start a fresh burst */
	other_sites;

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

static void emit(enum tracer_log_level level, const char *msg)
{
	char line[LOG_LINE_MAX + 96];
	int len;

	if (!log_to_stderr) {
		syslog(level_prio[level], "%s", msg);
		return;
	}
	/* One write per line, so lines from several processes do not interleave. */
	len = snprintf(line, sizeof(line), "%s: %s: %s\n", log_ident, level_names[level], msg);
	if (len > 0) {
		size_t off = 0, total = (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1;
		while (off < total) {
			ssize_t w = write(STDERR_FILENO, line + off, total - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
}

static int64_t monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static int64_t (*clock_s)(void) = monotonic_s;

void log_set_clock(int64_t (*seconds)(void))
{
	clock_s = seconds ? seconds : monotonic_s;
}

static int64_t window_now(void)
{
	return clock_s() / LOG_WINDOW_S;
}

/* The window of a site is over: what it held back is said, summed in its last line. */
static void site_close(struct log_site *st)
{
	char line[LOG_LINE_MAX + 64];

	if (st->held == 1)
		emit(st->level, st->last);
	else if (st->held > 1) {
		snprintf(line, sizeof(line), "%s ... and %u more like it%s", st->last, st->held - 1,
			 st == &other_sites ? " or of other call sites" : "");
		emit(st->level, line);
	}
	st->lines = st->held = 0;
	st->window = window_now();
}

/* May an entry be given to another site: free, or with nothing said in the current window
 * (its burst and what it held are over)? */
static int spare(const struct log_site *st, int64_t now)
{
	return !st->fmt || st->window != now || (!st->lines && !st->held);
}

/* Whether this line of the call site fmt is said now; if not, it is held back and counted. */
static int site_admits(const char *fmt, enum tracer_log_level level, const char *msg)
{
	struct log_site *st = NULL, *free_st = NULL;
	int64_t now = window_now();

	for (size_t i = 0; i < LOG_SITES && !st; i++) {
		if (sites[i].fmt == fmt)
			st = &sites[i];
		else if (spare(&sites[i], now) &&
			 (!free_st || !sites[i].fmt ||
			  (free_st->fmt && sites[i].window < free_st->window)))
			free_st = &sites[i];
	}
	if (!st && free_st) {
		st = free_st;
		if (st->fmt)
			site_close(st);
		st->fmt = fmt;
		st->window = now;
	} else if (!st) {
		st = &other_sites;
	}
	if (st->window != now)
		site_close(st);
	if (st->lines < LOG_BURST) {
		st->lines++;
		return 1;
	}
	st->held++;
	st->level = level;
	snprintf(st->last, sizeof(st->last), "%s", msg);
	return 0;
}

void log_msg(enum tracer_log_level level, const char *fmt, ...)
{
	int saved = errno; /* so that %m (and the caller) see the errno of the failure */
	char msg[LOG_LINE_MAX];
	va_list ap;
	size_t n;

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
	pthread_mutex_lock(&sites_lock);
	if (site_admits(fmt, level, msg))
		emit(level, msg);
	pthread_mutex_unlock(&sites_lock);
	errno = saved;
}

/* Close the sites whose window is over, or every site (all). */
static void flush(int all)
{
	int64_t now = window_now();
	int saved = errno;

	pthread_mutex_lock(&sites_lock);
	for (size_t i = 0; i < LOG_SITES; i++)
		if (sites[i].fmt && (all || sites[i].window != now))
			site_close(&sites[i]);
	if (all || other_sites.window != now)
		site_close(&other_sites);
	pthread_mutex_unlock(&sites_lock);
	errno = saved;
}

void log_flush(void)
{
	flush(0);
}

void log_flush_all(void)
{
	flush(1);
}
