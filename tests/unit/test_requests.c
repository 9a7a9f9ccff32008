/* Unit tests for nodeagent/requests*.c against the table of operations (protocol/ops.h): who
 * may call each operation, a parked unit end, a listing and its limits, another user's unit
 * left alone; and that the dispatcher serves every operation of the table while the clients
 * take their names from it. The agent is put together by hand (agent_init would load BPF). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testagent.h"
#include "testlib.h"
#include <sqlite3.h>

#include "agent_internal.h" /* the agent is put together by hand */
#include "ops.h"
#include "readfile.h"
#include "requests.h"
#include "store.h"
#include "stream.h"
#include "units.h"

#define BOOT "5e1f7e57-0000-4000-8000-000000000002"
#define SLURM_UID 990
#define USER 1000
#define OTHER 1001

static char dir[64];
static const struct peer root = { .uid = 0 }, slurm = { .uid = SLURM_UID },
			 user = { .uid = USER, .owner = USER },
			 other = { .uid = OTHER, .owner = OTHER };

static struct unit *add_unit(struct agent *a, uint64_t id, const char *kind, uint32_t uid,
			     uint64_t job)
{
	struct unit t = { .id = id, .state = UNIT_RUNNING, .exit_status = -1, .uid = uid }, *u;

	snprintf(t.name, sizeof(t.name), "%llu.%llu", (unsigned long long)job,
		 (unsigned long long)id);
	snprintf(t.kind, sizeof(t.kind), "%s", kind);
	t.job_id = job;
	t.owner_uid = uid;
	u = units_adopt(a, &t);
	assert_non_null(u);
	units_save(a, u);
	assert_int_equal(store_commit(a->store), 0); /* saved: as the loop's commit leaves it */
	return u;
}

static int setup(void **state)
{
	struct agent *a = ta_agent_new("test_requests", BOOT, dir);

	if (!a)
		return -1;
	a->slurm_uid = SLURM_UID;
	add_unit(a, 5, "local", USER, 0);
	add_unit(a, 11, "slurm", USER, 42);
	add_unit(a, 12, "slurm", OTHER, 42);
	*state = a;
	return 0;
}

static int teardown(void **state)
{
	return ta_agent_free(*state, dir);
}

/* A request built as the clients build theirs, with extra fields as JSON text ("" none). */
static struct json_object *ask(struct agent *a, const struct peer *peer, enum tracer_op op,
			       const char *fields, struct reply_stream **stream,
			       struct parked *park)
{
	struct json_object *req = proto_request(op), *extra, *reply;

	assert_non_null(req);
	extra = json_tokener_parse(fields[0] ? fields : "{}");
	assert_non_null(extra);
	json_object_object_foreach(extra, k, v)
		json_object_object_add(req, k, json_object_get(v));
	json_object_put(extra);
	*stream = NULL;
	reply = request_handle(a, peer, req, stream, park);
	json_object_put(req);
	/* a listing waits for the store's thread, as the loop leaves it waiting */
	if (!reply && park->kind == PARK_LISTING) {
		while (!request_ready(a, park))
			usleep(1000);
		reply = request_resume(a, park, stream);
	}
	return reply;
}

/* The code of a refusal (the reply is put); -1 for a reply that is ok. */
static int refusal(struct json_object *reply, struct reply_stream *stream)
{
	struct json_object *ok;
	int code;

	assert_non_null(reply);
	assert_true(json_object_object_get_ex(reply, "ok", &ok));
	code = json_object_get_boolean(ok) ? -1 : (int)proto_reply_code(reply);
	if (code >= 0) /* a refusal says why to people too */
		assert_true(strlen(gets_(reply, "error")) > 0);
	json_object_put(reply);
	reply_stream_free(stream);
	return code;
}

static int code_of(struct agent *a, const struct peer *peer, enum tracer_op op, const char *fields)
{
	struct reply_stream *stream;
	struct parked park;
	struct json_object *reply = ask(a, peer, op, fields, &stream, &park);

	return refusal(reply, stream);
}

/* For every operation of the table: a user is refused exactly those only root and SlurmUser
 * may call, SlurmUser only those of root alone, and root none; none is unknown to the
 * dispatcher. (An empty request is refused for its missing fields, past the check of who
 * calls.) Root's shutdown would stop the daemon: asked last. */
