/* Logging: stderr when in the foreground, syslog otherwise. */
#ifndef TRACER_LOG_H
#define TRACER_LOG_H

#include "config.h"

void log_open(const char *ident, int to_stderr, enum tracer_log_level level);
void log_set_level(enum tracer_log_level level);
void log_msg(enum tracer_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Messages carry the function name; %m works since errno is preserved. */
#define log_error(fmt, ...) log_msg(LOG_LEVEL_ERROR, "%s: " fmt, __func__, ##__VA_ARGS__)
#define log_warn(fmt, ...) log_msg(LOG_LEVEL_WARNING, "%s: " fmt, __func__, ##__VA_ARGS__)
#define log_info(fmt, ...) log_msg(LOG_LEVEL_INFO, "%s: " fmt, __func__, ##__VA_ARGS__)
#define log_debug(fmt, ...) log_msg(LOG_LEVEL_DEBUG, "%s: " fmt, __func__, ##__VA_ARGS__)

#endif
