/* The metrics mailbox (metrics_box.h): a mutex and one slot. A snapshot is freed outside the
 * lock, so that neither side ever waits on the other's free. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "metrics_box.h"

struct metrics_box {
	pthread_mutex_t lock;
	struct metrics_snapshot *waiting;
	struct metrics_box_stats stats;
};

int metrics_box_new(struct metrics_box **out)
{
	struct metrics_box *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	pthread_mutex_init(&b->lock, NULL);
	*out = b;
	return 0;
}

void metrics_box_free(struct metrics_box *b)
{
	if (!b)
		return;
	metrics_snapshot_free(b->waiting);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

void metrics_box_put(struct metrics_box *b, struct metrics_snapshot *s)
{
	struct metrics_snapshot *old;

	pthread_mutex_lock(&b->lock);
	old = b->waiting;
	b->waiting = s;
	b->stats.put++;
	b->stats.replaced += old != NULL;
	pthread_mutex_unlock(&b->lock);
	metrics_snapshot_free(old);
}

struct metrics_snapshot *metrics_box_take(struct metrics_box *b)
{
	struct metrics_snapshot *s;

	pthread_mutex_lock(&b->lock);
	s = b->waiting;
	b->waiting = NULL;
	pthread_mutex_unlock(&b->lock);
	return s;
}

void metrics_box_stats(struct metrics_box *b, struct metrics_box_stats *out)
{
	pthread_mutex_lock(&b->lock);
	*out = b->stats;
	pthread_mutex_unlock(&b->lock);
}
