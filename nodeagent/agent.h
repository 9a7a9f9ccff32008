/* tracerd's state and what it does with kernel events and registrations. main.c owns the
 * event loop and drives the agent through the life cycle and timer calls below; the request
 * layer and the server know it through the rest. Its fields are the agent's own files'
 * (agent_internal.h); the units it keeps in memory are units.h's. */
#ifndef TRACER_AGENT_H
#define TRACER_AGENT_H

#include <stdint.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "config.h"

struct agent;
struct exporter;
struct store;

/* The peer of a request, from SO_PEERCRED. */
struct peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	/* whom its per-user limits and store share count: the owner of the subordinate range
	 * that holds uid (subuid.h), else uid itself */
	uid_t owner;
};

/* ---- life cycle (main.c) */

/* Load the BPF programs, open the store of node under StateDir. Returns 0 or -errno (said). */
int agent_new(struct agent **out, const struct tracer_config *cfg, const char *node);
/* Handle what the kernel still holds, mark the store "away from now on", free all. */
void agent_free(struct agent *a);
/* The OTLP exporter (export.h) whose slowest cursor pruning keeps to and whose numbers status
 * shows; NULL (export off, or stopping) for none. */
void agent_set_exporter(struct agent *a, struct exporter *e);
/* The Prometheus endpoint's state in status ("metrics"): fn(ctx) at each status, a new JSON
 * object; NULL: none said. A hook, for the endpoint is served beside the agent, not by it. */
typedef struct json_object *(*agent_status_fn)(const void *ctx);
void agent_set_metrics_status(struct agent *a, agent_status_fn fn, const void *ctx);
/* Find tracked work of running units again after a restart. */
int agent_rediscover(struct agent *a);
/* SIGHUP: take the settings of cfg that can change live (SampleInterval, StallAfter,
 * CommitInterval, HousekeepingInterval, OrphanAfter, LogLevel, ToolRules); warn of those that
 * wait for a restart. */
void agent_reload(struct agent *a, const struct tracer_config *cfg);

/* ---- the event loop (main.c) */

/* The fd that is readable when kernel events wait. */
int agent_events_fd(const struct agent *a);
/* Handle every kernel event waiting. */
void agent_drain(struct agent *a);
/* The last drain stopped on its time budget with events left in the ring. */
int agent_drain_more(const struct agent *a);
/* The store's commits run on a thread of their own (store.h): readable once the one handed
 * over has ended; then agent_commit_ended settles it (and releases the ring's events). */
int agent_commit_fd(const struct agent *a);
void agent_commit_ended(struct agent *a);
/* Sample live processes for timelines; close those gone from /proc whose exit never came. */
int agent_sample(struct agent *a);
/* On every commit tick: the heartbeat, units' records the store refused before, local units
 * orphaned for OrphanAfter ended, the store committed; every HousekeepingInterval (every tick
 * while there is a backlog, or an eighth of StoreMaxSize was written since), store pruning. */
void agent_tick(struct agent *a);

/* At start and on every commit tick: the kernel side charges the events of a subordinate uid
 * (the ranges of s, read again when the file changed; some owners' names looked up) to its
 * owner's share of the ring, as the ranges stand now (ring_owners.c). */
struct subuids;
void agent_sync_subuids(struct agent *a, struct subuids *s);

/* `tracerctl shutdown [--unpin]`: tracerd stops at the end of this turn of its loop, as at
 * SIGTERM; with unpin, its pin set goes with it and its programs are detached (else they stay
 * attached, and the next tracerd takes the set over). */
void agent_request_stop(struct agent *a, int unpin);
int agent_stop_requested(const struct agent *a);

/* ---- what requests and the server may know */

/* The node name this daemon serves. */
const char *agent_node(const struct agent *a);
/* The settings in force. */
const struct tracer_config *agent_config(const struct agent *a);
/* The store, for queries and listings. */
struct store *agent_store(struct agent *a);
/* Unix time = CLOCK_BOOTTIME + this, as the rows this daemon writes reckon it. */
int64_t agent_offset_ns(const struct agent *a);
/* Root, or the configured SlurmUser. */
int agent_is_admin(const struct agent *a, const struct peer *peer);
/* `tracerctl status`: {"ok":true, node, pid, boot_id, signals, events, counts, stalled (the
 * peer's own, all for an admin), topology}. */
struct json_object *agent_status_json(struct agent *a, const struct peer *peer);

/* The unit a task registered in the kernel under key belongs to (registry.h), or 0. */
uint64_t agent_unit_of_key(struct agent *a, uint64_t key);

#endif
