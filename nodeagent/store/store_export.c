/* The store as the export's spool: pruning keeps what the slowest exported signal has not
 * delivered yet (StoreRetention waits for it), unless StoreMaxSize forces it out, which is
 * counted as dropped and said. The export thread reads through a connection of its own; the
 * floor is given by the loop, and goes to the committing thread with each pruning round. */
#include <errno.h>
#include <inttypes.h>

#include "log.h"
#include "stmt.h"
#include "store_internal.h"

void store_set_export_floor(struct store *s, int64_t floor)
{
	s->export_floor_set = floor >= 0;
	s->export_floor = floor;
}

uint64_t store_export_dropped(const struct store *s)
{
	return s->export_dropped;
}

/* Rows with no sequence (written before it existed) count as exported. */
const char *store_exported_condition(int floor_set)
{
	if (!floor_set)
		return "";
	return " AND COALESCE(units." STORE_EXPORT_SEQ ", 0) <= :floor AND NOT EXISTS"
	       " (SELECT 1 FROM processes p WHERE p.unit = units.id AND p." STORE_EXPORT_SEQ
	       " > :floor) AND NOT EXISTS (SELECT 1 FROM stall_starts t WHERE t.unit = units.id"
	       " AND t." STORE_EXPORT_SEQ " > :floor)";
}

void store_bind_floor(int64_t floor, sqlite3_stmt *st)
{
	int i = sqlite3_bind_parameter_index(st, ":floor");

	if (i)
		sqlite3_bind_int64(st, i, floor);
}

int store_count_dropped(struct store *s, struct prune_job *p)
{
	sqlite3_stmt *st;
	int64_t n = 0;
	int rc;

	if (!p->floor_set)
		return 0;
	/* on the committing thread: the connection directly */
	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT (SELECT COUNT(*) FROM processes WHERE unit IN"
		    " (SELECT id FROM temp.prune) AND " STORE_EXPORT_SEQ " > :floor) +"
		    " (SELECT COUNT(*) FROM units WHERE id IN (SELECT id FROM temp.prune)"
		    " AND " STORE_EXPORT_SEQ " > :floor) +"
		    " (SELECT COUNT(*) FROM stall_starts WHERE unit IN"
		    " (SELECT id FROM temp.prune) AND " STORE_EXPORT_SEQ " > :floor)",
		    -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, "unexported rows");
	store_bind_floor(p->floor, st);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, "unexported rows");
	if (!n)
		return 0;
	p->dropped += (uint64_t)n;
	/* the loop adds the round's to export_dropped once it settles it */
	log_warn("store: StoreMaxSize forced out %" PRId64 " records not exported yet (%" PRIu64
		 " dropped since start): the backend is behind, or the store is too small",
		 n, s->export_dropped + p->dropped);
	return 0;
}

int store_export_latest(sqlite3 *db, int64_t *seq)
{
	/* the rows' highest (the meta's lags a write made outside a batch), and the meta's
	 * (the rows that held it may be gone) */
	static const char sql[] =
		"SELECT MAX(COALESCE((SELECT MAX(" STORE_EXPORT_SEQ
		") FROM processes WHERE " STORE_EXPORT_SEQ
		" IS NOT NULL), 0), COALESCE((SELECT MAX(" STORE_EXPORT_SEQ
		") FROM units WHERE " STORE_EXPORT_SEQ
		" IS NOT NULL), 0), COALESCE((SELECT MAX(" STORE_EXPORT_SEQ
		") FROM stall_starts WHERE " STORE_EXPORT_SEQ " IS NOT NULL), 0), COALESCE((SELECT "
		"MAX(CAST(value AS INTEGER)) FROM meta WHERE key='" STORE_META_SEQ "'), 0))";
	sqlite3_stmt *st = stmt_get(db, sql);
	int rc;

	if (!st) {
		log_error("store: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*seq = sqlite3_column_int64(st, 0);
	stmt_done(st);
	return rc == SQLITE_ROW ? 0 : -EIO;
}
