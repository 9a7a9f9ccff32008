/* How fast one user may begin traced runs: a token bucket per uid, refilled at rate a second and
 * full at burst. A bounded table: a uid whose bucket is full again needs no entry. */
#ifndef TRACER_QUOTA_H
#define TRACER_QUOTA_H

#include <stdint.h>

#define QUOTA_UIDS 64

struct quota {
	struct {
		uint32_t uid;
		double tokens;
		int64_t at_ns; /* when tokens was last brought up to date; 0: a free entry */
	} b[QUOTA_UIDS];
};

/* Take one token of uid's at now_ns (a monotonic clock): 0, or -EAGAIN when the bucket is
 * empty. rate and burst are at least 1. */
int quota_take(struct quota *q, uint32_t uid, uint32_t rate, uint32_t burst, int64_t now_ns);

#endif
