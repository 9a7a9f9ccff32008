/* A stored row as JSON text (row_text.c) is what its object (store_row_to_json) serialises to,
 * byte for byte: every column type, every character json-c escapes, argv withheld from another
 * user as stream.c withholds it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "store.h"
#include "store_internal.h"

static sqlite3 *db;

static sqlite3_stmt *row_of(const char *sql)
{
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	return st;
}

/* the object's text, argv withheld as stream.c did it for a viewer other than the row's uid */
static void expect_same(sqlite3_stmt *st, uint32_t viewer, struct row_text *t)
{
	struct json_object *o = store_row_to_json(st), *uid;
	const char *want;

	if (viewer != ANY_UID && json_object_object_get_ex(o, "uid", &uid) &&
	    (uint32_t)json_object_get_int64(uid) != viewer) {
		json_object_object_add(o, "argv", NULL);
		json_object_object_add(o, "argv_hidden", json_object_new_boolean(1));
	}
	want = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_int_equal(store_row_text(st, viewer, t), 0);
	if (t->len != strlen(want) || memcmp(t->p, want, t->len))
		fail_msg("got  %.*s\nwant %s", (int)t->len, t->p, want);
	assert_memory_equal(t->p, want, t->len);
	json_object_put(o);
}

static void test_same_as_object(void **state)
{
	struct row_text t = { 0 };
	sqlite3_stmt *st;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	st = row_of("SELECT 1 AS pid, -9223372036854775808 AS lo, 9223372036854775807 AS hi,"
		    " 0 AS zero, 'q\"\\/' || char(8,9,10,12,13,1,31,127) || 'é' AS comm,"
		    " NULL AS gone, CAST(x'2f62696e2f78002d7900220a00' AS BLOB) AS argv,"
		    " 2.5 AS peak, 1e300 AS big, 7 AS uid, 'a' || char(0) || 'b' AS cut");
	expect_same(st, ANY_UID, &t);
	expect_same(st, 7, &t); /* the owner: shown */
	expect_same(st, 8, &t); /* another user: withheld, said so */
	sqlite3_finalize(st);
	store_row_text_free(&t); /* its columns were that statement's */

	/* argv NULL in the row, another user: null all the same, at the end */
	st = row_of("SELECT 5 AS pid, NULL AS argv, 7 AS uid");
	expect_same(st, 8, &t);
	sqlite3_finalize(st);
	store_row_text_free(&t); /* its columns were that statement's */
	/* no uid: nothing to withhold by */
	st = row_of("SELECT 5 AS pid, CAST(x'6100' AS BLOB) AS argv");
	expect_same(st, 8, &t);
	/* an empty argv, and a row with every column NULL */
	sqlite3_finalize(st);
	store_row_text_free(&t); /* its columns were that statement's */
	st = row_of("SELECT CAST(x'' AS BLOB) AS argv, NULL AS x");
	expect_same(st, ANY_UID, &t);
	sqlite3_finalize(st);
	store_row_text_free(&t); /* its columns were that statement's */
	st = row_of("SELECT NULL AS a, NULL AS b");
	expect_same(st, ANY_UID, &t);
	sqlite3_finalize(st);
	store_row_text_free(&t); /* its columns were that statement's */
	store_row_text_free(&t);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_object),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
