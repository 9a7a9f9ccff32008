/* The store's rows read after a cursor, in the order of the export sequence, into a batch of
 * OTLP items (items.c makes each row's span and log records, batch.c holds them). */
#include <errno.h>

#include "log.h"
#include "source_internal.h"
#include "stmt.h"
#include "store.h"

static int prepare(sqlite3 *db, const char *sql, int64_t cursor, size_t max, sqlite3_stmt **out)
{
	if (!(*out = stmt_get(db, sql))) {
		log_error("export: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(*out, 1, cursor);
	sqlite3_bind_int64(*out, 2, (int64_t)max);
	store_bind_flags(*out);
	return 0;
}

/* One step of a reader: 1 with a row (counted in *rows), 0 at its end, -EIO */
static int step(sqlite3 *db, sqlite3_stmt *st, int *done, size_t *rows)
{
	int rc;

	if (*done)
		return 0;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		(*rows)++;
		return 1;
	}
	*done = 1;
	if (rc == SQLITE_DONE)
		return 0;
	log_error("export: %s", sqlite3_errmsg(db));
	return -EIO;
}

/* The highest number the rows hold. "seq IS NOT NULL" lets SQLite take it from the last entry
 * of the partial indexes on seq; without it, each call read the whole table. */
static int highest(sqlite3 *db, int64_t *out)
{
	sqlite3_stmt *st =
		stmt_get(db, "SELECT MAX(COALESCE((SELECT MAX(seq) FROM processes WHERE seq IS NOT"
			     " NULL), 0), COALESCE((SELECT MAX(seq) FROM units WHERE seq IS NOT"
			     " NULL), 0), COALESCE((SELECT MAX(seq) FROM stall_starts WHERE seq IS"
			     " NOT NULL), 0))");
	int rc;

	if (!st) {
		log_error("export: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	stmt_done(st);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

/* The tables whose rows are read, each by its query and into its items */
static const struct reader_kind {
	const char *sql[EXPORT_SIGNALS];
	int (*items)(struct export_batch *b, sqlite3_stmt *st);
} kinds[] = {
	{ { items_process_sql, items_process_logs_sql }, items_process },
	{ { items_unit_sql, items_unit_sql }, items_unit },
	{ { items_stall_start_sql, items_stall_start_sql }, items_stall_start },
};
#define KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct reader {
	sqlite3_stmt *st;
	int done, has; /* has: 1 a row, 0 at its end, -EIO */
	size_t n;
};

/* The tables' rows merged in the order of their numbers, max rows at most: no two rows share
 * one. */
int export_source_read(sqlite3 *db, enum export_signal signal, int64_t cursor, size_t max,
		       struct export_batch *b, int64_t *next)
{
	struct reader r[KINDS] = {};
	int64_t last = cursor, top;
	size_t rows = 0, k, i;
	int err, whole = 1;

	if (max == 0 || signal >= EXPORT_SIGNALS)
		return -EINVAL;
	err = batch_reset(b, signal, max);
	b->db = db;
	for (k = 0; !err && k < KINDS; k++)
		err = prepare(db, kinds[k].sql[signal], cursor, max, &r[k].st);
	if (err)
		goto out;
	for (k = 0; k < KINDS; k++)
		r[k].has = step(db, r[k].st, &r[k].done, &r[k].n);
	while (rows < max) {
		for (k = KINDS, i = 0; i < KINDS; i++)
			if (r[i].has > 0 &&
			    (k == KINDS ||
			     sqlite3_column_int64(r[i].st, 0) < sqlite3_column_int64(r[k].st, 0)))
				k = i;
		if (k == KINDS)
			break;
		last = sqlite3_column_int64(r[k].st, 0);
		err = kinds[k].items(b, r[k].st);
		r[k].has = step(db, r[k].st, &r[k].done, &r[k].n);
		if (err)
			goto out;
		rows++;
		b->rows = rows;
	}
	for (k = 0; k < KINDS; k++) {
		if (r[k].has < 0) {
			err = -EIO;
			goto out;
		}
		whole &= r[k].has == 0 && r[k].n < max;
	}
	/* every table taken whole, each ending short of its LIMIT: nothing else is above what
	 * they held (a reader that stopped at its LIMIT may have more) */
	if (whole && !(err = highest(db, &top)) && top > last)
		last = top;
	*next = last;
out:
	for (k = 0; k < KINDS; k++)
		stmt_done(r[k].st);
	return err;
}

int export_source_oldest(sqlite3 *db, enum export_signal signal, int64_t cursor, int64_t *seq,
			 uint64_t *written_unix_ns)
{
	sqlite3_stmt *st =
		stmt_get(db, "SELECT seq, end_ns FROM (SELECT seq, end_ns FROM processes WHERE"
			     " seq > ?1 ORDER BY seq LIMIT 1) UNION ALL SELECT seq, end_ns FROM"
			     " (SELECT seq, end_ns FROM units WHERE seq > ?1 ORDER BY seq LIMIT 1)"
			     " UNION ALL SELECT seq, since_ns FROM (SELECT seq, since_ns FROM"
			     " stall_starts WHERE seq > ?1 ORDER BY seq LIMIT 1)"
			     " ORDER BY seq LIMIT 1");
	int rc;

	(void)signal; /* every signal reads the same rows */
	if (!st) {
		log_error("export: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, cursor);
	rc = sqlite3_step(st);
	*seq = 0;
	*written_unix_ns = 0;
	if (rc == SQLITE_ROW) {
		*seq = sqlite3_column_int64(st, 0);
		*written_unix_ns = (uint64_t)sqlite3_column_int64(st, 1);
	}
	stmt_done(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}
