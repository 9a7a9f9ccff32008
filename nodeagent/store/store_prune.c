/* Bounded store: finished units older than StoreRetention, or while the live data exceeds
 * StoreMaxSize the oldest ones of the user who holds the most, are deleted with their processes
 * and samples, a small batch at a time. A running unit is never pruned. Each user's holding (by
 * owner_uid) is summed once a round and kept up to date as units go: it chooses whose go, and
 * is the shares status shows.
 *
 * A round runs on the committing thread after the batch it was handed with (store_commit.c):
 * its deletes and its pass over the units read pages a busy disk is slow to give, and the loop
 * answers its clients meanwhile. The round's sums (s->sums) are the thread's while it runs; what
 * the loop reads (the shares, the pages in use, the dropped count) is copied from them when the
 * loop settles the round (store_prune_finished). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "log.h"
#include "store_internal.h"

#define PRUNE_STEP 16 /* units of one user deleted before the heaviest user is chosen again */

/* On the thread, the connection is used directly (store_db would wait for the thread). */
static int exec_sql(struct store *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, "prune");
	return 0;
}

static int prepare(struct store *s, const char *sql, sqlite3_stmt **out)
{
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) != SQLITE_OK)
		return store_fail(s, "prune: prepare");
	return 0;
}

/* Bytes of the store's pages in use: what prunes keep under StoreMaxSize (freed pages are
 * reused, so the file stops growing there). */
static int count_used(struct store *s, uint64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(s,
		    "SELECT (page_count - freelist_count) * page_size"
		    " FROM pragma_page_count, pragma_freelist_count, pragma_page_size",
		    &st))
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "pages in use");
}

int store_used_bytes(struct store *s, uint64_t *out)
{
	/* never counted yet (the first round is on its way): counted now, once */
	if (!s->used_known) {
		store_db(s);
		if (count_used(s, &s->used_bytes))
			return -EIO;
		s->used_known = 1;
	}
	*out = s->used_bytes;
	return 0;
}

/* ---- each user's holding: summed once per round, then kept up to date as units go */

static struct store_owner *owner_of(struct store *s, uint32_t uid)
{
	for (size_t i = 0; i < s->sums.n; i++)
		if (s->sums.o[i].uid == uid)
			return &s->sums.o[i];
	return NULL;
}

/* The oldest finished unit's end of o, through the index on (owner_uid, end_ns). */
static int owner_oldest(struct store *s, struct store_owner *o)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(s,
		    "SELECT MIN(end_ns) FROM units WHERE owner_uid = :uid"
		    " AND end_ns IS NOT NULL AND state != :running",
		    &st))
		return -EIO;
	store_bind_unit_words(st);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":uid"), o->uid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		o->oldest_ns = sqlite3_column_type(st, 0) == SQLITE_NULL
				       ? INT64_MAX
				       : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "oldest unit");
}

/* Every user's sums, in one pass over the units: what a round chooses from, and the shares
 * status shows. */
static int load_owners(struct store *s)
{
	struct store_owner *o;
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	s->sums.n = 0;
	if (prepare(s,
		    "SELECT owner_uid, SUM(COALESCE(stored_bytes, 0)), COUNT(*),"
		    " SUM(state != :running AND end_ns IS NOT NULL),"
		    " MIN(CASE WHEN state != :running THEN end_ns END)"
		    " FROM units GROUP BY owner_uid",
		    &st))
		return -EIO;
	store_bind_unit_words(st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (s->sums.n == s->sums.cap) {
			cap = s->sums.cap ? 2 * s->sums.cap : 64;
			o = realloc(s->sums.o, cap * sizeof(*o));
			if (!o) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			s->sums.o = o;
			s->sums.cap = cap;
		}
		o = &s->sums.o[s->sums.n++];
		o->uid = (uint32_t)sqlite3_column_int64(st, 0);
		o->bytes = (uint64_t)sqlite3_column_int64(st, 1);
		o->units = (uint64_t)sqlite3_column_int64(st, 2);
		o->finished = (uint64_t)sqlite3_column_int64(st, 3);
		o->oldest_ns = sqlite3_column_type(st, 4) == SQLITE_NULL
				       ? INT64_MAX
				       : sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, "users' shares");
}

/* The user whose units hold the most, with finished units to lose; among equals the one with
 * the oldest. NULL: nothing finished. */
static struct store_owner *heaviest(struct store *s)
{
	struct store_owner *best = NULL;

	for (size_t i = 0; i < s->sums.n; i++) {
		struct store_owner *o = &s->sums.o[i];

		if (o->finished && (!best || o->bytes > best->bytes ||
				    (o->bytes == best->bytes && o->oldest_ns < best->oldest_ns)))
			best = o;
	}
	return best;
}

