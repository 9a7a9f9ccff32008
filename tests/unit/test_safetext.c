/* Escaping text before it is printed (util/safetext.c): what is kept, what is escaped and how,
 * cutting to a buffer, in place, to a stream and in a JSON document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	/* their neighbours are text */
	assert_string_equal(ESC("\xe2\x80\x94\xe2\x81\xb0"), "\xe2\x80\x94\xe2\x81\xb0");
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

static void test_width(void **state)
{
	(void)state;
	assert_int_equal(safe_text_width("r\xc3\xa9sum\xc3\xa9"), 6);
	assert_int_equal(safe_text_prefix("r\xc3\xa9sum\xc3\xa9", 2), 3);
	assert_int_equal(safe_text_prefix("ab", 5), 2);
	assert_int_equal(safe_text_prefix("\xe6\x97\xa5x", 1), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_c0),
		cmocka_unit_test(test_c1_and_invalid),
		cmocka_unit_test(test_bidi),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_inplace),
		cmocka_unit_test(test_fputs),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
