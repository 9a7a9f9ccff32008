/* Escaping text before it is printed (util/safetext.c): what is kept, what is escaped and how,
 * cutting to a buffer, in place, to a stream and in a JSON document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "safetext.h"

static const char *esc(const char *s, size_t n)
{
	static char out[512];

	safe_text(out, sizeof(out), s, n);
	return out;
}
#define ESC(lit) esc(lit, sizeof(lit) - 1)

static void test_kept(void **state)
{
	(void)state;
	assert_string_equal(ESC("samtools sort -@ 4 in.bam"), "samtools sort -@ 4 in.bam");
	/* valid UTF-8 is text: accents, CJK, emoji */
	assert_string_equal(ESC("r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"),
			    "r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
	/* a backslash stays: the output is harmless, not reversible */
	assert_string_equal(ESC("sed 's/\\t/ /'"), "sed 's/\\t/ /'");
	assert_string_equal(ESC(""), "");
}

static void test_c0(void **state)
{
	(void)state;
	assert_string_equal(ESC("x\x1b[2J"), "x\\x1b[2J");
	assert_string_equal(ESC("\x1b]0;TITLE\x07"), "\\x1b]0;TITLE\\x07");
	assert_string_equal(ESC("a\tb\nc\rd\x7f"), "a\\x09b\\x0ac\\x0dd\\x7f");
	assert_string_equal(ESC("a\0b"), "a\\x00b"); /* a NUL inside the bytes given */
}

