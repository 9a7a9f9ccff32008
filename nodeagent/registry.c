/* Registration in the kernel, tracerd's side: see registry.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "agent_internal.h"
#include "clock.h"
#include "log.h"
#include "registry.h"
#include "units.h"

void registry_open(struct agent *a)
{
	const char *dir = collector_pin_dir(a->collector);

	a->registry_pinned = 0;
	if (!dir) {
		log_warn("no registration in the kernel: %s; the SPANK plugin registers through "
			 "the socket alone, and what a task runs before tracerd answers it is not "
			 "recorded",
			 a->registry[0] ? a->registry : "nothing could be pinned");
		return;
	}
	snprintf(a->registry, sizeof(a->registry), "%s/%s", dir, CONFIG_REGISTRY_FILE);
	a->registry_pinned = 1;
	log_info("tasks are registered in the kernel through %s", a->registry);
}

const char *registry_state(const struct agent *a, int *pinned)
{
	*pinned = a->registry_pinned;
	return a->registry;
}

static void forget_key(struct agent *a, unsigned i)
{
	a->keys[i] = a->keys[--a->nkeys];
}

/* The waiting key's slot, noted now if new; -1 when the table is full */
static int key_slot(struct agent *a, uint64_t key)
{
	unsigned i;

	for (i = 0; i < a->nkeys; i++)
		if (a->keys[i].key == key)
			return (int)i;
	if (a->nkeys == REGISTRY_KEYS_MAX)
		return -1;
	a->keys[a->nkeys] = (typeof(a->keys[0])){ .key = key, .seen_ns = clock_mono_ns() };
	return (int)a->nkeys++;
}

static int expired(const struct agent *a, uint64_t key)
{
	unsigned i;

	for (i = 0; i < a->nexpired && i < REGISTRY_EXPIRED_MAX; i++)
		if (a->expired[i] == key)
			return 1;
	return 0;
}

/* The unit in memory whose task's key this is, or 0 */
static uint64_t linked_unit(const struct agent *a, uint64_t key)
{
	const struct unit *u;

	for (u = a->units; u; u = u->next)
		if (u->kernel_key == key && !u->dropped)
			return u->id;
	return 0;
}

uint64_t registry_unit(struct agent *a, uint64_t unit)
{
	uint64_t id;

	if (!(unit & UNIT_KEY_BIT))
		return unit;
	/* a task tracked under its key sends every event with it: the last one found is kept */
	if (unit == a->last_key)
		return a->last_key_unit;
	if ((id = linked_unit(a, unit))) {
		a->last_key = unit;
		a->last_key_unit = id;
		return id;
	}
	if (!expired(a, unit))
		key_slot(a, unit);
	return unit;
}

uint64_t agent_unit_of_key(struct agent *a, uint64_t key)
{
	return (key & UNIT_KEY_BIT) ? linked_unit(a, key) : 0;
}

static uint64_t keys_cap(const struct agent *a)
{
	uint64_t cap = units_store_cap(a);

	return a->cfg.store_max_bytes && a->cfg.store_max_bytes / 16 < cap
		       ? a->cfg.store_max_bytes / 16
		       : cap;
}

int registry_hold(struct agent *a, uint64_t unit, size_t bytes)
{
	int i;

	if (!(unit & UNIT_KEY_BIT))
		return 1;
	/* given up on, or a full table (as many tasks waiting as that): not kept */
	if (expired(a, unit) || (i = key_slot(a, unit)) < 0) {
		a->unstored++;
		return 0;
	}
	if (a->keys[i].bytes >= units_store_cap(a) || a->keys_bytes >= keys_cap(a)) {
		a->keys[i].refused++;
		return 0;
	}
	a->keys[i].bytes += bytes;
	a->keys_bytes += bytes;
	return 1;
}

struct key_move {
	struct agent *a;
	uint64_t key, to;
	unsigned moved;
};

static int move_proc(struct proc *p, void *ctx)
{
	struct key_move *m = ctx;

	if (p->unit == m->key) {
		/* given up on (to 0): left under the key, which stores nothing more, so that its
		 * next event does not take it back */
		if (m->to)
			units_move_proc(m->a, p, m->to);
		m->moved++;
	}
	return 0;
}

/* What is recorded under key becomes unit u's (NULL: given up on, the store's rows dropped);
 * the key's running processes are counted. */
static unsigned move_key(struct agent *a, uint64_t key, struct unit *u, uint64_t *rows)
{
	struct key_move m = { a, key, u ? u->id : 0, 0 };
	unsigned i;

	*rows = 0;
	if (store_move_rows(a->store, key, m.to, rows) < 0)
		*rows = 0;
	proctable_foreach(&a->procs, move_proc, &m);
	for (i = 0; i < a->nkeys; i++) {
		if (a->keys[i].key != key)
			continue;
		if (u) {
			u->stored_bytes += a->keys[i].bytes;
			u->unstored += a->keys[i].refused;
		} else {
			a->unstored += a->keys[i].refused;
			a->expired[a->nexpired++ % REGISTRY_EXPIRED_MAX] = key;
		}
		a->keys_bytes -= a->keys[i].bytes;
		forget_key(a, i--);
	}
	return m.moved;
}

void registry_adopt(struct agent *a, struct unit *u)
{
	uint64_t rows;
	unsigned live;

	if (!u->kernel_key)
		return;
	live = move_key(a, u->kernel_key, u, &rows);
	u->finished += rows;
	if (rows) /* stored before it was a unit: not in its sums */
		u->done_whole = 0;
	if (rows || live)
		log_info("unit %" PRIu64 " (%s): %" PRIu64 " processes ended and %u running were "
			 "tracked from its registration in the kernel, before tracerd heard of it",
			 u->id, u->name, rows, live);
}

void registry_sweep(struct agent *a)
{
	uint64_t now = clock_mono_ns(), key, rows;
	unsigned i, live;

	if (!a->registry_pinned)
		return;
	for (i = 0; i < a->nkeys; i++) {
		if (now - a->keys[i].seen_ns < (uint64_t)REGISTRY_WAIT_MS * 1000000)
			continue;
		key = a->keys[i].key;
		live = move_key(a, key, NULL, &rows);
		log_warn("pid %u, registered in the kernel %d s ago: no registration of its unit "
			 "reached tracerd; its %" PRIu64 " processes recorded so far are dropped, "
			 "and %u running are not recorded",
			 (unsigned)(key & UNIT_KEY_PID_MASK), REGISTRY_WAIT_MS / 1000, rows, live);
		i--; /* move_key put the table's last key in this slot */
	}
}
