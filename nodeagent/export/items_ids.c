/* The ids of exported items (source_internal.h): the one place that decides them.
 *
 * Ids are derived, never random, so that a row sent again is the same span:
 * - a Slurm job's trace id is the one its TRACEPARENT carries: the user's, or the one the
 *   SPANK plugin derived from (cluster, job) (protocol/traceparent.h);
 * - a task's span is its step's derived span id for task 0, else one of (step, task): the
 *   same on every node. Its parent is the span its TRACEPARENT names when that is another's
 *   (an srun step's parent is the batch script that ran it; a user's own TRACEPARENT hangs
 *   the job under the user's span), else the job's allocation on its node;
 * - the allocation (the prolog's unit) is one span per node (by its name: several nodes may
 *   share a host), the trace's root unless the user's TRACEPARENT gives it a parent;
 * - a `tracerctl run` is one span, under its TRACEPARENT's span when it had one;
 * - a process's span is one of (boot id, pid, start), under its parent process's when that
 *   one was tracked in the same unit, else under its unit's. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "items_attrs.h"
#include "slurm_ids.h"
#include "source_internal.h"
#include "traceparent.h"

void items_put64(uint8_t *out, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		out[i] = (uint8_t)v;
}

static uint64_t hex64(const char *s)
{
	uint64_t v = 0;

	for (int i = 0; i < 16; i++)
		v = v << 4 | (uint64_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
	return v;
}

static uint64_t id_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static uint64_t id_of(const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return traceparent_id(TRACEPARENT_SEED, name);
}

int items_unit_ids(const struct export_batch *b, sqlite3_stmt *st, int at, struct ids *ids)
{
	const char *tp = text(st, at + U_TRACEPARENT), *cluster = text(st, at + U_CLUSTER);
	const char *boot = text(st, at + U_BOOT);
	int64_t unit = num(st, at + U_ID), job = num(st, at + U_JOB), task = num(st, at + U_TASK);
	uint32_t step = (uint32_t)num(st, at + U_STEP);
	int valid = traceparent_valid(tp);
	uint64_t trace[2], span, parent = 0, tp_span = valid ? hex64(tp + 36) : 0;

	if (sqlite3_column_type(st, at + U_ID) == SQLITE_NULL)
		return -ENOENT;
	if (job > 0) {
		uint64_t alloc = id_of("tracer/%s/%" PRId64 "/alloc/%s", cluster, job, b->node);
		int ours;

		traceparent_job_trace(cluster, (uint64_t)job, trace);
		ours = !valid || (hex64(tp + 3) == trace[0] && hex64(tp + 19) == trace[1]);
		if (step == STEP_NONE) {
			span = alloc;
			parent = ours ? 0 : tp_span;
		} else {
			span = traceparent_step_span(cluster, (uint64_t)job, step);
			if (task > 0)
				span = id_of("tracer/%s/%" PRId64 "/%u/%" PRId64, cluster, job,
					     step, task);
			parent = valid && tp_span != span ? tp_span : alloc;
		}
	} else {
		trace[0] = id_of("tracer/%s/unit/%" PRId64, boot, unit);
		trace[1] = traceparent_id(TRACEPARENT_SEED2, boot) ^ (uint64_t)unit;
		span = id_of("tracer/%s/unit/%" PRId64 "/span", boot, unit);
		parent = tp_span;
	}
	if (valid) {
		trace[0] = hex64(tp + 3);
		trace[1] = hex64(tp + 19);
	}
	items_put64(ids->trace, trace[0]);
	items_put64(ids->trace + 8, trace[1]);
	items_put64(ids->span, span);
	memset(ids->parent, 0, sizeof(ids->parent));
	if (parent)
		items_put64(ids->parent, parent);
	return 0;
}

/* v in decimal at p, as PRId64 writes it: returns the end */
static char *put_dec(char *p, int64_t v)
{
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char d[20];
	size_t n = 0;

	if (v < 0)
		*p++ = '-';
	do {
		d[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*p++ = d[--n];
	return p;
}

/* The name "tracer/BOOT/PID/START" is written without printf: a row takes two, its own and its
 * parent's */
uint64_t items_process_span(const char *boot, int64_t pid, int64_t start_boot_ns)
{
	char name[512], *p = name;
	size_t n = strlen(boot);

	if (n > sizeof(name) - 64) /* as id_of cuts it */
		return id_of("tracer/%s/%" PRId64 "/%" PRId64, boot, pid, start_boot_ns);
	p = mempcpy(p, "tracer/", 7);
	p = mempcpy(p, boot, n);
	*p++ = '/';
	p = put_dec(p, pid);
	*p++ = '/';
	p = put_dec(p, start_boot_ns);
	*p = 0;
	return traceparent_id(TRACEPARENT_SEED, name);
}
