/* Whose share of the ring a uid's events are charged to, in the kernel side: the subordinate uid
 * ranges (subuid.h) copied there (subuid_map.h), and kept to the file's as it changes and as the
 * owners' names are looked up. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "log.h"
#include "subuid_map.h"

/* names looked up per call: on LDAP each may be a network round trip, and the loop waits */
#define LOOKUPS_PER_SYNC 16

void agent_sync_subuids(struct agent *a, struct subuids *s)
{
	uint64_t gen = subuids_update(s, LOOKUPS_PER_SYNC);
	struct subuid_owner *e;
	size_t n, left;
	int err;

	if (!a->collector || gen == a->subuid_gen)
		return;
	if (!(e = malloc(SUBUID_MAP_MAX * sizeof(*e)))) {
		log_error("subordinate uids to the kernel side: %s", strerror(ENOMEM));
		return;
	}
	n = subuid_map_build(s->r, s->n, e, SUBUID_MAP_MAX, &left);
	err = collector_set_subuids(a->collector, e, n);
	free(e);
	if (err < 0)
		return; /* said; tried again at the next call */
	a->subuid_gen = gen;
	a->subuid_entries = (unsigned)n;
	if (left != a->subuid_left_out && left)
		log_warn("subordinate uids: %zu ranges of %s beyond the kernel side's %u (the "
			 "highest): their uids' events are charged each to its own share of the "
			 "ring, not to their owner's",
			 left, s->path, SUBUID_MAP_MAX);
	a->subuid_left_out = (unsigned)left;
}