/* The units in temp.prune leave their users' sums. */
static int forget_selected(struct store *s)
{
	struct store_owner *o;
	sqlite3_stmt *st;
	int rc, err = 0;

	if (prepare(s,
		    "SELECT owner_uid, SUM(COALESCE(stored_bytes, 0)), COUNT(*),"
		    " SUM(state != :running AND end_ns IS NOT NULL)"
		    " FROM units WHERE id IN (SELECT id FROM temp.prune) GROUP BY owner_uid",
		    &st))
		return -EIO;
	store_bind_unit_words(st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t bytes = (uint64_t)sqlite3_column_int64(st, 1),
			 units = (uint64_t)sqlite3_column_int64(st, 2),
			 finished = (uint64_t)sqlite3_column_int64(st, 3);

		if (!(o = owner_of(s, (uint32_t)sqlite3_column_int64(st, 0))))
			continue; /* written since the round began: counted in the next */
		o->bytes = o->bytes > bytes ? o->bytes - bytes : 0;
		o->units = o->units > units ? o->units - units : 0;
		o->finished = o->finished > finished ? o->finished - finished : 0;
		o->oldest_ns = -1; /* read again once they are gone */
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		err = store_fail(s, "pruned units");
	return err;
}

/* Delete the units that st (an INSERT INTO temp.prune, bound) selects, and everything recorded
 * of them; *n: how many. */
static int prune_selected(struct store *s, struct prune_job *p, sqlite3_stmt *st, unsigned *n)
{
	int err = exec_sql(s, "DELETE FROM temp.prune");

	if (!err)
		err = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail(s, "prune");
	sqlite3_finalize(st);
	if (err)
		return err;
	*n = sqlite3_changes(s->db);
	if (!*n)
		return 0;
	err = store_count_dropped(s, p);
	if (!err)
		err = forget_selected(s);
	if (!err)
		err = exec_sql(s,
			       "DELETE FROM processes WHERE unit IN (SELECT id FROM temp.prune);"
			       "DELETE FROM samples WHERE unit IN (SELECT id FROM temp.prune);"
			       "DELETE FROM stall_starts WHERE unit IN (SELECT id FROM temp.prune);"
			       "DELETE FROM units WHERE id IN (SELECT id FROM temp.prune)");
	for (size_t i = 0; i < s->sums.n && !err; i++)
		if (s->sums.o[i].oldest_ns < 0)
			err = owner_oldest(s, &s->sums.o[i]);
	return err;
}

/* Up to batch finished units that ended before before_ns, and were exported. */
static int prune_old(struct store *s, struct prune_job *p, unsigned batch, unsigned *n)
{
	sqlite3_stmt *st;
	char sql[1024];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO temp.prune SELECT id FROM units WHERE state != :running"
		 " AND end_ns IS NOT NULL AND end_ns < :before%s ORDER BY end_ns LIMIT :batch",
		 store_exported_condition(p->floor_set));
	if (prepare(s, sql, &st))
		return -EIO;
	store_bind_unit_words(st);
	store_bind_floor(p->floor, st);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":before"), p->before_ns);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":batch"), batch);
	return prune_selected(s, p, st, n);
}

/* The parameters of prune_heaviest's statements: whose units, how many at most */
static void bind_owner_units(sqlite3_stmt *st, uint32_t uid, unsigned limit)
{
	store_bind_unit_words(st);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":uid"), uid);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":limit"), limit);
}

/* Up to batch finished units of o, the user whose units hold the most of the store
 * (stored_bytes, running units' too), oldest first, no more than make up need bytes: one
 * user's flood evicts that user's history first, and only as much of it as the store must
 * lose. Units stored before shares were counted weigh nothing. Read through the index on
 * (owner_uid, end_ns): a step reads the units it deletes, and one more. */
static int prune_heaviest(struct store *s, struct prune_job *p, struct store_owner *o,
			  uint64_t need, unsigned batch, unsigned *n)
{
	static const char order[] = " FROM units WHERE owner_uid = :uid AND end_ns IS NOT NULL"
				    " AND state != :running ORDER BY end_ns, id LIMIT :limit";
	char sql[256];
	sqlite3_stmt *st;
	uint64_t before = 0;
	unsigned take = 0;
	int rc = SQLITE_ROW;

	snprintf(sql, sizeof(sql), "SELECT COALESCE(stored_bytes, 0)%s", order);
	if (prepare(s, sql, &st))
		return -EIO;
	bind_owner_units(st, o->uid, batch);
	while (before < need && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		before += (uint64_t)sqlite3_column_int64(st, 0);
		take++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, "heaviest user's units");
	if (!take) {
		o->finished = 0; /* the sums were older than the store: none left */
		*n = 0;
		return 0;
	}
	snprintf(sql, sizeof(sql), "INSERT INTO temp.prune SELECT id%s", order);
	if (prepare(s, sql, &st))
		return -EIO;
	bind_owner_units(st, o->uid, take);
	return prune_selected(s, p, st, n);
}

/* ---- a round, on the thread */

