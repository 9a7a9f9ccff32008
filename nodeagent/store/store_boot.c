/* The boot's key in the rows of processes and stall starts. The boot id (36 characters) was in
 * each such row and in its key's index entry: a quarter of a short process's bytes in the store,
 * and the most of its key's comparisons. A boot first seen by this tracerd is given a short key
 * ("1", "2", ...) in the boots table, which keeps each key's boot id for what needs the id itself
 * (the export's span ids: STORE_BOOT_ID). A boot whose rows an earlier tracerd already wrote with
 * the id itself keeps the id as its key, so that its processes are found and replaced under the
 * same key after an upgrade. Units keep the boot id: a few rows, compared with this boot's. */
#include <errno.h>
#include <stdio.h>

#include "log.h"
#include "store_internal.h"

static int prepare_boot(struct store *s, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return store_fail(s, "boot key");
	sqlite3_bind_text(*st, 1, s->boot_id, -1, SQLITE_STATIC);
	return 0;
}

/* 1 with the key in s->boot_key, 0 when none is kept, or -EIO */
static int kept_key(struct store *s)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare_boot(s, "SELECT key FROM boots WHERE boot = ?1", &st))
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(s->boot_key, sizeof(s->boot_key), "%s",
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, "boot key");
	return rc == SQLITE_ROW;
}

/* Rows of this boot that an earlier tracerd wrote under the boot id itself: 1, 0 or -EIO */
static int rows_under_id(struct store *s)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare_boot(s,
			 "SELECT EXISTS(SELECT 1 FROM processes WHERE boot_id = ?1)"
			 " OR EXISTS(SELECT 1 FROM stall_starts WHERE boot_id = ?1)",
			 &st))
		return -EIO;
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	return rc < 0 ? store_fail(s, "boot key") : rc;
}

int store_boot_open(struct store *s)
{
	sqlite3_stmt *st;
	int err, under_id, rc;

	if (sqlite3_exec(s->db,
			 "CREATE TABLE IF NOT EXISTS boots(key TEXT PRIMARY KEY,"
			 " boot TEXT NOT NULL UNIQUE)",
			 NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, "boots");
	if ((err = kept_key(s)))
		return err < 0 ? err : 0;
	if ((under_id = rows_under_id(s)) < 0)
		return under_id;
	/* the id itself, or a new key: one more than the boots kept (never taken back) */
	if (prepare_boot(s,
			 "INSERT INTO boots(key, boot) SELECT CASE WHEN ?2 THEN ?1 ELSE"
			 " CAST((SELECT COUNT(*) + 1 FROM boots) AS TEXT) END, ?1 RETURNING key",
			 &st))
		return -EIO;
	sqlite3_bind_int(st, 2, under_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(s->boot_key, sizeof(s->boot_key), "%s",
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, "boot key");
	log_debug("store: this boot's key is %s", s->boot_key);
	return 0;
}
