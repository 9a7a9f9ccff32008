/* A reader of a BPF ring buffer that gives the space of what it read back to the kernel only
 * when told: the records handed to tracerd stay in the ring until the store has committed what
 * they became (ring_reader_release), so that a tracerd killed in between finds them again at its
 * next start, in the pinned ring. libbpf's ring_buffer__consume gives each record's space back
 * as soon as its callback returns, and cannot be told otherwise. */
#ifndef TRACER_RING_READER_H
#define TRACER_RING_READER_H

#include <stddef.h>
#include <stdint.h>

struct ring_reader;

/* A record's payload. A negative return stops the reading after this record, which counts as
 * read. */
typedef int (*ring_record_fn)(void *ctx, const void *data, size_t size);

/* Map the ring buffer map map_fd (not taken over: the caller keeps it open). */
int ring_reader_open(struct ring_reader **out, int map_fd);
/* A ring laid out as the kernel's in memory the caller owns and keeps (tests): the consumer and
 * producer positions, and size bytes of data (a power of two) mapped twice in a row. */
int ring_reader_wrap(struct ring_reader **out, uint64_t *consumer, const uint64_t *producer,
		     const void *data, size_t size);
void ring_reader_close(struct ring_reader *r);
/* An fd that polls readable when the kernel side woke readers (edge-triggered: records held
 * unreleased do not keep it readable); ring_reader_read clears it. */
int ring_reader_fd(const struct ring_reader *r);
/* Hand each record not yet handed to fn, in order, until fn stops it or none is left; returns
 * the count handed or -errno. */
int ring_reader_read(struct ring_reader *r, ring_record_fn fn, void *ctx);
/* Where the records fn returned for end: what a later release may give back up to. */
uint64_t ring_reader_mark(const struct ring_reader *r);
/* Give back to the kernel side the space of the records fn returned for, up to the mark upto
 * (UINT64_MAX: all of them), each shown to seen (when not NULL) first. */
void ring_reader_release(struct ring_reader *r, uint64_t upto, ring_record_fn seen, void *ctx);
/* Bytes the ring holds that were handed and not released yet, and the ring's size. */
uint64_t ring_reader_held(const struct ring_reader *r);
uint64_t ring_reader_size(const struct ring_reader *r);

#endif
