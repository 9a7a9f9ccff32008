/* Unit tests for protocol/protocol.c: framing edge cases, request validation, typed getters,
 * replies, and the client calls against real sockets with a peer thread playing the daemon. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client.h"
#include "protocol.h"
#include "testlib.h"

static char err[512];

/* ---- line reader */

/* Take the next line and compare it with want (a C string). */
static void expect_line(struct line_reader *r, const char *want)
{
	char *line = NULL;
	size_t len = 0;

	assert_int_equal(line_reader_next(r, &line, &len), 1);
	assert_non_null(line);
	assert_int_equal(len, strlen(want));
	assert_string_equal(line, want);
	free(line);
}

static void expect_none(struct line_reader *r)
{
	char *line = (char *)0x1;
	size_t len = 77;

	assert_int_equal(line_reader_next(r, &line, &len), 0);
	assert_ptr_equal(line, (char *)0x1);
	assert_int_equal(len, 77);
}

static void test_lr_single_and_empty(void **state)
{
	struct line_reader r;

	(void)state;
	line_reader_init(&r);
	expect_none(&r);
	assert_int_equal(line_reader_feed(&r, "", 0), 0);
	expect_none(&r);
	assert_int_equal(line_reader_feed(&r, "hello\n", 6), 0);
	expect_line(&r, "hello");
	expect_none(&r);
	/* Empty lines are lines. */
	assert_int_equal(line_reader_feed(&r, "\n\r\n", 3), 0);
	expect_line(&r, "");
	expect_line(&r, "");
	expect_none(&r);
	/* Fully drained: nothing is kept pending. */
	assert_int_equal(r.len, 0);
	line_reader_free(&r);
	line_reader_free(&r); /* idempotent */
}

static void test_lr_split_lines(void **state)
{
	static const char msg[] = "{\"v\":1,\"op\":\"status\"}\nsecond line\r\nthird";
	struct line_reader r;

	(void)state;
	/* Every split point gives the same lines. */
	for (size_t cut = 0; cut <= sizeof(msg) - 1; cut++) {
		line_reader_init(&r);
		assert_int_equal(line_reader_feed(&r, msg, cut), 0);
		assert_int_equal(line_reader_feed(&r, msg + cut, sizeof(msg) - 1 - cut), 0);
		expect_line(&r, "{\"v\":1,\"op\":\"status\"}");
		expect_line(&r, "second line");
		expect_none(&r); /* "third" is not terminated yet */
		assert_int_equal(line_reader_feed(&r, "\n", 1), 0);
		expect_line(&r, "third");
		line_reader_free(&r);
	}
	/* One byte at a time, taking lines as they come. */
	line_reader_init(&r);
	for (size_t i = 0; i < sizeof(msg) - 1; i++) {
		assert_int_equal(line_reader_feed(&r, msg + i, 1), 0);
		if (msg[i] == '\n') {
			char *l;
			size_t n;
			assert_int_equal(line_reader_next(&r, &l, &n), 1);
			free(l);
		} else {
			expect_none(&r);
		}
	}
	line_reader_free(&r);
}

static void test_lr_crlf(void **state)
{
	struct line_reader r;

	(void)state;
	line_reader_init(&r);
	/* CR split from its LF. */
	assert_int_equal(line_reader_feed(&r, "abc\r", 4), 0);
	expect_none(&r);
	assert_int_equal(line_reader_feed(&r, "\n", 1), 0);
	expect_line(&r, "abc");
	/* Only one trailing CR is stripped; inner ones stay. */
	assert_int_equal(line_reader_feed(&r, "a\rb\r\r\n", 6), 0);
	expect_line(&r, "a\rb\r");
	line_reader_free(&r);
}

static void test_lr_many_lines_one_feed(void **state)
{
	enum { N = 20000 };
	struct line_reader r;
	char *blob, *p, want[32];

	(void)state;
	blob = malloc(N * 16);
	assert_non_null(blob);
	p = blob;
	for (int i = 0; i < N; i++)
		p += sprintf(p, "line %d\n", i);
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(&r, blob, (size_t)(p - blob)), 0);
	for (int i = 0; i < N; i++) {
		snprintf(want, sizeof(want), "line %d", i);
		expect_line(&r, want);
		/* Interleave more data while lines are pending. */
		if (i == N / 2)
			assert_int_equal(line_reader_feed(&r, "late\n", 5), 0);
	}
	expect_line(&r, "late");
	expect_none(&r);
	line_reader_free(&r);
	free(blob);
}

static void test_lr_nul_bytes_pass_through(void **state)
{
	struct line_reader r;
	char *line;
	size_t len;

	(void)state;
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(&r, "a\0b\n", 4), 0);
	assert_int_equal(line_reader_next(&r, &line, &len), 1);
	assert_int_equal(len, 3);
	assert_memory_equal(line, "a\0b", 4);
	free(line);
	line_reader_free(&r);
}

static char *filled(size_t n, char c)
{
	char *s = malloc(n + 4);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_lr_max_line(void **state)
{
	struct line_reader r;
	char *big = filled(TRACER_MSG_MAX, 'x');
	char *line;
	size_t len;

	(void)state;
	/* Exactly TRACER_MSG_MAX is fine, with LF or CRLF. */
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(&r, big, TRACER_MSG_MAX), 0);
	assert_int_equal(line_reader_feed(&r, "\r", 1), 0);
	assert_int_equal(line_reader_feed(&r, "\n", 1), 0);
	assert_int_equal(line_reader_next(&r, &line, &len), 1);
	assert_int_equal(len, TRACER_MSG_MAX);
	assert_int_equal(r.overflow, 0);
	free(line);
	big[TRACER_MSG_MAX] = '\n';
	assert_int_equal(line_reader_feed(&r, big, TRACER_MSG_MAX + 1), 0);
	assert_int_equal(line_reader_next(&r, &line, &len), 1);
	assert_int_equal(len, TRACER_MSG_MAX);
	free(line);
	line_reader_free(&r);
	free(big);
}

