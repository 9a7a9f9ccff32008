/* A running unit's live processes in the replies: its processes that have not exited yet,
 * with CPU, resident set and peak (VmHWM) read from /proc at request time, only for that
 * unit's processes (the caller's own), and for 4096 of them at most per request (the rest
 * show their last periodic sample). Stored rows come from the store; these are added. */
#ifndef TRACER_LIVE_H
#define TRACER_LIVE_H

#include <stdint.h>
#include <json-c/json.h>

#include "agent.h"

/* Append the unit's live processes to a "processes" array (the keys of a stored row, no
 * end_ns or status, "running": true, "rss_kb" now, read_bytes and write_bytes as its last
 * sample read them, and "stalled_since_ns" (unix ns) and "stalled_reason" while a stall is
 * under way). */
int live_add_processes(struct agent *a, uint64_t unit, struct json_object *rows);
/* Add them to a "tools" array: into their tool's row, or a new row; "running" counts them. */
int live_add_tools(struct agent *a, uint64_t unit, struct json_object *rows);
/* Add them to a unit's totals (nprocs, cpu_ns, maxrss_kb, ... as common/records.h's REC_LIVE
 * says), with running_procs, the longest stall under way, the unit's sampled peaks, and
 * idle_since_ns (unix ns) while its processes have done no work for an idle window's least
 * length (activity.h). */
int live_add_totals(struct agent *a, uint64_t unit, struct json_object *totals);
/* The listing named key ("processes" or "tools") with the live processes added. */
int live_add_rows(struct agent *a, const char *key, uint64_t unit, struct json_object *rows);

/* Each live process of a running unit in memory, its figures read now as the listings read
 * them (from /proc/PID/stat for 1024 of them, the rest their last sample; no peak), as its
 * row: fn (non-zero stops the walk and is returned). */
struct unit;
struct rec_row;
struct proc_now;
typedef int (*live_fn)(const struct unit *u, const struct rec_row *r, const struct proc_now *now,
		       void *ctx);
int live_each(struct agent *a, live_fn fn, void *ctx);

/* The processes stalled now (stalls.h), of units uid owns (ANY_UID: all), at most max:
 * [{unit, name, job_id, step_id, pid, comm, since_ns, reason}]. */
struct json_object *live_stalled(struct agent *a, uint32_t uid, unsigned max);

#endif
