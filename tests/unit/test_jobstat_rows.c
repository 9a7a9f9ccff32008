/* A reply's big array read a row at a time: the reply split around its array
 * (proto_parse_reply_rows), the array's records parsed into flat rows (rows_parse), and a
 * process read from a flat row as from its object. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flatrow.h"
#include "jobstat.h"
#include "procs.h"
#include "protocol.h"
#include "rows_parse.h"

/* ---- the reply around its array */

struct seen {
	char text[512];
	int calls;
	int ret;
};

static int keep_text(void *ctx, const char *text, size_t len, char *err, size_t errlen)
{
	struct seen *s = ctx;

	s->calls++;
	snprintf(s->text, sizeof(s->text), "%.*s", (int)len, text);
	if (s->ret)
		proto_errf(err, errlen, "refused");
	return s->ret;
}

static int split(const char *line, struct seen *s, struct json_object **reply, char *err)
{
	const struct proto_rows rows = { .key = "processes", .rows = keep_text, .ctx = s };

	return proto_parse_reply_rows(line, strlen(line), &rows, reply, err, 256);
}

static void test_reply_split(void **state)
{
	struct json_object *reply = NULL, *a;
	struct seen s = { 0 };
	char err[256];

	(void)state;
	/* the array's text goes on whole; the reply keeps the rest, and an empty array */
	assert_int_equal(split("{\"v\":1,\"ok\":true,\"processes\":[{\"a\":\"]}\"},{\"b\":[1]}],"
			       "\"totals\":{\"n\":2}}",
			       &s, &reply, err),
			 0);
	assert_int_equal(s.calls, 1);
	assert_string_equal(s.text, "[{\"a\":\"]}\"},{\"b\":[1]}]");
	assert_true(json_object_object_get_ex(reply, "processes", &a));
	assert_int_equal(json_object_array_length(a), 0);
	assert_true(json_object_object_get_ex(reply, "totals", &a));
	json_object_put(reply);

	/* a string that looks like the member, and a nested member of that name, are not it */
	memset(&s, 0, sizeof(s));
	assert_int_equal(split("{\"v\":1,\"ok\":true,\"note\":\",\\\"processes\\\":[\",\"x\":{"
			       "\"processes\":[9]},\"processes\":[{\"p\":1}]}",
			       &s, &reply, err),
			 0);
	assert_string_equal(s.text, "[{\"p\":1}]");
	assert_true(json_object_object_get_ex(reply, "x", &a));
	assert_true(json_object_object_get_ex(a, "processes", &a));
	assert_int_equal(json_object_array_length(a), 1); /* the nested one untouched */
	json_object_put(reply);

	/* spaces around the member, as another writer may put them: found, or read from the
	 * tree; either way the rows come */
	memset(&s, 0, sizeof(s));
	assert_int_equal(split("{ \"v\" : 1 , \"ok\" : true , \"processes\" : [ {\"p\":2} ] }", &s,
			       &reply, err),
			 0);
	assert_int_equal(s.calls, 1);
	assert_non_null(strstr(s.text, "\"p\""));
	json_object_put(reply);

	/* no such member: nothing handed on, the reply as it is */
	memset(&s, 0, sizeof(s));
	assert_int_equal(split("{\"v\":1,\"ok\":false,\"error\":\"no unit 9\"}", &s, &reply, err),
			 0);
	assert_int_equal(s.calls, 0);
	json_object_put(reply);

	/* what is around the array is checked as any reply is */
	memset(&s, 0, sizeof(s));
	reply = NULL;
	assert_int_equal(split("{\"v\":7,\"processes\":[]}", &s, &reply, err), -EPROTO);
	assert_int_equal(s.calls, 0);
	assert_null(reply);
	assert_int_equal(split("{\"v\":1,\"processes\":[]", &s, &reply, err), -EPROTO);
	assert_int_equal(split("{\"v\":1,\"processes\":[]}trailing", &s, &reply, err), -EPROTO);
	assert_null(reply);

	/* the reader's refusal is the parse's, with its message */
	memset(&s, 0, sizeof(s));
	s.ret = -EPROTO;
	assert_int_equal(split("{\"v\":1,\"ok\":true,\"processes\":[{}]}", &s, &reply, err),
			 -EPROTO);
	assert_string_equal(err, "refused");
	assert_null(reply);
}

/* ---- the array's records */

struct rows_seen {
	int n, stop_at;
	int64_t pid[8];
	char comm[8][32];
	size_t nargv[8];
	char argv0[8][32];
	enum flat_kind kind_of_x[8];
};

static int keep_row(void *ctx, struct flat_row *r)
{
	struct rows_seen *s = ctx;
	const struct flat_field *x = flat_get(r, "x");
	const char *a0 = NULL, *c = flat_str(r, "comm");

	if (s->n == s->stop_at)
		return -ECANCELED;
	s->pid[s->n] = flat_int(r, "pid");
	snprintf(s->comm[s->n], sizeof(s->comm[0]), "%s", c ? c : "(none)");
	s->nargv[s->n] = flat_strs(r, "argv", &a0);
	snprintf(s->argv0[s->n], sizeof(s->argv0[0]), "%s", a0 ? a0 : "");
	s->kind_of_x[s->n] = x ? x->kind : FLAT_NULL;
	s->n++;
	return 0;
}

static int parse(const char *text, struct rows_seen *s, char *why)
{
	return rows_parse(text, strlen(text), keep_row, s, why, 160);
}

