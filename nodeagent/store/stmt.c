/* Statements kept with their connection (stmt.h). SQLite lists a connection's statements with
 * their text (sqlite3_next_stmt, sqlite3_sql): the connection itself is the cache, and there
 * is nothing of ours to keep in step with it. A handful of statements per connection. */
#include <string.h>

#include "stmt.h"

sqlite3_stmt *stmt_get(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	while ((st = sqlite3_next_stmt(db, st))) {
		const char *t = sqlite3_sql(st);

		/* one in use (a caller's, not reset) is not handed out twice */
		if (t && !sqlite3_stmt_busy(st) && !strcmp(t, sql)) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			return st;
		}
	}
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

void stmt_done(sqlite3_stmt *st)
{
	if (!st)
		return;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

void stmt_close_db(sqlite3 *db)
{
	sqlite3_stmt *st;

	if (!db)
		return;
	while ((st = sqlite3_next_stmt(db, NULL)))
		sqlite3_finalize(st);
	sqlite3_close(db);
}
