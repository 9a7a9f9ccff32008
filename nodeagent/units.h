/* The units in memory: the running ones, and those ended whose last processes are still live.
 * This module alone walks or changes their list. A unit leaves it only through units_reap,
 * called from the event loop between wakeups: a request handler holding a unit, or walking
 * them, never finds one freed under it. */
#ifndef TRACER_UNITS_H
#define TRACER_UNITS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent.h"
#include "unit.h"

struct proc;

/* The unit id in memory (not dropped), or NULL. */
struct unit *units_find(struct agent *a, uint64_t id);
/* Whether owner (a peer's, subordinate uids counted as their owner's) may begin one more
 * traced run: under MaxUnitsPerUser running and UnitRatePerUser a second. 0, or -EAGAIN with
 * why it may not in err. */
int units_admit(struct agent *a, uint32_t owner, char *err, size_t errlen);
/* A new running unit in memory (not stored yet); NULL when out of memory. */
struct unit *units_new(struct agent *a, const char *kind, const char *name, uid_t uid, gid_t gid);
/* Seed the kernel's tracked set with pid for u; its descendants follow. Returns 0 or -errno
 * (-ESRCH: the process is gone, or ending). */
int units_track_pid(struct agent *a, struct unit *u, pid_t pid);
/* units_track_pid for pid (0: none), then u's cgroup (u->cgroup_id, 0: none). On failure
 * pid is taken out of the tracked set again. Returns 0 or -errno. */
int units_track(struct agent *a, struct unit *u, pid_t pid);
/* Mark a unit ended (exit status, or -1) and store it; it leaves memory with its last process. */
int units_end(struct agent *a, struct unit *u, int status, enum unit_state state);
/* Write a unit's record now or, when the store cannot take it (disk full), as soon as it can:
 * tracing never waits for the disk. */
void units_save(struct agent *a, struct unit *u);
/* Forget a unit: it is freed by units_reap (kept until its record is written, if it waits). */
void units_drop(struct agent *a, struct unit *u);

/* A unit's cap on its rows in the store: StoreUnitMaxSize, at most a quarter of StoreMaxSize */
uint64_t units_store_cap(const struct agent *a);
/* Store a finished process of unit u (NULL: of no unit in memory) and count what its row
 * takes in u's share of the store. Past u's cap (StoreUnitMaxSize), the process is added into
 * the unit's per-tool rows instead (store_fold_process) and counted in u->procs_folded. */
int units_store_process(struct agent *a, struct unit *u, const struct proc *p);
/* Its totals as store_unit_totals says them, from memory (its processes' sums, its sampling
 * rounds), without a pass over its rows; with live_add_totals after either, the same reply.
 * -ENODATA when memory does not hold them all (done_whole), -ENOMEM. */
int units_totals(const struct unit *u, struct json_object **out);
/* Store a live process's sample, unless its unit is past its cap. */
void units_store_sample(struct agent *a, struct unit *u, const struct proc *p, uint64_t now_ns);

/* A stall of p, of running unit u, has begun: stored for the export's log record, unless u has
 * had UNITS_STALL_STARTS_MAX of them already (a process that stalls and moves again and again
 * must not fill the store) or is past its cap. */
#define UNITS_STALL_STARTS_MAX 64
void units_store_stall_start(struct agent *a, struct unit *u, const struct proc *p);

/* Live processes of a job's running units. */
unsigned units_job_live(const struct agent *a, uint64_t job_id);
/* Running units in memory. */
unsigned units_running(const struct agent *a);
/* The shortest idle window of a unit worth reporting: StallAfter (its default, 5 min, when
 * stalls are off). */
uint64_t units_idle_min_ns(const struct agent *a);
/* Call fn for each unit in memory, newest first, until it returns non-zero (then returned);
 * fn may end or drop the unit it is given. units_of_job: only those of job job_id. */
typedef int (*units_fn)(struct unit *u, void *ctx);
int units_foreach(struct agent *a, units_fn fn, void *ctx);
int units_of_job(struct agent *a, uint64_t job_id, units_fn fn, void *ctx);
/* Free the units dropped since the last call: from the loop only, never under a handler. */
void units_reap(struct agent *a);

/* ---- for the agent's own files */

/* A process's table entry moves to unit to (registered as its root since its fork): the live
 * counts follow. */
void units_move_proc(struct agent *a, struct proc *p, uint64_t to);
/* A copy of a stored running unit into memory, with no live process yet (rediscovery);
 * NULL when out of memory. */
struct unit *units_adopt(struct agent *a, const struct unit *stored);
/* Write the records of units whose last write failed (disk full) or that changed since (their
 * share of the store, their samples' peaks), into the open batch: the tick's commit saves them
 * (units_committed), and drops those that are done. */
void units_flush(struct agent *a);
/* The store handed its batch over, then committed it: the units written in it are saved, and
 * those done with go. */
void units_handed(struct agent *a);
void units_committed(struct agent *a);
/* The store made folded rows (of bytes in all) for unit's processes past its cap */
void units_folded(struct agent *a, uint64_t unit, unsigned rows, size_t bytes);
/* Free every unit in memory (at the agent's end). */
void units_free(struct agent *a);

#endif
