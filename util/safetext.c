/* Escaping text that others wrote before it is printed (safetext.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "safetext.h"

#define UNIT_MAX 8 /* the longest unit written: "\u202e" and its NUL */

/* The length of the valid UTF-8 sequence at s (n bytes left) and its code point; 0 when it is
 * not one (a stray or cut byte, an overlong form, a surrogate, beyond U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0];
	size_t l;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		l = 2, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		l = 3, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		l = 4, c &= 0x07;
	else
		return 0;
	if (n < l)
		return 0;
	for (size_t i = 1; i < l; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((l == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (l == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return l;
}

/* Characters that are valid but act on the terminal or on the order text is shown in */
static int hidden_control(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* The unit at s as it is printed (into unit, its length returned) and the bytes it stands
 * for (*used); *same when it is printed as it is. */
static size_t next_unit(const unsigned char *s, size_t n, char unit[UNIT_MAX], size_t *used,
			int *same)
{
	uint32_t c;
	size_t l = utf8_seq(s, n, &c);

	*same = 0;
	if (!l || (l == 1 && (c < 0x20 || c == 0x7f))) {
		*used = 1;
		return (size_t)snprintf(unit, UNIT_MAX, "\\x%02x", s[0]);
	}
	*used = l;
	if (hidden_control(c))
		return (size_t)snprintf(unit, UNIT_MAX, "\\u%04x", (unsigned)c);
	memcpy(unit, s, l);
	*same = 1;
	return l;
}

size_t safe_text(char *out, size_t len, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = 0, used, ul;
	char unit[UNIT_MAX];
	int same;

	if (!len)
		return 0;
	while (n) {
		ul = next_unit(p, n, unit, &used, &same);
		if (at + ul >= len)
			break;
		memcpy(out + at, unit, ul);
		at += ul;
		p += used;
		n -= used;
	}
	out[at] = 0;
	return at;
}

/* Would safe_text print these n bytes as they are? */
static int clean(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char unit[UNIT_MAX];
	size_t used;
	int same;

	for (; n; p += used, n -= used) {
		if (*p >= 0x20 && *p < 0x7f) { /* the common case: printable ASCII */
			used = 1;
			continue;
		}
		next_unit(p, n, unit, &used, &same);
		if (!same)
			return 0;
	}
	return 1;
}

void safe_text_inplace(char *buf, size_t len)
{
	size_t n = len ? strnlen(buf, len) : 0;
	char *copy;

	if (n == len && len) /* not terminated within len: cut to it */
		buf[--n] = 0;
	if (!len || clean(buf, n))
		return;
	copy = malloc(n);
	if (!copy) { /* out of memory: still nothing a terminal acts on */
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
				buf[i] = '?';
		return;
	}
	memcpy(copy, buf, n);
	safe_text(buf, len, copy, n);
	free(copy);
}

void safe_text_fputs(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), used, ul;
	char unit[UNIT_MAX];
	int same;

	for (; n; p += used, n -= used) {
		ul = next_unit(p, n, unit, &used, &same);
		fwrite(unit, 1, ul, f);
	}
}

/* A string's escaped copy (caller frees), NULL when out of memory */
static char *escaped(const char *s, size_t n)
{
	size_t cap = n * 6 + 1; /* a byte grows to 4 at most, 2 bytes to 6, 3 bytes to 6 */
	char *e = malloc(cap);

	if (e)
		safe_text(e, cap, s, n);
	return e;
}

static int json_object_keys(struct json_object *o)
{
	char *key;
	struct json_object *v;
	int again = 1;

	/* a key is renamed by taking its value out and putting it back: never while iterating */
	while (again) {
		again = 0;
		json_object_object_foreach(o, k, val) {
			if (!clean(k, strlen(k))) {
				if (!(key = escaped(k, strlen(k))))
					return -ENOMEM;
				v = json_object_get(val);
				json_object_object_del(o, k);
				json_object_object_add(o, key, v);
				free(key);
				again = 1;
				break;
			}
		}
	}
	return 0;
}

int safe_text_json(struct json_object *o)
{
	char *e;
	int r = 0;

	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *s = json_object_get_string(o);
		size_t n = (size_t)json_object_get_string_len(o);

		if (clean(s, n))
			return 0;
		if (!(e = escaped(s, n)))
			return -ENOMEM;
		r = json_object_set_string(o, e) ? 0 : -ENOMEM;
		free(e);
		return r;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o) && !r; i++)
			r = safe_text_json(json_object_array_get_idx(o, i));
		return r;
	case json_type_object:
		if ((r = json_object_keys(o)) < 0)
			return r;
		json_object_object_foreach(o, k, val) {
			(void)k;
			if ((r = safe_text_json(val)) < 0)
				return r;
		}
		return 0;
	default:
		return 0;
	}
}

size_t safe_text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

size_t safe_text_prefix(const char *s, size_t cols)
{
	size_t at = 0;

	while (s[at] && cols) {
		at++;
		while (((unsigned char)s[at] & 0xc0) == 0x80)
			at++;
		cols--;
	}
	return at;
}
