/* Escaping text that others wrote before it is printed (safetext.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "safetext.h"

#define UNIT_MAX 11 /* the longest unit written: "\U000e0041" and its NUL */
/* The most bytes written per byte read: "\xHH" for one byte; "\uHHHH" is written for 2 or 3
 * bytes and "\U000HHHHH" for 4. */
#define GROWTH_MAX 4

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

size_t safe_text_char(const char *s, size_t n, uint32_t *cp)
{
	return n ? utf8_seq((const unsigned char *)s, n, cp) : 0;
}

/* Characters that are valid but act on the terminal or on the order text is shown in, or that
 * show as nothing and so make two different names look the same */
static int hidden_control(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x61c || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0xfeff || (c >= 0xe0000 && c <= 0xe007f);
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
		return c > 0xffff ? (size_t)snprintf(unit, UNIT_MAX, "\\U%08x", (unsigned)c)
				  : (size_t)snprintf(unit, UNIT_MAX, "\\u%04x", (unsigned)c);
	memcpy(unit, s, l);
	*same = 1;
	return l;
}

size_t safe_text_cut(char *out, size_t len, const char *s, size_t n, size_t *read)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = 0, used, ul, left = n;
	char unit[UNIT_MAX];
	int same;

	if (len) {
		while (left) {
			ul = next_unit(p, left, unit, &used, &same);
			if (at + ul >= len)
				break;
			memcpy(out + at, unit, ul);
			at += ul;
			p += used;
			left -= used;
		}
		out[at] = 0;
	}
	if (read)
		*read = n - left;
	return at;
}

size_t safe_text(char *out, size_t len, const char *s, size_t n)
{
	return safe_text_cut(out, len, s, n, NULL);
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
	size_t cap = n * GROWTH_MAX + 1;
	char *e = malloc(cap);

	if (e)
		safe_text(e, cap, s, n);
	return e;
}

/* The escaped copy of key k that no other key of o has: a key that escapes to one already
 * there (a literal "\\x1b" beside an ESC) gets " (2)", " (3)"... so neither value is lost.
 * Caller frees; NULL when out of memory. */
static char *free_key(struct json_object *o, const char *k)
{
	size_t n = strlen(k);
	char *e = escaped(k, n), *key;
	size_t cap = n * GROWTH_MAX + 24;

	if (!e || !json_object_object_get_ex(o, e, NULL))
		return e;
	key = malloc(cap);
	for (unsigned i = 2; key; i++) {
		snprintf(key, cap, "%s (%u)", e, i);
		if (!json_object_object_get_ex(o, key, NULL))
			break;
	}
	free(e);
	return key;
}

/* Rename every key of o that escaping changes: found in one pass, then renamed (a key is
 * renamed by taking its value out and putting it back: never while iterating). */