static void test_who_may_call(void **state)
{
	struct agent *a = *state;
	int op, c;

	for (op = 0; op < OP_COUNT; op++) {
		if (op == OP_STATUS) /* its reply reads the collector, which is not here */
			continue;
		c = code_of(a, &user, op, "");
		assert_int_not_equal(c, PROTO_E_UNKNOWN_OP);
		if (proto_ops[op].who != OP_ANYONE)
			assert_int_equal(c, PROTO_E_DENIED);
		else
			assert_int_not_equal(c, PROTO_E_DENIED);
		c = code_of(a, &slurm, op, "");
		if (proto_ops[op].who == OP_ROOT)
			assert_int_equal(c, PROTO_E_DENIED);
		else
			assert_true(c != PROTO_E_DENIED && c != PROTO_E_UNKNOWN_OP);
		c = code_of(a, &root, op, "");
		assert_true(c != PROTO_E_DENIED && c != PROTO_E_UNKNOWN_OP);
	}
	assert_int_equal(proto_ops[OP_STATUS].who, OP_ANYONE);
}

/* An op name the table does not have, and the TCP envelope, are unknown to the dispatcher. */
static void test_unknown_op(void **state)
{
	struct agent *a = *state;
	struct reply_stream *stream;
	struct parked park;
	const char *names[] = { "nope", PROTO_OP_MUNGE };

	for (size_t i = 0; i < 2; i++) {
		struct json_object *req = proto_request_named(names[i]);

		struct json_object *reply = request_handle(a, &root, req, &stream, &park);

		assert_int_equal(refusal(reply, stream), PROTO_E_UNKNOWN_OP);
		json_object_put(req);
	}
}

/* An end's reply of op: unit id, with its totals or not; the reply is put */
static void end_reply(struct json_object *reply, enum tracer_op op, int64_t id, int totals)
{
	struct json_object *u;

	assert_non_null(reply);
	assert_true(json_object_object_get_ex(reply, proto_ops[op].reply, &u));
	assert_int_equal(geti(u, "id"), id);
	assert_int_equal(has(reply, "totals"), totals);
	json_object_put(reply);
}

/* The end of a running unit waits for its last exits, then answers with the unit. */
static void test_parked_end(void **state)
{
	struct agent *a = *state;
	struct reply_stream *stream;
	struct parked park;
	struct json_object *reply;

	units_find(a, 5)->live = 1;
	reply = ask(a, &user, OP_RUN_END, "{\"unit\": 5, \"status\": 256}", &stream, &park);
	assert_null(reply);
	assert_int_equal(park.kind, PARK_UNIT_END);
	assert_int_equal(park.id, 5);
	assert_int_equal(park.status, 256);
	assert_false(request_ready(a, &park)); /* a process still runs, and time is left */
	park.deadline_ns = 0;
	assert_true(request_ready(a, &park)); /* time is up */
	park.deadline_ns = INT64_MAX;
	/* ended meanwhile (units_end needs the kernel's counters, not here): what is stored */
	units_drop(a, units_find(a, 5));
	assert_true(request_ready(a, &park));
	end_reply(request_resume(a, &park, NULL), OP_RUN_END, 5, 1);
	/* ended already: the stored unit is the answer, at once */
	assert_int_equal(code_of(a, &user, OP_RUN_END, "{\"unit\": 5}"), -1);
}

/* "totals": false (the SPANK plugin's, at a task's end) leaves the totals out of an end's
 * reply, parked or at once; only false exactly does. */
static void test_end_without_totals(void **state)
{
	struct agent *a = *state;
	struct reply_stream *stream;
	struct parked park;
	struct json_object *reply;

	units_find(a, 11)->live = 1;
	reply = ask(a, &slurm, OP_UNREGISTER, "{\"unit\": 11, \"status\": 0, \"totals\": false}",
		    &stream, &park);
	assert_null(reply);
	assert_int_equal(park.kind, PARK_UNIT_END);
	assert_true(park.no_totals);
	units_drop(a, units_find(a, 11));
	end_reply(request_resume(a, &park, NULL), OP_UNREGISTER, 11, 0);
	/* ended already: the stored unit, at once, without them; with them unless false */
	end_reply(
		ask(a, &slurm, OP_UNREGISTER, "{\"unit\": 11, \"totals\": false}", &stream, &park),
		OP_UNREGISTER, 11, 0);
	end_reply(ask(a, &slurm, OP_UNREGISTER, "{\"unit\": 11, \"totals\": 0}", &stream, &park),
		  OP_UNREGISTER, 11, 1);
}