static int by_bytes(const void *a, const void *b)
{
	const struct store_owner *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* The round's sums as the shares will show them: users with units left, the most first. */
static void keep_shares(struct store *s)
{
	size_t i, kept = 0;

	for (i = 0; i < s->sums.n; i++)
		if (s->sums.o[i].units)
			s->sums.o[kept++] = s->sums.o[i];
	s->sums.n = kept;
	qsort(s->sums.o, s->sums.n, sizeof(*s->sums.o), by_bytes);
}

static int prune_round(struct store *s, struct prune_job *p)
{
	struct store_owner *o;
	uint64_t used = 0;
	unsigned n = 0;
	int err, fresh = 0;

	err = exec_sql(s, "BEGIN;"
			  "CREATE TEMP TABLE IF NOT EXISTS prune(id INTEGER PRIMARY KEY)");
	if (err)
		return err;
	/* the users' sums once a round (a backlog's rounds go on with them) */
	if (!s->round_open) {
		err = load_owners(s);
		fresh = 1;
	}
	if (!err && p->before_ns > 0) {
		err = prune_old(s, p, p->batch, &n);
		p->pruned += n;
	}
	/* a few units at a time: the heaviest user may change as theirs go */
	while (!err && p->max_bytes && p->pruned < p->batch && (err = count_used(s, &used)) == 0 &&
	       used > p->max_bytes) {
		if (!(o = heaviest(s)) && !fresh) { /* units finished since the sums: count again */
			err = load_owners(s);
			fresh = 1;
			continue;
		}
		if (!o)
			break; /* nothing finished left to prune */
		n = 0;
		err = prune_heaviest(
			s, p, o, used - p->max_bytes,
			p->batch - p->pruned < PRUNE_STEP ? p->batch - p->pruned : PRUNE_STEP, &n);
		p->pruned += n;
	}
	if (err) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		p->pruned = 0;
		p->dropped = 0;
		s->round_open = 0; /* the sums may hold what was rolled back */
		return err;
	}
	err = exec_sql(s, "COMMIT");
	if (err && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->round_open = !err && p->batch && p->pruned == p->batch;
	if (err)
		return err;
	keep_shares(s);
	err = count_used(s, &p->used);
	p->counted = !err;
	if (p->pruned)
		log_debug("store: %u finished units pruned (StoreRetention, StoreMaxSize)",
			  p->pruned);
	return err;
}

void store_prune_run(struct store *s, struct prune_job *p)
{
	p->err = prune_round(s, p);
}

/* ---- on the loop's side */

/* A round settled: the shares status shows, and the loop's figures, from it. */
void store_prune_finished(struct store *s, struct prune_job *p)
{
	struct store_owner *o;

	s->export_dropped += p->dropped;
	if (p->err)
		return;
	if (p->counted) {
		s->used_bytes = p->used;
		s->used_known = 1;
	}
	if (s->sums.n > s->shares.cap) {
		o = realloc(s->shares.o, s->sums.n * sizeof(*o));
		if (!o)
			return; /* the last shares stand */
		s->shares.o = o;
		s->shares.cap = s->sums.n;
	}
	if (s->sums.n)
		memcpy(s->shares.o, s->sums.o, s->sums.n * sizeof(*o));
	s->shares.n = s->sums.n;
	s->shares_used = s->used_bytes;
	s->shares_max = p->max_bytes;
	s->shares_known = 1;
}

int store_prune_backlog(const struct store *s)
{
	return s->round_open;
}

int store_prune(struct store *s, int64_t before_ns, uint64_t max_bytes, unsigned batch,
		unsigned *pruned)
{
	struct prune_job p = {
		.on = 1, .before_ns = before_ns, .max_bytes = max_bytes, .batch = batch
	};
	int err;

	*pruned = 0;
	err = store_prune_start(s, &p);
	if (!err)
		err = store_settle(s);
	if (!err)
		err = store_pruned(s, pruned);
	return err;
}

int store_prune_async(struct store *s, int64_t before_ns, uint64_t max_bytes, unsigned batch)
{
	struct prune_job p = {
		.on = 1, .before_ns = before_ns, .max_bytes = max_bytes, .batch = batch
	};

	return store_prune_start(s, &p);
}

static struct json_object *share_json(const struct store_owner *o)
{
	struct json_object *u = json_object_new_object();

	json_object_object_add(u, "uid", json_object_new_int64(o->uid));
	json_object_object_add(u, "bytes", json_object_new_int64((int64_t)o->bytes));
	json_object_object_add(u, "units", json_object_new_int64((int64_t)o->units));
	return u;
}

struct json_object *store_shares(struct store *s, uint32_t uid, unsigned limit)
{
	struct json_object *o, *users;
	size_t i, shown = 0;

	if (!s->shares_known)
		return NULL;
	o = json_object_new_object();
	users = json_object_new_array();
	if (!o || !users) {
		json_object_put(o);
		json_object_put(users);
		return NULL;
	}
	json_object_object_add(o, "used_bytes", json_object_new_int64((int64_t)s->shares_used));
	json_object_object_add(o, "max_bytes", json_object_new_int64((int64_t)s->shares_max));
	for (i = 0; i < s->shares.n; i++)
		if (uid == ANY_UID ? shown < limit : s->shares.o[i].uid == uid) {
			json_object_array_add(users, share_json(&s->shares.o[i]));
			shown++;
		}
	json_object_object_add(o, "users", users);
	if (uid == ANY_UID)
		json_object_object_add(o, "more_users",
				       json_object_new_int64((int64_t)(s->shares.n - shown)));
	return o;
}
