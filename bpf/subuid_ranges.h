/* Subordinate uid ranges (/etc/subuid) as the kernel side holds them (the subuid_ranges map), so
 * that the events of a uid of a user's range are charged to that user's share of the ring
 * (bpf/ring.bpf.h, share_owner): a user namespace does not multiply a user's share. Shared by the
 * BPF program and user space (nodeagent/subuid_map.h makes its entries). Apart from process.h, so
 * that a change here changes the layout of the maps only, not that of the events. */
#ifndef TRACER_BPF_SUBUID_RANGES_H
#define TRACER_BPF_SUBUID_RANGES_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The most ranges held; more are left out (said in tracerd's log and status). A binary search
 * finds a uid's range in SUBUID_MAP_STEPS looks at most. */
#define SUBUID_MAP_MAX 16384
#define SUBUID_MAP_STEPS 15 /* ceil(log2(SUBUID_MAP_MAX + 1)) */

/* Entries [0, subuid_count) sorted by start, none overlapping. */
struct subuid_owner {
	__u32 start, count;
	__u32 owner; /* whose share its uids' events are charged to */
};

#endif
