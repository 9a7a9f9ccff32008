/* What store.c (schema, writes) and store_query.c (reads) share; not for other modules. */
#ifndef TRACER_STORE_INTERNAL_H
#define TRACER_STORE_INTERNAL_H

#include <sqlite3.h>
#include "store.h"

struct store {
        sqlite3 *db;
        char boot_id[40];
        int in_txn;
        unsigned pending;
        sqlite3_stmt *put_unit, *add_process, *add_sample;
        char unit_columns[1024]; /* names of unit_cols, in order: what SELECTs of units list */
};

/* Log the database's error about what, and return -EIO. */
int store_fail(struct store *s, const char *what);
/* A prepared statement kept for the connection's life. */
int store_prepare(struct store *s, const char *sql, sqlite3_stmt **out);

#endif
