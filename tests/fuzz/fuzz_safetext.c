/* libFuzzer target: the escaping of text before it is printed (util/safetext.c). The input is the
 * text (NULs included); byte 0 also picks an output buffer size. Checks that what comes out,
 * whole or cut to a small buffer, in place, and as json-c writes a document of it, has no byte
 * 0x00-0x1f or 0x7f, is valid UTF-8 with no C1 control (U+0080-U+009F), no bidi control or
 * mark (U+202A-U+202E, U+2066-U+2069, U+061C, U+200E, U+200F), no line or paragraph separator
 * (U+2028, U+2029) and nothing that shows as nothing (U+200B-U+200D, U+2060-U+2064, U+FEFF,
 * the tags U+E0000-U+E007F), that it is at most 4 bytes per byte in, that a cut result is the start
 * of the whole one, and that escaping it again changes nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "safetext.h"

/* The output's promise, for n bytes at s */
static void check_safe(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		uint32_t c = p[i];
		size_t l = c < 0x80		    ? 1
			   : c >= 0xc2 && c <= 0xdf ? 2
			   : c >= 0xe0 && c <= 0xef ? 3
			   : c >= 0xf0 && c <= 0xf4 ? 4
						    : 0;

		if (!l || i + l > n || c < 0x20 || c == 0x7f)
			abort();
		c &= l == 1 ? 0x7f : l == 2 ? 0x1f : l == 3 ? 0x0f : 0x07;
		for (size_t k = 1; k < l; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				abort();
			c = c << 6 | (p[i + k] & 0x3f);
		}
		if ((l == 2 && c < 0x80) ||
		    (l == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
		    (l == 4 && (c < 0x10000 || c > 0x10ffff)))
			abort(); /* overlong or not a character */
		if ((c >= 0x80 && c <= 0x9f) || c == 0x61c || (c >= 0x200b && c <= 0x200f) ||
		    (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
		    (c >= 0x2066 && c <= 0x2069) || c == 0xfeff || (c >= 0xe0000 && c <= 0xe007f))
			abort();
		i += l;
	}
}

static void check_json(const char *whole, const uint8_t *data, size_t size)
{
	struct json_object *o = json_object_new_object(), *s, *back, *v;
	const char *text;
	char key[64];

	if (!o)
		return;
	s = json_object_new_string_len((const char *)data, (int)size);
	snprintf(key, sizeof(key), "%.*s", (int)(size < 16 ? size : 16), (const char *)data);
	json_object_object_add(o, key, s);
	if (safe_text_json(o) < 0)
		goto out;
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	check_safe(text, strlen(text));
	/* what a reader gets back is the escaped text itself */
	back = json_tokener_parse(text);
	if (!back || json_object_object_length(back) != 1)
		abort();
	json_object_object_foreach(back, k, val) {
		check_safe(k, strlen(k));
		v = val;
		if (!json_object_is_type(v, json_type_string) ||
		    strcmp(json_object_get_string(v), whole) != 0)
			abort();
	}
	json_object_put(back);
out:
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = size * 6 + 1, small = size ? data[0] % 32 : 0, n, m;
	char *whole = malloc(cap), *again = malloc(cap), *cut = malloc(small + 1), *buf;

	if (!whole || !again || !cut)
		goto out;
	n = safe_text(whole, cap, (const char *)data, size);
	if (n != strlen(whole) || n > size * 4)
		abort();
	check_safe(whole, n);
	if (safe_text(again, cap, whole, n) != n || memcmp(again, whole, n) != 0)
		abort(); /* escaping is done once */

	m = safe_text(cut, small + 1, (const char *)data, size);
	if (m > small || m != strlen(cut) || memcmp(cut, whole, m) != 0)
		abort(); /* a cut result is the start of the whole one, never more than fits */
	check_safe(cut, m);

	/* in place, in a buffer of the C string's own size and in a larger one */
	if ((buf = malloc(cap))) {
		memcpy(buf, data, size);
		buf[size] = 0;
		safe_text_inplace(buf, strlen(buf) + 1);
		check_safe(buf, strlen(buf));
		memcpy(buf, data, size);
		buf[size] = 0;
		safe_text_inplace(buf, cap);
		check_safe(buf, strlen(buf));
		if (safe_text_width(buf) > strlen(buf) ||
		    safe_text_prefix(buf, small, NULL) > strlen(buf))
			abort();
		free(buf);
	}
	check_json(whole, data, size);
out:
	free(whole);
	free(again);
	free(cut);
	return 0;
}
