/* The store's rows as OTLP items after a cursor (nodeagent/export/source.c, items.c): every
 * finished process and unit once, in order, with derived ids parented as items.c says; the
 * cursor goes on across restarts, pruning and moved rows. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stmt.h"
#include "slurm_ids.h"
#include "source_internal.h"
#include "store.h"
#include "testagent.h"
#include "testlib.h"
#include "traceparent.h"

#define BOOT "6f1c1b9e-0000-4000-8000-000000000001"

struct fixture {
	char dir[64], node[80], path[96];
	struct store *s;
	struct export_batch *b;
};

static struct unit mkunit(uint64_t id, uint64_t job, uint32_t step, int32_t task)
{
	struct unit u = { .id = id, .uid = 0, .job_id = job, .step_id = step, .task_id = task };

	snprintf(u.name, sizeof(u.name), "u%llu", (unsigned long long)id);
	snprintf(u.kind, sizeof(u.kind), "%s", job ? UNIT_KIND_SLURM : UNIT_KIND_LOCAL);
	snprintf(u.cluster, sizeof(u.cluster), "c1");
	u.array_task_id = -1;
	u.start_ns = 1700000000000000000ll;
	u.state = UNIT_RUNNING;
	return u;
}

static struct proc mkproc(uint64_t unit, uint32_t pid, uint64_t start)
{
	struct proc p = { .pid = pid, .ppid = 1, .start_ns = start, .unit = unit };

	strcpy(p.comm, "tool");
	p.flags = PROC_FINISHED | PROC_EXECED;
	p.exit.runtime_ns = 1000;
	return p;
}

static void finish(struct store *s, struct unit *u, enum unit_state state)
{
	u->state = state;
	u->end_ns = u->start_ns + 5000000000ll;
	assert_int_equal(store_put_unit(s, u), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(ta_store_open("export-source", BOOT, f->dir, &f->s), 0);
	snprintf(f->node, sizeof(f->node), "%s/node", f->dir);
	snprintf(f->path, sizeof(f->path), "%s/tracer.db", f->node);
	assert_int_equal(export_batch_new(&f->b, "n1"), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	export_batch_free(f->b);
	store_close(f->s);
	tl_rmtree(f->dir);
	free(f);
	return 0;
}

/* Read signal after cursor as the exporter does: its own read-only connection. */
static int64_t read_after(struct fixture *f, enum export_signal sig, int64_t cursor, size_t max)
{
	sqlite3 *db;
	int64_t next = -1;

	assert_int_equal(store_commit(f->s), 0);
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(export_source_read(db, sig, cursor, max, f->b, &next), 0);
	stmt_close_db(db);
	return next;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static const struct otlp_span *span_named(const struct export_batch *b, const char *name)
{
	for (size_t i = 0; i < b->nspans; i++)
		if (!strcmp(b->spans[i].name, name))
			return &b->spans[i];
	fail_msg("no span %s", name);
	return NULL;
}

static const struct otlp_attr *attr_of(const struct otlp_span *s, const char *key)
{
	for (size_t i = 0; i < s->nattrs; i++)
		if (!strcmp(s->attrs[i].key, key))
			return &s->attrs[i];
	return NULL;
}

/* A batch job on one node: allocation, batch script, an srun step's task 1, two processes */
static void test_slurm_job_shape(void **state)
{
	struct fixture *f = *state;
	struct unit alloc = mkunit(1, 42, STEP_NONE, -1), batch = mkunit(2, 42, STEP_BATCH, 0);
	struct unit step = mkunit(3, 42, 0, 1);
	struct proc sh = mkproc(2, 100, 1000), child = mkproc(2, 101, 2000);
	const struct otlp_span *a, *bs, *st, *p, *c;
	/* the first read's ids: each read empties the batch */
	uint8_t trace_id[16], batch_span_id[8];
	uint64_t trace[2];
	int64_t next;

	traceparent_derive("c1", 42, STEP_BATCH, batch.traceparent);
	memcpy(step.traceparent, batch.traceparent, sizeof(step.traceparent));
	store_put_unit(f->s, &alloc);
	store_put_unit(f->s, &batch);
	store_put_unit(f->s, &step);
	strcpy(sh.comm, "sh");
	sh.exit.status = 2 << 8;
	child.ppid = 100;
	child.parent_start_ns = 1000;
	strcpy(child.tool.name, "bwa");
	strcpy(child.tool.subcommand, "mem");
	child.flags |= PROC_OOM_KILLED;
	child.exit.status = 9;
	assert_int_equal(store_add_process(f->s, &child, 0), 0);
	assert_int_equal(store_add_process(f->s, &sh, 0), 0);
	/* a running unit is not sent: its span has no end yet */
	next = read_after(f, EXPORT_TRACES, 0, 100);
	assert_int_equal(f->b->nspans, 2);
	finish(f->s, &step, UNIT_COMPLETED);
	finish(f->s, &batch, UNIT_FAILED);
	finish(f->s, &alloc, UNIT_COMPLETED);
	next = read_after(f, EXPORT_TRACES, next, 100);
	assert_int_equal(f->b->nspans, 3);
	a = span_named(f->b, "job 42");
	bs = span_named(f->b, "step 42.batch task 0");
	st = span_named(f->b, "step 42.0 task 1");
	traceparent_job_trace("c1", 42, trace);
	assert_int_equal(get64(a->trace_id), trace[0]);
	assert_int_equal(get64(a->trace_id + 8), trace[1]);
	assert_memory_equal(bs->trace_id, a->trace_id, 16);
	assert_memory_equal(st->trace_id, a->trace_id, 16);
	/* the allocation is the root; the batch script's span is the one its TRACEPARENT names */
	assert_int_equal(get64(a->parent_span_id), 0);
	assert_int_equal(get64(bs->span_id), traceparent_step_span("c1", 42, STEP_BATCH));
	assert_memory_equal(bs->parent_span_id, a->span_id, 8);
	/* srun's step under the batch script that ran it */
	assert_memory_equal(st->parent_span_id, bs->span_id, 8);
	assert_int_equal(bs->status, OTLP_STATUS_ERROR);
	assert_int_equal(st->status, OTLP_STATUS_UNSET);
	assert_string_equal(attr_of(st, "slurm.step_id")->s, "0");
	assert_int_equal(attr_of(st, "slurm.task_id")->i, 1);
	assert_string_equal(attr_of(bs, "slurm.user")->s, "root");
	memcpy(trace_id, a->trace_id, sizeof(trace_id));
	memcpy(batch_span_id, bs->span_id, sizeof(batch_span_id));

	/* from the start: the processes, the shell's child under the shell, the shell under the
	 * batch script */
	read_after(f, EXPORT_TRACES, 0, 100);
	assert_int_equal(f->b->nspans, 5);
	p = span_named(f->b, "sh");
	c = span_named(f->b, "bwa mem");
	assert_memory_equal(p->parent_span_id, batch_span_id, 8);
	assert_memory_equal(c->parent_span_id, p->span_id, 8);
	assert_memory_equal(c->trace_id, trace_id, 16);
	assert_int_equal(c->status, OTLP_STATUS_ERROR);
	assert_string_equal(c->status_message, "killed by the OOM killer");
	assert_string_equal(p->status_message, "exit 2");
	assert_int_equal(attr_of(p, "process.exit.code")->i, 2);
	assert_int_equal(attr_of(c, "process.pid")->i, 101);
	assert_int_equal(attr_of(c, "process.parent_pid")->i, 100);
	assert_null(attr_of(c, "process.exit.code"));
	assert_int_equal(attr_of(c, "tracer.exit.signal")->i, 9);
	assert_int_equal(attr_of(c, "slurm.job_id")->i, 42);
}

/* A batch whose processes go back and forth between units (the exporter reads a unit once
 * while its rows follow each other): each span has its own unit's trace and attributes, and a
 * process of a unit with no row is left for later, not given its neighbour's unit. */
static void test_units_interleaved(void **state)
{
	struct fixture *f = *state;
	struct unit a = mkunit(1, 42, 0, 0), b = mkunit(2, 43, 0, 0);
	static const struct {
		uint64_t unit;
		const char *comm;
	} rows[] = {
		{ 1, "a1" }, { 2, "b1" }, { 1, "a2" }, { 9, "lost" }, { 2, "b2" }, { 1, "a3" }
	};
	uint64_t trace[2][2];
	size_t i;

	store_put_unit(f->s, &a);
	store_put_unit(f->s, &b);
	for (i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		struct proc p = mkproc(rows[i].unit, (uint32_t)(200 + i), 1000 + i);

		strcpy(p.comm, rows[i].comm);
		assert_int_equal(store_add_process(f->s, &p, 0), 0);
	}
	read_after(f, EXPORT_TRACES, 0, 100);
	assert_int_equal(f->b->nspans, 5);
	traceparent_job_trace("c1", 42, trace[0]);
	traceparent_job_trace("c1", 43, trace[1]);
	for (i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		const struct otlp_span *s;
		int k = rows[i].unit == 1 ? 0 : 1;

		if (rows[i].unit == 9)
			continue;
		s = span_named(f->b, rows[i].comm);
		assert_int_equal(get64(s->trace_id), trace[k][0]);
		assert_int_equal(attr_of(s, "slurm.job_id")->i, k ? 43 : 42);
		assert_string_equal(attr_of(s, "tracer.unit.name")->s, k ? "u2" : "u1");
		assert_int_equal(attr_of(s, "process.pid")->i, (int64_t)(200 + i));
	}
	for (i = 0; i < f->b->nspans; i++)
		assert_string_not_equal(f->b->spans[i].name, "lost");
}

/* In pieces: each item once, in order, whatever the batch size; nothing new: the cursor stays */
static void test_cursor_pieces(void **state)
{
	struct fixture *f = *state;
	struct unit u = mkunit(1, 0, STEP_NONE, -1);
	uint64_t seen[40] = { 0 };
	size_t n = 0;
	int64_t cursor = 0, next;

	store_put_unit(f->s, &u);
	for (uint32_t i = 0; i < 30; i++) {
		struct proc p = mkproc(1, 200 + i, 1000 + i);

		assert_int_equal(store_add_process(f->s, &p, 0), 0);
	}
	finish(f->s, &u, UNIT_COMPLETED);
	for (;;) {
		next = read_after(f, EXPORT_TRACES, cursor, 7);
		if (next == cursor) {
			assert_int_equal(f->b->nspans, 0);
			break;
		}
		assert_true(next > cursor);
		assert_true(f->b->nspans <= 7);
		for (size_t i = 0; i < f->b->nspans; i++) {
			uint64_t id = get64(f->b->spans[i].span_id);

			for (size_t j = 0; j < n; j++)
				assert_true(seen[j] != id);
			assert_true(n < 40);
			seen[n++] = id;
		}
		cursor = next;
	}
	assert_int_equal(n, 31);
}

/* A running unit's processes in pieces (no unit row after them yet): a batch that its size
 * ended is not the end of the rows, and the cursor does not skip the rest */
static void test_cursor_pieces_running(void **state)
{
	struct fixture *f = *state;
	struct unit u = mkunit(1, 0, STEP_NONE, -1);
	size_t n = 0;
	int64_t cursor = 0, next;

	store_put_unit(f->s, &u);
	for (uint32_t i = 0; i < 30; i++) {
		struct proc p = mkproc(1, 300 + i, 1000 + i);

		assert_int_equal(store_add_process(f->s, &p, 0), 0);
	}
	while ((next = read_after(f, EXPORT_TRACES, cursor, 7)) != cursor) {
		assert_true(f->b->nspans <= 7);
		n += f->b->nspans;
		cursor = next;
	}
	assert_int_equal(n, 30);
	/* exactly a batch's size left: read whole, then the end */
	for (uint32_t i = 0; i < 7; i++) {
		struct proc p = mkproc(1, 400 + i, 5000 + i);

		assert_int_equal(store_add_process(f->s, &p, 0), 0);
	}
	next = read_after(f, EXPORT_TRACES, cursor, 7);
	assert_int_equal(f->b->nspans, 7);
	assert_int_equal(read_after(f, EXPORT_TRACES, next, 7), next);
	assert_int_equal(f->b->nspans, 0);
}

/* A number is never given twice: not after the rows holding the highest are pruned and the
 * store reopened; moved rows are sent again, under their new unit */
static void test_sequence_survives(void **state)
{
	struct fixture *f = *state;
	struct unit key = mkunit(1ull << 62, 0, STEP_NONE, -1), u = mkunit(5, 0, STEP_NONE, -1);
	struct proc p = mkproc(1ull << 62, 300, 1000);
	uint64_t rows = 0;
	unsigned pruned = 0;
	int64_t c1, c2, c3, head;

	(void)key;
	/* a key's rows, its unit not stored: read past, not sent */
	assert_int_equal(store_add_process(f->s, &p, 0), 0);
	c1 = read_after(f, EXPORT_TRACES, 0, 100);
	assert_int_equal(f->b->nspans, 0);
	assert_true(c1 > 0);
	store_put_unit(f->s, &u);
	head = store_export_head(f->s);
	assert_int_equal(store_move_rows(f->s, 1ull << 62, 5, &rows), 0);
	assert_int_equal(rows, 1);
	/* one number for the one row moved */
	assert_int_equal(store_export_head(f->s), head + 1);
	c2 = read_after(f, EXPORT_TRACES, c1, 100);
	assert_int_equal(f->b->nspans, 1);
	assert_true(c2 > c1);
	finish(f->s, &u, UNIT_COMPLETED);
	c2 = read_after(f, EXPORT_TRACES, c2, 100);
	assert_int_equal(f->b->nspans, 1);
	/* the unit and its row pruned, the store reopened: what comes next is above c2 */
	assert_int_equal(store_commit(f->s), 0);
	assert_int_equal(store_prune(f->s, 0, 1, 10, &pruned), 0);
	assert_int_equal(store_commit(f->s), 0);
	store_close(f->s);
	assert_int_equal(store_open(&f->s, f->node, BOOT), 0);
	p.pid = 301;
	p.unit = 5;
	u.state = UNIT_RUNNING;
	store_put_unit(f->s, &u);
	assert_int_equal(store_add_process(f->s, &p, 0), 0);
	c3 = read_after(f, EXPORT_TRACES, c2, 100);
	assert_true(pruned > 0);
	assert_int_equal(f->b->nspans, 1);
	assert_true(c3 > c2);
}

/* What went wrong, as log records on the spans they are about; hostile bytes kept as bytes
 * for the encoders to clean */
static void test_logs(void **state)
{
	struct fixture *f = *state;
	struct unit u = mkunit(1, 7, 0, 0);
	struct proc ok = mkproc(1, 400, 1000), bad = mkproc(1, 401, 2000);
	static const char argv[] = "cmd\0\xff\xfe\x1b[2J\0";

	u.alloc_mem_mb = 100;
	u.job_mem_peak_kb = 95 * 1024;
	u.lost_events = 3;
	store_put_unit(f->s, &u);
	bad.exit.status = 1 << 8;
	bad.argv = (char *)argv;
	bad.argv_len = sizeof(argv) - 1;
	assert_int_equal(store_add_process(f->s, &ok, 0), 0);
	assert_int_equal(store_add_process(f->s, &bad, 0), 0);
	finish(f->s, &u, UNIT_FAILED);
	read_after(f, EXPORT_LOGS, 0, 100);
	/* the failing process; the unit's failure, its losses and its memory near --mem */
	assert_int_equal(f->b->nlogs, 4);
	assert_int_equal(f->b->logs[0].severity, OTLP_SEV_WARN);
	assert_non_null(strstr(f->b->logs[0].body, "process 401 (tool) exit 1"));
	assert_int_equal(f->b->logs[1].severity, OTLP_SEV_ERROR);
	assert_non_null(strstr(f->b->logs[1].body, "FAILED"));
	assert_non_null(strstr(f->b->logs[2].body, "3 events lost"));
	assert_non_null(strstr(f->b->logs[3].body, "95 %"));
	read_after(f, EXPORT_TRACES, 0, 100);
	for (size_t i = 0; i < f->b->nspans; i++) {
		const struct otlp_attr *a = attr_of(&f->b->spans[i], "process.command_args");

		if (a && get64(f->b->spans[i].span_id)) {
			assert_int_equal(a->type, OTLP_STRINGS);
			assert_int_equal(a->len, sizeof(argv) - 1);
			assert_memory_equal(a->s, argv, a->len);
		}
	}
	/* logs name their span */
	assert_memory_equal(f->b->spans[1].trace_id, f->b->logs[0].trace_id, 16);
}

/* SQLite's plan for sql, as the exporter's connection makes it, names index */
static int plan_uses(struct fixture *f, const char *sql, const char *index)
{
	char explain[4096];
	sqlite3_stmt *st;
	sqlite3 *db;
	int found = 0;

	snprintf(explain, sizeof(explain), "EXPLAIN QUERY PLAN %s", sql);
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, explain, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		found |= strstr((const char *)sqlite3_column_text(st, 3), index) != NULL;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return found;
}

/* The logs signal reads only the processes that can make a log record, by their status, their
 * OOM flag (named in the query, bound by the store) or a stall: an OOM kill that left no exit
 * status is read, the successful processes around it are not, and the cursor still passes all;
 * through the index of those rows alone, or each of the others would be fetched to be skipped */
static void test_logs_read_only_what_can_log(void **state)
{
	struct fixture *f = *state;
	struct unit u = mkunit(1, 8, 0, 0);
	struct proc ok1 = mkproc(1, 500, 1000), oom = mkproc(1, 501, 2000),
		    ok2 = mkproc(1, 502, 3000);
	int64_t next;

	store_put_unit(f->s, &u);
	oom.flags |= PROC_OOM_KILLED;
	oom.exit.status = 0;
	assert_int_equal(store_add_process(f->s, &ok1, 0), 0);
	assert_int_equal(store_add_process(f->s, &oom, 0), 0);
	assert_int_equal(store_add_process(f->s, &ok2, 0), 0);
	finish(f->s, &u, UNIT_COMPLETED);
	next = read_after(f, EXPORT_LOGS, 0, 100);
	assert_int_equal(export_batch_rows(f->b), 2); /* the OOM kill's row and the unit's */
	assert_int_equal(f->b->nlogs, 1);
	assert_non_null(
		strstr(f->b->logs[0].body, "process 501 (tool) was killed by the OOM killer"));
	assert_int_equal(next, read_after(f, EXPORT_TRACES, 0, 100)); /* past every row alike */
	assert_true(plan_uses(f, items_process_logs_sql, "processes_logs"));
}

static const struct otlp_attr *log_attr(const struct otlp_log *l, const char *key)
{
	for (size_t i = 0; i < l->nattrs; i++)
		if (!strcmp(l->attrs[i].key, key))
			return &l->attrs[i];
	return NULL;
}

/* A stall's start is a log record while its process runs, on the span the process gets once
 * it ends, the same each time it is read; the job's account, partition and nodes go with it */
static void test_stall_start(void **state)
{
	struct fixture *f = *state;
	struct unit u = mkunit(1, 7, 0, 0);
	struct proc p = mkproc(1, 400, 1000);
	uint8_t span[8], trace[16];
	const struct otlp_attr *a;
	int64_t next;

	snprintf(u.account, sizeof(u.account), "physics");
	snprintf(u.partition, sizeof(u.partition), "gpu");
	snprintf(u.nodelist, sizeof(u.nodelist), "n[1-2]");
	store_put_unit(f->s, &u);
	p.stall.open_start_ns = 5000;
	snprintf(p.stall.open_reason, sizeof(p.stall.open_reason), "waiting on a pipe or FIFO");
	assert_int_equal(store_add_stall_start(f->s, &p, 1000000), 0);
	next = read_after(f, EXPORT_LOGS, 0, 100);
	assert_int_equal(f->b->nlogs, 1);
	assert_int_equal(f->b->logs[0].severity, OTLP_SEV_WARN);
	assert_int_equal(f->b->logs[0].time_unix_ns, 1005000);
	assert_non_null(strstr(f->b->logs[0].body, "process 400 (tool) stalled"));
	assert_non_null(strstr(f->b->logs[0].body, "waiting on a pipe or FIFO"));
	assert_non_null(a = log_attr(&f->b->logs[0], "tracer.event"));
	assert_string_equal(a->s, "stall.start");
	assert_non_null(a = log_attr(&f->b->logs[0], "slurm.account"));
	assert_string_equal(a->s, "physics");
	assert_non_null(a = log_attr(&f->b->logs[0], "slurm.partition"));
	assert_string_equal(a->s, "gpu");
	assert_non_null(a = log_attr(&f->b->logs[0], "slurm.nodelist"));
	assert_string_equal(a->s, "n[1-2]");
	memcpy(span, f->b->logs[0].span_id, 8);
	memcpy(trace, f->b->logs[0].trace_id, 16);
	/* read again: the same record */
	read_after(f, EXPORT_LOGS, 0, 100);
	assert_int_equal(f->b->nlogs, 1);
	assert_memory_equal(f->b->logs[0].span_id, span, 8);
	/* no span of its own; the cursor goes past it */
	assert_int_equal(read_after(f, EXPORT_TRACES, 0, 100), next);
	assert_int_equal(f->b->nspans, 0);
	/* the process's span, once it ended, is the one the log named */
	assert_int_equal(store_add_process(f->s, &p, 0), 0);
	read_after(f, EXPORT_TRACES, next, 100);
	assert_int_equal(f->b->nspans, 1);
	assert_memory_equal(f->b->spans[0].span_id, span, 8);
	assert_memory_equal(f->b->spans[0].trace_id, trace, 16);
	assert_non_null(a = attr_of(&f->b->spans[0], "slurm.partition"));
	assert_string_equal(a->s, "gpu");
}

/* "Slower than usual" at a step's end, against the same step's earlier runs */
static void test_slower(void **state)
{
	struct fixture *f = *state;
	const struct otlp_attr *a;
	int found = 0;

	for (uint64_t id = 1; id <= 4; id++) { /* 5 s each */
		struct unit u = mkunit(id, 10 + id, 0, 0);

		snprintf(u.job_name, sizeof(u.job_name), "align");
		u.start_ns += (int64_t)id * 100000000000ll;
		finish(f->s, &u, UNIT_COMPLETED);
	}
	{
		struct unit u = mkunit(5, 20, 0, 0);

		snprintf(u.job_name, sizeof(u.job_name), "align");
		u.start_ns += 600000000000ll;
		u.state = UNIT_COMPLETED;
		u.end_ns = u.start_ns + 20000000000ll;
		assert_int_equal(store_put_unit(f->s, &u), 0);
	}
	read_after(f, EXPORT_LOGS, 0, 100);
	for (size_t i = 0; i < f->b->nlogs; i++) {
		const struct otlp_log *l = &f->b->logs[i];

		if (!(a = log_attr(l, "tracer.event")) || strcmp(a->s, "slower_than_usual"))
			continue;
		found++;
		assert_int_equal(l->severity, OTLP_SEV_WARN);
		assert_non_null(strstr(l->body, "4.0\xc3\x97 its median of the last 4 runs"));
		assert_non_null(a = log_attr(l, "tracer.usual_elapsed_ns"));
		assert_int_equal(a->i, 5000000000ll);
		assert_non_null(a = log_attr(l, "tracer.history_runs"));
		assert_int_equal(a->i, 4);
	}
	assert_int_equal(found, 1); /* the earlier runs were as usual */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_slurm_job_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_units_interleaved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cursor_pieces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cursor_pieces_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequence_survives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_logs_read_only_what_can_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stall_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slower, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