static int json_object_keys(struct json_object *o)
{
	char **dirty = NULL, *key;
	size_t n = 0, i;
	int r = 0;

	json_object_object_foreach(o, k, val) {
		(void)val;
		if (clean(k, strlen(k)))
			continue;
		if (!dirty &&
		    !(dirty = calloc((size_t)json_object_object_length(o), sizeof(*dirty))))
			return -ENOMEM;
		if (!(dirty[n++] = strdup(k))) {
			r = -ENOMEM;
			break;
		}
	}
	for (i = 0; i < n && !r; i++) {
		struct json_object *v;

		if (!(key = free_key(o, dirty[i]))) {
			r = -ENOMEM;
			break;
		}
		if (!json_object_object_get_ex(o, dirty[i], &v)) {
			free(key);
			continue;
		}
		json_object_get(v);
		json_object_object_del(o, dirty[i]);
		json_object_object_add(o, key, v);
		free(key);
	}
	for (i = 0; i < n; i++)
		free(dirty[i]);
	free(dirty);
	return r;
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

/* Code points whose display columns are not 1, sorted: combining marks and the characters
 * that show as nothing take none, East Asian wide and fullwidth ones and emoji take 2 (as
 * wcwidth(3) has them in a UTF-8 locale, for the common scripts; a terminal with other tables
 * may differ on a rare character). */
static const struct width_range {
	uint32_t lo, hi;
	unsigned char cols;
} widths[] = {
	{ 0x0300, 0x036f, 0 },	 { 0x0483, 0x0489, 0 },	  { 0x0591, 0x05bd, 0 },
	{ 0x05bf, 0x05bf, 0 },	 { 0x05c1, 0x05c2, 0 },	  { 0x05c4, 0x05c5, 0 },
	{ 0x05c7, 0x05c7, 0 },	 { 0x0610, 0x061a, 0 },	  { 0x061c, 0x061c, 0 },
	{ 0x064b, 0x065f, 0 },	 { 0x0670, 0x0670, 0 },	  { 0x06d6, 0x06dc, 0 },
	{ 0x06df, 0x06e4, 0 },	 { 0x06e7, 0x06e8, 0 },	  { 0x06ea, 0x06ed, 0 },
	{ 0x0900, 0x0902, 0 },	 { 0x093c, 0x093c, 0 },	  { 0x0941, 0x0948, 0 },
	{ 0x094d, 0x094d, 0 },	 { 0x0e31, 0x0e31, 0 },	  { 0x0e34, 0x0e3a, 0 },
	{ 0x0e47, 0x0e4e, 0 },	 { 0x1100, 0x115f, 2 },	  { 0x1160, 0x11ff, 0 },
	{ 0x1ab0, 0x1aff, 0 },	 { 0x1dc0, 0x1dff, 0 },	  { 0x200b, 0x200f, 0 },
	{ 0x2028, 0x202e, 0 },	 { 0x2060, 0x206f, 0 },	  { 0x20d0, 0x20ff, 0 },
	{ 0x231a, 0x231b, 2 },	 { 0x2329, 0x232a, 2 },	  { 0x23e9, 0x23ec, 2 },
	{ 0x23f0, 0x23f0, 2 },	 { 0x23f3, 0x23f3, 2 },	  { 0x25fd, 0x25fe, 2 },
	{ 0x2614, 0x2615, 2 },	 { 0x2648, 0x2653, 2 },	  { 0x267f, 0x267f, 2 },
	{ 0x2693, 0x2693, 2 },	 { 0x26a1, 0x26a1, 2 },	  { 0x26aa, 0x26ab, 2 },
	{ 0x26bd, 0x26be, 2 },	 { 0x26c4, 0x26c5, 2 },	  { 0x26ce, 0x26ce, 2 },
	{ 0x26d4, 0x26d4, 2 },	 { 0x26ea, 0x26ea, 2 },	  { 0x26f2, 0x26f3, 2 },
	{ 0x26f5, 0x26f5, 2 },	 { 0x26fa, 0x26fa, 2 },	  { 0x26fd, 0x26fd, 2 },
	{ 0x2705, 0x2705, 2 },	 { 0x270a, 0x270b, 2 },	  { 0x2728, 0x2728, 2 },
	{ 0x274c, 0x274c, 2 },	 { 0x274e, 0x274e, 2 },	  { 0x2753, 0x2755, 2 },
	{ 0x2757, 0x2757, 2 },	 { 0x2795, 0x2797, 2 },	  { 0x27b0, 0x27b0, 2 },
	{ 0x27bf, 0x27bf, 2 },	 { 0x2b1b, 0x2b1c, 2 },	  { 0x2b50, 0x2b50, 2 },
	{ 0x2b55, 0x2b55, 2 },	 { 0x2e80, 0x303e, 2 },	  { 0x3041, 0x3098, 2 },
	{ 0x3099, 0x309a, 0 },	 { 0x309b, 0x33ff, 2 },	  { 0x3400, 0x4dbf, 2 },
	{ 0x4e00, 0xa4cf, 2 },	 { 0xa960, 0xa97f, 2 },	  { 0xac00, 0xd7a3, 2 },
	{ 0xf900, 0xfaff, 2 },	 { 0xfe00, 0xfe0f, 0 },	  { 0xfe10, 0xfe19, 2 },
	{ 0xfe20, 0xfe2f, 0 },	 { 0xfe30, 0xfe6f, 2 },	  { 0xfeff, 0xfeff, 0 },
	{ 0xff00, 0xff60, 2 },	 { 0xffe0, 0xffe6, 2 },	  { 0x16fe0, 0x16fe4, 2 },
	{ 0x17000, 0x18aff, 2 }, { 0x1b000, 0x1b2ff, 2 }, { 0x1f004, 0x1f004, 2 },
	{ 0x1f0cf, 0x1f0cf, 2 }, { 0x1f18e, 0x1f18e, 2 }, { 0x1f191, 0x1f19a, 2 },
	{ 0x1f200, 0x1f202, 2 }, { 0x1f210, 0x1f23b, 2 }, { 0x1f240, 0x1f248, 2 },
	{ 0x1f250, 0x1f251, 2 }, { 0x1f260, 0x1f265, 2 }, { 0x1f300, 0x1f64f, 2 },
	{ 0x1f680, 0x1f6ff, 2 }, { 0x1f900, 0x1f9ff, 2 }, { 0x1fa70, 0x1faff, 2 },
	{ 0x20000, 0x2fffd, 2 }, { 0x30000, 0x3fffd, 2 }, { 0xe0000, 0xe007f, 0 },
	{ 0xe0100, 0xe01ef, 0 },
};

/* The columns of the character at s (decoded by the escaping's own decoder) and its bytes in
 * *used: 1 for a byte that is not UTF-8 (never in escaped text) */
static size_t char_cols(const char *s, size_t *used)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t lo = 0, hi = sizeof(widths) / sizeof(widths[0]);
	uint32_t c;

	*used = utf8_seq(p, strnlen(s, 4), &c);
	if (*used <= 1) {
		*used = 1;
		return 1;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c < widths[mid].lo)
			hi = mid;
		else if (c > widths[mid].hi)
			lo = mid + 1;
		else
			return widths[mid].cols;
	}
	return 1;
}

size_t safe_text_width(const char *s)
{
	size_t w = 0, used;

	for (; *s; s += used)
		w += char_cols(s, &used);
	return w;
}

size_t safe_text_prefix(const char *s, size_t cols, size_t *width)
{
	size_t at = 0, w = 0, used, c;

	while (s[at]) {
		c = char_cols(s + at, &used);
		if (w + c > cols)
			break;
		w += c;
		at += used;
	}
	if (width)
		*width = w;
	return at;
}

void safe_text_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	safe_text_fputs(msg, f);
	fputc('\n', f);
}

void safe_text_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	safe_text_vfprintf(f, fmt, ap);
	va_end(ap);
}
