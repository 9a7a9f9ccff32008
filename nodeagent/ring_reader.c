/* A BPF ring buffer read from its memory map (see ring_reader.h). The layout is the kernel's
 * (kernel/bpf/ringbuf.c): a writable page with the consumer position, then a read-only page
 * with the producer position and the data pages, mapped twice in a row so that a record that
 * wraps around reads as one. A record is an 8-byte header (its length, with a busy bit while the
 * kernel side writes it and a discard bit when it gave it up) and its payload, rounded up to 8. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "log.h"
#include "ring_reader.h"

struct ring_reader {
	uint64_t *consumer;	  /* the kernel's: what it may write over */
	const uint64_t *producer; /* the kernel's: what it has reserved */
	const uint8_t *data;	  /* the data pages, twice */
	size_t page, size;	  /* size: a power of two */
	uint64_t read, done;	  /* positions: past the last record handed, and returned */
	int epfd;
	int mapped; /* the maps are ours to unmap */
};

static uint64_t record_bytes(uint32_t len)
{
	return ((uint64_t)(len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT)) +
		BPF_RINGBUF_HDR_SZ + 7) &
	       ~7ULL;
}

int ring_reader_open(struct ring_reader **out, int map_fd)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	struct ring_reader *r;
	void *p;
	int err;

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len) < 0)
		return -errno;
	if (info.type != BPF_MAP_TYPE_RINGBUF || !info.max_entries ||
	    (info.max_entries & (info.max_entries - 1)))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->size = info.max_entries;
	r->epfd = -1;
	p = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		goto fail_errno;
	r->consumer = p;
	p = mmap(NULL, r->page + 2 * r->size, PROT_READ, MAP_SHARED, map_fd, (off_t)r->page);
	if (p == MAP_FAILED)
		goto fail_errno;
	r->producer = p;
	r->data = (const uint8_t *)p + r->page;
	r->mapped = 1;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0 || epoll_ctl(r->epfd, EPOLL_CTL_ADD, map_fd, &ev) < 0)
		goto fail_errno;
	/* what a previous reader left unreleased is read again from here */
	r->read = r->done = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
	*out = r;
	return 0;
fail_errno:
	err = -errno;
	log_error("ring buffer: cannot map it: %s", strerror(-err));
	ring_reader_close(r);
	return err;
}

int ring_reader_wrap(struct ring_reader **out, uint64_t *consumer, const uint64_t *producer,
		     const void *data, size_t size)
{
	struct ring_reader *r;

	if (!size || (size & (size - 1)))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->consumer = consumer;
	r->producer = producer;
	r->data = data;
	r->size = size;
	r->epfd = -1;
	r->read = r->done = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
	*out = r;
	return 0;
}

void ring_reader_close(struct ring_reader *r)
{
	if (!r)
		return;
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->mapped && r->producer)
		munmap((void *)r->producer, r->page + 2 * r->size);
	if (r->mapped && r->consumer)
		munmap(r->consumer, r->page);
	free(r);
}

int ring_reader_fd(const struct ring_reader *r)
{
	return r->epfd;
}

int ring_reader_read(struct ring_reader *r, ring_record_fn fn, void *ctx)
{
	struct epoll_event ev;
	uint64_t prod;
	uint32_t len;
	int n = 0, err;

	if (r->epfd >= 0)
		epoll_wait(r->epfd, &ev, 1, 0); /* the wakeup is taken: the records are read now */
	for (;;) {
		prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		if (r->read >= prod)
			return n;
		while (r->read < prod) {
			const uint8_t *rec = r->data + (r->read & (r->size - 1));

			len = __atomic_load_n((const uint32_t *)rec, __ATOMIC_ACQUIRE);
			if (len & BPF_RINGBUF_BUSY_BIT)
				return n; /* still being written: the next read takes it */
			r->read += record_bytes(len);
			if (len & BPF_RINGBUF_DISCARD_BIT) {
				r->done = r->read;
				continue;
			}
			n++;
			err = fn(ctx, rec + BPF_RINGBUF_HDR_SZ, len);
			r->done = r->read;
			if (err < 0)
				return n;
		}
	}
}

uint64_t ring_reader_mark(const struct ring_reader *r)
{
	return r->done;
}

void ring_reader_release(struct ring_reader *r, uint64_t upto, ring_record_fn seen, void *ctx)
{
	uint64_t pos = __atomic_load_n(r->consumer, __ATOMIC_RELAXED);
	uint32_t len;

	if (upto > r->done)
		upto = r->done;
	if (upto <= pos)
		return;
	while (seen && pos < upto) {
		const uint8_t *rec = r->data + (pos & (r->size - 1));

		len = *(const uint32_t *)rec;
		if (!(len & BPF_RINGBUF_DISCARD_BIT))
			seen(ctx, rec + BPF_RINGBUF_HDR_SZ, len);
		pos += record_bytes(len);
	}
	__atomic_store_n(r->consumer, upto, __ATOMIC_RELEASE);
}

uint64_t ring_reader_held(const struct ring_reader *r)
{
	return r->done - __atomic_load_n(r->consumer, __ATOMIC_RELAXED);
}

uint64_t ring_reader_size(const struct ring_reader *r)
{
	return r->size;
}
