/* Subordinate uid ranges into the kernel side's entries (subuid_map.h). */
#include "subuid_map.h"

size_t subuid_map_build(const struct subuid_range *r, size_t n, struct subuid_owner *out,
			size_t max, size_t *left_out)
{
	size_t i, k = 0, left = 0;

	for (i = 0; i < n; i++) {
		uint32_t owner = r[i].looked > 0 ? (uint32_t)r[i].owner : r[i].start;
		struct subuid_owner *prev = k ? &out[k - 1] : NULL;

		if (r[i].looked < 0)
			continue;
		if (prev && prev->owner == owner &&
		    (uint64_t)prev->start + prev->count == r[i].start &&
		    (uint64_t)prev->count + r[i].count <= UINT32_MAX) {
			prev->count += r[i].count;
			continue;
		}
		if (k == max) {
			left++;
			continue;
		}
		out[k++] = (struct subuid_owner){ r[i].start, r[i].count, owner };
	}
	*left_out = left;
	return k;
}
