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

#include "failures.h"
#include "html_parts.h"
#include "html_text.h"
#include "procs.h"

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

/* ---- the Gantt chart (html_gantt.c): what is drawn, folded and marked */

#define T0 1700000000000000000LL
#define MS 1000000LL

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* a traced run of n processes: tools by i % 3 (one named in markup), each 50 ms from its own
 * start 1 ms apart; process 7 exits 2, 8 is OOM-killed, 9 stalls */
static char *gantt_of(size_t n)
{
	static const char *tools[] = { "bwa", "samtools", "<img src=x onerror=alert(1)>" };
	struct proc_rec *p = calloc(n, sizeof(*p));
	struct unit_rec unit;
	struct unit_detail detail;
	struct job j;
	struct report rep = { .jobs = &j, .n = 1 };
	struct cap c;

	assert_non_null(p);
	memset(&unit, 0, sizeof(unit));
	memset(&j, 0, sizeof(j));
	for (size_t i = 0; i < n; i++) {
		p[i].pid = 1000 + (int64_t)i;
		p[i].start_ns = T0 + (int64_t)i * MS;
		p[i].end_ns = p[i].start_ns + 50 * MS;
		p[i].status = i == 7 ? 2 << 8 : i == 8 ? 9 : 0;
		p[i].flags = i == 8 ? PROC_FLAG_OOM : 0;
		p[i].cpu_ns = 10 * MS;
		p[i].stall_start_ns = i == 9 ? p[i].start_ns + 10 * MS : 0;
		p[i].stall_ns = i == 9 ? 20 * MS : 0;
		snprintf(p[i].tool, sizeof(p[i].tool), "%s", tools[i % 3]);
		snprintf(p[i].node, sizeof(p[i].node), "n1");
		p[i].cmd = (char *)"cmd </script><script>alert(1)</script>";
	}
	detail = (struct unit_detail){ .procs = p, .nprocs = n, .procs_fetched = 1 };
	row_init(&j.row, ROW_LOCAL);
	snprintf(j.row.jobid, sizeof(j.row.jobid), "r1");
	j.row.f.nunits = 1;
	j.row.f.unit_start_ns = T0;
	j.row.f.unit_end_ns = T0 + (int64_t)n * MS + 50 * MS;
	j.units = &unit;
	j.nunits = 1;
	j.detail = &detail;
	assert_int_equal(html_gantt(cap_open(&c), &rep, T0), 0);
	free(p);
	return cap_close(&c);
}

static void test_gantt_small(void **state)
{
	char *svg = gantt_of(12);

	(void)state;
	assert_non_null(strstr(svg, ">12 processes: each drawn.<"));
	assert_int_equal(count(svg, "class=\"proc\""), 12);
	assert_int_equal(count(svg, "class=\"fold\""), 0);
	assert_int_equal(count(svg, "class=\"m-exit\""), 1);
	assert_int_equal(count(svg, "class=\"m-oom\""), 1);
	assert_int_equal(count(svg, "class=\"m-stall\""), 1);
	/* three tools, each a label; the one in markup as text */
	assert_non_null(strstr(svg, ">bwa<"));
	assert_non_null(strstr(svg, ">samtools<"));
	assert_non_null(strstr(svg, "&lt;img src=x onerror=alert(1)&gt;"));
	assert_null(strstr(svg, "<img"));
	assert_null(strstr(svg, "<script"));
	free(svg);
}

static void test_gantt_folded(void **state)
{
	size_t n = 20000, drawn, folded, shown;
	char *svg = gantt_of(n), *at;

	(void)state;
	at = strstr(svg, ">20000 processes: ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, ">20000 processes: %zu drawn one by one", &drawn), 1);
	at = strstr(at, "), ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "), %zu folded per tool", &folded), 1);
	assert_int_equal(drawn + folded, n);
	assert_true(drawn <= HTML_DRAWN);
	assert_true(drawn > 0);
	shown = count(svg, "class=\"proc\"");
	assert_int_equal(shown, drawn);
	/* each tool's folded row at most HTML_BUCKETS intervals; what failed is marked still */
	assert_true(count(svg, "class=\"fold\"") <= 3 * HTML_BUCKETS);
	assert_true(count(svg, "class=\"fold\"") > 0);
	assert_int_equal(count(svg, "class=\"m-oom\""), 1);
	assert_true(count(svg, "class=\"m-exit\"") >= 1);
	assert_null(strstr(svg, "<img"));
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_entities),	 cmocka_unit_test(test_text_visible),
		cmocka_unit_test(test_text_long),	 cmocka_unit_test(test_text_cut),
		cmocka_unit_test(test_json_no_breakout), cmocka_unit_test(test_json_invalid_utf8),
		cmocka_unit_test(test_gantt_small),	 cmocka_unit_test(test_gantt_folded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
