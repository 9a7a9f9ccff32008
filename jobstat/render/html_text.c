/* Render: escaping for the HTML report. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "html_text.h"
#include "safetext.h"

#define CHUNK 1024

/* the bytes of an escaped (valid UTF-8) text, each markup character as an entity */
static void put_entities(FILE *f, const char *s, size_t n)
{
	size_t from = 0;

	for (size_t i = 0; i < n; i++) {
		const char *e;

		switch (s[i]) {
		case '&':
			e = "&amp;";
			break;
		case '<':
			e = "&lt;";
			break;
		case '>':
			e = "&gt;";
			break;
		case '"':
			e = "&quot;";
			break;
		case '\'':
			e = "&#39;";
			break;
		default:
			continue;
		}
		fwrite(s + from, 1, i - from, f);
		fputs(e, f);
		from = i + 1;
	}
	fwrite(s + from, 1, n - from, f);
}

/* the first n bytes of s */
static void text_n(FILE *f, const char *s, size_t n)
{
	char buf[CHUNK * 4 + 1];
	size_t read, len;

	/* a piece at a time: safe_text_cut never splits a character or an escape */
	while (n) {
		size_t piece = n < CHUNK ? n : CHUNK, back = 0;

		/* a piece ends before a character's continuation bytes, never inside it (a
		 * character cut there would be escaped as invalid) */
		while (piece < n && back < 3 && ((unsigned char)s[piece - back] & 0xc0) == 0x80)
			back++;
		if (back < 3 || ((unsigned char)s[piece - back] & 0xc0) != 0x80)
			piece -= back;
		len = safe_text_cut(buf, sizeof(buf), s, piece, &read);
		if (!read)
			break; /* cannot happen: a piece of CHUNK bytes always fits 4 times over */
		put_entities(f, buf, len);
		s += read;
		n -= read;
	}
}

void html_text(FILE *f, const char *s)
{
	text_n(f, s, strlen(s));
}

void html_text_cut(FILE *f, const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	/* a character cut in two shows as \xHH escapes: visible, never markup */
	text_n(f, s, n > max ? max : n);
	if (n > max)
		fputs("...", f);
}

void html_textf(FILE *f, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	html_text(f, msg);
}

int html_json(FILE *f, struct json_object *o)
{
	const char *s;
	size_t from = 0, i;

	if (safe_text_json(o) < 0)
		return -ENOMEM;
	s = json_object_to_json_string_ext(o,
					   JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		return -ENOMEM;
	for (i = 0; s[i]; i++) {
		const unsigned char *u = (const unsigned char *)s + i;
		const char *e = NULL;
		size_t skip = 1;

		if (*u == '<')
			e = "\\u003c";
		else if (*u == '>')
			e = "\\u003e";
		else if (*u == '&')
			e = "\\u0026";
		else if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
			e = u[2] == 0xa8 ? "\\u2028" : "\\u2029", skip = 3;
		if (!e)
			continue;
		fwrite(s + from, 1, i - from, f);
		fputs(e, f);
		from = i + skip;
		i += skip - 1;
	}
	fwrite(s + from, 1, i - from, f);
	return 0;
}
