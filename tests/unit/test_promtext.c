/* Unit tests for util/promtext.c: the text exposition format, its label escaping of hostile
 * names (quotes, backslashes, newlines, terminal escapes, invalid UTF-8), cuts and bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include <cmocka.h>

#include "promtext.h"

static const char *label(const char *v)
{
	static char out[PROM_LABEL_MAX];

	prom_label_value(out, sizeof(out), v);
	return out;
}

/* valid UTF-8 with no raw control byte, no unescaped quote, no newline */
static void assert_clean(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		assert_true(*p >= 0x20 && *p != 0x7f);
		if (*p == '\\') {
			p++;
			assert_true(*p == '\\' || *p == '"' || *p == 'n');
		} else {
			assert_true(*p != '"');
		}
	}
}

static void test_escaping(void **state)
{
	(void)state;
	assert_string_equal(label("samtools"), "samtools");
	assert_string_equal(label("r\xc3\xa9sum\xc3\xa9"), "r\xc3\xa9sum\xc3\xa9");
	assert_string_equal(label("a\"b"), "a\\\"b");
	assert_string_equal(label("a\\b"), "a\\\\b");
	/* a newline never ends the line: made visible first, its backslash then escaped */
	assert_string_equal(label("a\nb"), "a\\\\x0ab");
	assert_string_equal(label("\x1b[31mred"), "\\\\x1b[31mred");
	assert_string_equal(label("\xff\xfe"), "\\\\xff\\\\xfe");
	/* a bidi override shows as an escape, not as reordered text */
	assert_string_equal(label("x\xe2\x80\xaey"), "x\\\\u202ey");
	assert_string_equal(label(""), "");
	assert_clean(label("evil\"} 1\nfake_metric{a=\"b\" 2\n"));
}

static void test_cut(void **state)
{
	char big[4096], out[PROM_LABEL_MAX];
	size_t n;

	(void)state;
	memset(big, '"', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	n = prom_label_value(out, sizeof(out), big);
	assert_true(n < sizeof(out));
	assert_int_equal(n % 2, 0); /* never half an escape */
	assert_clean(out);
	/* two-byte characters cut whole */
	for (size_t i = 0; i + 2 < sizeof(big); i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[sizeof(big) - 2] = 0;
	n = prom_label_value(out, 9, big);
	assert_int_equal(n, 8);
	assert_string_equal(out, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	n = prom_label_value(out, 8, big);
	assert_int_equal(n, 6);
}

static void test_exposition(void **state)
{
	struct prom_buf b;
	struct prom_label l[] = { { "node", "n1" }, { "unit", "x\"y" } };

	(void)state;
	prom_init(&b, 1 << 20);
	assert_int_equal(prom_family(&b, "tracer_x_total", "counter", "Things."), 0);
	assert_int_equal(prom_sample(&b, "tracer_x_total", l, 2, 42), 0);
	assert_int_equal(prom_sample(&b, "tracer_x_total", NULL, 0, 1.5), 0);
	assert_int_equal(prom_sample(&b, "tracer_x_total", l, 1, 1e19), 0);
	assert_string_equal(b.data, "# HELP tracer_x_total Things.\n"
				    "# TYPE tracer_x_total counter\n"
				    "tracer_x_total{node=\"n1\",unit=\"x\\\"y\"} 42\n"
				    "tracer_x_total 1.5\n"
				    "tracer_x_total{node=\"n1\"} 1e+19\n");
	assert_false(b.full);
	prom_free(&b);
}

/* the value of one unlabelled sample, as written */
static const char *value_of(double v)
{
	static char out[64];
	struct prom_buf b;

	prom_init(&b, 1024);
	assert_int_equal(prom_sample(&b, "x", NULL, 0, v), 0);
	assert_true(b.len > 2 && b.len - 2 < sizeof(out));
	memcpy(out, b.data + 2, b.len - 3); /* past "x ", short of the newline */
	out[b.len - 3] = 0;
	prom_free(&b);
	return out;
}

/* integers whole, every other value exact: a start time of Unix seconds keeps its fraction */
static void test_values(void **state)
{
	const double exact[] = {
		1795797680.123, 1795797680.5, 1795797685.999999,     0.1, 1.0 / 3, 1e-9,
		123456789.0001, -2.25,	      1.7976931348623157e308
	};

	(void)state;
	assert_string_equal(value_of(1795797680), "1795797680");
	assert_string_equal(value_of(1795797680.123), "1795797680.123");
	assert_string_equal(value_of(1795797680.5), "1795797680.5");
	assert_string_equal(value_of(0.1), "0.1");
	assert_string_equal(value_of(-3), "-3");
	assert_string_equal(value_of(0), "0");
	assert_string_equal(value_of(INFINITY), "+Inf");
	assert_string_equal(value_of(-INFINITY), "-Inf");
	assert_string_equal(value_of(NAN), "NaN");
	for (size_t i = 0; i < sizeof(exact) / sizeof(*exact); i++)
		assert_true(strtod(value_of(exact[i]), NULL) == exact[i]);
}

static void test_bound(void **state)
{
	struct prom_buf b;
	struct prom_label l[] = { { "unit", "0123456789" } };
	size_t before;
	int r = 0, n = 0;

	(void)state;
	prom_init(&b, 200);
	while (!r) {
		before = b.len;
		r = prom_sample(&b, "tracer_y", l, 1, n++);
	}
	assert_int_equal(r, -ENOSPC);
	assert_true(b.full);
	assert_int_equal(b.len, before); /* the series that did not fit is left out whole */
	assert_true(b.len < 200);
	assert_int_equal(b.data[b.len - 1], '\n');
	prom_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),   cmocka_unit_test(test_cut),
		cmocka_unit_test(test_exposition), cmocka_unit_test(test_values),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
