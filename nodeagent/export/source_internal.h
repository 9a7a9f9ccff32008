/* What source.c (reading rows, the batch) and items.c (a row's items) share; not for others. */
#ifndef TRACER_EXPORT_SOURCE_INTERNAL_H
#define TRACER_EXPORT_SOURCE_INTERNAL_H

#include "source.h"

#define ITEMS_LOGS_MAX 5 /* log records one row makes at most */
#define OWNERS_CACHED 8	 /* user names a batch looks up once */

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	char data[];
};

/* A unit's columns, as the queries of items.c name them (after a row's own, or alone) */
#define UNIT_COLUMNS                                                                          \
	"u.id, u.kind, u.name, u.uid, u.cluster, u.job_id, u.array_job_id, u.array_task_id, " \
	"u.step_id, u.task_id, u.job_name, u.traceparent, u.pipeline, u.run, u.step_name, "   \
	"u.wildcards, u.engine, u.boot_id, u.account, u.partition, u.nodelist"
enum {
	U_ID,
	U_KIND,
	U_NAME,
	U_UID,
	U_CLUSTER,
	U_JOB,
	U_ARRAY_JOB,
	U_ARRAY_TASK,
	U_STEP,
	U_TASK,
	U_JOB_NAME,
	U_TRACEPARENT,
	U_PIPELINE,
	U_RUN,
	U_STEP_NAME,
	U_WILDCARDS,
	U_ENGINE,
	U_BOOT,
	U_ACCOUNT,
	U_PARTITION,
	U_NODELIST,
	U_COLUMNS
};

/* An item's trace, span and parent span ids */
struct ids {
	uint8_t trace[16], span[8], parent[8];
};

/* The unit of the process rows read last: its ids and attributes, made once for all of them
 * (a storm's thousands of rows share one unit), their values the batch's. */
struct unit_part {
	int64_t id; /* 0: none made yet */
	int stored; /* 0: the unit has no row (yet): its processes are left for later */
	struct ids ids;
	const struct otlp_attr *attrs;
	size_t nattrs;
};

struct export_batch {
	char node[64]; /* the exporter's node */
	enum export_signal signal;
	sqlite3 *db; /* where the rows are read: a unit's earlier runs too (items.c) */
	struct otlp_span *spans;
	struct otlp_log *logs;
	size_t nspans, span_cap, nlogs, log_cap;
	size_t rows;		    /* store rows read into it, whether they made items or not */
	struct arena_block *blocks; /* every string and attribute array of the items */
	struct {
		uint32_t uid;
		const char *name;
	} owners[OWNERS_CACHED];
	unsigned nowners;
	struct unit_part unit;
};

/* Empty b for up to max rows of signal: a row makes one span, or at most ITEMS_LOGS_MAX log
 * records. 0 or -ENOMEM. */
int batch_reset(struct export_batch *b, enum export_signal signal, size_t max);
/* The batch's memory for its items: NULL when out of memory (the row is left out, said by the
 * caller), or when a span or log array is full. */
void *batch_alloc(struct export_batch *b, size_t n);
const char *batch_text(struct export_batch *b, const void *s, size_t n);
struct otlp_span *batch_span(struct export_batch *b);
struct otlp_log *batch_log(struct export_batch *b);

/* The ids (items_ids.c). A unit's, of its columns (UNIT_COLUMNS) from at in st: -ENOENT
 * when the row has no stored unit. */
int items_unit_ids(const struct export_batch *b, sqlite3_stmt *st, int at, struct ids *ids);
/* A process's span id, of its identity (boot id, pid, start) */
uint64_t items_process_span(const char *boot, int64_t pid, int64_t start_boot_ns);
/* v as 8 bytes, most significant first, as ids are sent */
void items_put64(uint8_t *out, uint64_t v);

/* The queries of a signal's rows after a cursor (?1), at most ?2 of them, ordered by their
 * number (first column): a process's (for logs, only those that can make a log record; its
 * unit is read once for a batch's rows of it: struct unit_part), a finished unit's, and a
 * stall's start joined to its unit. */
extern const char items_process_sql[], items_process_logs_sql[], items_unit_sql[],
	items_stall_start_sql[];
/* A row of one of them process or unit query into b's items of its signal: 0 or -ENOMEM. */
int items_process(struct export_batch *b, sqlite3_stmt *st);
int items_unit(struct export_batch *b, sqlite3_stmt *st);
int items_stall_start(struct export_batch *b, sqlite3_stmt *st);

#endif
