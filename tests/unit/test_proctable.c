/* Unit tests for nodeagent/proctable.c: identity by (pid, start), PID reuse, rediscovered
 * entries, growth, iteration with removal. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "proctable.h"

#define TICK 10000000ull /* 100 Hz, as /proc usually counts */

static int setup(void **state)
{
	struct proctable *t = malloc(sizeof(*t));

	if (!t || proctable_init(t, TICK) != 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct proctable *t = *state;

	proctable_free(t);
	free(t);
	return 0;
}

static struct proc *add(struct proctable *t, uint32_t pid, uint64_t start)
{
	struct proc *p = NULL;
	int created = -1;

	assert_int_equal(proctable_get(t, pid, start, &p, &created), 0);
	assert_int_equal(created, 1);
	assert_non_null(p);
	assert_int_equal(p->pid, pid);
	assert_int_equal(p->start_ns, start);
	return p;
}

static void test_init_zero_tick(void **state)
{
	struct proctable t;

	(void)state;
	assert_int_equal(proctable_init(&t, 0), 0);
	assert_true(t.tick_ns > 0); /* a default, never a division by zero */
	assert_int_equal(t.count, 0);
	proctable_free(&t);
	proctable_free(&t); /* twice is harmless */
}

static void test_get_find_remove(void **state)
{
	struct proctable *t = *state;
	struct proc *p, *q;
	int created = -1;

	assert_null(proctable_find(t, 100, 5000));
	assert_null(proctable_find_pid(t, 100));
	p = add(t, 100, 5000);
	assert_int_equal(t->count, 1);
	/* a new entry is zeroed */
	assert_int_equal(p->flags, 0);
	assert_null(p->exe);
	assert_null(p->argv);

	/* the same identity again: the same entry */
	assert_int_equal(proctable_get(t, 100, 5000, &q, &created), 0);
	assert_int_equal(created, 0);
	assert_ptr_equal(q, p);
	assert_int_equal(t->count, 1);

	assert_ptr_equal(proctable_find(t, 100, 5000), p);
	assert_ptr_equal(proctable_find_pid(t, 100), p);
	/* other pid, other start: not found (not rediscovered, so no tick slack) */
	assert_null(proctable_find(t, 101, 5000));
	assert_null(proctable_find(t, 100, 5001));

	/* owned strings go with the entry */
	p->exe = strdup("/bin/true");
	p->argv = strdup("true");
	proctable_remove(t, p);
	assert_int_equal(t->count, 0);
	assert_null(proctable_find(t, 100, 5000));
	assert_null(proctable_find_pid(t, 100));
}

static void test_remove_middle_of_chain(void **state)
{
	struct proctable *t = *state;
	struct proc *a, *b, *c;

	/* one pid, so one bucket chain */
	a = add(t, 7, 1);
	b = add(t, 7, 2);
	c = add(t, 7, 3);
	proctable_remove(t, b);
	assert_int_equal(t->count, 2);
	assert_ptr_equal(proctable_find(t, 7, 1), a);
	assert_null(proctable_find(t, 7, 2));
	assert_ptr_equal(proctable_find(t, 7, 3), c);
	proctable_remove(t, c);
	proctable_remove(t, a);
	assert_int_equal(t->count, 0);
}

static void test_pid_reuse(void **state)
{
	struct proctable *t = *state;
	struct proc *old, *young;

	old = add(t, 4242, 1000 * TICK);
	young = add(t, 4242, 2000 * TICK);
	assert_ptr_not_equal(old, young);
	assert_int_equal(t->count, 2);
	assert_ptr_equal(proctable_find(t, 4242, 1000 * TICK), old);
	assert_ptr_equal(proctable_find(t, 4242, 2000 * TICK), young);
	/* the old one's exit removes only the old one */
	proctable_remove(t, old);
	assert_ptr_equal(proctable_find(t, 4242, 2000 * TICK), young);
	assert_ptr_equal(proctable_find_pid(t, 4242), young);
	assert_int_equal(t->count, 1);
}

static void test_find_pid_newest(void **state)
{
	struct proctable *t = *state;
	struct proc *mid;

	/* inserted out of order: the newest start wins, not the latest insert */
	add(t, 55, 300);
	mid = add(t, 55, 900);
	add(t, 55, 100);
	add(t, 56, 5000); /* another pid, maybe the same bucket: never returned for 55 */
	assert_ptr_equal(proctable_find_pid(t, 55), mid);
	assert_int_equal(proctable_find_pid(t, 56)->start_ns, 5000);
	assert_null(proctable_find_pid(t, 57));
}

static void test_rediscovered_within_tick(void **state)
{
	struct proctable *t = *state;
	struct proc *p, *q;
	uint64_t ticks = 123456, exact = ticks * TICK + 7654321; /* inside that tick */
	int created;

	/* after a restart /proc tells the start in ticks only */
	p = add(t, 900, ticks * TICK);
	p->flags |= PROC_REDISCOVERED;
	/* the kernel's exact start of the same process falls in the same tick */
	assert_ptr_equal(proctable_find(t, 900, exact), p);
	assert_ptr_equal(proctable_find(t, 900, ticks * TICK + TICK - 1), p);
	assert_int_equal(proctable_get(t, 900, exact, &q, &created), 0);
	assert_int_equal(created, 0);
	assert_ptr_equal(q, p);
	/* the next tick is another process (PID reuse) */
	assert_null(proctable_find(t, 900, (ticks + 1) * TICK));
	assert_null(proctable_find(t, 900, ticks * TICK - 1));
	/* another pid in the same tick is not it */
	assert_null(proctable_find(t, 901, exact));

	/* without the flag, no slack: exact starts only */
	p = add(t, 901, ticks * TICK);
	assert_null(proctable_find(t, 901, exact));
	assert_ptr_equal(proctable_find(t, 901, ticks * TICK), p);
}

#define MANY 25000

static void test_growth(void **state)
{
	struct proctable *t = *state;
	size_t before = t->nbuckets;
	uint32_t i;

	for (i = 1; i <= MANY; i++) {
		struct proc *p = add(t, i * 7, (uint64_t)i * 1000);

		p->exe = malloc(8); /* owned memory in every entry: freed with the table */
		assert_non_null(p->exe);
		strcpy(p->exe, "x");
	}
	/* a PID reused many times over */
	for (i = 0; i < 100; i++)
		add(t, 31337, i + 1);
	assert_int_equal(t->count, MANY + 100);
	assert_true(t->nbuckets > before);
	assert_true(t->count <= 2 * t->nbuckets);
	for (i = 1; i <= MANY; i++) {
		struct proc *p = proctable_find(t, i * 7, (uint64_t)i * 1000);

		assert_non_null(p);
		assert_int_equal(p->pid, i * 7);
	}
	assert_int_equal(proctable_find_pid(t, 31337)->start_ns, 100);
	/* remove every other one: the rest is still there */
	for (i = 1; i <= MANY; i += 2)
		proctable_remove(t, proctable_find(t, i * 7, (uint64_t)i * 1000));
	for (i = 1; i <= MANY; i++)
		assert_true((proctable_find(t, i * 7, (uint64_t)i * 1000) != NULL) == (i % 2 == 0));
	assert_int_equal(t->count, MANY / 2 + 100);
}

struct visit {
	struct proctable *t;
	size_t seen, removed, stop_after;
	uint64_t sum;
};

static int count_fn(struct proc *p, void *ctx)
{
	struct visit *v = ctx;

	v->seen++;
	v->sum += p->pid;
	return v->stop_after && v->seen == v->stop_after ? 42 : 0;
}

/* Removes odd pids while visiting them, as the sampler drops exited processes. */
static int remove_odd_fn(struct proc *p, void *ctx)
{
	struct visit *v = ctx;

	v->seen++;
	if (p->pid % 2) {
		proctable_remove(v->t, p);
		v->removed++;
	}
	return 0;
}

static void test_foreach(void **state)
{
	struct proctable *t = *state;
	struct visit v = { .t = t };
	uint32_t i;
	uint64_t sum = 0;

	assert_int_equal(proctable_foreach(t, count_fn, &v), 0);
	assert_int_equal(v.seen, 0);
	for (i = 1; i <= 5000; i++) {
		add(t, i, 1);
		sum += i;
	}
	/* the same pid twice: both visited */
	add(t, 1, 2);
	sum += 1;
	assert_int_equal(proctable_foreach(t, count_fn, &v), 0);
	assert_int_equal(v.seen, 5001);
	assert_int_equal(v.sum, sum);

	/* early stop: fn's value comes back, nothing more is visited */
	memset(&v, 0, sizeof(v));
	v.stop_after = 10;
	assert_int_equal(proctable_foreach(t, count_fn, &v), 42);
	assert_int_equal(v.seen, 10);

	/* removal of the visited entry during iteration */
	memset(&v, 0, sizeof(v));
	v.t = t;
	assert_int_equal(proctable_foreach(t, remove_odd_fn, &v), 0);
	assert_int_equal(v.seen, 5001);
	assert_int_equal(v.removed, 2501);
	assert_int_equal(t->count, 2500);
	for (i = 1; i <= 5000; i++)
		assert_true((proctable_find_pid(t, i) != NULL) == (i % 2 == 0));
}

static int remove_all_fn(struct proc *p, void *ctx)
{
	struct visit *v = ctx;

	v->seen++;
	proctable_remove(v->t, p);
	return 0;
}

static void test_foreach_remove_all(void **state)
{
	struct proctable *t = *state;
	struct visit v = { .t = t };
	uint32_t i;

	for (i = 0; i < 3000; i++)
		add(t, i % 1000, i); /* three generations of each pid, on one chain each */
	assert_int_equal(proctable_foreach(t, remove_all_fn, &v), 0);
	assert_int_equal(v.seen, 3000);
	assert_int_equal(t->count, 0);
	for (i = 0; i < 1000; i++)
		assert_null(proctable_find_pid(t, i));
}

static void test_remove_unknown(void **state)
{
	struct proctable *t = *state;
	struct proc stranger = { .pid = 77 };

	add(t, 77, 1);
	/* an entry that is not in the table is left alone (and not freed) */
	proctable_remove(t, &stranger);
	assert_int_equal(t->count, 1);
	assert_non_null(proctable_find(t, 77, 1));
}

/* One rule for whose command a process runs, whether copied into it (its fork, its exit) or
 * looked up (live rows, stall checks): its own once it exec'd or was given its parent's. */
static void test_command_holder_and_inherit(void **state)
{
	struct proctable *t = *state;
	struct proc *parent = add(t, 10, 100), *child = add(t, 11, 200), *lone = add(t, 12, 300);

	parent->flags |= PROC_EXECED | PROC_ARGV_TRUNCATED;
	parent->exe = strdup("/usr/bin/srun");
	parent->argv = malloc(9);
	assert_non_null(parent->argv);
	memcpy(parent->argv, "srun\0bwa", 9);
	parent->argv_len = 8;
	child->ppid = 10;
	lone->ppid = 99; /* its parent is not tracked */
	assert_ptr_equal(proctable_command_holder(t, child), parent);
	assert_ptr_equal(proctable_command_holder(t, lone), lone);
	assert_ptr_equal(proctable_command_holder(t, parent), parent);

	child->elsewhere = ELSEWHERE_NO;
	proctable_inherit_command(child, parent);
	assert_string_equal(child->exe, "/usr/bin/srun");
	assert_memory_equal(child->argv, "srun\0bwa", 9);
	assert_int_equal(child->argv_len, 8);
	assert_true(child->flags & PROC_ARGV_TRUNCATED);
	assert_int_equal(child->elsewhere, ELSEWHERE_UNKNOWN); /* named again */
	assert_ptr_equal(proctable_command_holder(t, child), child);

	/* the parent's later exec is not the child's: it keeps what it was forked in */
	free(parent->exe);
	parent->exe = strdup("/bin/sh");
	proctable_inherit_command(child, parent);
	assert_string_equal(child->exe, "/usr/bin/srun");
	assert_ptr_equal(proctable_command_holder(t, child), child);

	/* an exec'd process inherits nothing, nor does one from no parent or itself */
	proctable_inherit_command(parent, child);
	assert_string_equal(parent->exe, "/bin/sh");
	proctable_inherit_command(lone, NULL);
	proctable_inherit_command(lone, lone);
	assert_null(lone->exe);
	assert_null(lone->argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_zero_tick),
		cmocka_unit_test_setup_teardown(test_get_find_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_middle_of_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_pid_newest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rediscovered_within_tick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreach_remove_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_holder_and_inherit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