static void test_c1_and_invalid(void **state)
{
	(void)state;
	/* C1 in UTF-8: CSI and OSC */
	assert_string_equal(ESC("\xc2\x9b"
				"2J \xc2\x9d"
				"0;T"),
			    "\\u009b2J \\u009d0;T");
	/* raw C1 and other bytes that are no UTF-8 */
	assert_string_equal(ESC("\x9b"
				"2J"),
			    "\\x9b2J");
	assert_string_equal(ESC("\xff\xfe"), "\\xff\\xfe");
	/* overlong forms, a surrogate, beyond U+10FFFF, a cut sequence */
	assert_string_equal(ESC("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(ESC("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");
	assert_string_equal(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(ESC("ab\xe2\x82"), "ab\\xe2\\x82");
	/* a cut sequence before a valid character: the character is kept */
	assert_string_equal(ESC("\xc3\xc3\xa9"), "\\xc3\xc3\xa9");
}

static void test_bidi(void **state)
{
	(void)state;
	assert_string_equal(ESC("evil\xe2\x80\xae"
				"txt.exe"),
			    "evil\\u202etxt.exe");
	assert_string_equal(ESC("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"), "\\u202a\\u2066\\u2069");
	assert_string_equal(ESC("\xe2\x80\x8f\xe2\x80\xa8"), "\\u200f\\u2028");
	assert_string_equal(ESC("\xd8\x9c\xe2\x80\x8e\xe2\x80\xa9"), "\\u061c\\u200e\\u2029");
	/* their neighbours are text */
	assert_string_equal(ESC("\xe2\x80\x94\xe2\x81\xb0"), "\xe2\x80\x94\xe2\x81\xb0");
}

/* characters that show as nothing: two names that look the same are told apart */
static void test_invisible(void **state)
{
	(void)state;
	assert_string_equal(ESC("al\xe2\x80\x8bice"), "al\\u200bice");
	assert_string_equal(ESC("\xe2\x80\x8c\xe2\x80\x8d"), "\\u200c\\u200d");
	assert_string_equal(ESC("\xe2\x81\xa0"
				"4242\xe2\x81\xa4"),
			    "\\u20604242\\u2064");
	assert_string_equal(ESC("\xef\xbb\xbfx"), "\\ufeffx");
	/* tag characters: 8 hex digits, so a digit after one is not read as part of it */
	assert_string_equal(ESC("\xf3\xa0\x80\x81"
				"1\xf3\xa0\x81\xbf"),
			    "\\U000e00011\\U000e007f");
	/* their neighbours are text */
	assert_string_equal(ESC("\xe2\x80\x8a\xe2\x81\xa5\xef\xbb\xbe\xf3\xa0\x82\x80"),
			    "\xe2\x80\x8a\xe2\x81\xa5\xef\xbb\xbe\xf3\xa0\x82\x80");
}

/* the escaped text is at most 4 bytes per byte in, for every kind of escape (the buffer a
 * string is escaped into in a JSON document is that large) */
static void test_growth(void **state)
{
	static const char *const units[] = {
		"\x1b", "\xff", "\xc2\x9b", "\xe2\x80\x8b", "\xf3\xa0\x80\x81", "\xf4\x90\x80\x80"
	};
	char in[64], out[64 * 4 + 1];

	(void)state;
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t l = strlen(units[u]), n = 0;

		while (n + l <= sizeof(in)) {
			memcpy(in + n, units[u], l);
			n += l;
		}
		assert_true(safe_text(out, n * 4 + 1, in, n) <= n * 4);
		/* nothing was left out */
		assert_int_equal(safe_text(out, n * 4 + 1, in, n), strlen(esc(in, n)));
	}
}

static void test_cut(void **state)
{
	char out[8];

	(void)state;
	/* never half an escape nor half a character */
	assert_int_equal(safe_text(out, sizeof(out), "abcd\x1b", 5), 4);
	assert_string_equal(out, "abcd");
	assert_int_equal(safe_text(out, sizeof(out), "abcdef\xc3\xa9", 8), 6);
	assert_string_equal(out, "abcdef");
	assert_int_equal(safe_text(out, 1, "abc", 3), 0);
	assert_string_equal(out, "");
	assert_int_equal(safe_text(out, 0, "abc", 3), 0);
}

static void test_inplace(void **state)
{
	char b[32] = "a\x1b[2Jb", small[6] = "\x1b\x1b\x1b", term[4] = { 'a', 'b', 'c', 'd' };

	(void)state;
	safe_text_inplace(b, sizeof(b));
	assert_string_equal(b, "a\\x1b[2Jb");
	safe_text_inplace(small, sizeof(small)); /* grows past the buffer: cut whole */
	assert_string_equal(small, "\\x1b");
	safe_text_inplace(term, sizeof(term)); /* no NUL within the buffer: cut to it */
	assert_string_equal(term, "abc");
}

static void test_fputs(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	safe_text_fputs("pid 1 \x1b]0;T\x07 (unit \xc2\x9b)", f);
	fclose(f);
	assert_string_equal(text, "pid 1 \\x1b]0;T\\x07 (unit \\u009b)");
	free(text);
}

static void test_json(void **state)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	const char *out;

	(void)state;
	json_object_array_add(a, json_object_new_string("x\xc2\x9b\xff"));
	json_object_array_add(a, json_object_new_int(7));
	json_object_object_add(o, "list", a);
	json_object_object_add(o, "k\x1b", json_object_new_string("ok"));
	assert_int_equal(safe_text_json(o), 0);
	out = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_string_equal(out, "{\"list\":[\"x\\\\u009b\\\\xff\",7],\"k\\\\x1b\":\"ok\"}");
	json_object_put(o);
}

/* a key that escapes to one already there keeps its value beside the other */
static void test_json_key_clash(void **state)
{
	struct json_object *o = json_object_new_object(), *v;

	(void)state;
	json_object_object_add(o, "\\x1b", json_object_new_string("literal"));
	json_object_object_add(o, "\x1b", json_object_new_string("esc"));
	json_object_object_add(o, "\\x1b (2)", json_object_new_string("taken"));
	assert_int_equal(safe_text_json(o), 0);
	assert_int_equal(json_object_object_length(o), 3);
	assert_true(json_object_object_get_ex(o, "\\x1b", &v));
	assert_string_equal(json_object_get_string(v), "literal");
	assert_true(json_object_object_get_ex(o, "\\x1b (2)", &v));
	assert_string_equal(json_object_get_string(v), "taken");
	assert_true(json_object_object_get_ex(o, "\\x1b (3)", &v));
	assert_string_equal(json_object_get_string(v), "esc");
	json_object_put(o);
}

/* many keys to rename behind many that stay: each renamed once, in time linear in the keys
 * (renaming them one by one from the start again took 10 s for 20 000 of each) */
static void test_json_many_keys(void **state)
{
	enum { N = 20000 };
	struct json_object *o = json_object_new_object(), *v;
	struct timespec t0, t1;
	char k[32];

	(void)state;
	for (int i = 0; i < 2 * N; i++) {
		snprintf(k, sizeof(k), i < N ? "clean%d" : "tool\x1b%d", i);
		json_object_object_add(o, k, json_object_new_int(i));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(safe_text_json(o), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(json_object_object_length(o), 2 * N);
	assert_true(json_object_object_get_ex(o, "clean0", &v));
	assert_int_equal(json_object_get_int(v), 0);
	snprintf(k, sizeof(k), "tool\\x1b%d", 2 * N - 1);
	assert_true(json_object_object_get_ex(o, k, &v));
	assert_int_equal(json_object_get_int(v), 2 * N - 1);
	json_object_object_foreach(o, key, val) {
		(void)val;
		assert_null(strchr(key, '\x1b'));
	}
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 2000);
	json_object_put(o);
}

/* a long string of the widest escapes is escaped whole in a document */
static void test_json_growth(void **state)
{
	char in[4 * 100 + 1] = "", want[10 * 100 + 1] = "";
	struct json_object *s;

	(void)state;
	for (int i = 0; i < 100; i++) {
		strcat(in, "\xf3\xa0\x80\x81");
		strcat(want, "\\U000e0001");
	}
	s = json_object_new_string(in);
	assert_int_equal(safe_text_json(s), 0);
	assert_string_equal(json_object_get_string(s), want);
	json_object_put(s);
	s = json_object_new_string("\x1b\x1b\x1b");
	assert_int_equal(safe_text_json(s), 0);
	assert_string_equal(json_object_get_string(s), "\\x1b\\x1b\\x1b");
	json_object_put(s);
}

static void test_width(void **state)
{
	size_t w;

	(void)state;
	assert_int_equal(safe_text_width("r\xc3\xa9sum\xc3\xa9"), 6);
	assert_int_equal(safe_text_prefix("r\xc3\xa9sum\xc3\xa9", 2, NULL), 3);
	assert_int_equal(safe_text_prefix("ab", 5, &w), 2);
	assert_int_equal(w, 2);
	/* wide characters (CJK, fullwidth, emoji) take 2 columns */
	assert_int_equal(safe_text_width("\xe6\x97\xa5\xe6\x9c\xac"), 4);
	assert_int_equal(safe_text_width("\xef\xbc\xa1"), 2);
	assert_int_equal(safe_text_width("\xf0\x9f\x98\x80x"), 3);
	assert_int_equal(safe_text_width("\xea\xb0\x80"), 2); /* a Hangul syllable */
	/* combining marks take none */
	assert_int_equal(safe_text_width("e\xcc\x81"), 1);
	assert_int_equal(safe_text_width("\xe2\x83\x90"), 0);
	/* a wide character that does not fit whole is left out */
	assert_int_equal(safe_text_prefix("\xe6\x97\xa5x", 1, &w), 0);
	assert_int_equal(w, 0);
	assert_int_equal(safe_text_prefix("\xe6\x97\xa5x", 2, &w), 3);
	assert_int_equal(w, 2);
	assert_int_equal(safe_text_prefix("a\xe6\x97\xa5", 2, &w), 1);
	assert_int_equal(w, 1);
	/* a combining mark stays with its character */
	assert_int_equal(safe_text_prefix("e\xcc\x81x", 1, &w), 3);
	assert_int_equal(w, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_c0),
		cmocka_unit_test(test_c1_and_invalid),
		cmocka_unit_test(test_bidi),
		cmocka_unit_test(test_invisible),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_inplace),
		cmocka_unit_test(test_fputs),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_key_clash),
		cmocka_unit_test(test_json_many_keys),
		cmocka_unit_test(test_json_growth),
		cmocka_unit_test(test_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
