/* The HTML report's escaping (jobstat/render/html_text.c): text and attribute values with
 * every markup character as an entity after the reader's escaping, long text cut, and JSON for
 * a <script type="application/json"> block that nothing in a string can break out of and that
 * parses back to the same strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "html_text.h"

/* what a writer put on a stream, as a string (caller frees) */
struct cap {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *cap_open(struct cap *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static char *cap_close(struct cap *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->buf;
}

static char *text(const char *s)
{
	struct cap c;

	html_text(cap_open(&c), s);
	return cap_close(&c);
}

#define ASSERT_TEXT(in, want)                   \
	do {                                    \
		char *got = text(in);           \
		assert_string_equal(got, want); \
		free(got);                      \
	} while (0)

static void test_text_entities(void **state)
{
	(void)state;
	ASSERT_TEXT("samtools sort -@ 4 in.bam", "samtools sort -@ 4 in.bam");
	ASSERT_TEXT("a & b < c > d \"e\" 'f'", "a &amp; b &lt; c &gt; d &quot;e&quot; &#39;f&#39;");
	ASSERT_TEXT("</script><script>document.title='PWNED'</script>",
		    "&lt;/script&gt;&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;");
	ASSERT_TEXT("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;");
	ASSERT_TEXT("\" onmouseover=\"x", "&quot; onmouseover=&quot;x");
	ASSERT_TEXT("<!-- x -->", "&lt;!-- x --&gt;");
	/* an entity typed by the user stays text: its & is escaped */
	ASSERT_TEXT("&lt;b&gt;", "&amp;lt;b&amp;gt;");
	ASSERT_TEXT("", "");
	/* valid UTF-8 is kept */
	ASSERT_TEXT("r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5", "r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5");
}

static void test_text_visible(void **state)
{
	(void)state;
	/* controls, invalid UTF-8, the separators and bidi overrides: visibly escaped first */
	ASSERT_TEXT("a\nb\tc\x1b[2J", "a\\x0ab\\x09c\\x1b[2J");
	ASSERT_TEXT("bad\xff<", "bad\\xff&lt;");
	ASSERT_TEXT("x\xe2\x80\xa8y\xe2\x80\xa9z", "x\\u2028y\\u2029z");
	ASSERT_TEXT("\xe2\x80\xae"
		    "evil",
		    "\\u202eevil");
	/* an overlong '<' is no '<' but it is not text either */
	ASSERT_TEXT("\xc0\xbc", "\\xc0\\xbc");
}

static void test_text_long(void **state)
{
	size_t n = 10000;
	char *in = malloc(n + 1), *got, want_tail[] = "&lt;&gt;";

	(void)state;
	assert_non_null(in);
	memset(in, 'a', n);
	in[n - 2] = '<';
	in[n - 1] = '>';
	in[n] = '\0';
	/* far past one piece of the escaper: a multi-byte character across its pieces too */
	memcpy(in + 1023, "\xc3\xa9", 2);
	got = text(in);
	assert_int_equal(strlen(got), n + 6);
	assert_memory_equal(got + 1023, "\xc3\xa9", 2);
	assert_string_equal(got + strlen(got) - strlen(want_tail), want_tail);
	free(got);
	free(in);
}

static void test_text_cut(void **state)
{
	struct cap c;
	char *got;

	(void)state;
	html_text_cut(cap_open(&c), "<abcdef>", 4);
	got = cap_close(&c);
	assert_string_equal(got, "&lt;abc...");
	free(got);
	html_text_cut(cap_open(&c), "<ab>", 4);
	got = cap_close(&c);
	assert_string_equal(got, "&lt;ab&gt;");
	free(got);
	/* a character cut in two shows as its escaped bytes, never as markup or a raw byte */
	html_text_cut(cap_open(&c), "ab\xc3\xa9", 3);
	got = cap_close(&c);
	assert_string_equal(got, "ab\\xc3...");
	free(got);
}

static char *json_of(struct json_object *o)
{
	struct cap c;

	assert_int_equal(html_json(cap_open(&c), o), 0);
	return cap_close(&c);
}

static void test_json_no_breakout(void **state)
{
	struct json_object *o = json_object_new_object(), *back;
	const char *hostile = "</script><script>alert(1)</script><!-- & -->";
	char *got;

	(void)state;
	json_object_object_add(o, "cmd", json_object_new_string(hostile));
	json_object_object_add(o, "sep",
			       json_object_new_string("a\xe2\x80\xa8"
						      "b\xe2\x80\xa9"
						      "c"));
	json_object_object_add(o, "</script>", json_object_new_int(1));
	got = json_of(o);
	/* nothing in it can end the block, open a comment or a new line of script */
	assert_null(strchr(got, '<'));
	assert_null(strchr(got, '>'));
	assert_null(strchr(got, '&'));
	assert_null(strstr(got, "\xe2\x80\xa8"));
	assert_null(strstr(got, "\xe2\x80\xa9"));
	assert_non_null(strstr(got, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
	/* and it reads back as what the page shows: the string, the separators visibly escaped */
	back = json_tokener_parse(got);
	assert_non_null(back);
	assert_string_equal(json_object_get_string(json_object_object_get(back, "cmd")), hostile);
	assert_string_equal(json_object_get_string(json_object_object_get(back, "sep")),
			    "a\\u2028b\\u2029c");
	assert_non_null(json_object_object_get(back, "</script>"));
	json_object_put(back);
	json_object_put(o);
	free(got);
}

static void test_json_invalid_utf8(void **state)
{
	struct json_object *o = json_object_new_array(), *back;
	char *got;

	(void)state;
	json_object_array_add(o, json_object_new_string("bad\xff\x1b<"));
	json_object_array_add(o, json_object_new_double(1.5));
	json_object_array_add(o, NULL);
	got = json_of(o);
	back = json_tokener_parse(got);
	assert_non_null(back);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(back, 0)),
			    "bad\\xff\\x1b<");
	assert_true(json_object_get_double(json_object_array_get_idx(back, 1)) == 1.5);
	assert_null(json_object_array_get_idx(back, 2));
	json_object_put(back);
	json_object_put(o);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_entities),	 cmocka_unit_test(test_text_visible),
		cmocka_unit_test(test_text_long),	 cmocka_unit_test(test_text_cut),
		cmocka_unit_test(test_json_no_breakout), cmocka_unit_test(test_json_invalid_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