static void test_lr_overflow(void **state)
{
	struct line_reader r;
	char *big = filled(TRACER_MSG_MAX + 1, 'y');
	char *line = NULL;
	size_t len = 0;

	(void)state;
	/* Unterminated and too long: refused at once, not when a newline finally comes. */
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(&r, big, TRACER_MSG_MAX + 1), -EMSGSIZE);
	assert_int_equal(r.overflow, 1);
	assert_int_equal(line_reader_next(&r, &line, &len), -EMSGSIZE);
	assert_null(line);
	assert_int_equal(line_reader_feed(&r, "\n", 1), -EMSGSIZE);
	line_reader_free(&r);

	/* Same, trickled in: the byte that crosses the limit is refused. */
	line_reader_init(&r);
	for (size_t i = 0; i < TRACER_MSG_MAX; i++)
		assert_int_equal(line_reader_feed(&r, "z", 1), 0);
	assert_int_equal(line_reader_feed(&r, "z", 1), -EMSGSIZE);
	line_reader_free(&r);

	/* A '\r' may be the byte past the limit, but only if '\n' follows. */
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(&r, big, TRACER_MSG_MAX), 0);
	assert_int_equal(line_reader_feed(&r, "\r", 1), 0);
	assert_int_equal(line_reader_feed(&r, "\r", 1), -EMSGSIZE);
	line_reader_free(&r);
	line_reader_init(&r);
	memcpy(big + TRACER_MSG_MAX, "\rx", 2);
	assert_int_equal(line_reader_feed(&r, big, TRACER_MSG_MAX + 2), -EMSGSIZE);
	line_reader_free(&r);

	/* Too long and terminated, after good lines, in one feed. */
	line_reader_init(&r);
	big[TRACER_MSG_MAX] = 'y';
	big[TRACER_MSG_MAX + 1] = '\n';
	{
		size_t n = 4 + TRACER_MSG_MAX + 2;
		char *blob = malloc(n);
		assert_non_null(blob);
		memcpy(blob, "ok\n", 3);
		memcpy(blob + 3, big, TRACER_MSG_MAX + 2);
		memcpy(blob + 3 + TRACER_MSG_MAX + 2, "\n", 1);
		assert_int_equal(line_reader_feed(&r, blob, n), -EMSGSIZE);
		free(blob);
	}
	assert_int_equal(r.overflow, 1);
	assert_int_equal(line_reader_next(&r, &line, &len), -EMSGSIZE);
	line_reader_free(&r);

	/* A long line completed across feeds is measured whole. */
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(&r, big, 100), 0);
	assert_int_equal(line_reader_feed(&r, big, TRACER_MSG_MAX - 100), 0);
	assert_int_equal(line_reader_feed(&r, "y\n", 2), -EMSGSIZE);
	line_reader_free(&r);
	free(big);
}

static void test_lr_bad_args(void **state)
{
	struct line_reader r;
	char *l;
	size_t n;

	(void)state;
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(NULL, "x", 1), -EINVAL);
	assert_int_equal(line_reader_feed(&r, NULL, 1), -EINVAL);
	assert_int_equal(line_reader_next(NULL, &l, &n), -EINVAL);
	assert_int_equal(line_reader_next(&r, NULL, &n), -EINVAL);
	assert_int_equal(line_reader_next(&r, &l, NULL), -EINVAL);
	line_reader_free(&r);
	line_reader_free(NULL);
}

/* ---- requests */

static struct json_object *req_ok(const char *line)
{
	struct json_object *o = NULL;
	int ret = proto_parse_request(line, strlen(line), &o, err, sizeof(err));

	if (ret != 0)
		fail_msg("request <<%s>> refused: %d %s", line, ret, err);
	assert_non_null(o);
	return o;
}

static void req_bad_n(const char *line, size_t len, int want_ret, const char *want_err)
{
	struct json_object *o = (struct json_object *)0x1;

	err[0] = '\0';
	assert_int_equal(proto_parse_request(line, len, &o, err, sizeof(err)), want_ret);
	assert_ptr_equal(o, (struct json_object *)0x1); /* untouched */
	if (want_err)
		assert_string_equal(err, want_err);
	else
		assert_true(err[0] != '\0');
}

static void req_bad(const char *line, int want_ret, const char *want_err)
{
	req_bad_n(line, strlen(line), want_ret, want_err);
}

static void test_req_valid(void **state)
{
	struct json_object *o, *op;

	(void)state;
	o = req_ok("{\"v\":1,\"op\":\"status\"}");
	assert_true(json_object_object_get_ex(o, "op", &op));
	assert_string_equal(json_object_get_string(op), "status");
	json_object_put(o);
	json_object_put(
		req_ok("  { \"op\" : \"register_step\" , \"v\" : 1, \"job\": {\"id\": 5} }  "));
	json_object_put(req_ok("{\"v\":1,\"op\":\"abcdefghijklmnopqrstuvwxyz_abcde\"}")); /* 32 */
	json_object_put(req_ok("{\"v\":1,\"op\":\"x\",\"extra\":[1,2,{\"a\":null}]}"));
	/* Nesting up to the limit is fine. */
	json_object_put(req_ok("{\"v\":1,\"op\":\"x\",\"a\":[[[[[[[[[[[[[[1]]]]]]]]]]]]]]}"));
}

static void test_req_version(void **state)
{
	(void)state;
	req_bad("{\"op\":\"status\"}", -EPROTO, "missing protocol version \"v\"");
	req_bad("{\"v\":null,\"op\":\"status\"}", -EPROTO, "missing protocol version \"v\"");
	req_bad("{\"v\":2,\"op\":\"status\"}", -EPROTO, "unsupported protocol version 2");
	req_bad("{\"v\":0,\"op\":\"status\"}", -EPROTO, "unsupported protocol version 0");
	req_bad("{\"v\":-1,\"op\":\"status\"}", -EPROTO, "unsupported protocol version -1");
	req_bad("{\"v\":\"1\",\"op\":\"status\"}", -EPROTO,
		"protocol version \"v\" must be an integer");
	req_bad("{\"v\":1.0,\"op\":\"status\"}", -EPROTO,
		"protocol version \"v\" must be an integer");
	req_bad("{\"v\":true,\"op\":\"status\"}", -EPROTO,
		"protocol version \"v\" must be an integer");
	req_bad("{\"v\":18446744073709551617,\"op\":\"status\"}", -EPROTO, NULL);
}

