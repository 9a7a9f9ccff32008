/* Statements kept with the read-only connection that runs them again and again (the exporter's):
 * prepared once, found again by their text, finalized when the connection closes. A batch of a
 * few hundred rows no longer pays for parsing its queries each time. */
#ifndef TRACER_STORE_STMT_H
#define TRACER_STORE_STMT_H

#include <sqlite3.h>

/* db's statement of sql, reset and unbound, prepared once (persistent) and kept with db: the
 * caller resets it when done (stmt_done), never finalizes it. NULL on a prepare error (said
 * by sqlite3_errmsg). */
sqlite3_stmt *stmt_get(sqlite3 *db, const char *sql);
/* Done with st for now: reset, its bindings cleared. */
void stmt_done(sqlite3_stmt *st);
/* Close db with every statement kept with it. */
void stmt_close_db(sqlite3 *db);

#endif