static void test_rows(void **state)
{
	struct rows_seen s = { .stop_at = -1 };
	char why[160];

	(void)state;
	assert_int_equal(
		parse("[{\"pid\":7,\"comm\":\"a\\\"b\\u00e9\",\"argv\":[\"/bin/x\",\"-y\"],"
		      "\"x\":{\"deep\":[1,{\"k\":2}]}},"
		      "{\"pid\":8.0,\"argv\":[\"z\",3],\"x\":[[\"q\"]]},"
		      "{\"pid\":null,\"comm\":\"\xff\xfe\",\"x\":true}]",
		      &s, why),
		0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.pid[0], 7);
	assert_string_equal(s.comm[0], "a\"b\xc3\xa9");
	assert_int_equal(s.nargv[0], 2);
	assert_string_equal(s.argv0[0], "/bin/x");
	assert_int_equal(s.kind_of_x[0], FLAT_OTHER);
	assert_int_equal(s.pid[1], 8);	 /* a real reads as a number, as json_int reads it */
	assert_int_equal(s.nargv[1], 0); /* an array with a number is no argv */
	assert_int_equal(s.kind_of_x[1], FLAT_OTHER);
	assert_string_equal(s.comm[1], "(none)");
	assert_int_equal(s.pid[2], JS_NONE);
	assert_string_equal(s.comm[2], "\xff\xfe"); /* a user's bytes: the views escape them */
	assert_int_equal(s.kind_of_x[2], FLAT_BOOL);

	/* an empty array: no rows */
	memset(&s, 0, sizeof(s));
	s.stop_at = -1;
	assert_int_equal(parse("[]", &s, why), 0);
	assert_int_equal(s.n, 0);

	/* what is no array of records is refused, saying why; rows before the fault were seen */
	assert_int_equal(parse("[{\"pid\":1},2]", &s, why), -EPROTO);
	assert_int_equal(s.n, 1);
	assert_string_equal(why, "a record expected");
	assert_int_equal(parse("{\"pid\":1}", &s, why), -EPROTO);
	assert_int_equal(parse("[[1]]", &s, why), -EPROTO);
	assert_int_equal(parse("[{\"pid\":1,}]", &s, why), -EPROTO);
	assert_int_equal(parse("[{\"pid\":1}", &s, why), -EPROTO);
	assert_int_equal(parse("[{\"pid\":99999999999999999999}]", &s, why), -EPROTO);
	assert_int_equal(parse("", &s, why), -EPROTO);

	/* the reader's stop is the parse's */
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	assert_int_equal(parse("[{\"pid\":1},{\"pid\":2},{\"pid\":3}]", &s, why), -ECANCELED);
	assert_int_equal(s.n, 1);
}

static void test_rows_bounds(void **state)
{
	struct rows_seen s = { .stop_at = -1 };
	char why[160], *text = malloc(64 * (FLAT_FIELDS_MAX + 2)), name[251], key[300];
	size_t at = 0;

	(void)state;
	/* past FLAT_FIELDS_MAX members a row is refused, never written past */
	at += (size_t)sprintf(text + at, "[{");
	for (int i = 0; i <= FLAT_FIELDS_MAX; i++)
		at += (size_t)sprintf(text + at, "%s\"k%d\":%d", i ? "," : "", i, i);
	sprintf(text + at, "}]");
	assert_int_equal(parse(text, &s, why), -E2BIG);
	free(text);

	/* a member name no record has */
	memset(name, 'k', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	snprintf(key, sizeof(key), "[{\"%s\":1}]", name);
	assert_int_equal(parse(key, &s, why), -EPROTO);
}

/* ---- a process: the flat row and its object say the same */

static int from_flat(void *ctx, struct flat_row *r)
{
	return proc_from_flat(r, ctx);
}

static void test_process_alike(void **state)
{
	const char *row =
		"{\"pid\":4242,\"ppid\":1,\"start_ns\":100,\"end_ns\":300,\"comm\":\"bwa\","
		"\"argv\":[\"/opt/bwa\",\"mem\",\"ref.fa\"],\"cpu_ns\":5,\"status\":1,"
		"\"flags\":0,\"tool\":\"bwa\",\"subcommand\":\"mem\",\"running\":true,"
		"\"rss_kb\":77,\"stalled_reason\":\"io\"}";
	char text[1024], why[160];
	struct json_object *o = json_tokener_parse(row);
	struct proc_rec a, b;

	(void)state;
	assert_int_equal(proc_from_json(o, &a), 0);
	snprintf(text, sizeof(text), "[%s]", row);
	assert_int_equal(rows_parse(text, strlen(text), from_flat, &b, why, sizeof(why)), 0);
	assert_int_equal(a.pid, 4242);
	assert_int_equal(b.pid, 4242);
	assert_int_equal(b.end_ns, a.end_ns);
	assert_int_equal(b.status, 1);
	assert_int_equal(b.maxrss_kb, JS_NONE); /* absent: unknown */
	assert_string_equal(b.tool, "bwa mem");
	assert_string_equal(a.tool, b.tool);
	assert_string_equal(b.cmd, "/opt/bwa mem ref.fa");
	assert_string_equal(a.cmd, b.cmd);
	assert_true(b.running);
	assert_int_equal(b.rss_now_kb, 77);
	assert_string_equal(b.stalled_reason, "io");
	free(a.cmd);
	free(b.cmd);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_split),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_rows_bounds),
		cmocka_unit_test(test_process_alike),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