static void test_req_op(void **state)
{
	(void)state;
	req_bad("{\"v\":1}", -EINVAL, "missing \"op\"");
	req_bad("{\"v\":1,\"op\":null}", -EINVAL, "missing \"op\"");
	req_bad("{\"v\":1,\"op\":3}", -EINVAL, "\"op\" must be a string");
	req_bad("{\"v\":1,\"op\":[\"status\"]}", -EINVAL, "\"op\" must be a string");
	req_bad("{\"v\":1,\"op\":\"\"}", -EINVAL, "\"op\" must be 1 to 32 characters");
	req_bad("{\"v\":1,\"op\":\"abcdefghijklmnopqrstuvwxyz_abcdef\"}", -EINVAL,
		"\"op\" must be 1 to 32 characters");
	req_bad("{\"v\":1,\"op\":\"Status\"}", -EINVAL, "\"op\" may only contain a-z and '_'");
	req_bad("{\"v\":1,\"op\":\"run-job\"}", -EINVAL, "\"op\" may only contain a-z and '_'");
	req_bad("{\"v\":1,\"op\":\"st\\u0000tus\"}", -EINVAL,
		"\"op\" may only contain a-z and '_'");
	req_bad("{\"v\":1,\"op\":\"st\\natus\"}", -EINVAL, "\"op\" may only contain a-z and '_'");
	req_bad("{\"v\":1,\"op\":\"\xc3\xa9\"}", -EINVAL, "\"op\" may only contain a-z and '_'");
}

static void test_req_bad_json(void **state)
{
	(void)state;
	req_bad("", -EINVAL, "empty message");
	req_bad("   ", -EINVAL, "invalid JSON: incomplete");
	req_bad("{\"v\":1,\"op\":\"status\"", -EINVAL, "invalid JSON: incomplete");
	req_bad("{\"v\":1,\"op\":\"status\"} x", -EINVAL, NULL);
	req_bad("{\"v\":1,\"op\":\"status\"}{}", -EINVAL, NULL);
	req_bad("{\"v\":1,\"op\":\"status\",}", -EINVAL, NULL);
	req_bad("{\"v\":1,/*c*/\"op\":\"status\"}", -EINVAL, NULL);
	req_bad("{v:1}", -EINVAL, NULL);
	req_bad("not json", -EINVAL, NULL);
	req_bad("[1,2]", -EINVAL, "message is not a JSON object");
	req_bad("\"str\"", -EINVAL, "message is not a JSON object");
	req_bad("null", -EINVAL, NULL);
	req_bad("1", -EINVAL, NULL);
	req_bad("\xff\xfe", -EINVAL, NULL);
	/* A NULL line is only acceptable as an empty one. */
	req_bad_n(NULL, 0, -EINVAL, "empty message");
	assert_int_equal(proto_parse_request(NULL, 3, NULL, err, sizeof(err)), -EINVAL);
}

static void test_req_nul_bytes(void **state)
{
	static const char l1[] = "{\"v\":1,\"op\":\"status\"}\0";
	static const char l2[] = "{\"v\":1,\0\"op\":\"status\"}";

	(void)state;
	req_bad_n(l1, sizeof(l1) - 1, -EINVAL, "NUL byte in message");
	req_bad_n(l2, sizeof(l2) - 1, -EINVAL, "NUL byte in message");
	/* The length is what counts, not the terminator: a shorter len sees a prefix. */
	req_bad_n(l1, 10, -EINVAL, "invalid JSON: incomplete");
}

static void test_req_depth_bomb(void **state)
{
	enum { D = 100000 };
	char *bomb = malloc(2 * D + 64);
	size_t n = 0;

	(void)state;
	assert_non_null(bomb);
	n += (size_t)sprintf(bomb, "{\"v\":1,\"op\":\"x\",\"a\":");
	memset(bomb + n, '[', 20);
	n += 20;
	memset(bomb + n, ']', 20);
	n += 20;
	bomb[n++] = '}';
	req_bad_n(bomb, n, -EINVAL, NULL);
	assert_non_null(strstr(err, "nesting too deep"));
	/* Deep objects too, and far past the line limit: refused by size first. */
	n = 0;
	for (int i = 0; i < 30; i++)
		n += (size_t)sprintf(bomb + n, "{\"a\":");
	req_bad_n(bomb, n, -EINVAL, NULL);
	assert_non_null(strstr(err, "nesting too deep"));
	memset(bomb, '[', D);
	req_bad_n(bomb, D, -EINVAL, "message too long (100000 bytes, at most 65536)");
	free(bomb);
}

/* ---- typed getters */

