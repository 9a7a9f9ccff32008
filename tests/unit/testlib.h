/* Helpers the unit tests share, so that each is written once: JSON lookups that fail the test
 * when a key is missing, a scratch directory removed whole, the source tree, note lines. */
#ifndef TRACER_TESTLIB_H
#define TRACER_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* The value of key in o; fails the test when o has no such key. */
struct json_object *key(struct json_object *o, const char *key);
/* The key's value as an integer, as a string (the test fails when it is missing). */
int64_t geti(struct json_object *o, const char *key);
const char *gets_(struct json_object *o, const char *key);
/* Does o have key (null values count)? */
int has(struct json_object *o, const char *key);

/* Remove dir and everything under it: 0, or -1 with errno. */
int tl_rmtree(const char *dir);
/* The source tree (TRACER_SRCDIR, else the current directory): where etc/ and tests/ are. */
const char *srcdir(void);

/* Does one of n lines (each width bytes, as in char lines[N][width]) contain needle? */
int tl_lines_have(const char *lines, size_t width, size_t n, const char *needle);
#define has_line(lines, n, needle) tl_lines_have(&(lines)[0][0], sizeof((lines)[0]), (n), (needle))

#endif
