/* See testagent.h. */
#include <stdio.h>
#include <stdlib.h>

#include "agent_internal.h"
#include "testagent.h"
#include "testlib.h"
#include "units.h"

#define TA_DIR_LEN 64

int ta_store_open(const char *name, const char *boot, char *dir, struct store **out)
{
	char path[TA_DIR_LEN + 8];

	snprintf(dir, TA_DIR_LEN, "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/node", dir);
	return store_open(out, path, boot) ? -1 : 0;
}

struct agent *ta_agent_new(const char *name, const char *boot, char *dir)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct tracer_config d;

	if (!a)
		return NULL;
	config_defaults(&d);
	snprintf(a->boot_id, sizeof(a->boot_id), "%s", boot);
	snprintf(a->node, sizeof(a->node), "node");
	a->tick_ns = 10000000;
	a->slurm_uid = (uid_t)-1;
	a->cfg.store_unit_max_bytes = 256ull << 20; /* config.c's default: the least is 64 KiB */
	/* config.c's: at 0, every tick would housekeep and end every traced run with no process */
	a->cfg.housekeeping_ms = d.housekeeping_ms;
	a->cfg.orphan_after_ms = d.orphan_after_ms;
	if (proctable_init(&a->procs, a->tick_ns) < 0) {
		free(a);
		return NULL;
	}
	if (finished_init(&a->finished) < 0 || ta_store_open(name, boot, dir, &a->store) < 0) {
		finished_free(&a->finished);
		proctable_free(&a->procs);
		free(a);
		return NULL;
	}
	agent_hook_store(a);
	return a;
}

int ta_agent_free(struct agent *a, const char *dir)
{
	store_close(a->store);
	proctable_free(&a->procs);
	finished_free(&a->finished);
	units_free(a);
	free(a);
	return tl_rmtree(dir);
}
