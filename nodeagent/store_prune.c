/* Bounded store: finished units older than StoreRetention, or while the live data exceeds
 * StoreMaxSize the oldest ones of the user who holds the most, are deleted with their processes
 * and samples, a small batch at a time so that the loop is never held long. A running unit is
 * never pruned. Also the daemon's heartbeat, from which a restart learns how long tracerd was
 * away. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "log.h"
#include "store_internal.h"

#define PRUNE_STEP 16	/* units of one user deleted before the heaviest user is chosen again */
#define SHARE_USERS 256 /* users whose share of the store is kept for status, the most first */

static int exec_sql(struct store *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_write_failed(s, "prune");
	return 0;
}

/* Bytes of the store's pages in use: what prunes keep under StoreMaxSize (freed pages are
 * reused, so the file stops growing there). */
int store_used_bytes(struct store *s, uint64_t *out)
{
	sqlite3_stmt *st;
	int64_t v[3];
	int i, err = 0;
	static const char *const sql[] = { "PRAGMA page_count", "PRAGMA freelist_count",
					   "PRAGMA page_size" };

	for (i = 0; i < 3 && !err; i++) {
		if (store_prepare(s, sql[i], &st))
			return -EIO;
		if (sqlite3_step(st) == SQLITE_ROW)
			v[i] = sqlite3_column_int64(st, 0);
		else
			err = store_fail(s, sql[i]);
		sqlite3_finalize(st);
	}
	if (!err)
		*out = (uint64_t)(v[0] - v[1]) * (uint64_t)v[2];
	return err;
}

/* Delete the units that st (an INSERT INTO temp.prune, bound) selects, and everything recorded
 * of them; *n: how many. */
static int prune_selected(struct store *s, sqlite3_stmt *st, unsigned *n)
{
	int err = exec_sql(s, "DELETE FROM temp.prune");

	if (!err)
		err = sqlite3_step(st) == SQLITE_DONE ? 0 : store_write_failed(s, "prune");
	sqlite3_finalize(st);
	if (err)
		return err;
	*n = sqlite3_changes(s->db);
	if (!*n)
		return 0;
	return exec_sql(s, "DELETE FROM processes WHERE unit IN (SELECT id FROM temp.prune);"
			   "DELETE FROM samples WHERE unit IN (SELECT id FROM temp.prune);"
			   "DELETE FROM units WHERE id IN (SELECT id FROM temp.prune)");
}

/* Up to batch finished units that ended before before_ns. */
static int prune_old(struct store *s, int64_t before_ns, unsigned batch, unsigned *n)
{
	sqlite3_stmt *st;

	if (store_prepare(s,
			  "INSERT INTO temp.prune SELECT id FROM units WHERE state != 'RUNNING'"
			  " AND end_ns IS NOT NULL AND end_ns < ?1 ORDER BY end_ns LIMIT ?2",
			  &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, before_ns);
	sqlite3_bind_int64(st, 2, batch);
	return prune_selected(s, st, n);
}

/* Up to batch finished units of the user whose units hold the most of the store (stored_bytes,
 * running units' too), oldest first, no more than make up need bytes: one user's flood evicts
 * that user's history first, and only as much of it as the store must lose. Units stored
 * before shares were counted weigh nothing; among equals the oldest unit's user goes first,
 * as before. */
static int prune_heaviest(struct store *s, uint64_t need, unsigned batch, unsigned *n)
{
	sqlite3_stmt *st;

	if (store_prepare(s,
			  "INSERT INTO temp.prune SELECT id FROM (SELECT id, end_ns,"
			  "  SUM(COALESCE(stored_bytes, 0)) OVER (ORDER BY end_ns, id)"
			  "   - COALESCE(stored_bytes, 0) AS before"
			  "  FROM units WHERE state != 'RUNNING' AND end_ns IS NOT NULL"
			  "  AND owner_uid = (SELECT owner_uid FROM units GROUP BY owner_uid"
			  "   HAVING SUM(state != 'RUNNING' AND end_ns IS NOT NULL) > 0"
			  "   ORDER BY SUM(COALESCE(stored_bytes, 0)) DESC, MIN(end_ns) LIMIT 1))"
			  " WHERE before < ?2 ORDER BY end_ns, id LIMIT ?1",
			  &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, batch);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)need);
	return prune_selected(s, st, n);
}

