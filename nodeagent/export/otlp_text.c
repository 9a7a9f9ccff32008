/* A user's bytes made fit for an OTLP string (otlp_write.h): the one place they are cleaned,
 * whichever the encoding. UTF-8 is decoded as the rest of tracer decodes it (safe_text_char);
 * what is not valid becomes U+FFFD, as the protobuf and JSON specifications want strings valid
 * and collectors reject a request otherwise. Controls are kept: JSON escapes them, protobuf
 * counts them, and neither is a terminal. */
#include <string.h>

#include "otlp_write.h"
#include "safetext.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

size_t otlp_text_cut(char *out, size_t limit, const char *s, size_t n, int *cut)
{
	size_t at = 0, keep = 0, i = 0, l, ul;
	const char *u;
	uint32_t cp;

	if (limit > OTLP_MAX_STRING)
		limit = OTLP_MAX_STRING;
	while (i < n) {
		/* a run of printable ASCII, as most of a command line is: copied at once, each of
		 * its bytes a character where a cut may fall */
		for (l = 0;
		     i + l < n && (unsigned char)s[i + l] >= 0x20 && (unsigned char)s[i + l] < 0x7f;
		     l++)
			;
		if (l) {
			size_t from = at, fit = at + l > limit ? limit - at : l;

			memcpy(out + at, s + i, fit);
			at += fit;
			i += fit;
			if (at + OTLP_CUT_MARK_LEN <= limit)
				keep = at;
			else if (limit >= OTLP_CUT_MARK_LEN && limit - OTLP_CUT_MARK_LEN >= from)
				keep = limit - OTLP_CUT_MARK_LEN;
			if (fit == l)
				continue;
			memcpy(out + keep, OTLP_CUT_MARK, OTLP_CUT_MARK_LEN);
			if (cut)
				*cut = 1;
			return keep + OTLP_CUT_MARK_LEN;
		}
		l = safe_text_char(s + i, n - i, &cp);
		u = l ? s + i : REPLACEMENT;
		ul = l ? l : sizeof(REPLACEMENT) - 1;
		if (at + ul > limit) {
			memcpy(out + keep, OTLP_CUT_MARK, OTLP_CUT_MARK_LEN);
			if (cut)
				*cut = 1;
			return keep + OTLP_CUT_MARK_LEN;
		}
		memcpy(out + at, u, ul);
		at += ul;
		i += l ? l : 1;
		if (at + OTLP_CUT_MARK_LEN <= limit)
			keep = at; /* a cut later on keeps this much */
	}
	if (cut)
		*cut = 0;
	return at;
}

size_t otlp_text(char *out, const char *s)
{
	/* a byte past what can be kept is enough to know it is cut: no need to measure it all */
	return s ? otlp_text_cut(out, OTLP_MAX_STRING, s, strnlen(s, OTLP_MAX_STRING + 1), NULL)
		 : 0;
}

void otlp_strings_start(struct otlp_strings *it, const struct otlp_attr *a)
{
	it->s = a->s;
	it->left = a->s ? a->len : 0;
	it->budget = OTLP_MAX_STRING;
	it->done = 0;
}

int otlp_strings_next(struct otlp_strings *it, char *out, size_t *len)
{
	size_t n;
	int cut = 0;

	if (it->done || !it->left)
		return 0;
	if (!it->budget) { /* more strings than room: the mark says so */
		memcpy(out, OTLP_CUT_MARK, OTLP_CUT_MARK_LEN);
		*len = OTLP_CUT_MARK_LEN;
		it->done = 1;
		return 1;
	}
	/* a string ends at its NUL or at the end of the value (the last may lack one) */
	n = strnlen(it->s, it->left);
	*len = otlp_text_cut(out, it->budget - 1, it->s, n, &cut);
	it->s += n + (n < it->left);
	it->left -= n + (n < it->left);
	it->budget -= *len + 1 < it->budget ? *len + 1 : it->budget;
	it->done = cut;
	return 1;
}
