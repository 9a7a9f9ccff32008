/* What store.c (schema, writes) and store_query.c (reads) share; not for other modules. */
#ifndef TRACER_STORE_INTERNAL_H
#define TRACER_STORE_INTERNAL_H

#include <sqlite3.h>
#include "store.h"

#define STORE_BATCH_UNITS 64 /* units whose processes an open batch tracks for loss counts */

struct store {
        sqlite3 *db;
        char boot_id[40];
        int in_txn;
        unsigned pending;
        int failing;            /* writes fail (disk full, I/O error): said once, until they work */
        struct {
                uint64_t unit;
                uint32_t n;
        } batch[STORE_BATCH_UNITS]; /* processes of the open batch, per unit */
        unsigned nbatch;
        uint32_t batch_rest;    /* processes of units beyond the tracked ones */
        store_loss_fn on_loss;
        void *loss_ctx;
        sqlite3_stmt *put_unit, *add_process, *add_sample;
        char unit_columns[1024]; /* names of unit_cols, in order: what SELECTs of units list */
};

/* Log the database's error about what, and return -EIO. */
int store_fail(struct store *s, const char *what);
/* A write failed (disk full, I/O error): said once until writes work again; a batch SQLite
 * rolled back is counted lost. -ENOSPC or -EIO. */
int store_write_failed(struct store *s, const char *what);
/* A prepared statement kept for the connection's life. */
int store_prepare(struct store *s, const char *sql, sqlite3_stmt **out);

/* One row as a JSON object, column names as keys; argv (NUL-separated) as an array. */
struct json_object *store_row_to_json(sqlite3_stmt *st);
/* The statements behind the listings, prepared on db: the store's own connection or a
 * read-only one of stream.c. The caller finalizes *out. */
int store_query_units(struct store *s, sqlite3 *db, const char *selector, uint32_t uid,
                      sqlite3_stmt **out);
int store_query_processes(struct store *s, sqlite3 *db, uint64_t unit, sqlite3_stmt **out);
int store_query_tools(struct store *s, sqlite3 *db, uint64_t unit, sqlite3_stmt **out);
/* store_unit_totals() on db. */
int store_query_totals(struct store *s, sqlite3 *db, uint64_t unit, struct json_object **out);
/* A read-only connection of its own to the store's file, with a small page cache. */
int store_reader_open(struct store *s, sqlite3 **out);

#endif