/* Each user's share of the store as pruning left it, the most first: what status shows
 * without reading every unit on each request. */
static void keep_shares(struct store *s, uint64_t max_bytes)
{
	struct json_object *o = json_object_new_object(), *users = json_object_new_array();
	uint64_t used = 0;
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_ERROR;

	if (o && users && store_used_bytes(s, &used) == 0 &&
	    !store_prepare(s,
			   "SELECT owner_uid AS uid, SUM(COALESCE(stored_bytes, 0)) AS bytes,"
			   " COUNT(*) AS units FROM units GROUP BY owner_uid ORDER BY bytes DESC"
			   " LIMIT ?1",
			   &st)) {
		sqlite3_bind_int(st, 1, SHARE_USERS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			json_object_array_add(users, store_row_to_json(st));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_object_put(users);
		json_object_put(o);
		return;
	}
	json_object_object_add(o, "used_bytes", json_object_new_int64((int64_t)used));
	json_object_object_add(o, "max_bytes", json_object_new_int64((int64_t)max_bytes));
	json_object_object_add(o, "users", users);
	json_object_put(s->shares);
	s->shares = o;
}

struct json_object *store_shares(struct store *s, uint32_t uid, unsigned limit)
{
	struct json_object *o, *users, *all;
	size_t i, n;

	if (!s->shares || !json_object_object_get_ex(s->shares, "users", &all))
		return NULL;
	o = json_object_new_object();
	users = json_object_new_array();
	if (!o || !users) {
		json_object_put(o);
		json_object_put(users);
		return NULL;
	}
	json_object_object_foreach(s->shares, key, val)
		if (strcmp(key, "users"))
			json_object_object_add(o, key, json_object_get(val));
	n = json_object_array_length(all);
	for (i = 0; i < n; i++) {
		struct json_object *u = json_object_array_get_idx(all, i), *v;

		if (uid == ANY_UID ? json_object_array_length(users) < limit
				   : json_object_object_get_ex(u, "uid", &v) &&
					     json_object_get_int64(v) == (int64_t)uid)
			json_object_array_add(users, json_object_get(u));
	}
	json_object_object_add(o, "users", users);
	if (uid == ANY_UID)
		json_object_object_add(
			o, "more_users",
			json_object_new_int64((int64_t)(n - json_object_array_length(users))));
	return o;
}

int store_prune(struct store *s, int64_t before_ns, uint64_t max_bytes, unsigned batch,
		unsigned *pruned)
{
	uint64_t used;
	unsigned n = 0;
	int err;

	*pruned = 0;
	/* the open batch first: pruning runs in a transaction of its own */
	err = store_commit(s);
	if (!err)
		err = exec_sql(s, "BEGIN;"
				  "CREATE TEMP TABLE IF NOT EXISTS prune(id INTEGER PRIMARY KEY)");
	if (err)
		return err;
	if (before_ns > 0) {
		err = prune_old(s, before_ns, batch, &n);
		*pruned += n;
	}
	/* a few units at a time: the heaviest user may change as theirs go */
	while (!err && max_bytes && *pruned < batch && store_used_bytes(s, &used) == 0 &&
	       used > max_bytes) {
		n = 0;
		err = prune_heaviest(s, used - max_bytes,
				     batch - *pruned < PRUNE_STEP ? batch - *pruned : PRUNE_STEP,
				     &n);
		*pruned += n;
		if (!n)
			break; /* nothing finished left to prune */
	}
	if (err) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		*pruned = 0;
		return err;
	}
	err = exec_sql(s, "COMMIT");
	if (err && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	if (!err && *pruned < batch)
		keep_shares(s, max_bytes); /* once a round is done, not on each of a backlog's */
	return err;
}

int store_set_alive(struct store *s, int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	if (store_prepare(s, "INSERT OR REPLACE INTO meta VALUES('alive_ns', ?)", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, now_ns);
	err = sqlite3_step(st) == SQLITE_DONE ? 0 : store_write_failed(s, "heartbeat");
	sqlite3_finalize(st);
	return err;
}

int store_last_alive(struct store *s, int64_t *out)
{
	return store_query_int(s, "SELECT CAST(value AS INTEGER) FROM meta WHERE key='alive_ns'",
			       "heartbeat", out);
}
