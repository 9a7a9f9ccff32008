/* Just enough JSON for the correlate library: walk the members of one object and decode
 * strings, without building anything. Internal header. */
#ifndef TRACER_CORRELATE_JSON_H
#define TRACER_CORRELATE_JSON_H

#include <stddef.h>

#include "words.h"

#define JSON_DEPTH_MAX 32

/* The next member of the object obj (the whole "{...}" text). *pos starts at 0. Returns 1
 * with the raw key (quotes included) and raw value, 0 after the last member, -EINVAL when the
 * text is not a well-formed object (as far as it is read). */
int json_next_member(struct word obj, size_t *pos, struct word *key, struct word *val);

/* The raw value of the first member named key, or -ENOENT / -EINVAL. */
int json_get(struct word obj, const char *key, struct word *val);

/* Decode a raw JSON string (quotes included) into buf (NUL-terminated, cut to fit; \u escapes
 * outside ASCII become '?'). Returns 0, or -EINVAL when raw is not a string. */
int json_string(struct word raw, char *buf, size_t size);

#endif
