/* Per-uid token buckets (quota.h). */
#include <errno.h>

#include "quota.h"

/* uid's bucket as of now: its own entry, else a free one or the one that has waited longest
 * (with QUOTA_UIDS users beginning runs at once, the quietest starts again full). */
static int bucket_of(struct quota *q, uint32_t uid, uint32_t rate, uint32_t burst, int64_t now_ns)
{
	int i, spare = 0;

	for (i = 0; i < QUOTA_UIDS; i++) {
		if (q->b[i].at_ns && q->b[i].uid == uid)
			break;
		if (q->b[spare].at_ns && (!q->b[i].at_ns || q->b[i].at_ns < q->b[spare].at_ns))
			spare = i;
	}
	if (i == QUOTA_UIDS) {
		i = spare;
		q->b[i].uid = uid;
		q->b[i].tokens = burst;
		q->b[i].at_ns = now_ns;
	}
	if (now_ns > q->b[i].at_ns) {
		q->b[i].tokens += (double)(now_ns - q->b[i].at_ns) * rate / 1e9;
		if (q->b[i].tokens > burst)
			q->b[i].tokens = burst;
		q->b[i].at_ns = now_ns;
	}
	return i;
}

int quota_take(struct quota *q, uint32_t uid, uint32_t rate, uint32_t burst, int64_t now_ns)
{
	int i = bucket_of(q, uid, rate ? rate : 1, burst ? burst : 1, now_ns ? now_ns : 1);

	if (q->b[i].tokens < 1)
		return -EAGAIN;
	q->b[i].tokens -= 1;
	return 0;
}
