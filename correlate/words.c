/* Command-line words: NUL-separated argv and shell text split into bounded word arrays. */
#include <fnmatch.h>
#include <string.h>

#include "words.h"

void words_from_argv(struct words *ws, const char *argv, size_t len)
{
	size_t i = 0, start;

	ws->n = 0;
	if (!argv)
		return;
	while (i < len && ws->n < WORDS_MAX) {
		start = i;
		while (i < len && argv[i])
			i++;
		ws->w[ws->n].s = argv + start;
		ws->w[ws->n].len = i - start;
		ws->n++;
		i++; /* past the NUL */
	}
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == ';' || c == '&' || c == '|' || c == '<' ||
	       c == '>' || c == '(' || c == ')';
}

size_t words_from_shell(struct words *ws, const char *text, size_t len, char *buf, size_t buflen)
{
	size_t i = 0, o = 0, start = 0;
	int in_word = 0, keep = 1;
	char q = 0, c;

	ws->n = 0;
	while (i < len) {
		c = text[i];
		if (!q && !in_word) {
			if (c == '\n')
				return i + 1;
			if (is_blank(c)) {
				i++;
				continue;
			}
			if (c == '#') { /* a comment runs to the end of the line */
				while (i < len && text[i] != '\n')
					i++;
				return i < len ? i + 1 : i;
			}
			in_word = 1;
			keep = ws->n < WORDS_MAX;
			start = o;
		}
		if (!q && (c == '\n' || is_blank(c))) {
			if (keep && o <= buflen) {
				ws->w[ws->n].s = buf + start;
				ws->w[ws->n].len = o - start;
				ws->n++;
			}
			in_word = 0;
			o = keep && o <= buflen ? o : start;
			continue; /* the separator is looked at again above */
		}
		i++;
		if (q == '\'') {
			if (c == '\'') {
				q = 0;
				continue;
			}
		} else if (c == '\\' && i < len &&
			   (!q || (text[i] && strchr("\"\\$`\n", text[i])))) {
			c = text[i++];
			if (c == '\n')
				continue; /* line continuation */
		} else if (c == '\'' && !q) {
			q = '\'';
			continue;
		} else if (c == '"') {
			q = q ? 0 : '"';
			continue;
		}
		if (o < buflen)
			buf[o] = c;
		o++;
	}
	if (in_word && keep && o <= buflen) {
		ws->w[ws->n].s = buf + start;
		ws->w[ws->n].len = o - start;
		ws->n++;
	}
	return i;
}

void words_splice(struct words *ws, size_t at, size_t count, const struct words *src)
{
	struct words out;
	size_t i;

	if (at > ws->n)
		at = ws->n;
	if (count > ws->n - at)
		count = ws->n - at;
	out.n = 0;
	for (i = 0; i < at; i++)
		out.w[out.n++] = ws->w[i];
	for (i = 0; i < src->n && out.n < WORDS_MAX; i++)
		out.w[out.n++] = src->w[i];
	for (i = at + count; i < ws->n && out.n < WORDS_MAX; i++)
		out.w[out.n++] = ws->w[i];
	*ws = out;
}

int word_eq(struct word w, const char *s)
{
	size_t l = strlen(s);

	return w.len == l && memcmp(w.s, s, l) == 0;
}

int word_has_prefix(struct word w, const char *prefix)
{
	size_t l = strlen(prefix);

	return w.len >= l && memcmp(w.s, prefix, l) == 0;
}

struct word word_basename(struct word w)
{
	size_t i = w.len;

	while (i > 0 && w.s[i - 1] != '/')
		i--;
	if (i == w.len) /* "dir/" or "/": keep the whole word */
		return w;
	w.s += i;
	w.len -= i;
	return w;
}

void field_set(char *dst, size_t size, const char *s, size_t len)
{
	size_t i;

	if (!size)
		return;
	if (len > size - 1)
		len = size - 1;
	for (i = 0; i < len; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	dst[len] = 0;
}

char *word_copy(struct word w, char *buf, size_t size)
{
	field_set(buf, size, w.s, w.len);
	return buf;
}

int glob_match(const char *glob, struct word w)
{
	char name[WORD_NAME_MAX];

	if (!strpbrk(glob, "*?["))
		return word_eq(w, glob);
	if (w.len >= sizeof(name))
		return 0;
	memcpy(name, w.s, w.len);
	name[w.len] = 0;
	if (memchr(name, 0, w.len))
		return 0;
	return fnmatch(glob, name, 0) == 0;
}
