/* The store's rows read after a cursor, in the order of the export sequence, into a batch of
 * OTLP items (items.c makes each row's span and log records, batch.c holds them). */
#include <errno.h>

#include "log.h"
#include "source_internal.h"

static int prepare(sqlite3 *db, const char *sql, int64_t cursor, size_t max, sqlite3_stmt **out)
{
	if (sqlite3_prepare_v2(db, sql, -1, out, NULL) != SQLITE_OK) {
		log_error("export: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(*out, 1, cursor);
	sqlite3_bind_int64(*out, 2, (int64_t)max);
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
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT MAX(COALESCE((SELECT MAX(seq) FROM processes WHERE seq IS NOT"
		    " NULL), 0), COALESCE((SELECT MAX(seq) FROM units WHERE seq IS NOT"
		    " NULL), 0))",
		    -1, &st, NULL) != SQLITE_OK) {
		log_error("export: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

/* The two tables' rows merged in the order of their numbers, max rows at most: a process
 * row and a unit row never share one. */
int export_source_read(sqlite3 *db, enum export_signal signal, int64_t cursor, size_t max,
		       struct export_batch *b, int64_t *next)
{
	sqlite3_stmt *ps = NULL, *us = NULL;
	int pdone = 0, udone = 0, hp, hu, err;
	int64_t last = cursor, top;
	size_t rows = 0, np = 0, nu = 0;

	if (max == 0 || signal >= EXPORT_SIGNALS)
		return -EINVAL;
	err = batch_reset(b, signal, max);
	b->db = db;
	if (!err)
		err = prepare(db, items_process_sql, cursor, max, &ps);
	if (!err)
		err = prepare(db, items_unit_sql, cursor, max, &us);
	if (err)
		goto out;
	hp = step(db, ps, &pdone, &np);
	hu = step(db, us, &udone, &nu);
	while (rows < max && (hp > 0 || hu > 0)) {
		int take_p = hp > 0 &&
			     (hu <= 0 || sqlite3_column_int64(ps, 0) < sqlite3_column_int64(us, 0));

		if (take_p) {
			last = sqlite3_column_int64(ps, 0);
			err = items_process(b, ps);
			hp = step(db, ps, &pdone, &np);
		} else {
			last = sqlite3_column_int64(us, 0);
			err = items_unit(b, us);
			hu = step(db, us, &udone, &nu);
		}
		if (err)
			goto out;
		rows++;
		b->rows = rows;
	}
	if (hp < 0 || hu < 0) {
		err = -EIO;
		goto out;
	}
	/* both taken whole, and each ended short of its LIMIT: nothing else is above what they
	 * held (a reader that stopped at its LIMIT may have more) */
	if (hp == 0 && hu == 0 && np < max && nu < max && !(err = highest(db, &top)) && top > last)
		last = top;
	*next = last;
out:
	sqlite3_finalize(ps);
	sqlite3_finalize(us);
	return err;
}

int export_source_oldest(sqlite3 *db, enum export_signal signal, int64_t cursor, int64_t *seq,
			 uint64_t *written_unix_ns)
{
	sqlite3_stmt *st;
	int rc;

	(void)signal; /* every signal reads the same rows */
	if (sqlite3_prepare_v2(
		    db,
		    "SELECT seq, end_ns FROM (SELECT seq, end_ns FROM processes WHERE"
		    " seq > ?1 ORDER BY seq LIMIT 1) UNION ALL SELECT seq, end_ns FROM"
		    " (SELECT seq, end_ns FROM units WHERE seq > ?1 ORDER BY seq LIMIT 1)"
		    " ORDER BY seq LIMIT 1",
		    -1, &st, NULL) != SQLITE_OK) {
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
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}
