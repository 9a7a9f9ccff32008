/* What the unit tests of tracerd's own files share, so that each is written once: an agent put
 * together by hand (agent_init would load BPF), and a store alone, each in a scratch directory. */
#ifndef TRACER_TESTAGENT_H
#define TRACER_TESTAGENT_H

struct agent;
struct store;

/* A scratch directory /tmp/NAME.XXXXXX (into dir, 64 bytes) with a store in dir/node of boot
 * id boot: 0, or -1. */
int ta_store_open(const char *name, const char *boot, char *dir, struct store **out);
/* An agent without a collector: a process table and a store as ta_store_open makes them,
 * node "node", 10 ms ticks, no SlurmUser, config.c's StoreUnitMaxSize. NULL on failure. */
struct agent *ta_agent_new(const char *name, const char *boot, char *dir);
/* Its store, table, units and dir, all gone: 0, or -1. */
int ta_agent_free(struct agent *a, const char *dir);

#endif
