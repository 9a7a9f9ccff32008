/* Unit tests for nodeagent/ring_reader.c on a ring laid out as the kernel's, in memory: records
 * are handed in order, a busy one stops the reading and a discarded one is skipped, a record's
 * space goes back to the kernel only when released, and a reader opened again hands what was
 * not released again (what a tracerd killed before its commit finds at its next start). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include <linux/bpf.h>

#include "ring_reader.h"

#define SIZE 4096 /* a page: mapped twice in a row below, as the kernel maps the ring */

struct ring {
	uint64_t consumer, producer;
	uint8_t *data;
};

static struct ring ring;

static int setup(void **state)
{
	int fd = memfd_create("ring", 0);
	uint8_t *p;

	(void)state;
	if (fd < 0 || ftruncate(fd, SIZE) < 0)
		return -1;
	p = mmap(NULL, 2 * SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED ||
	    mmap(p, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    mmap(p + SIZE, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
		    MAP_FAILED)
		return -1;
	close(fd);
	memset(&ring, 0, sizeof(ring));
	ring.data = p;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(ring.data, 2 * SIZE);
	return 0;
}

/* Put a record of len bytes, filled with byte, at the producer position (flags: busy, discard). */
static void put(uint32_t len, uint8_t byte, uint32_t flags)
{
	uint8_t *rec = ring.data + (ring.producer & (SIZE - 1));
	uint32_t hdr = len | flags;

	memcpy(rec, &hdr, sizeof(hdr));
	memset(rec + BPF_RINGBUF_HDR_SZ, byte, len);
	ring.producer += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7u;
}

struct seen {
	uint8_t bytes[32];
	size_t sizes[32];
	unsigned n;
	int stop_at; /* return -1 for this record (1-based), 0: never */
};

static int take(void *ctx, const void *data, size_t size)
{
	struct seen *s = ctx;

	s->bytes[s->n] = *(const uint8_t *)data;
	s->sizes[s->n] = size;
	s->n++;
	return s->stop_at && (int)s->n == s->stop_at ? -1 : 0;
}

static void test_order_busy_discard(void **state)
{
	struct ring_reader *r;
	struct seen s = {};

	(void)state;
	assert_int_equal(ring_reader_wrap(&r, &ring.consumer, &ring.producer, ring.data, SIZE), 0);
	put(5, 'a', 0);
	put(16, 'b', BPF_RINGBUF_DISCARD_BIT);
	put(9, 'c', 0);
	put(3, 'd', BPF_RINGBUF_BUSY_BIT);
	put(4, 'e', 0);
	assert_int_equal(ring_reader_read(r, take, &s), 2);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.bytes[0], 'a');
	assert_int_equal(s.sizes[0], 5);
	assert_int_equal(s.bytes[1], 'c');
	assert_int_equal(s.sizes[1], 9);
	/* nothing is the kernel's again before the release */
	assert_int_equal(ring.consumer, 0);
	assert_int_equal(ring_reader_held(r), 16 + 24 + 24);
	/* the busy record is written: the next read goes on from it */
	*(uint32_t *)(ring.data + 64) = 3;
	assert_int_equal(ring_reader_read(r, take, &s), 2);
	assert_int_equal(s.bytes[2], 'd');
	assert_int_equal(s.bytes[3], 'e');
	ring_reader_close(r);
}

static void test_release_after_commit(void **state)
{
	struct ring_reader *r;
	struct seen s = {}, released = {};

	(void)state;
	assert_int_equal(ring_reader_wrap(&r, &ring.consumer, &ring.producer, ring.data, SIZE), 0);
	put(8, 'a', 0);
	put(8, 'b', BPF_RINGBUF_DISCARD_BIT);
	put(8, 'c', 0);
	s.stop_at = 1; /* the time budget ran out after the first */
	assert_int_equal(ring_reader_read(r, take, &s), 1);
	ring_reader_release(r, UINT64_MAX, take, &released);
	assert_int_equal(released.n, 1);
	assert_int_equal(ring.consumer, 16);
	s.stop_at = 0;
	assert_int_equal(ring_reader_read(r, take, &s), 1);
	assert_int_equal(s.bytes[1], 'c');
	/* a release shows each record handed since the last one, the discarded one not */
	ring_reader_release(r, UINT64_MAX, take, &released);
	assert_int_equal(released.n, 2);
	assert_int_equal(released.bytes[1], 'c');
	assert_int_equal(ring.consumer, ring.producer);
	assert_int_equal(ring_reader_held(r), 0);
	ring_reader_close(r);
}

/* What a reader handed and never released is handed again by the next reader. */
static void test_unreleased_handed_again(void **state)
{
	struct ring_reader *r;
	struct seen s = {};

	(void)state;
	assert_int_equal(ring_reader_wrap(&r, &ring.consumer, &ring.producer, ring.data, SIZE), 0);
	put(8, 'a', 0);
	assert_int_equal(ring_reader_read(r, take, &s), 1);
	ring_reader_release(r, UINT64_MAX, NULL, NULL); /* committed */
	put(8, 'b', 0);
	put(8, 'c', 0);
	assert_int_equal(ring_reader_read(r, take, &s), 2);
	ring_reader_close(r); /* killed before the commit */
	memset(&s, 0, sizeof(s));
	assert_int_equal(ring_reader_wrap(&r, &ring.consumer, &ring.producer, ring.data, SIZE), 0);
	assert_int_equal(ring_reader_read(r, take, &s), 2);
	assert_int_equal(s.bytes[0], 'b');
	assert_int_equal(s.bytes[1], 'c');
	ring_reader_close(r);
}

/* A record that runs past the end of the data reads whole, through the second mapping. */
static void test_wraps(void **state)
{
	struct ring_reader *r;
	struct seen s = {};

	(void)state;
	ring.consumer = ring.producer = 3 * SIZE - 16;
	assert_int_equal(ring_reader_wrap(&r, &ring.consumer, &ring.producer, ring.data, SIZE), 0);
	put(40, 'w', 0);
	put(8, 'x', 0);
	assert_int_equal(ring_reader_read(r, take, &s), 2);
	assert_int_equal(s.bytes[0], 'w');
	assert_int_equal(s.sizes[0], 40);
	assert_int_equal(ring.data[SIZE - 16 + 8 + 39], 'w'); /* past the end, in the second map */
	assert_int_equal(s.bytes[1], 'x');
	ring_reader_release(r, UINT64_MAX, NULL, NULL);
	assert_int_equal(ring.consumer, 3 * SIZE - 16 + 48 + 16);
	ring_reader_close(r);
	assert_int_equal(ring_reader_wrap(&r, &ring.consumer, &ring.producer, ring.data, 3000),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_busy_discard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_after_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreleased_handed_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wraps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