/* Another user's unit is not told from one that does not exist; a Slurm unit is Slurm's. */
static void test_run_end_not_yours(void **state)
{
	struct agent *a = *state;
	struct reply_stream *stream;
	struct parked park;
	struct json_object *reply;

	reply = ask(a, &other, OP_RUN_END, "{\"unit\": 5}", &stream, &park);
	assert_int_equal(refusal(reply, stream), PROTO_E_NOT_FOUND);
	assert_int_equal(park.kind, PARK_NONE);
	assert_int_equal(code_of(a, &other, OP_RUN_END, "{\"unit\": 999}"), PROTO_E_NOT_FOUND);
	assert_int_equal(code_of(a, &user, OP_RUN_END, "{\"unit\": 11}"), PROTO_E_DENIED);
	assert_int_equal(units_find(a, 5)->state, UNIT_RUNNING); /* left as it was */
	assert_int_equal(code_of(a, &user, OP_RUN_END, "{\"unit\": \"5\"}"), PROTO_E_MALFORMED);
}

static int to_buf(void *ctx, const char *data, size_t n)
{
	struct {
		char *p;
		size_t len, cap;
	} *b = ctx;

	if (b->len + n + 1 > b->cap)
		return -ENOSPC;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

/* A streamed listing of op as peer asks it with fields: its rows (the caller puts). */
static struct json_object *streamed(struct agent *a, const struct peer *peer, enum tracer_op op,
				    const char *fields)
{
	static char text[65536];
	struct {
		char *p;
		size_t len, cap;
	} b = { text, 0, sizeof(text) };
	struct json_object *reply, *all, *rows;
	struct reply_stream *stream = NULL;
	struct parked park;
	char *head;
	size_t len;

	reply = ask(a, peer, op, fields, &stream, &park);
	assert_non_null(reply);
	assert_non_null(stream);
	head = proto_serialize(reply, &len);
	json_object_put(reply);
	assert_int_equal(reply_stream_head(head, &len), 0);
	assert_int_equal(to_buf(&b, head, len), 0);
	free(head);
	while (reply_stream_fill(stream, 4096, to_buf, &b) > 0)
		;
	reply_stream_free(stream);
	all = json_tokener_parse(text);
	assert_non_null(all);
	assert_true(json_object_object_get_ex(all, proto_ops[op].reply, &rows));
	json_object_get(rows);
	json_object_put(all);
	return rows;
}

/* The "units" listing of job 42 as peer sees it: how many rows. */
static size_t listed(struct agent *a, const struct peer *peer)
{
	struct json_object *rows = streamed(a, peer, OP_UNITS, "{\"select\": \"42\"}");
	size_t n = json_object_array_length(rows);

	json_object_put(rows);
	return n;
}

/* A unit's timeline points for its owner (its samples, each with the figures a timeline
 * counts, then its processes' exits), for nobody else. */
static void test_samples(void **state)
{
	struct agent *a = *state;
	struct proc p = { .pid = 77, .unit = 11, .start_ns = 5000000000ULL };
	struct json_object *rows, *o;

	p.sample_cpu_ns = 2000000000;
	p.sample_rss_kb = 1024;
	p.sample_read_bytes = 4096;
	p.sample_write_bytes = 8192;
	assert_int_equal(store_add_sample(a->store, &p, 6000000000ULL, a->offset_ns), 0);
	p.sample_cpu_ns = 3000000000;
	assert_int_equal(store_add_sample(a->store, &p, 7000000000ULL, a->offset_ns), 0);
	rows = streamed(a, &user, OP_SAMPLES, "{\"unit\": 11}");
	assert_int_equal(json_object_array_length(rows), 2);
	o = json_object_array_get_idx(rows, 1);
	assert_int_equal(geti(o, "pid"), 77);
	assert_int_equal(geti(o, "start_boot_ns"), 5000000000LL);
	assert_int_equal(geti(o, "time_ns"), 7000000000LL + a->offset_ns);
	assert_int_equal(geti(o, "cpu_ns"), 3000000000LL);
	assert_int_equal(geti(o, "rss_kb"), 1024);
	assert_int_equal(geti(o, "read_bytes"), 4096);
	assert_int_equal(geti(o, "write_bytes"), 8192);
	assert_false(json_object_object_get_ex(o, "exit", NULL));
	json_object_put(rows);
	assert_int_equal(code_of(a, &other, OP_SAMPLES, "{\"unit\": 11}"), PROTO_E_NOT_FOUND);
	assert_int_equal(code_of(a, &other, OP_SAMPLES, "{\"unit\": \"11\"}"), PROTO_E_MALFORMED);
	rows = streamed(a, &root, OP_SAMPLES, "{\"unit\": 12}");
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
}

/* Another connection holding the store's write lock: a commit handed over now waits for it
 * (the store's busy timeout), so that it cannot be over before a request looks */
static sqlite3 *hold_writes(struct agent *a)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(store_file(a->store), &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static void release_writes(sqlite3 *db)
{
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* A listing asked while rows wait for the store's thread is parked, never committed on the
 * loop: it is ready once the thread committed them, and then lists them. Past its time it is
 * answered all the same. */
static void test_listing_waits_for_commit(void **state)
{
	struct agent *a = *state;
	struct proc p = { .pid = 78, .unit = 11, .start_ns = 5000000000ULL };
	struct reply_stream *stream = NULL;
	struct json_object *req, *reply, *rows;
	struct parked park;
	sqlite3 *blocker;

	p.sample_cpu_ns = 1000000000;
	assert_int_equal(store_add_sample(a->store, &p, 6000000000ULL, a->offset_ns), 0);
	req = proto_request(OP_SAMPLES);
	json_object_object_add(req, "unit", json_object_new_int64(11));
	blocker = hold_writes(a);
	reply = request_handle(a, &user, req, &stream, &park);
	assert_null(reply);
	release_writes(blocker);
	assert_null(stream);
	assert_int_equal(park.kind, PARK_LISTING);
	assert_int_equal(park.id, 11);
	assert_true(park.deadline_ns > 0);
	while (!request_ready(a, &park))
		usleep(1000);
	assert_true(store_flushed(a->store, park.ticket));
	reply = request_resume(a, &park, &stream);
	assert_non_null(reply);
	assert_non_null(stream);
	json_object_put(reply);
	reply_stream_free(stream);
	/* committed by now: listed at once */
	rows = streamed(a, &user, OP_SAMPLES, "{\"unit\": 11}");
	assert_int_equal(json_object_array_length(rows), 1);
	json_object_put(rows);
	/* queued again, and its time up: answered at once, the rows committed first */
	assert_int_equal(store_add_sample(a->store, &p, 7000000000ULL, a->offset_ns), 0);
	blocker = hold_writes(a);
	reply = request_handle(a, &user, req, &stream, &park);
	assert_null(reply);
	release_writes(blocker);
	park.deadline_ns = 0;
	assert_true(request_ready(a, &park));
	reply = request_resume(a, &park, &stream);
	assert_non_null(stream);
	json_object_put(reply);
	reply_stream_free(stream);
	assert_false(store_busy(a->store));
	json_object_put(req);
}

/* A processes listing may name the columns it wants: its rows carry those alone (and the uid
 * beside argv, which decides who may see it); a name that is not a column is refused. */
static void test_listing_fields(void **state)
{
	struct agent *a = *state;
	struct proc p = {
		.pid = 79, .ppid = 1, .uid = USER, .unit = 11, .start_ns = 5000000000ULL
	};
	struct json_object *rows, *o;

	snprintf(p.comm, sizeof(p.comm), "bwa");
	p.flags = PROC_FINISHED;
	p.exit.h.type = EVENT_EXIT;
	p.exit.h.pid = 79;
	p.exit.h.start_ns = p.start_ns;
	p.exit.h.time_ns = p.start_ns + 1000000000ULL;
	assert_int_equal(store_add_process(a->store, &p, a->offset_ns), 0);
	rows = streamed(a, &user, OP_PROCESSES, "{\"unit\": 11, \"fields\": [\"pid\", \"comm\"]}");
	assert_int_equal(json_object_array_length(rows), 1);
	o = json_object_array_get_idx(rows, 0);
	assert_int_equal(json_object_object_length(o), 2);
	assert_int_equal(geti(o, "pid"), 79);
	assert_string_equal(gets_(o, "comm"), "bwa");
	json_object_put(rows);
	rows = streamed(a, &user, OP_PROCESSES, "{\"unit\": 11, \"fields\": [\"argv\"]}");
	o = json_object_array_get_idx(rows, 0);
	assert_true(has(o, "uid"));
	assert_false(has(o, "comm"));
	json_object_put(rows);
	rows = streamed(a, &user, OP_PROCESSES, "{\"unit\": 11, \"fields\": []}"); /* all */
	assert_true(json_object_object_length(json_object_array_get_idx(rows, 0)) > 20);
	json_object_put(rows);
	assert_int_equal(code_of(a, &user, OP_PROCESSES, "{\"unit\": 11, \"fields\": [\"seq\"]}"),
			 PROTO_E_MALFORMED); /* stored, not listed */
	assert_int_equal(code_of(a, &user, OP_PROCESSES, "{\"unit\": 11, \"fields\": [\"x\"]}"),
			 PROTO_E_MALFORMED);
	assert_int_equal(code_of(a, &user, OP_PROCESSES, "{\"unit\": 11, \"fields\": \"pid\"}"),
			 PROTO_E_MALFORMED);
	assert_int_equal(code_of(a, &user, OP_PROCESSES, "{\"unit\": 11, \"fields\": [1]}"),
			 PROTO_E_MALFORMED);
}

/* A listing holds a user to their own units, root and SlurmUser to none; its selector and a
 * history's count have their bounds. */
static void test_listing_limits(void **state)
{
	struct agent *a = *state;
	char sel[300];

	assert_int_equal(listed(a, &user), 1);
	assert_int_equal(listed(a, &other), 1);
	assert_int_equal(listed(a, &root), 2);
	assert_int_equal(listed(a, &slurm), 2);
	snprintf(sel, sizeof(sel), "{\"select\": \"%0257d\"}", 1);
	assert_int_equal(code_of(a, &root, OP_UNITS, sel), PROTO_E_MALFORMED);
	assert_int_equal(code_of(a, &user, OP_UNITS, ""), PROTO_E_MALFORMED);
	assert_int_equal(code_of(a, &user, OP_HISTORY, "{\"unit\": 11, \"limit\": 0}"),
			 PROTO_E_MALFORMED);
	assert_int_equal(code_of(a, &user, OP_HISTORY, "{\"unit\": 11, \"limit\": 51}"),
			 PROTO_E_MALFORMED);
	assert_int_equal(code_of(a, &user, OP_HISTORY, "{\"unit\": 11, \"limit\": 50}"), -1);
	assert_int_equal(code_of(a, &other, OP_HISTORY, "{\"unit\": 11}"), PROTO_E_NOT_FOUND);
	assert_int_equal(code_of(a, &other, OP_PROCESSES, "{\"unit\": 11}"), PROTO_E_NOT_FOUND);
	assert_int_equal(code_of(a, &other, OP_TOOLS, "{\"unit\": 11}"), PROTO_E_NOT_FOUND);
	assert_int_equal(code_of(a, &other, OP_SAMPLES, "{\"unit\": 11}"), PROTO_E_NOT_FOUND);
}

/* The clients build no envelope of their own and spell no op name: both come from ops.h. */
static void test_clients_use_the_table(void **state)
{
	static const char *const clients[] = {
		"tracerctl/tracerctl.c",     "spank/spank_tracer.c", "prolog/prolog.c",
		"jobstat/collect/daemons.c", "protocol/client.c",    "protocol/trust.c",
	};
	char path[4096], *text;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(clients) / sizeof(*clients); i++) {
		snprintf(path, sizeof(path), "%s/%s", srcdir(), clients[i]);
		assert_int_equal(readfile(path, 1 << 20, 0, &text, &len, NULL, 0), 0);
		if (strstr(text, "\"op\"") || strstr(text, "request(\""))
			fail_msg("%s builds a request of its own", clients[i]);
		for (int op = 0; op < OP_COUNT; op++) {
			char call[64];

			/* as a request's name: passed where a request is built */
			snprintf(call, sizeof(call), "(\"%s\")", proto_op_name(op));
			if (strstr(text, call))
				fail_msg("%s names op %s itself", clients[i], proto_op_name(op));
		}
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_who_may_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_op, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parked_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_without_totals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_end_not_yours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_waits_for_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples, setup, teardown),
		cmocka_unit_test(test_clients_use_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
