/* libFuzzer target: the word splitters under tool naming and workflow detection. The input is
 * split as argv (NUL-separated) and, line by line, as shell text into a buffer whose size byte 0
 * picks; every word is copied, named, matched and spliced. Checks that words stay inside the
 * input or the buffer, that counts and lengths are bounded and that copies are clean. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "words.h"

static void check_copy(struct word w)
{
	char buf[WORD_NAME_MAX];

	word_copy(w, buf, sizeof(buf));
	fuzz_check_field(buf, sizeof(buf));
	if (strlen(buf) != (w.len < sizeof(buf) ? w.len : sizeof(buf) - 1))
		abort(); /* a NUL inside a word is a control character: replaced, never cut */
}

static void check_words(const struct words *ws, const char *lo, size_t size)
{
	if (ws->n > WORDS_MAX)
		abort();
	for (size_t i = 0; i < ws->n; i++) {
		struct word w = ws->w[i], b;

		if (w.s < lo || w.len > size || w.s + w.len > lo + size)
			abort();
		b = word_basename(w);
		if (b.s < w.s || b.s + b.len != w.s + w.len)
			abort();
		check_copy(w);
	}
}

/* Match the first word, as a glob, against the others; splice the words into themselves. */
static void use_words(struct words *ws, unsigned at)
{
	char glob[WORD_NAME_MAX];
	struct words src;

	if (!ws->n)
		return;
	word_copy(ws->w[0], glob, sizeof(glob));
	for (size_t i = 1; i < ws->n; i++)
		glob_match(glob, ws->w[i]);
	src = *ws;
	words_splice(ws, at, at % 3, &src);
	if (ws->n > WORDS_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct words ws;
	size_t buflen, pos = 0, n;
	char *text, *buf;

	if (size < 1)
		return 0;
	buflen = data[0] < 0x80 ? data[0] : 4096; /* tiny buffers, and the callers' own size */
	text = malloc(size - 1 ? size - 1 : 1);
	buf = malloc(buflen ? buflen : 1);
	if (!text || !buf)
		goto out;
	memcpy(text, data + 1, size - 1);

	words_from_argv(&ws, text, size - 1);
	check_words(&ws, text, size - 1);
	use_words(&ws, data[0]);

	while (pos < size - 1) {
		n = words_from_shell(&ws, text + pos, size - 1 - pos, buf, buflen);
		if (n > size - 1 - pos || (n == 0))
			abort(); /* every call consumes something, never more than it was given */
		check_words(&ws, buf, buflen);
		use_words(&ws, data[0] >> 4);
		pos += n;
	}
out:
	free(text);
	free(buf);
	return 0;
}
