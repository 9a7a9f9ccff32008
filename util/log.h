/* Logging: stderr when in the foreground, syslog otherwise. */
#ifndef TRACER_LOG_H
#define TRACER_LOG_H

#include <stdint.h>

#include "config.h"

void log_open(const char *ident, int to_stderr, enum tracer_log_level level);
void log_set_level(enum tracer_log_level level);
/* A call site says LOG_BURST lines in a window of 10 s; the rest are held back and said as
 * one, its last line "... and N more like it", when the window is over. */
void log_msg(enum tracer_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Say what windows now over held back (on a timer: a flood that stopped is summed too). */
void log_flush(void);
/* Say all that is held back, windows over or not (at exit). */
void log_flush_all(void);
/* For tests: the seconds (of CLOCK_MONOTONIC by default, again with NULL) that the windows
 * follow. */
void log_set_clock(int64_t (*seconds)(void));

/* Messages carry the function name; %m works since errno is preserved. */
#define log_error(fmt, ...) log_msg(LOG_LEVEL_ERROR, "%s: " fmt, __func__, ##__VA_ARGS__)
#define log_warn(fmt, ...) log_msg(LOG_LEVEL_WARNING, "%s: " fmt, __func__, ##__VA_ARGS__)
#define log_info(fmt, ...) log_msg(LOG_LEVEL_INFO, "%s: " fmt, __func__, ##__VA_ARGS__)
#define log_debug(fmt, ...) log_msg(LOG_LEVEL_DEBUG, "%s: " fmt, __func__, ##__VA_ARGS__)

#endif
