/* Unit tests for nodeagent/export/metrics_box.c: take gets the latest snapshot put, a put
 * replaces (and frees) the one not taken, an empty box gives NULL, the box frees what waits in
 * it; and a loop and an export thread at it together lose no count and leak nothing. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "metrics_box.h"

#define ROUNDS 20000

/* A snapshot whose time says which it is (with a unit and a tool, so that a free frees all) */
static struct metrics_snapshot *snap(int64_t t)
{
	struct metrics_snapshot *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->time_unix_ns = t;
	s->units = calloc(1, sizeof(*s->units));
	s->tools = calloc(1, sizeof(*s->tools));
	assert_non_null(s->units);
	assert_non_null(s->tools);
	s->nunits = s->ntools = 1;
	return s;
}

static void test_put_take(void **state)
{
	struct metrics_box_stats st;
	struct metrics_snapshot *s;
	struct metrics_box *b;

	(void)state;
	assert_int_equal(metrics_box_new(&b), 0);
	assert_null(metrics_box_take(b));
	metrics_box_put(b, snap(1));
	metrics_box_put(b, snap(2)); /* 1 was not taken: replaced */
	metrics_box_put(b, snap(3));
	s = metrics_box_take(b);
	assert_non_null(s);
	assert_int_equal(s->time_unix_ns, 3); /* the latest */
	metrics_snapshot_free(s);
	assert_null(metrics_box_take(b)); /* taken: none waits */
	metrics_box_put(b, snap(4));
	metrics_box_stats(b, &st);
	assert_int_equal(st.put, 4);
	assert_int_equal(st.replaced, 2);
	metrics_box_free(b); /* 4 is freed with the box */
	metrics_box_free(NULL);
}

struct taker {
	struct metrics_box *b;
	volatile int done;
	uint64_t taken;
	int64_t last;
	int ordered;
};

static void *take_all(void *arg)
{
	struct taker *t = arg;
	struct metrics_snapshot *s;

	t->ordered = 1;
	for (;;) {
		int done = __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);

		while ((s = metrics_box_take(t->b))) {
			t->ordered &= s->time_unix_ns > t->last; /* never an older one after */
			t->last = s->time_unix_ns;
			t->taken++;
			metrics_snapshot_free(s);
		}
		if (done)
			return NULL;
	}
}

static void test_two_threads(void **state)
{
	struct taker t = { 0 };
	struct metrics_box_stats st;
	pthread_t th;

	(void)state;
	assert_int_equal(metrics_box_new(&t.b), 0);
	assert_int_equal(pthread_create(&th, NULL, take_all, &t), 0);
	for (int64_t i = 1; i <= ROUNDS; i++)
		metrics_box_put(t.b, snap(i));
	__atomic_store_n(&t.done, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(th, NULL), 0);
	metrics_box_stats(t.b, &st);
	assert_int_equal(st.put, ROUNDS);
	assert_int_equal(t.taken + st.replaced, ROUNDS); /* each taken or replaced, once */
	assert_int_equal(t.last, ROUNDS);		 /* the last put is taken */
	assert_true(t.ordered);
	metrics_box_free(t.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_take),
		cmocka_unit_test(test_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
