/* Unit tests for util/log.c's summing: a call site says LOG_BURST lines in its window, the
 * rest are held back and said as one, "... and N more like it", when its window is over or
 * when, that window over, it gives way to another call site. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "log.h"

/* The clock the windows follow, moved by the tests (windows of 10 s: 1000 starts one). */
static int64_t fake_s = 1000;

static int64_t fake_clock(void)
{
	return fake_s;
}

/* The start of the next window. */
static void next_window(void)
{
	fake_s += 10 - fake_s % 10;
}

/* Run fn with stderr going to a file; its text, NUL-terminated (the caller frees it). */
static char *captured(void (*fn)(void))
{
	char path[] = "/tmp/test_log.XXXXXX", *text;
	int fd = mkstemp(path), saved = dup(2);
	long n;
	FILE *f;

	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	fn();
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, 1 << 16);
	assert_non_null(text);
	n = (long)fread(text, 1, (1 << 16) - 1, f);
	assert_true(n >= 0);
	fclose(f);
	unlink(path);
	return text;
}

static size_t lines(const char *text, const char *with)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, with)); p++)
		n++;
	return n;
}

/* 16 call sites of their own, each saying what it is */
#define SITE(n)                                     \
	do {                                        \
		if (k == (n))                       \
			log_info("other site " #n); \
	} while (0)
static void other(int k)
{
	SITE(0);
	SITE(1);
	SITE(2);
	SITE(3);
	SITE(4);
	SITE(5);
	SITE(6);
	SITE(7);
	SITE(8);
	SITE(9);
	SITE(10);
	SITE(11);
	SITE(12);
	SITE(13);
	SITE(14);
	SITE(15);
}

static void flood(void)
{
	int i, k;

	log_open("t", 1, LOG_LEVEL_INFO);
	log_set_clock(fake_clock);
	next_window();
	for (i = 0; i < 25; i++) {
		log_info("flooded line %d", i);
		fake_s += i % 3 == 2; /* within the window: 8 s of it */
	}
	log_flush(); /* its window is not over: nothing yet */
	log_warn("flush said nothing");
	/* as many other places as the table holds: none in its window gives way, the flood is
	 * summed when its window is over */
	for (k = 0; k < 16; k++)
		other(k);
	next_window();
	log_flush();
}

static void test_summed(void **state)
{
	char *text = captured(flood), *sum;

	(void)state;
	assert_int_equal(lines(text, "flooded line"), 11); /* 10 said, then the sum */
	assert_non_null(strstr(text, "flooded line 9\n"));
	assert_null(strstr(text, "flooded line 10\n"));
	sum = strstr(text, "flooded line 24 ... and 14 more like it\n");
	assert_non_null(sum);
	assert_true(sum > strstr(text, "flush said nothing"));
	assert_non_null(strstr(text, "other site 15\n"));
	free(text);
}

/* Two sites that find the table full of sites in their window: their lines share one burst,
 * not a fresh one each time one takes another's entry. */
static void churn(void)
{
	int i, k;

	log_open("t", 1, LOG_LEVEL_INFO);
	log_set_clock(fake_clock);
	next_window();
	log_flush();
	for (k = 0; k < 16; k++) /* the table full, each in its window */
		other(k);
	for (i = 0; i < 20; i++) {
		log_info("churn a %d", i);
		log_info("churn b %d", i);
	}
}

static void test_churn(void **state)
{
	char *text = captured(churn);

	(void)state;
	assert_int_equal(lines(text, "other site"), 16);
	assert_int_equal(lines(text, "churn "), 10); /* one burst for both, the rest held */
	free(text);
}

/* At exit, what is held back is said though its window is not over. */
static void at_exit(void)
{
	int i;

	log_open("t", 1, LOG_LEVEL_INFO);
	log_set_clock(fake_clock);
	next_window();
	log_flush();
	for (i = 0; i < 15; i++)
		log_info("last flood %d", i);
	log_flush(); /* its window goes on: nothing */
	log_warn("before the exit");
	log_flush_all();
	log_flush_all(); /* said once */
}

static void test_flush_all(void **state)
{
	char *text = captured(at_exit), *sum;

	(void)state;
	assert_int_equal(lines(text, "last flood"), 11);
	sum = strstr(text, "last flood 14 ... and 4 more like it\n");
	assert_non_null(sum);
	assert_true(sum > strstr(text, "before the exit"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summed),
		cmocka_unit_test(test_churn),
		cmocka_unit_test(test_flush_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
