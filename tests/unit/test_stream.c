/* Unit tests for nodeagent/store/stream.c: a listing streamed page by page reads back as the same
 * JSON as the listing built whole, whatever the page size; its snapshot is stable while the
 * store is written; and every emit failure is passed on. */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#include "protocol.h"
#include "store_internal.h"
#include "stream.h"

#define BOOT "0b1d7a44-0000-4000-8000-00000000000a"
#define OFFSET 1700000000000000000ll

static char dir[64];
static int made_with_pages; /* fill_store's store made by an earlier tracerd with pages this size */

struct buf {
	char *data;
	size_t len;
	int fail_at; /* emit fails on this call (counting from 1), 0 never */
	int calls;
};

static int emit(void *ctx, const char *data, size_t n)
{
	struct buf *b = ctx;

	if (++b->calls == b->fail_at)
		return -ENOMEM;
	b->data = realloc(b->data, b->len + n + 1);
	assert_non_null(b->data);
	memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

/* A store with 3 units of uid 1000 ("run", ids 1-3); unit 2 holds n processes with argv. */
static struct store *fill_store(unsigned n)
{
	struct store *s = NULL;
	char path[128];
	unsigned i;

	snprintf(dir, sizeof(dir), "/tmp/test_stream.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/db", dir);
	if (made_with_pages) {
		char sql[128], file[160];
		sqlite3 *db;

		assert_int_equal(mkdir(path, 0750), 0);
		snprintf(file, sizeof(file), "%s/tracer.db", path);
		snprintf(sql, sizeof(sql),
			 "PRAGMA page_size=%d; PRAGMA journal_mode=WAL;"
			 " CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);",
			 made_with_pages);
		assert_int_equal(sqlite3_open(file, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
	}
	assert_int_equal(store_open(&s, path, BOOT), 0);
	for (i = 1; i <= 3; i++) {
		struct unit u = { .id = i,
				  .uid = 1000,
				  .task_id = -1,
				  .exit_status = -1,
				  .start_ns = OFFSET + i,
				  .state = UNIT_COMPLETED };

		snprintf(u.name, sizeof(u.name), "run");
		snprintf(u.kind, sizeof(u.kind), "local");
		assert_int_equal(store_put_unit(s, &u), 0);
	}
	for (i = 0; i < n; i++) {
		struct proc p = { .pid = 100 + i,
				  .ppid = 1,
				  .uid = 1000,
				  .start_ns = 1000 + i,
				  .unit = 2,
				  .flags = PROC_FINISHED };
		char argv[] = "tool\0--password=x\0\"quoted\"\0/a/b";

		p.exit.h.type = EVENT_EXIT;
		p.exit.h.pid = p.pid;
		p.exit.h.start_ns = p.start_ns;
		p.exit.h.time_ns = p.start_ns + 5;
		p.argv = argv;
		p.argv_len = sizeof(argv) - 1;
		assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	}
	assert_int_equal(store_commit(s), 0);
	return s;
}

static void done(struct store *s)
{
	store_close(s);
	tl_rmtree(dir);
}

/* A listing's stream with its head already in b, as the server sends it. */
static struct reply_stream *begin(struct store *s, enum stream_kind kind, uint64_t unit,
				  const char *sel, struct buf *b)
{
	struct json_object *head = proto_reply_ok();
	struct reply_stream *rs = NULL;
	size_t len;
	char *text;

	text = proto_serialize(head, &len);
	json_object_put(head);
	assert_int_equal(reply_stream_new(s, kind, unit, sel, 1000, NULL, &rs), 0);
	assert_int_equal(reply_stream_head(text, &len), 0);
	emit(b, text, len);
	free(text);
	return rs;
}

/* The rest of the stream in pages of want bytes; the whole reply parsed. */
static struct json_object *end(struct reply_stream *rs, struct buf *b, size_t want, unsigned *fills)
{
	struct json_object *reply = NULL;
	char err[128];
	int r;

	*fills = 0;
	while ((r = reply_stream_fill(rs, want, emit, b)) == 1)
		++*fills;
	assert_int_equal(r, 0);
	assert_int_equal(reply_stream_fill(rs, want, emit, b), 0); /* done stays done */
	reply_stream_free(rs);
	assert_true(b->len && b->data[b->len - 1] == '\n');
	assert_int_equal(proto_parse_reply(b->data, b->len - 1, &reply, err, sizeof(err)), 0);
	free(b->data);
	return reply;
}

static struct json_object *stream_all(struct store *s, enum stream_kind kind, uint64_t unit,
				      const char *sel, size_t want, unsigned *fills)
{
	struct buf b = { 0 };

	return end(begin(s, kind, unit, sel, &b), &b, want, fills);
}

static void same_as_whole(struct json_object *reply, const char *key, struct json_object *whole)
{
	struct json_object *rows, *totals;

	assert_true(json_object_object_get_ex(reply, key, &rows));
	/* the unit's totals close the reply, from the same snapshot */
	assert_true(json_object_object_get_ex(reply, "totals", &totals));
	assert_int_equal(json_object_get_int64(json_object_object_get(totals, "nprocs")),
			 json_object_array_length(whole));
	assert_int_equal(json_object_array_length(rows), json_object_array_length(whole));
	assert_string_equal(json_object_to_json_string(rows), json_object_to_json_string(whole));
}

static void test_processes_any_page(void **state)
{
	static const size_t pages[] = { 1, 100, 4096, 1 << 20 };
	struct store *s = fill_store(500);
	struct json_object *whole, *reply;
	unsigned fills;
	size_t i;

	(void)state;
	assert_int_equal(store_unit_processes(s, 2, &whole), 0);
	for (i = 0; i < sizeof(pages) / sizeof(*pages); i++) {
		reply = stream_all(s, STREAM_PROCESSES, 2, NULL, pages[i], &fills);
		same_as_whole(reply, "processes", whole);
		/* a page holds at least one row: one turn per row at the least, one in all for
		 * a page larger than the listing */
		if (pages[i] == 1)
			assert_int_equal(fills, 500);
		if (pages[i] == 1 << 20)
			assert_int_equal(fills, 0);
		json_object_put(reply);
	}
	json_object_put(whole);
	done(s);
}

static void test_empty_and_units(void **state)
{
	struct store *s = fill_store(3);
	struct json_object *reply, *rows, *whole;
	unsigned fills;

	(void)state;
	reply = stream_all(s, STREAM_PROCESSES, 3, NULL, 10, &fills);
	assert_true(json_object_object_get_ex(reply, "processes", &rows));
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(reply);
	/* units carry their totals, as the listing built whole does */
	reply = stream_all(s, STREAM_UNITS, 0, "run", 10, &fills);
	assert_true(json_object_object_get_ex(reply, "units", &rows));
	assert_int_equal(json_object_array_length(rows), 3);
	assert_true(
		json_object_object_get_ex(json_object_array_get_idx(rows, 1), "totals", &whole));
	assert_int_equal(json_object_get_int64(json_object_object_get(whole, "nprocs")), 3);
	json_object_put(reply);
	reply = stream_all(s, STREAM_TOOLS, 2, NULL, 10, &fills);
	assert_true(json_object_object_get_ex(reply, "tools", &rows));
	json_object_put(reply);
	done(s);
}

/* nunits more units of uid 1000 named "many" (ids from first), nprocs processes each. */
static void add_units(struct store *s, uint64_t first, unsigned nunits, unsigned nprocs)
{
	unsigned i, j;

	for (i = 0; i < nunits; i++) {
		struct unit u = { .id = first + i,
				  .uid = 1000,
				  .task_id = -1,
				  .exit_status = -1,
				  .start_ns = OFFSET + i,
				  .state = UNIT_COMPLETED };

		snprintf(u.name, sizeof(u.name), "many");
		snprintf(u.kind, sizeof(u.kind), "local");
		assert_int_equal(store_put_unit(s, &u), 0);
		for (j = 0; j < nprocs; j++) {
			struct proc p = { .pid = 100 + j,
					  .uid = 1000,
					  .start_ns = 100000 * u.id + j,
					  .unit = u.id,
					  .flags = PROC_FINISHED };

			p.exit.h.type = EVENT_EXIT;
			p.exit.h.pid = p.pid;
			p.exit.h.start_ns = p.start_ns;
			p.exit.runtime_ns = j;
			assert_int_equal(store_add_process(s, &p, OFFSET), 0);
		}
	}
	assert_int_equal(store_commit(s), 0);
}

/* A listing of many units counts at most a step's worth of processes per turn of the loop,
 * over all the units of its page, not a step per unit; the totals are those counted whole. */
static void test_units_turn_bounded(void **state)
{
	struct store *s = fill_store(0);
	struct json_object *reply, *rows, *t, *whole;
	unsigned fills, i;

	(void)state;
	add_units(s, 10, 8, 1000);
	reply = stream_all(s, STREAM_UNITS, 0, "many", 1 << 20, &fills);
	assert_true(json_object_object_get_ex(reply, "units", &rows));
	assert_int_equal(json_object_array_length(rows), 8);
	/* 8000 processes: two turns at the least, whatever the page */
	assert_true(fills >= 8000 / 4096);
	for (i = 0; i < 8; i++) {
		assert_true(json_object_object_get_ex(json_object_array_get_idx(rows, i), "totals",
						      &t));
		assert_int_equal(store_unit_totals(s, 10 + i, &whole), 0);
		assert_string_equal(json_object_to_json_string(t),
				    json_object_to_json_string(whole));
		json_object_put(whole);
	}
	json_object_put(reply);
	done(s);

	/* units without processes cost their statements: not hundreds of them in one turn */
	s = fill_store(0);
	add_units(s, 10, 300, 0);
	reply = stream_all(s, STREAM_UNITS, 0, "many", 1 << 20, &fills);
	assert_true(json_object_object_get_ex(reply, "units", &rows));
	assert_int_equal(json_object_array_length(rows), 300);
	assert_true(fills >= 300 * 64 / 4096);
	json_object_put(reply);
	done(s);
}

/* A client gone while a unit's totals are half counted: the row and the sums are freed with
 * the stream (the sanitizers and valgrind see no leak). */
static void test_gone_mid_count(void **state)
{
	struct store *s = fill_store(0);
	struct reply_stream *rs;
	struct buf b = { 0 };

	(void)state;
	add_units(s, 10, 2, 5000);
	rs = begin(s, STREAM_UNITS, 0, "many", &b);
	assert_int_equal(reply_stream_fill(rs, 1 << 20, emit, &b), 1);
	reply_stream_free(rs);
	free(b.data);
	b = (struct buf){ 0 };
	rs = begin(s, STREAM_PROCESSES, 10, NULL, &b);
	/* all the rows in one page, then the first step of the totals */
	assert_int_equal(reply_stream_fill(rs, 1 << 24, emit, &b), 1);
	assert_null(strstr(b.data, "\"totals\""));
	reply_stream_free(rs); /* gone while the reply's totals were counted */
	free(b.data);
	done(s);
}

/* A slow reader's snapshot keeps the store's log from starting over: past its bound the reply
 * is cut, and once the snapshot is gone the log starts over. */
static void test_log_bound(void **state)
{
	struct store *s = fill_store(100);
	struct reply_stream *rs;
	struct buf b = { 0 };
	unsigned round;

	(void)state;
	s->wal_bytes_max = STORE_WAL_CHECKPOINT / 2;
	rs = begin(s, STREAM_PROCESSES, 2, NULL, &b);
	assert_int_equal(reply_stream_fill(rs, 10, emit, &b), 1); /* its snapshot is held */
	/* a busy node's writes, committed, past where a checkpoint would start the log over */
	for (round = 0; s->wal_bytes <= STORE_WAL_CHECKPOINT; round++)
		add_units(s, 100 + round, 1, 1000);
	assert_int_equal(reply_stream_fill(rs, 10, emit, &b), -ENOBUFS);
	reply_stream_free(rs);
	free(b.data);
	store_checkpoint(s); /* the next tick's */
	for (round = 0; round < 2; round++)
		add_units(s, 20 + round, 1, 10);
	assert_true(s->wal_bytes < STORE_WAL_CHECKPOINT / 2);
	done(s);
}

/* The log is checkpointed by the tick once it is long, not by each commit; a commit checkpoints
 * only a log past STORE_WAL_CHECKPOINT_NOW (a storm between two ticks). Bounds in bytes: a new
 * store's 4 KiB pages and the 16 KiB ones of a store an earlier tracerd made are held to the
 * same. */
static void checkpoints(struct store *s)
{
	char wal[128];
	struct stat st;
	unsigned round;
	int64_t bytes;

	for (round = 0; s->wal_bytes < STORE_WAL_CHECKPOINT; round++)
		add_units(s, 100 + round, 1, 20);
	assert_true(s->wal_bytes < STORE_WAL_CHECKPOINT_NOW);
	bytes = s->wal_bytes;
	add_units(s, 10000, 1, 1);
	assert_true(s->wal_bytes > bytes); /* the commit left it as it was, and added to it */
	store_checkpoint(s);
	add_units(s, 10001, 1, 1);
	assert_true(s->wal_bytes < 64 * s->page_bytes); /* checkpointed: the log started over */
	/* commits alone, past the bound: checkpointed all the same */
	for (round = 0; round < 2000 && s->wal_bytes < STORE_WAL_CHECKPOINT_NOW; round++)
		add_units(s, 20000 + round, 1, 20);
	assert_true(s->wal_bytes >= STORE_WAL_CHECKPOINT_NOW);
	snprintf(wal, sizeof(wal), "%s/db/tracer.db-wal", dir);
	assert_int_equal(stat(wal, &st), 0);
	assert_true(st.st_size <= 4 << 20); /* the file itself, what tracerd(8) says it stays in */
	add_units(s, 30000, 1, 1);
	assert_true(s->wal_bytes < 64 * s->page_bytes);
	done(s);
}

static void test_checkpoint_on_tick(void **state)
{
	struct store *s;

	(void)state;
	s = fill_store(10);
	assert_int_equal(s->page_bytes, 4096);
	checkpoints(s);
	made_with_pages = 16384;
	s = fill_store(10);
	made_with_pages = 0;
	assert_int_equal(s->page_bytes, 16384); /* it keeps its own */
	checkpoints(s);
}

/* Rows written while a reply streams do not shift it: the reader keeps its snapshot. */
static void test_snapshot(void **state)
{
	struct store *s = fill_store(50);
	struct json_object *reply, *rows;
	struct reply_stream *rs;
	struct buf b = { 0 };
	unsigned i, fills;

	(void)state;
	rs = begin(s, STREAM_PROCESSES, 2, NULL, &b);
	assert_int_equal(reply_stream_fill(rs, 10, emit, &b), 1);
	for (i = 0; i < 50; i++) {
		struct proc p = {
			.pid = 10000 + i, .start_ns = 1, .unit = 2, .flags = PROC_FINISHED
		};

		p.exit.h.type = EVENT_EXIT;
		p.exit.h.pid = p.pid;
		p.exit.h.start_ns = 1;
		assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	}
	assert_int_equal(store_commit(s), 0);
	reply = end(rs, &b, 10, &fills);
	assert_true(json_object_object_get_ex(reply, "processes", &rows));
	assert_int_equal(json_object_array_length(rows), 50);
	/* and so do its totals */
	assert_int_equal(json_object_get_int64(json_object_object_get(
				 json_object_object_get(reply, "totals"), "nprocs")),
			 50);
	json_object_put(reply);
	done(s);
}

/* A failing emit stops the stream with its error; nothing is lost in the store. */
static void test_emit_failure(void **state)
{
	struct store *s = fill_store(20);
	struct reply_stream *rs = NULL;
	int at;

	(void)state;
	for (at = 1; at <= 4; at++) {
		struct buf b = { .fail_at = at };
		int r;

		assert_int_equal(reply_stream_new(s, STREAM_PROCESSES, 2, NULL, 0, NULL, &rs), 0);
		while ((r = reply_stream_fill(rs, 1, emit, &b)) == 1)
			;
		assert_int_equal(r, -ENOMEM);
		reply_stream_free(rs);
		free(b.data);
	}
	done(s);
}

static void test_bad_head(void **state)
{
	size_t len = 3;

	(void)state;
	assert_int_equal(reply_stream_head("[]\n", &len), -EINVAL);
	len = 1;
	assert_int_equal(reply_stream_head("\n", &len), -EINVAL);
	len = 3;
	assert_int_equal(reply_stream_head("{}\n", &len), -EINVAL);
	len = 8;
	assert_int_equal(reply_stream_head("{\"v\":1}\n", &len), 0);
	assert_int_equal(len, 6);
	reply_stream_free(NULL);
}

static int add_seven(void *ctx, uint64_t unit, struct json_object *totals)
{
	(void)ctx;
	json_object_object_add(
		totals, "nprocs",
		json_object_new_int64(
			json_object_get_int64(json_object_object_get(totals, "nprocs")) + 7));
	json_object_object_add(totals, "hooked_unit", json_object_new_int64(unit));
	return 0;
}

/* The daemon's own rows (live processes) follow the stored ones, in any page size, and its
 * additions reach the unit's totals. */
static void test_extra_rows(void **state)
{
	static const size_t pages[] = { 1, 4096 };
	struct store *s = fill_store(50);
	struct json_object *reply, *rows, *totals;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pages) / sizeof(*pages); i++) {
		struct stream_extra extra = { .tail = json_object_new_array(),
					      .totals = add_seven };
		struct json_object *head = proto_reply_ok(), *live = json_object_new_object();
		struct reply_stream *rs = NULL;
		struct buf b = { 0 };
		unsigned fills;
		size_t len;
		char *text;

		json_object_object_add(live, "pid", json_object_new_int(424242));
		json_object_object_add(live, "running", json_object_new_boolean(1));
		json_object_array_add(extra.tail, live);
		text = proto_serialize(head, &len);
		json_object_put(head);
		assert_int_equal(reply_stream_new(s, STREAM_PROCESSES, 2, NULL, 0, &extra, &rs), 0);
		assert_int_equal(reply_stream_head(text, &len), 0);
		emit(&b, text, len);
		free(text);
		reply = end(rs, &b, pages[i], &fills);
		assert_true(json_object_object_get_ex(reply, "processes", &rows));
		assert_int_equal(json_object_array_length(rows), 51);
		assert_int_equal(json_object_get_int(json_object_object_get(
					 json_object_array_get_idx(rows, 50), "pid")),
				 424242);
		assert_true(json_object_object_get_ex(reply, "totals", &totals));
		assert_int_equal(json_object_get_int64(json_object_object_get(totals, "nprocs")),
				 57);
		assert_int_equal(
			json_object_get_int64(json_object_object_get(totals, "hooked_unit")), 2);
		json_object_put(reply);
	}
	done(s);
}

/* "totals": false: the rows alone, for a client that has the unit's totals already */
static void test_no_totals(void **state)
{
	struct store *s = fill_store(20);
	struct json_object *head = proto_reply_ok(), *reply, *rows, *totals;
	struct stream_extra extra = { .no_totals = 1 };
	struct reply_stream *rs = NULL;
	struct buf b = { 0 };
	unsigned fills;
	size_t len;
	char *text;

	(void)state;
	text = proto_serialize(head, &len);
	json_object_put(head);
	assert_int_equal(reply_stream_new(s, STREAM_PROCESSES, 2, NULL, 0, &extra, &rs), 0);
	assert_int_equal(reply_stream_head(text, &len), 0);
	emit(&b, text, len);
	free(text);
	reply = end(rs, &b, 4096, &fills);
	assert_true(json_object_object_get_ex(reply, "processes", &rows));
	assert_int_equal(json_object_array_length(rows), 20);
	assert_false(json_object_object_get_ex(reply, "totals", &totals));
	json_object_put(reply);
	done(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processes_any_page),
		cmocka_unit_test(test_empty_and_units),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_emit_failure),
		cmocka_unit_test(test_bad_head),
		cmocka_unit_test(test_extra_rows),
		cmocka_unit_test(test_no_totals),
		cmocka_unit_test(test_units_turn_bounded),
		cmocka_unit_test(test_gone_mid_count),
		cmocka_unit_test(test_log_bound),
		cmocka_unit_test(test_checkpoint_on_tick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