static void test_get_string(void **state)
{
	struct json_object *o = req_ok("{\"v\":1,\"op\":\"x\",\"name\":\"abc\",\"n\":5,\"z\":null,"
				       "\"nul\":\"a\\u0000b\",\"empty\":\"\"}");
	const char *s = "untouched";

	(void)state;
	assert_int_equal(proto_get_string(o, "name", 3, &s, err, sizeof(err)), 0);
	assert_string_equal(s, "abc");
	assert_int_equal(proto_get_string(o, "empty", 0, &s, err, sizeof(err)), 0);
	assert_string_equal(s, "");
	s = "untouched";
	assert_int_equal(proto_get_string(o, "name", 2, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"name\" is too long (3 bytes, at most 2)");
	assert_int_equal(proto_get_string(o, "absent", 10, &s, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "missing \"absent\"");
	assert_int_equal(proto_get_string(o, "z", 10, &s, err, sizeof(err)), -ENOENT);
	assert_int_equal(proto_get_string(o, "n", 10, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"n\" must be a string");
	assert_int_equal(proto_get_string(o, "nul", 10, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"nul\" contains a NUL byte");
	assert_string_equal(s, "untouched");
	assert_int_equal(proto_get_string(NULL, "name", 10, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_get_string(o, "name", 10, NULL, err, sizeof(err)), -EINVAL);
	/* Not an object. */
	{
		struct json_object *a = json_object_new_array();
		assert_int_equal(proto_get_string(a, "name", 10, &s, NULL, 0), -EINVAL);
		json_object_put(a);
	}
	json_object_put(o);
}

/* A user's text is taken whatever it holds: escaped, cut to fit, never a refusal */
static void test_copy_text(void **state)
{
	struct json_object *o = json_object_new_object();
	char big[10240], dst[64] = "old", small[6] = "old";

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	json_object_object_add(o, "q", json_object_new_string("x\"y\n\x1b[31m\xff\xc3\xa9"));
	json_object_object_add(o, "big", json_object_new_string(big));
	json_object_object_add(o, "n", json_object_new_int(3));
	json_object_object_add(o, "nul", json_object_new_string_len("a\0b", 3));
	assert_int_equal(proto_copy_text(o, "q", dst, sizeof(dst), err, sizeof(err)), 0);
	assert_string_equal(dst, "x\"y\\x0a\\x1b[31m\\xff\xc3\xa9");
	assert_int_equal(proto_copy_text(o, "big", dst, sizeof(dst), err, sizeof(err)), 0);
	assert_int_equal(strlen(dst), sizeof(dst) - 1);
	/* an escape is never cut in half */
	assert_int_equal(proto_copy_text(o, "q", small, sizeof(small), err, sizeof(err)), 0);
	assert_string_equal(small, "x\"y");
	strcpy(small, "old");
	assert_int_equal(proto_copy_text(o, "absent", small, sizeof(small), err, sizeof(err)), 0);
	assert_string_equal(small, "old");
	assert_int_equal(proto_copy_text(o, "n", small, sizeof(small), err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_copy_text(o, "nul", small, sizeof(small), err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(small, "old");
	json_object_put(o);
}

static void test_get_int64(void **state)
{
	struct json_object *o =
		req_ok("{\"v\":1,\"op\":\"x\",\"pid\":1234,\"neg\":-5,\"d\":1.5,\"d1\":2.0,"
		       "\"s\":\"12\",\"b\":true,\"max\":9223372036854775807,"
		       "\"over\":9223372036854775808,\"min\":-9223372036854775808,"
		       "\"arr\":[1]}");
	int64_t x = 42;

	(void)state;
	assert_int_equal(proto_get_int64(o, "pid", 1, 4194304, &x, err, sizeof(err)), 0);
	assert_int_equal(x, 1234);
	assert_int_equal(proto_get_int64(o, "pid", 1234, 1234, &x, err, sizeof(err)), 0);
	assert_int_equal(proto_get_int64(o, "neg", -5, 0, &x, err, sizeof(err)), 0);
	assert_int_equal(x, -5);
	assert_int_equal(proto_get_int64(o, "max", INT64_MIN, INT64_MAX, &x, err, sizeof(err)), 0);
	assert_true(x == INT64_MAX);
	assert_int_equal(proto_get_int64(o, "min", INT64_MIN, INT64_MAX, &x, err, sizeof(err)), 0);
	assert_true(x == INT64_MIN);
	x = 42;
	assert_int_equal(proto_get_int64(o, "pid", 1235, 2000, &x, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"pid\" out of range (1235..2000)");
	assert_int_equal(proto_get_int64(o, "pid", 0, 1233, &x, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_get_int64(o, "neg", 0, 10, &x, err, sizeof(err)), -EINVAL);
	/* json-c would saturate this to INT64_MAX: still out of range. */
	assert_int_equal(proto_get_int64(o, "over", INT64_MIN, INT64_MAX, &x, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(proto_get_int64(o, "d", 0, 10, &x, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"d\" must be an integer");
	assert_int_equal(proto_get_int64(o, "d1", 0, 10, &x, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_get_int64(o, "s", 0, 100, &x, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_get_int64(o, "b", 0, 100, &x, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_get_int64(o, "arr", 0, 100, &x, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_get_int64(o, "absent", 0, 100, &x, err, sizeof(err)), -ENOENT);
	assert_int_equal(x, 42);
	assert_int_equal(proto_get_int64(o, "pid", 0, 100, NULL, err, sizeof(err)), -EINVAL);
	json_object_put(o);
}

/* ---- replies and serialisation */

static void test_replies(void **state)
{
	struct json_object *o;
	char *s;
	size_t n = 0;

	(void)state;
	o = proto_reply_ok();
	s = proto_serialize(o, &n);
	assert_string_equal(s, "{\"v\":1,\"ok\":true}\n");
	assert_int_equal(n, strlen(s));
	free(s);
	json_object_put(o);

	o = proto_reply_error(PROTO_E_NOT_FOUND, "no such job %d (%s)", 42, "x/y");
	s = proto_serialize(o, &n);
	assert_string_equal(s, "{\"v\":1,\"ok\":false,\"error\":\"no such job 42 "
			       "(x/y)\",\"code\":\"not_found\"}\n");
	free(s);
	json_object_put(o);
	assert_null(proto_serialize(NULL, &n));
}

/* Every code has its name and comes back from a reply; a reply without one, or with one this
 * client does not know, is a plain failure. */
static void test_reply_codes(void **state)
{
	struct json_object *o;
	int i;

	(void)state;
	for (i = 0; i < PROTO_CODE_COUNT; i++) {
		o = proto_reply_error(i, "text %d", i);
		assert_non_null(o);
		assert_string_equal(gets_(o, "code"), proto_code_name(i));
		assert_int_equal(proto_reply_code(o), i);
		json_object_put(o);
	}
	o = json_tokener_parse("{\"v\":1,\"ok\":false,\"error\":\"too many clients: x\"}");
	assert_int_equal(proto_reply_code(o), PROTO_E_FAILED);
	json_object_object_add(o, "code", json_object_new_string("from_the_future"));
	assert_int_equal(proto_reply_code(o), PROTO_E_FAILED);
	json_object_put(o);
}

/* The table's requests: each name found again, each envelope the same shape. */
static void test_ops_table(void **state)
{
	struct json_object *o;
	char want[64], *s;
	size_t n;
	int i;

	(void)state;
	for (i = 0; i < OP_COUNT; i++) {
		assert_int_equal(proto_op_find(proto_op_name(i)), i);
		assert_true(proto_ops[i].who == OP_ANYONE || proto_ops[i].who == OP_ADMIN ||
			    proto_ops[i].who == OP_ROOT);
		/* only queries go over TCP, and only anyone's */
		assert_true(!proto_ops[i].tcp || proto_ops[i].who == OP_ANYONE);
		o = proto_request(i);
		s = proto_serialize(o, &n);
		snprintf(want, sizeof(want), "{\"v\":1,\"op\":\"%s\"}\n", proto_op_name(i));
		assert_string_equal(s, want);
		free(s);
		json_object_put(o);
	}
	assert_int_equal(proto_op_find(PROTO_OP_MUNGE), -1); /* the envelope is no operation */
	assert_int_equal(proto_op_find("nope"), -1);
	assert_int_equal(proto_op_find(NULL), -1);
}

static void test_serialize_roundtrip(void **state)
{
	struct json_object *o, *back, *v;
	struct line_reader r;
	char *s, *line;
	size_t n, len;

	(void)state;
	/* Strings with newlines and control bytes stay on one line and come back equal. */
	o = proto_reply_error(PROTO_E_FAILED, "multi\nline\r\twith \x01 and \"quotes\" and \\");
	json_object_object_add(o, "op", json_object_new_string("echo"));
	s = proto_serialize(o, &n);
	assert_non_null(s);
	assert_ptr_equal(memchr(s, '\n', n), s + n - 1);
	line_reader_init(&r);
	assert_int_equal(line_reader_feed(&r, s, n), 0);
	assert_int_equal(line_reader_next(&r, &line, &len), 1);
	assert_int_equal(proto_parse_request(line, len, &back, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(back, "error", &v));
	assert_string_equal(json_object_get_string(v),
			    "multi\nline\r\twith \x01 and \"quotes\" and \\");
	json_object_put(back);
	free(line);
	free(s);
	line_reader_free(&r);
	json_object_put(o);
}

/* ---- client side: proto_connect and proto_call against a peer thread */

enum peer_mode {
	PEER_ECHO,   /* answer {"v":1,"ok":true,"op":<op>} */
	PEER_SCRIPT, /* send the scripted chunks, with pauses */
	PEER_CLOSE,  /* read the request, close */
	PEER_SILENT, /* read the request, never answer; exit when the client closes */
};

struct peer {
	int fd;
	enum peer_mode mode;
	const char *chunks[4]; /* PEER_SCRIPT: sent in order, pause_ms apart */
	size_t chunk_len[4];   /* 0 = strlen */
	int pause_ms;
	int requests;	/* how many requests to serve */
	char got[1024]; /* last request line received */
	pthread_t thread;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read one request line; 0 on EOF. */
static int peer_read_line(struct peer *p)
{
	size_t n = 0;

	while (n < sizeof(p->got) - 1) {
		ssize_t r = read(p->fd, p->got + n, 1);
		if (r <= 0)
			return 0;
		if (p->got[n] == '\n') {
			p->got[n] = '\0';
			return 1;
		}
		n++;
	}
	return 1;
}

static void peer_write(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void *peer_main(void *arg)
{
	struct peer *p = arg;
	char tmp[64];

	for (int i = 0; i < (p->requests ? p->requests : 1); i++) {
		if (!peer_read_line(p))
			break;
		switch (p->mode) {
		case PEER_ECHO: {
			char out[1200];
			struct json_object *req = json_tokener_parse(p->got), *op = NULL;
			json_object_object_get_ex(req, "op", &op);
			snprintf(out, sizeof(out), "{\"v\":1,\"ok\":true,\"op\":\"%s\"}\n",
				 op ? json_object_get_string(op) : "?");
			json_object_put(req);
			peer_write(p->fd, out, strlen(out));
			break;
		}
		case PEER_SCRIPT:
			for (int c = 0; c < 4 && p->chunks[c]; c++) {
				if (c && p->pause_ms)
					sleep_ms(p->pause_ms);
				peer_write(p->fd, p->chunks[c],
					   p->chunk_len[c] ? p->chunk_len[c]
							   : strlen(p->chunks[c]));
			}
			break;
		case PEER_CLOSE:
			shutdown(p->fd, SHUT_RDWR);
			return NULL;
		case PEER_SILENT:
			while (read(p->fd, tmp, sizeof(tmp)) > 0)
				;
			return NULL;
		}
	}
	/* Done: the client sees EOF after whatever is still queued. */
	shutdown(p->fd, SHUT_WR);
	return NULL;
}

/* A socketpair: *client for the test, the other end served by the peer thread. */
static void peer_start(struct peer *p, int *client)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	*client = sv[0];
	p->fd = sv[1];
	assert_int_equal(pthread_create(&p->thread, NULL, peer_main, p), 0);
}

static void peer_finish(struct peer *p, int client)
{
	close(client);
	pthread_join(p->thread, NULL);
	close(p->fd);
}

static struct json_object *make_req(const char *op)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "op", json_object_new_string(op));
	return o;
}

/* Run one proto_call against a scripted peer; returns its result, *reply set on success. */
static int call_script(struct peer *p, int timeout_ms, struct json_object **reply)
{
	struct json_object *req = make_req("status");
	int fd, ret;

	peer_start(p, &fd);
	err[0] = '\0';
	ret = proto_call(fd, req, timeout_ms, reply, err, sizeof(err));
	peer_finish(p, fd);
	json_object_put(req);
	return ret;
}

static void test_call_echo(void **state)
{
	struct peer p = { .mode = PEER_ECHO, .requests = 3 };
	struct json_object *req, *reply = NULL, *v;
	int fd;

	(void)state;
	peer_start(&p, &fd);
	/* Several calls on one connection. */
	for (int i = 0; i < 3; i++) {
		req = make_req(i == 1 ? "list_jobs" : "status");
		assert_int_equal(proto_call(fd, req, 2000, &reply, err, sizeof(err)), 0);
		assert_true(json_object_object_get_ex(reply, "op", &v));
		assert_string_equal(json_object_get_string(v), i == 1 ? "list_jobs" : "status");
		json_object_put(reply);
		json_object_put(req);
	}
	assert_string_equal(p.got, "{\"v\":1,\"op\":\"status\"}");
	peer_finish(&p, fd);
}

static void test_call_reply_in_pieces(void **state)
{
	struct peer p = { .mode = PEER_SCRIPT,
			  .pause_ms = 30,
			  .chunks = { "{\"v\":1,", "\"ok\":tr", "ue,\"n\":[1,2]}\r", "\n" } };
	struct json_object *reply = NULL, *v;

	(void)state;
	/* Waiting forever is fine when the peer does answer. */
	assert_int_equal(call_script(&p, -1, &reply), 0);
	assert_true(json_object_object_get_ex(reply, "ok", &v));
	assert_true(json_object_get_boolean(v));
	json_object_put(reply);
}

static void test_call_two_replies_one_write(void **state)
{
	struct peer p = { .mode = PEER_SCRIPT,
			  .chunks = { "{\"v\":1,\"seq\":1}\n{\"v\":1,\"seq\":2}\n" } };
	struct json_object *req = make_req("status"), *reply = NULL, *v;
	int fd;

	(void)state;
	/* The second reply must still be there for the next call: nothing read past '\n'. */
	peer_start(&p, &fd);
	assert_int_equal(proto_call(fd, req, 2000, &reply, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(reply, "seq", &v));
	assert_int_equal(json_object_get_int(v), 1);
	json_object_put(reply);
	pthread_join(p.thread, NULL); /* peer served its one request; the second reply is queued */
	assert_int_equal(proto_call(fd, req, 2000, &reply, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(reply, "seq", &v));
	assert_int_equal(json_object_get_int(v), 2);
	json_object_put(reply);
	close(fd);
	close(p.fd);
	json_object_put(req);
}

static void expect_call_fails(const char *chunk, size_t len, int want, const char *want_err)
{
	struct peer p = { .mode = PEER_SCRIPT, .chunks = { chunk }, .chunk_len = { len } };
	struct json_object *reply = (struct json_object *)0x1;

	assert_int_equal(call_script(&p, 2000, &reply), want);
	assert_ptr_equal(reply, (struct json_object *)0x1);
	if (want_err)
		assert_string_equal(err, want_err);
}

static void test_call_bad_replies(void **state)
{
	static const char nul_reply[] = "{\"v\":1,\0\"ok\":true}\n";

	(void)state;
	expect_call_fails("garbage\n", 0, -EPROTO, NULL);
	expect_call_fails("{\"v\":1,\"ok\":true} trailing\n", 0, -EPROTO, NULL);
	expect_call_fails("[1,2]\n", 0, -EPROTO, "message is not a JSON object");
	expect_call_fails("{\"ok\":true}\n", 0, -EPROTO, "missing protocol version \"v\"");
	expect_call_fails("{\"v\":2,\"ok\":true}\n", 0, -EPROTO, "unsupported protocol version 2");
	expect_call_fails("\n", 0, -EPROTO, "empty message");
	expect_call_fails(nul_reply, sizeof(nul_reply) - 1, -EPROTO, "NUL byte in message");
	/* Partial reply then close: the peer went away. */
	expect_call_fails("{\"v\":1,", 0, -ECONNRESET, "connection closed before a reply");
}

static void test_call_big_reply(void **state)
{
	/* Replies may be longer than a request line (reports of big jobs): 300 KB is fine. */
	enum { N = 300 * 1024 };
	char *big = filled(N + 32, 'r');
	struct peer p = { .mode = PEER_SCRIPT, .chunks = { big } };
	struct json_object *reply = NULL, *v;
	static const char head[] = "{\"v\":1,\"blob\":\"";

	(void)state;
	memcpy(big, head, sizeof(head) - 1);
	memcpy(big + N, "\"}\n", 4);
	assert_int_equal(call_script(&p, 5000, &reply), 0);
	assert_true(json_object_object_get_ex(reply, "blob", &v));
	assert_int_equal(json_object_get_string_len(v), N - (sizeof(head) - 1));
	json_object_put(reply);
	free(big);
}

static void test_call_max_reply(void **state)
{
	/* root's clients cap replies far lower: past the cap the exchange fails, memory bounded */
	enum { N = 300 * 1024 };
	char *big = filled(N + 32, 'r');
	struct peer p = { .mode = PEER_SCRIPT, .chunks = { big } };
	struct json_object *req = make_req("status"), *reply = NULL;
	int fd;

	(void)state;
	memcpy(big, "{\"v\":1,\"blob\":\"", 15);
	memcpy(big + N, "\"}\n", 4);
	peer_start(&p, &fd);
	assert_int_equal(proto_call_max(fd, req, 5000, 64 * 1024, &reply, err, sizeof(err)),
			 -EPROTO);
	assert_null(reply);
	assert_string_equal(err, "reply longer than 65536 bytes");
	peer_finish(&p, fd);
	json_object_put(req);
	free(big);
}

/* A register request with argv added by proto_add_argv: its serialised length, and the array. */
static size_t argv_req(char **argv, int argc, struct json_object **out, int *cut)
{
	struct json_object *req = make_req("register"), *v, *parsed = NULL;
	size_t n;
	char *line;

	json_object_object_add(req, "pid", json_object_new_int(42));
	assert_int_equal(proto_add_argv(req, argv, argc), 0);
	line = proto_serialize(req, &n);
	assert_non_null(line);
	/* what tracerd accepts: one line of at most TRACER_MSG_MAX bytes */
	assert_int_equal(proto_parse_request(line, n - 1, &parsed, err, sizeof(err)), 0);
	json_object_put(parsed);
	free(line);
	*cut = json_object_object_get_ex(req, "argv_cut", &v) && json_object_get_boolean(v);
	*out = req;
	return n - 1;
}

static void test_add_argv(void **state)
{
	char *small[] = { "/bin/echo", "a/b", "x\"y" }, *big[100], *ctl[1], *utf[1];
	struct json_object *req, *arr;
	const char *s;
	size_t n, i;
	int cut;

	(void)state;
	argv_req(small, 3, &req, &cut);
	assert_false(cut);
	assert_true(json_object_object_get_ex(req, "argv", &arr));
	assert_int_equal(json_object_array_length(arr), 3);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(arr, 2)), "x\"y");
	json_object_put(req);

	/* 200 kB of arguments: as many as fit, the last one cut, and said so */
	for (i = 0; i < 100; i++)
		big[i] = filled(2000, 'a' + i % 26);
	n = argv_req(big, 100, &req, &cut);
	assert_true(cut);
	assert_true(n <= TRACER_MSG_MAX && n > TRACER_MSG_MAX - 64);
	assert_true(json_object_object_get_ex(req, "argv", &arr));
	assert_true(json_object_array_length(arr) > 30 && json_object_array_length(arr) < 34);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(arr, 0)), big[0]);
	json_object_put(req);
	for (i = 0; i < 100; i++)
		free(big[i]);

	/* control characters take six bytes each once escaped */
	ctl[0] = filled(30000, '\x01');
	n = argv_req(ctl, 1, &req, &cut);
	assert_true(cut && n <= TRACER_MSG_MAX);
	json_object_put(req);
	free(ctl[0]);

	/* never half a UTF-8 character */
	utf[0] = malloc(80001);
	for (i = 0; i < 80000; i += 2)
		memcpy(utf[0] + i, "\xc3\xa9", 2);
	utf[0][80000] = 0;
	argv_req(utf, 1, &req, &cut);
	assert_true(cut);
	assert_true(json_object_object_get_ex(req, "argv", &arr));
	s = json_object_get_string(json_object_array_get_idx(arr, 0));
	assert_int_equal(strlen(s) % 2, 0);
	assert_int_equal((unsigned char)s[strlen(s) - 1], 0xa9);
	json_object_put(req);
	free(utf[0]);

	/* a request too long without argv is left alone */
	req = make_req("register");
	big[0] = filled(TRACER_MSG_MAX, 'c');
	json_object_object_add(req, "cwd", json_object_new_string(big[0]));
	assert_int_equal(proto_add_argv(req, small, 3), -EMSGSIZE);
	assert_false(json_object_object_get_ex(req, "argv", &arr));
	json_object_put(req);
	free(big[0]);
}

static void test_lr_custom_max(void **state)
{
	struct line_reader r;

	(void)state;
	/* The limit can be set per reader (clients accept long replies); 0 = TRACER_MSG_MAX. */
	line_reader_init(&r);
	r.max = 8;
	assert_int_equal(line_reader_feed(&r, "12345678\n1234567", 16), 0);
	expect_line(&r, "12345678");
	assert_int_equal(line_reader_feed(&r, "8\r", 2), 0);
	assert_int_equal(line_reader_feed(&r, "\n", 1), 0);
	expect_line(&r, "12345678");
	assert_int_equal(line_reader_feed(&r, "123456789", 9), -EMSGSIZE);
	line_reader_free(&r);
	assert_int_equal(r.max, 0);
}

static void test_call_peer_closes(void **state)
{
	struct peer p = { .mode = PEER_CLOSE };
	struct json_object *reply = NULL;

	(void)state;
	assert_int_equal(call_script(&p, 2000, &reply), -ECONNRESET);
	assert_null(reply);
}

static void test_call_peer_gone_before_send(void **state)
{
	struct json_object *req = make_req("status"), *reply = NULL;
	int sv[2];

	(void)state;
	/* Writing to a closed peer must give an error, not SIGPIPE. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	assert_int_equal(proto_call(sv[0], req, 1000, &reply, err, sizeof(err)), -ECONNRESET);
	assert_string_equal(err, "connection closed while sending request");
	close(sv[0]);
	json_object_put(req);
}

static void test_call_refused_before_send(void **state)
{
	static const char refusal[] =
		"{\"v\":1,\"ok\":false,\"error\":\"too many clients: 8 of this user's\"}\n";
	struct json_object *req = make_req("status"), *reply = NULL, *ok, *msg;
	int sv[2];

	(void)state;
	/* A daemon at its client limit answers and closes before it reads the request: the
	 * send then fails, but the refusal is there to read, and says to try again. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], refusal, sizeof(refusal) - 1), (ssize_t)sizeof(refusal) - 1);
	close(sv[1]);
	assert_int_equal(proto_call(sv[0], req, 1000, &reply, err, sizeof(err)), 0);
	assert_non_null(reply);
	assert_true(json_object_object_get_ex(reply, "ok", &ok) && !json_object_get_boolean(ok));
	assert_true(json_object_object_get_ex(reply, "error", &msg));
	assert_string_equal(json_object_get_string(msg), "too many clients: 8 of this user's");
	json_object_put(reply);
	close(sv[0]);
	json_object_put(req);
}

static void test_call_timeout(void **state)
{
	struct peer p = { .mode = PEER_SILENT };
	struct json_object *reply = NULL;
	int64_t t0 = mono_ms(), dt;

	(void)state;
	assert_int_equal(call_script(&p, 200, &reply), -ETIMEDOUT);
	dt = mono_ms() - t0;
	assert_true(dt >= 190);
	assert_true(dt < 3000);
	assert_string_equal(err, "no reply within 200 ms");
	assert_null(reply);
}

static void test_call_timeout_trickle(void **state)
{
	/* A peer that keeps sending bytes but never a newline still hits the deadline. */
	struct peer p = { .mode = PEER_SCRIPT,
			  .pause_ms = 150,
			  .chunks = { "{", "\"v\"", ":1", "," } };
	struct json_object *reply = NULL;

	(void)state;
	assert_int_equal(call_script(&p, 250, &reply), -ETIMEDOUT);
}

static void test_call_bad_args(void **state)
{
	struct json_object *req = make_req("status"), *reply = NULL;

	(void)state;
	assert_int_equal(proto_call(-1, req, 100, &reply, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_call(0, NULL, 100, &reply, err, sizeof(err)), -EINVAL);
	assert_int_equal(proto_call(0, req, 100, NULL, err, sizeof(err)), -EINVAL);
	json_object_put(req);
}

/* ---- a real listening unix socket */

struct server {
	int lfd;
	char path[108];
	pthread_t thread;
};

static void *server_main(void *arg)
{
	struct server *s = arg;
	struct peer p = { .mode = PEER_ECHO };

	p.fd = accept(s->lfd, NULL, NULL);
	if (p.fd < 0)
		return NULL;
	peer_main(&p);
	close(p.fd);
	return NULL;
}

static void server_listen(struct server *s, int backlog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(s->path, sizeof(s->path), "/tmp/test_protocol.%d.sock", (int)getpid());
	unlink(s->path);
	strcpy(sa.sun_path, s->path);
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (backlog >= 0)
		assert_int_equal(listen(s->lfd, backlog), 0);
}

static void test_connect_and_call(void **state)
{
	struct server s;
	struct json_object *req = make_req("status"), *reply = NULL, *v;
	int timeouts[] = { -1, 1000 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		int fd, fl;

		server_listen(&s, 8);
		assert_int_equal(pthread_create(&s.thread, NULL, server_main, &s), 0);
		fd = proto_connect(s.path, timeouts[i]);
		assert_true(fd >= 0);
		/* Close-on-exec, and blocking again after a timed connect. */
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		fl = fcntl(fd, F_GETFL);
		assert_int_equal(fl & O_NONBLOCK, 0);
		assert_int_equal(proto_call(fd, req, 2000, &reply, err, sizeof(err)), 0);
		assert_true(json_object_object_get_ex(reply, "op", &v));
		assert_string_equal(json_object_get_string(v), "status");
		json_object_put(reply);
		close(fd);
		pthread_join(s.thread, NULL);
		close(s.lfd);
		unlink(s.path);
	}
	json_object_put(req);
}

/* Each connection to s answered with the next of replies (NULL-terminated). */
static const char *const *script_replies;

static void *script_server_main(void *arg)
{
	struct server *s = arg;

	for (int i = 0; script_replies[i]; i++) {
		struct peer p = { .mode = PEER_SCRIPT, .chunks = { script_replies[i] } };

		p.fd = accept(s->lfd, NULL, NULL);
		if (p.fd < 0)
			return NULL;
		peer_main(&p);
		close(p.fd);
	}
	return NULL;
}

/* tracerd's refusal reaches the caller escaped; a null or missing message is no message */
static void test_client_refusal(void **state)
{
	static const char *const replies[] = {
		"{\"v\":1,\"ok\":false,\"error\":null}\n",
		"{\"v\":1,\"ok\":false}\n",
		"{\"v\":1,\"ok\":false,\"error\":\"no \\u001b[2J unit\"}\n",
		/* the code says busy, not the text: no tries again */
		"{\"v\":1,\"ok\":false,\"error\":\"too many clients: 8\"}\n",
		NULL,
	};
	struct server s;
	struct json_object *req = make_req("status"), *reply = NULL;
	char why[256];

	(void)state;
	script_replies = replies;
	server_listen(&s, 8);
	assert_int_equal(pthread_create(&s.thread, NULL, script_server_main, &s), 0);
	assert_int_equal(client_request_why(NULL, s.path, req, 2000, &reply, why, sizeof(why)),
			 -EREMOTEIO);
	assert_string_equal(why, "tracerd refused the request");
	assert_int_equal(client_request_why(NULL, s.path, req, 2000, &reply, why, sizeof(why)),
			 -EREMOTEIO);
	assert_string_equal(why, "tracerd refused the request");
	assert_int_equal(client_request_why(NULL, s.path, req, 2000, &reply, why, sizeof(why)),
			 -EREMOTEIO);
	assert_string_equal(why, "no \\x1b[2J unit");
	assert_int_equal(client_request_why(NULL, s.path, req, 2000, &reply, why, sizeof(why)),
			 -EREMOTEIO);
	pthread_join(s.thread, NULL);
	close(s.lfd);
	unlink(s.path);
	json_object_put(req);
}

static void test_connect_errors(void **state)
{
	struct server s;
	char longpath[200];

	(void)state;
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(proto_connect(longpath, 100), -ENAMETOOLONG);
	assert_int_equal(proto_connect(longpath, -1), -ENAMETOOLONG);
	assert_int_equal(proto_connect("", 100), -EINVAL);
	assert_int_equal(proto_connect(NULL, 100), -EINVAL);
	assert_int_equal(proto_connect("/nonexistent/dir/tracerd.sock", 100), -ENOENT);
	assert_int_equal(proto_connect("/nonexistent/dir/tracerd.sock", -1), -ENOENT);
	/* A socket file nobody listens on (a daemon that died). */
	server_listen(&s, -1);
	assert_int_equal(proto_connect(s.path, 100), -ECONNREFUSED);
	assert_int_equal(proto_connect(s.path, -1), -ECONNREFUSED);
	close(s.lfd);
	unlink(s.path);
}

static void test_connect_backlog_full_times_out(void **state)
{
	struct server s;
	int fds[64], n = 0, fd;
	int64_t t0, dt;

	(void)state;
	/* A daemon that stopped accepting: fill its backlog, then a timed connect must give up
	 * after its timeout instead of blocking the caller. */
	server_listen(&s, 0);
	for (; n < 64; n++) {
		fds[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		strcpy(sa.sun_path, s.path);
		if (connect(fds[n], (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fds[n]);
			break;
		}
	}
	t0 = mono_ms();
	fd = proto_connect(s.path, 150);
	dt = mono_ms() - t0;
	if (fd >= 0) {
		close(fd); /* this kernel queued it anyway: nothing to check */
	} else {
		assert_int_equal(fd, -ETIMEDOUT);
		assert_true(dt >= 140 && dt < 3000);
	}
	while (n--)
		close(fds[n]);
	close(s.lfd);
	unlink(s.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_text),
		cmocka_unit_test(test_lr_single_and_empty),
		cmocka_unit_test(test_lr_split_lines),
		cmocka_unit_test(test_lr_crlf),
		cmocka_unit_test(test_lr_many_lines_one_feed),
		cmocka_unit_test(test_lr_nul_bytes_pass_through),
		cmocka_unit_test(test_lr_max_line),
		cmocka_unit_test(test_lr_overflow),
		cmocka_unit_test(test_lr_custom_max),
		cmocka_unit_test(test_lr_bad_args),
		cmocka_unit_test(test_req_valid),
		cmocka_unit_test(test_req_version),
		cmocka_unit_test(test_req_op),
		cmocka_unit_test(test_req_bad_json),
		cmocka_unit_test(test_req_nul_bytes),
		cmocka_unit_test(test_req_depth_bomb),
		cmocka_unit_test(test_get_string),
		cmocka_unit_test(test_get_int64),
		cmocka_unit_test(test_replies),
		cmocka_unit_test(test_serialize_roundtrip),
		cmocka_unit_test(test_call_echo),
		cmocka_unit_test(test_call_reply_in_pieces),
		cmocka_unit_test(test_call_two_replies_one_write),
		cmocka_unit_test(test_call_bad_replies),
		cmocka_unit_test(test_call_big_reply),
		cmocka_unit_test(test_call_max_reply),
		cmocka_unit_test(test_add_argv),
		cmocka_unit_test(test_call_peer_closes),
		cmocka_unit_test(test_call_peer_gone_before_send),
		cmocka_unit_test(test_call_refused_before_send),
		cmocka_unit_test(test_call_timeout),
		cmocka_unit_test(test_call_timeout_trickle),
		cmocka_unit_test(test_call_bad_args),
		cmocka_unit_test(test_connect_and_call),
		cmocka_unit_test(test_client_refusal),
		cmocka_unit_test(test_reply_codes),
		cmocka_unit_test(test_ops_table),
		cmocka_unit_test(test_connect_errors),
		cmocka_unit_test(test_connect_backlog_full_times_out),
	};

	/* SIGPIPE is left at its default on purpose: proto_call must never raise it. */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
