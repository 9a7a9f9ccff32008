/* The subordinate uid ranges (subuid.h) as the kernel side holds them (bpf/subuid_ranges.h), so
 * that the events of a uid of a user's range are charged to that user's share of the ring. */
#ifndef TRACER_SUBUID_MAP_H
#define TRACER_SUBUID_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "subuid.h"
#include "subuid_ranges.h"

/* The entries for n ranges r (sorted, disjoint: struct subuids's) into out (max of them); returns
 * how many, and in *left_out the ranges that did not fit (the highest). A range whose owner is
 * known counts as its owner's, merged with the one before when that is the same owner's and
 * adjacent; one whose owner's name is not looked up yet counts as one user of its own (its first
 * uid), so that its uids share one share meanwhile; one of no such user is left out, its uids
 * count as themselves (as for connections). */
size_t subuid_map_build(const struct subuid_range *r, size_t n, struct subuid_owner *out,
			size_t max, size_t *left_out);

#endif
