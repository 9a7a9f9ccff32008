/* Putting events in the ring: wakeups, per-user shares of the ring, and events lost. */
#ifndef TRACER_BPF_RING_H
#define TRACER_BPF_RING_H

#include "maps.bpf.h"

/* The flag for an event of size bytes about to go in the ring (see wakeup_bytes). */
static __always_inline __u64 wakeup(__u64 size)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&unwoken, &zero);

	if (n) {
		*n += size;
		if (*n < wakeup_check_bytes)
			return BPF_RB_NO_WAKEUP;
		*n = 0;
	}
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									     : BPF_RB_NO_WAKEUP;
}

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;
}

/* An event of unit could not be recorded (ring buffer or a map full). */
static __always_inline void lose(__u64 unit)
{
	__u64 one = 1, *n;

	count(STAT_LOST);
	n = bpf_map_lookup_elem(&unit_lost, &unit);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&unit_lost, &unit, &one, BPF_NOEXIST);
}

/* Whose share uid's events go to: the owner of the subordinate range that holds it, else uid. A
 * binary search of subuid_ranges without a branch on what it reads (one that branched made the
 * verifier walk each of its paths, more than it allows); tracerd may be rewriting the entries:
 * an event then charged to another slot than its owner's gives its bytes back to that same slot
 * (event_header.share). */
static __always_inline __u32 share_owner(__u32 uid)
{
	__u32 base = 0, len = subuid_count, half, mid, k;
	struct subuid_owner *r;
	__u64 mask;

	if (!len || uid < subuid_lowest)
		return uid;
	if (len > SUBUID_MAP_MAX)
		len = SUBUID_MAP_MAX;
	/* the last entry that starts at or before uid: len halves each step, to 1 */
	for (k = 0; k < SUBUID_MAP_STEPS; k++) {
		half = len / 2;
		mid = base + half;
		r = bpf_map_lookup_elem(&subuid_ranges, &mid);
		if (!r)
			return uid;
		/* all ones when it starts at or before uid, else 0; the barriers keep clang from
		 * making that a branch */
		mask = (__u64)uid - r->start;
		barrier_var(mask);
		mask = (mask >> 63) - 1;
		barrier_var(mask);
		base += half & (__u32)mask;
		len -= half;
	}
	r = bpf_map_lookup_elem(&subuid_ranges, &base);
	return r && r->start <= uid && uid - r->start < r->count ? r->owner : uid;
}

/* The current user's slot in shares (its uid's owner's, see share_owner): the one it holds, else
 * the first of its probes that is free or has nothing left in the ring (taken over); SHARE_SLOTS
 * when others hold all its probes. That user is then charged nothing (never refused by share):
 * charged to a probe on top of its holder, it could be refused for another's bytes, and the hash is
 * fixed, so a user with many uids could fill a chosen user's probes. */
static __always_inline __u32 share_slot(void)
{
	__u32 owner = share_owner((__u32)bpf_get_current_uid_gid()) + 1,
	      first = owner * 2654435761u >> (32 - SHARE_BITS);
	__u32 i, k, o, seen = 0, take = SHARE_SLOTS;

	for (k = 0; k < SHARE_PROBES; k++) {
		i = (first + k) & (SHARE_SLOTS - 1);
		o = shares[i].owner;
		if (o == owner)
			return i;
		if (take == SHARE_SLOTS && (!o || shares[i].bytes <= 0)) {
			take = i;
			seen = o;
		}
	}
	if (take == SHARE_SLOTS)
		return SHARE_SLOTS;
	take &= SHARE_SLOTS - 1;
	/* another user may have taken the slot since it was looked at: the swap fails then, and
	 * this event is charged nothing (another CPU of the same user winning is as good) */
	o = __sync_val_compare_and_swap(&shares[take].owner, seen, owner);
	return o == seen || o == owner ? take : SHARE_SLOTS;
}

/* An event of size bytes of unit, about to go in the ring: charged to the current user's share,
 * and the slot's number returned for the event's header (0: charged nothing, see share_slot). A
 * user who holds no less of the ring than is left free is refused (-1; counted lost to unit): so
 * the heaviest are refused first, and a ring that their events fill to the half stays half free
 * for everyone else's. */
static __always_inline int ring_claim(__u64 size, __u64 unit)
{
	__u32 i = share_slot();
	__s64 charge = ring_charge(size), held;

	if (i >= SHARE_SLOTS)
		return 0;
	/* a bound every verifier keeps, whatever the compiler made of the test */
	i &= SHARE_SLOTS - 1;
	held = shares[i].bytes;
	if (held > share_quiet &&
	    (__u64)held + bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= ring_bytes) {
		count(STAT_REFUSED);
		lose(unit);
		return -1;
	}
	__sync_fetch_and_add(&shares[i].bytes, charge);
	return i + 1;
}

/* The event did not go in after all (the ring was full): its bytes back, and lost to unit. */
static __always_inline void ring_unclaim(int share, __u64 size, __u64 unit)
{
	if (share)
		__sync_fetch_and_add(&shares[(share - 1) & (SHARE_SLOTS - 1)].bytes,
				     -(__s64)ring_charge(size));
	lose(unit);
}

static __always_inline void header(struct event_header *h, __u32 type, __u32 pid, __u64 start,
				   __u64 unit)
{
	h->type = type;
	h->share = 0;
	h->pid = pid;
	h->start_ns = start;
	h->unit = unit;
	h->time_ns = bpf_ktime_get_boot_ns();
}

#endif
