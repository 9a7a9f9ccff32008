/* Collect for --live: one refresh's report — the jobs (running ones, unless named with -j),
 * the processes of each of their units from every node at once (daemons_each_node, each
 * request bounded by the daemons' timeout_ms), and each step's earlier runs, asked once and
 * kept across refreshes. */
#ifndef JOBSTAT_LIVE_FETCH_H
#define JOBSTAT_LIVE_FETCH_H

#include "collect.h"
#include "report.h"

#define LIVE_FANOUT 16		  /* nodes asked at once */
#define LIVE_NODE_TIMEOUT_MS 5000 /* a node's answer, at most */

/* earlier runs of step units, by node and unit id, asked once */
struct live_history {
	struct hist_entry {
		char node[64];
		int64_t unit;
		struct json_object *runs; /* NULL: none, or the node could not tell */
	} * v;
	size_t n, cap;
};

/* Fill rep (empty) for one refresh; nodes failed in the refresh before are asked again.
 * 0, or -1 when nothing can be reported (said on stderr, as collect does). */
int live_fetch(const struct opts *o, const struct ident *id, struct daemons *d,
	       struct live_history *h, struct report *rep);
void live_history_free(struct live_history *h);

#endif
