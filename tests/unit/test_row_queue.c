/* Rows queued for the store's committing thread (nodeagent/store/row_queue.c): what is read
 * back is what was put, strings and blobs copied, unset columns left unset; a buffer that does
 * not read as rows is refused, never read past. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "row_queue.h"
#include "store_internal.h"

static void fill(struct rec_row *r, const char *comm, const char *argv, unsigned argv_len)
{
	memset(r, 0, sizeof(*r));
	rec_int(r, PCOL_pid, 4242);
	rec_int(r, PCOL_cpu_ns, -7);
	rec_text(r, PCOL_comm, comm);
	rec_blob(r, PCOL_argv, argv, argv_len);
	r->set[PCOL_exe] = 1; /* set, but NULL: stays NULL */
}

static void test_roundtrip(void **state)
{
	struct row_queue q = {};
	struct rec_row in, out;
	char comm[16], argv[] = "sh\0-c\0echo \"x\"";
	enum row_op op;
	uint64_t unit;
	size_t at = 0;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		snprintf(comm, sizeof(comm), "c%d", i);
		fill(&in, comm, argv, sizeof(argv));
		assert_int_equal(row_queue_put(&q, i % 2 ? ROW_PROCESS : ROW_FOLD, (uint64_t)i,
					       &store_processes, &in),
				 0);
	}
	assert_int_equal(q.n, 1000);
	assert_int_equal(q.procs.n, UNIT_COUNTS); /* 64 units counted, the rest summed */
	assert_int_equal(q.procs.rest, 1000 - UNIT_COUNTS);
	memset(comm, 0, sizeof(comm)); /* the queue holds copies */
	for (i = 0; i < 1000; i++) {
		char want[16];

		assert_int_equal(row_queue_next(&q, &at, &op, &unit, &out), 1);
		snprintf(want, sizeof(want), "c%d", i);
		assert_int_equal(op, i % 2 ? ROW_PROCESS : ROW_FOLD);
		assert_int_equal(unit, (uint64_t)i);
		assert_int_equal(out.i[PCOL_pid], 4242);
		assert_int_equal(out.i[PCOL_cpu_ns], -7);
		assert_string_equal(out.s[PCOL_comm], want);
		assert_int_equal(out.len[PCOL_argv], sizeof(argv));
		assert_memory_equal(out.s[PCOL_argv], argv, sizeof(argv));
		assert_true(out.set[PCOL_exe]);
		assert_null(out.s[PCOL_exe]);
		assert_false(out.set[PCOL_tool]);
	}
	assert_int_equal(row_queue_next(&q, &at, &op, &unit, &out), 0);
	row_queue_clear(&q);
	assert_int_equal(q.n, 0);
	assert_int_equal(q.procs.n, 0);
	at = 0;
	assert_int_equal(row_queue_next(&q, &at, &op, &unit, &out), 0);
	row_queue_free(&q);
}

/* A row's buffer grows in the middle of the row, where a string comes that does not fit: rows
 * before it and the row itself read back whole; empty strings and every column set too */
static void test_growth(void **state)
{
	static char big[300000];
	struct row_queue q = {};
	struct rec_row in, out;
	enum row_op op;
	uint64_t unit;
	size_t at = 0;
	int i;

	(void)state;
	for (size_t k = 0; k < sizeof(big); k++)
		big[k] = (char)(k % 251);
	for (i = 0; i < 300; i++) {
		memset(&in, 0, sizeof(in));
		for (size_t c = 0; c < store_processes.n; c++)
			rec_int(&in, (int)c, (int64_t)c * i);
		rec_text(&in, PCOL_comm, "");
		rec_text(&in, PCOL_exe, i % 2 ? "/usr/bin/x" : "");
		rec_blob(&in, PCOL_argv, big, i % 50 == 7 ? sizeof(big) : 3);
		assert_int_equal(row_queue_put(&q, ROW_PROCESS, 1, &store_processes, &in), 0);
	}
	for (i = 0; i < 300; i++) {
		assert_int_equal(row_queue_next(&q, &at, &op, &unit, &out), 1);
		assert_string_equal(out.s[PCOL_comm], "");
		assert_string_equal(out.s[PCOL_exe], i % 2 ? "/usr/bin/x" : "");
		assert_int_equal(out.len[PCOL_argv], i % 50 == 7 ? sizeof(big) : 3);
		assert_memory_equal(out.s[PCOL_argv], big, out.len[PCOL_argv]);
		assert_int_equal(out.i[PCOL_pid], (int64_t)PCOL_pid * i);
		assert_int_equal(out.i[PCOL_seq], (int64_t)PCOL_seq * i);
	}
	assert_int_equal(row_queue_next(&q, &at, &op, &unit, &out), 0);
	assert_int_equal(at, q.len);
	row_queue_free(&q);
}

/* Every truncation and every flipped byte of a queued row reads as an error or as a row whose
 * strings end within the buffer. */
static void test_damaged(void **state)
{
	struct row_queue q = {}, cut;
	struct rec_row in, out;
	char argv[] = "a\0b";
	enum row_op op;
	uint64_t unit;
	size_t at, len;

	(void)state;
	fill(&in, "comm", argv, sizeof(argv));
	assert_int_equal(row_queue_put(&q, ROW_PROCESS, 1, &store_processes, &in), 0);
	len = q.len;
	for (size_t n = 0; n < len; n++) {
		cut = q;
		cut.len = n;
		at = 0;
		assert_true(row_queue_next(&cut, &at, &op, &unit, &out) <= 0);
	}
	for (size_t b = 0; b < len; b++) {
		uint8_t keep = q.buf[b];
		int r;

		q.buf[b] ^= 0xff;
		at = 0;
		r = row_queue_next(&q, &at, &op, &unit, &out);
		if (r == 1)
			for (int c = 0; c < REC_MAX; c++)
				if (out.set[c] && out.s[c])
					assert_true((const uint8_t *)out.s[c] >= q.buf &&
						    (const uint8_t *)out.s[c] < q.buf + len);
		q.buf[b] = keep;
	}
	row_queue_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
