/* Registration in the kernel, tracerd's side (see struct task_registration in bpf/process.h):
 * the registry map pinned for the SPANK plugin, and the keys of tasks the kernel side tracked
 * before tracerd knew their unit, linked to it when the plugin's request comes. */
#ifndef TRACER_REGISTRY_H
#define TRACER_REGISTRY_H

#include <stdint.h>
#include <sys/types.h>

struct agent;
struct unit;

/* How long the rows of a key wait for its unit's registration: past that, a request that never
 * came (tracerd was not there for it, or refused it), and they are dropped, said in the log. */
#define REGISTRY_WAIT_MS (120 * 1000)
/* Keys waiting at once: one per task tracerd has not heard of yet; and keys given up on that
 * are remembered (the last ones) */
#define REGISTRY_KEYS_MAX 512
#define REGISTRY_EXPIRED_MAX 64

/* The registry is pinned with the collector's set, at PinDir/NODE/task_registry, and stays
 * there while tracerd is away. Optional: when there is no set, the reason (a->registry, set by
 * whoever found it) is logged and kept for status, and the plugin registers through the socket
 * alone. */
void registry_open(struct agent *a);
/* Where the registry is pinned, or why it is not (for status). */
const char *registry_state(const struct agent *a, int *pinned);

/* The unit an event's unit field stands for: a linked key's unit id; else the field as it is
 * (an unlinked key noted, to be linked or expired). */
uint64_t registry_unit(struct agent *a, uint64_t unit);
/* May a row of bytes be written for the unit field unit of a process with no unit in memory?
 * Yes but for a key: its rows wait for their unit outside every user's share, so they are held
 * to a unit's cap (units_store_cap) and all keys together to a sixteenth of StoreMaxSize; past
 * that a process is counted (in its unit's Lost once linked, else in status's unstored). */
int registry_hold(struct agent *a, uint64_t unit, size_t bytes);
/* The unit's registration names its task's key (the request's kernel_key): what the kernel side
 * recorded under it, in the store and in the process table, becomes the unit's. */
void registry_adopt(struct agent *a, struct unit *u);
/* Now and then: keys whose unit never came. */
void registry_sweep(struct agent *a);

#endif
