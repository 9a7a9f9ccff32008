/* Subordinate uid ranges into the kernel side's entries (nodeagent/subuid_map.c): owners known,
 * not looked up yet and unknown; adjacent ranges of one owner merged, others not; the bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "subuid_map.h"

static struct subuid_range range(uint32_t start, uint32_t count, uid_t owner, int8_t looked)
{
	return (struct subuid_range){
		.start = start, .count = count, .owner = owner, .looked = looked
	};
}

static void assert_entry(const struct subuid_owner *e, uint32_t start, uint32_t count,
			 uint32_t owner)
{
	assert_int_equal(e->start, start);
	assert_int_equal(e->count, count);
	assert_int_equal(e->owner, owner);
}

static void test_owners(void **state)
{
	struct subuid_range r[] = {
		range(100000, 65536, 1001, 1), /* known */
		range(165536, 65536, 0, 0),    /* not looked up yet: its first uid's */
		range(231072, 65536, 0, -1),   /* no such user: its uids are their own */
		range(296608, 10, 0, 1),       /* root's */
	};
	struct subuid_owner e[8];
	size_t left = 99, n;

	(void)state;
	n = subuid_map_build(r, 4, e, 8, &left);
	assert_int_equal(n, 3);
	assert_int_equal(left, 0);
	assert_entry(&e[0], 100000, 65536, 1001);
	assert_entry(&e[1], 165536, 65536, 165536);
	assert_entry(&e[2], 296608, 10, 0);
	assert_int_equal(subuid_map_build(r, 0, e, 8, &left), 0);
	assert_int_equal(left, 0);
}

static void test_merged(void **state)
{
	struct subuid_range r[] = {
		range(1000, 10, 7, 1), range(1010, 10, 7, 1), /* adjacent, one owner */
		range(1021, 10, 7, 1),			      /* a gap: apart */
		range(1031, 10, 8, 1),			      /* another owner */
		range(1041, 10, 8, 1),
	};
	struct subuid_owner e[8];
	size_t left, n;

	(void)state;
	n = subuid_map_build(r, 5, e, 8, &left);
	assert_int_equal(n, 3);
	assert_entry(&e[0], 1000, 20, 7);
	assert_entry(&e[1], 1021, 10, 7);
	assert_entry(&e[2], 1031, 20, 8);
	/* all 2^32 uids together do not fit a count: apart */
	r[0] = range(0, 10, 9, 1);
	r[1] = range(10, 0xfffffff6u, 9, 1);
	n = subuid_map_build(r, 2, e, 8, &left);
	assert_int_equal(n, 2);
	assert_entry(&e[1], 10, 0xfffffff6u, 9);
	/* two ranges not looked up yet that touch are two users, not one */
	r[0] = range(1000, 10, 0, 0);
	r[1] = range(1010, 10, 0, 0);
	n = subuid_map_build(r, 2, e, 8, &left);
	assert_int_equal(n, 2);
	assert_entry(&e[1], 1010, 10, 1010);
}

static void test_bound(void **state)
{
	struct subuid_range r[6];
	struct subuid_owner e[3];
	size_t left, n;

	(void)state;
	for (uint32_t i = 0; i < 6; i++)
		r[i] = range(1000 + 100 * i, 10, 50 + i, 1);
	n = subuid_map_build(r, 6, e, 3, &left);
	assert_int_equal(n, 3);
	assert_int_equal(left, 3); /* the highest left out */
	assert_entry(&e[2], 1200, 10, 52);
	/* a range that merges into the last entry still fits */
	r[3] = range(1210, 5, 52, 1);
	n = subuid_map_build(r, 6, e, 3, &left);
	assert_int_equal(n, 3);
	assert_int_equal(left, 2);
	assert_entry(&e[2], 1200, 15, 52);
	/* nor is one of no such user counted as left out */
	r[4] = range(1400, 10, 0, -1);
	subuid_map_build(r, 6, e, 3, &left);
	assert_int_equal(left, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_merged),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
