/* Reads of the store: what the control socket answers and what a restart finds again. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "log.h"
#include "slurm_ids.h"
#include "store_internal.h"

/* Kinds a statement names, by the parameter it names them with */
static const struct {
	const char *param, *kind;
} kind_params[] = {
	{ ":local", UNIT_KIND_LOCAL },
	{ ":slurm", UNIT_KIND_SLURM },
};

void store_bind_unit_words(sqlite3_stmt *st)
{
	char param[16];
	size_t n;
	int at;

	/* a state by its name lower-cased: ":running" */
	for (int s = 0; s < UNIT_STATES; s++) {
		const char *name = unit_state_name(s);

		param[0] = ':';
		for (n = 0; name[n] && n + 2 < sizeof(param); n++)
			param[n + 1] = (char)tolower((unsigned char)name[n]);
		param[n + 1] = 0;
		if ((at = sqlite3_bind_parameter_index(st, param)) > 0)
			sqlite3_bind_text(st, at, name, -1, SQLITE_STATIC);
	}
	for (size_t i = 0; i < sizeof(kind_params) / sizeof(*kind_params); i++)
		if ((at = sqlite3_bind_parameter_index(st, kind_params[i].param)) > 0)
			sqlite3_bind_text(st, at, kind_params[i].kind, -1, SQLITE_STATIC);
}

int store_close_stale_units(struct store *s)
{
	sqlite3_stmt *st;
	int rc;

	if (store_prepare(s,
			  "UPDATE units SET state=:lost, end_ns=COALESCE(end_ns, start_ns)"
			  " WHERE state=:running AND boot_id IS NOT :boot",
			  &st))
		return -EIO;
	store_bind_unit_words(st);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":boot"), s->boot_id, -1,
			  SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, "stale units");
	rc = sqlite3_changes(s->db);
	if (rc)
		log_info("store: %d units of an earlier boot marked LOST", rc);
	/* rows of tasks registered in the kernel whose unit an earlier run never heard of (keys
	 * are negative as SQLite integers): no request can claim them now */
	if (sqlite3_exec(s->db,
			 "DELETE FROM processes WHERE unit < 0; DELETE FROM samples WHERE unit < 0",
			 NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, "unclaimed rows");
	return 0;
}

int store_running_units(struct store *s, int (*fn)(const struct unit *u, void *ctx), void *ctx)
{
	char sql[2560];
	sqlite3_stmt *st;
	struct unit u;
	int rc, err = 0;

	snprintf(sql, sizeof(sql), "SELECT %s FROM units WHERE state=:running AND boot_id=:boot",
		 s->unit_columns);
	if (store_prepare(s, sql, &st))
		return -EIO;
	store_bind_unit_words(st);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":boot"), s->boot_id, -1,
			  SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !err) {
		rec_unit_from_stmt(st, &u);
		err = fn(&u, ctx);
	}
	sqlite3_finalize(st);
	if (!err && rc != SQLITE_DONE && rc != SQLITE_ROW)
		err = store_fail(s, "running units");
	return err;
}

struct json_object *store_row_to_json(sqlite3_stmt *st)
{
	struct json_object *o = json_object_new_object();
	int i, n = sqlite3_column_count(st);

	for (i = 0; o && i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		struct json_object *v = NULL;

		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			v = json_object_new_int64(sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			v = json_object_new_double(sqlite3_column_double(st, i));
			break;
		case SQLITE_TEXT:
			v = json_object_new_string((const char *)sqlite3_column_text(st, i));
			break;
		case SQLITE_BLOB:
			v = store_strings_json(sqlite3_column_blob(st, i),
					       (size_t)sqlite3_column_bytes(st, i));
			break;
		default:
			continue; /* NULL: absent key, printed as unknown */
		}
		json_object_object_add(o, name, v);
	}
	return o;
}

static int rows_to_array(struct store *s, sqlite3_stmt *st, struct json_object **out)
{
	struct json_object *arr = json_object_new_array();
	int rc;

	if (!arr)
		return -ENOMEM;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_object_array_add(arr, store_row_to_json(st));
	if (rc != SQLITE_DONE) {
		json_object_put(arr);
		return store_fail(s, "query");
	}
	*out = arr;
	return 0;
}

/* A one-off statement on db: the store's own connection, or a reader's (stream.c). */
static int prepare_on(struct store *s, sqlite3 *db, const char *sql, sqlite3_stmt **out)
{
	if (db == s->db)
		return store_prepare(s, sql, out);
	if (sqlite3_prepare_v2(db, sql, -1, out, NULL) != SQLITE_OK) {
		log_error("prepare: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	return 0;
}

static int fail_on(struct store *s, sqlite3 *db, const char *what)
{
	if (db == s->db)
		return store_fail(s, what);
	log_error("%s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

int store_query_units(struct store *s, sqlite3 *db, const char *selector, uint32_t uid,
		      sqlite3_stmt **out)
{
	long long num = -1, task = -1, run = -1;
	char sql[2560], *end;
	sqlite3_stmt *st;

	/* "N": Slurm job N (all its steps); "N_M": task M of job array N; "rN": traced run N
	 * (its own prefix: never mistaken for a Slurm job); anything else: a unit name
	 * ("N.batch", "N.0", a run's --name) */
	if (isdigit((unsigned char)*selector)) {
		num = strtoll(selector, &end, 10);
		if (*end == '_' && isdigit((unsigned char)end[1]))
			task = strtoll(end + 1, &end, 10);
		if (*end)
			num = task = -1;
	} else if (selector[0] == 'r' && slurm_id_shaped(selector)) {
		run = strtoll(selector + 1, &end, 10);
		if (*end)
			run = -1;
	}
	/* a selector shaped like an id matches no traced run by its name: "r1" or "4242" is
	 * never a user's run named so (names of Slurm's units, "4242.batch", are tracerd's) */
	snprintf(sql, sizeof(sql),
		 "SELECT %s FROM units WHERE ((name=:sel AND (kind<>:local OR NOT :shaped))"
		 " OR (kind=:local AND id=:run)"
		 " OR (:task < 0 AND job_id=:num AND :num > 0)"
		 " OR (:task >= 0 AND array_job_id=:num AND array_task_id=:task))"
		 " AND (:any OR uid=:uid) ORDER BY id",
		 s->unit_columns);
	if (prepare_on(s, db, sql, &st))
		return -EIO;
	store_bind_unit_words(st);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":sel"), selector, -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":num"), num);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":task"), task);
	sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":any"), uid == ANY_UID);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":uid"), uid);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":run"), run);
	sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":shaped"),
			 slurm_id_shaped(selector));
	*out = st;
	return 0;
}

int store_find_units(struct store *s, const char *selector, uint32_t uid, struct json_object **out)
{
	sqlite3_stmt *st;
	int err;

	if (store_query_units(s, store_db(s), selector, uid, &st))
		return -EIO;
	err = rows_to_array(s, st, out);
	sqlite3_finalize(st);
	return err;
}

int store_get_unit(struct store *s, uint64_t id, struct unit *out)
{
	char sql[2560];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT %s FROM units WHERE id=?", s->unit_columns);
	if (store_prepare(s, sql, &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rec_unit_from_stmt(st, out);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -ENOENT : store_fail(s, "unit");
}

/* The columns of f, as process_columns lists them all; uid beside argv: who may see it */
static void some_columns(const struct row_fields *f, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (size_t i = 0; i < store_processes.n && at < len; i++)
		if (!(store_processes.cols[i].flags & REC_STORED) &&
		    (row_fields_has(f, (int)i) || (i == PCOL_uid && row_fields_has(f, PCOL_argv))))
			at += (size_t)snprintf(out + at, len - at, "%s%s", at ? ", " : "",
					       store_processes.cols[i].name);
}

int store_query_processes(struct store *s, sqlite3 *db, uint64_t unit, const struct row_fields *f,
			  sqlite3_stmt **out)
{
	char sql[2560], some[sizeof(s->process_columns)];

	if (f && !row_fields_all(f))
		some_columns(f, some, sizeof(some));
	snprintf(sql, sizeof(sql),
		 "SELECT %s FROM processes WHERE unit=? AND folded IS NULL"
		 " ORDER BY start_boot_ns, pid",
		 f && !row_fields_all(f) ? some : s->process_columns);
	if (prepare_on(s, db, sql, out))
		return -EIO;
	sqlite3_bind_int64(*out, 1, unit);
	return 0;
}

int store_unit_processes(struct store *s, uint64_t unit, struct json_object **out)
{
	sqlite3_stmt *st;
	int err;

	if (store_query_processes(s, store_db(s), unit, NULL, &st))
		return -EIO;
	err = rows_to_array(s, st, out);
	sqlite3_finalize(st);
	return err;
}

int store_query_samples(struct store *s, sqlite3 *db, uint64_t unit, int64_t offset_ns,
			sqlite3_stmt **out)
{
	sqlite3_stmt *st;

	/* a process's start in unix time only where its boot time is this boot's; an exit's CPU
	 * from the fork, as /proc counts a sample's (the row leaves out the work before exec); a
	 * lost exit's I/O unknown, which its samples hold (an earlier tracerd stored it as 0) */
	if (prepare_on(
		    s, db,
		    "WITH b AS (SELECT boot_id IS :boot AS here FROM units WHERE id=:unit)"
		    " SELECT pid, start_boot_ns,"
		    "  CASE WHEN (SELECT here FROM b) THEN start_boot_ns + :offset END AS start_ns,"
		    "  time_ns, cpu_ns, rss_kb, read_bytes, write_bytes, cpu_wait_ns, iowait_ns,"
		    "  NULL AS exit"
		    "  FROM samples WHERE unit=:unit"
		    " UNION ALL SELECT pid, start_boot_ns, start_ns, end_ns AS time_ns,"
		    "  cpu_ns + COALESCE(pre_exec_cpu_ns, 0), NULL,"
		    "  CASE WHEN flags & :exit_lost THEN NULL ELSE read_bytes END,"
		    "  CASE WHEN flags & :exit_lost THEN NULL ELSE write_bytes END,"
		    "  cpu_wait_ns, iowait_ns, 1 AS exit"
		    "  FROM processes WHERE unit=:unit AND folded IS NULL",
		    &st))
		return -EIO;
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":boot"), s->boot_id, -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":unit"), (sqlite3_int64)unit);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":offset"), offset_ns);
	store_bind_flags(st);
	*out = st;
	return 0;
}

int store_query_tools(struct store *s, sqlite3 *db, uint64_t unit, sqlite3_stmt **out)
{
	char sql[5120];
	sqlite3_stmt *st;

	/* shell plumbing stays out of tool tables, unless it failed: a failing ls or grep is
	 * shown, not hidden. Exit codes belong to the process that had them: a wrapper's (an
	 * srun client's, time's) are not its tool's. */
	snprintf(sql, sizeof(sql),
		 "WITH f AS (SELECT DISTINCT tool FROM processes WHERE unit=?1 AND tool_excluded"
		 "  AND (status != 0 OR (flags & :oom_killed) != 0)),"
		 " p AS (SELECT * FROM processes WHERE unit=?1 AND tool IS NOT NULL"
		 "  AND (NOT tool_excluded OR tool IN (SELECT tool FROM f))),"
		 " c AS (SELECT tool, subcommand, status, " REC_NPROCS " AS n FROM p"
		 "  WHERE NOT tool_wrapper"
		 "  GROUP BY tool, subcommand, status)"
		 " SELECT %s FROM p GROUP BY tool, subcommand ORDER BY SUM(cpu_ns) DESC",
		 s->tool_columns);
	if (prepare_on(s, db, sql, &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, unit);
	store_bind_flags(st);
	*out = st;
	return 0;
}

int store_unit_tools(struct store *s, uint64_t unit, struct json_object **out)
{
	sqlite3_stmt *st;
	int err;

	if (store_query_tools(s, store_db(s), unit, &st))
		return -EIO;
	err = rows_to_array(s, st, out);
	sqlite3_finalize(st);
	return err;
}

/* How a totals column's partial values over two sets of processes make the value over both:
 * by its aggregate, COUNT and SUM add up, MIN and MAX keep the least and the most. */
enum combine { COMBINE_NONE, COMBINE_ADD, COMBINE_MIN, COMBINE_MAX };

static enum combine combine_of(const char *sql)
{
	return !strncmp(sql, "COUNT(", 6) || !strncmp(sql, "SUM(", 4) ? COMBINE_ADD
	       : !strncmp(sql, "MIN(", 4)			      ? COMBINE_MIN
	       : !strncmp(sql, "MAX(", 4)			      ? COMBINE_MAX
								      : COMBINE_NONE;
}

/* x and y combined as how says (integers or reals alike) */
#define COMBINE(how, x, y)                                \
	((how) == COMBINE_ADD	? (x) + (y)               \
	 : (how) == COMBINE_MIN ? ((y) < (x) ? (y) : (x)) \
	 : (how) == COMBINE_MAX ? ((y) > (x) ? (y) : (x)) \
				: (x))

int store_totals_check(void)
{
	size_t i;

	for (i = 0; i < store_totals.n; i++)
		if (combine_of(store_totals.cols[i].sql) == COMBINE_NONE) {
			log_error("totals column %s: '%s' is not COUNT, SUM, MIN or MAX of the"
				  " processes, and cannot be counted in steps",
				  store_totals.cols[i].name, store_totals.cols[i].sql);
			return -EINVAL;
		}
	return 0;
}

/* part's values into acc; -EOVERFLOW when a sum of integers leaves 64 bits, where SQLite's SUM
 * over all the processes at once fails too ("integer overflow"). */
static int combine_into(struct json_object *acc, struct json_object *part)
{
	size_t i;

	for (i = 0; i < store_totals.n; i++) {
		const char *key = store_totals.cols[i].name;
		struct json_object *a, *p;
		enum combine how;

		if (!json_object_object_get_ex(part, key, &p))
			continue; /* NULL: no process of the step had a value */
		if (!json_object_object_get_ex(acc, key, &a)) {
			json_object_object_add(acc, key, json_object_get(p));
			continue;
		}
		how = combine_of(store_totals.cols[i].sql);
		if (json_object_is_type(a, json_type_int) &&
		    json_object_is_type(p, json_type_int)) {
			int64_t x = json_object_get_int64(a), y = json_object_get_int64(p), sum;

			if (how == COMBINE_ADD && __builtin_add_overflow(x, y, &sum))
				return -EOVERFLOW;
			json_object_object_add(acc, key, json_object_new_int64(COMBINE(how, x, y)));
		} else {
			json_object_object_add(
				acc, key,
				json_object_new_double(COMBINE(how, json_object_get_double(a),
							       json_object_get_double(p))));
		}
	}
	return 0;
}

/* The unit's live-sample figures (SAMPLE_TOTALS_RECORD of common/records.h) read from all its
 * samples: for a unit stored by a tracerd that did not keep them in its row. */
static int samples_read_whole(struct store *s, sqlite3 *db, uint64_t unit, struct json_object *o)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare_on(
		    s, db,
		    "WITH d AS (SELECT time_ns, rss_kb,"
		    "  cpu_ns - LAG(cpu_ns) OVER w AS dcpu, time_ns - LAG(time_ns) OVER w AS dt"
		    "  FROM samples WHERE unit=?1"
		    "  WINDOW w AS (PARTITION BY pid, start_boot_ns ORDER BY time_ns))"
		    " SELECT (SELECT MAX(busy) FROM (SELECT SUM(dcpu * 1.0 / dt) AS busy FROM d"
		    "   WHERE dt > 0 GROUP BY time_ns)) AS peak_cores,"
		    "  (SELECT MAX(rss) FROM (SELECT SUM(rss_kb) AS rss FROM d GROUP BY time_ns))"
		    "   AS peak_sampled_rss_kb,"
		    "  (SELECT COUNT(DISTINCT time_ns) FROM d) AS sample_rounds",
		    &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, unit);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		struct json_object *extra = store_row_to_json(st);

		json_object_object_foreach(extra, key, val)
			json_object_object_add(o, key, json_object_get(val));
		json_object_put(extra);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The unit's live-sample figures into o: kept in its row as the samples came (housekeeping.c),
 * so that a listing reads one row, never all of a unit's samples. A running unit's are the
 * daemon's own (live.c adds them); a unit from an older tracerd has its samples read once. */
static int sample_totals(struct store *s, sqlite3 *db, uint64_t unit, struct json_object *o)
{
	sqlite3_stmt *st;
	int rc, running = 0, kept = 0;

	if (prepare_on(s, db,
		       "SELECT sample_rounds, sample_peak_mcores, sample_peak_rss_kb, state"
		       " FROM units WHERE id=?1",
		       &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)unit);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		kept = 1;
		json_object_object_add(o, "sample_rounds",
				       json_object_new_int64(sqlite3_column_int64(st, 0)));
		/* cores busy need a process sampled twice: unknown (absent) until then */
		if (sqlite3_column_type(st, 1) != SQLITE_NULL && sqlite3_column_int64(st, 1) >= 0)
			json_object_object_add(
				o, "peak_cores",
				json_object_new_double((double)sqlite3_column_int64(st, 1) /
						       1000.0));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL) /* no sample: unknown */
			json_object_object_add(o, "peak_sampled_rss_kb",
					       json_object_new_int64(sqlite3_column_int64(st, 2)));
	} else if (rc == SQLITE_ROW) {
		const unsigned char *state = sqlite3_column_text(st, 3);

		running = state && !strcmp((const char *)state, unit_state_name(UNIT_RUNNING));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail_on(s, db, "unit samples");
	return kept || running || rc == SQLITE_DONE ? 0 : samples_read_whole(s, db, unit, o);
}

void store_totals_begin(struct totals_steps *t, uint64_t unit)
{
	*t = (struct totals_steps){ .unit = unit, .after = { INT64_MIN, INT64_MIN, INT64_MIN } };
}

void store_totals_end(struct totals_steps *t)
{
	json_object_put(t->acc);
	t->acc = NULL;
}

/* the cursor's position in the unit's index: (start, pid, rowid), a row value */
#define TOTALS_KEY "(start_boot_ns, pid, rowid)"

static void bind_key(sqlite3_stmt *st, const char *name, const sqlite3_int64 key[3])
{
	char param[16];

	for (int i = 0; i < 3; i++) {
		snprintf(param, sizeof(param), "%s%d", name, i);
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, param), key[i]);
	}
}

int store_totals_step(struct store *s, sqlite3 *db, struct totals_steps *t, unsigned rows,
		      struct json_object **out)
{
	char sql[2560];
	sqlite3_stmt *st;
	sqlite3_int64 upto[3] = { INT64_MAX, INT64_MAX, INT64_MAX };
	struct json_object *part;
	int rc, last = 1;

	t->counted = 0;
	if (!rows)
		return -EINVAL;
	if (!t->acc && !(t->acc = json_object_new_object()))
		return -ENOMEM;
	/* the step's processes: up to rows of them, in the unit's index order, counted so that
	 * the caller knows what the step cost */
	if (rows != UINT_MAX) {
		if (prepare_on(s, db,
			       "SELECT start_boot_ns, pid, rowid FROM processes WHERE unit=:unit"
			       " AND " TOTALS_KEY ">(:after0, :after1, :after2)"
			       " ORDER BY start_boot_ns, pid, rowid LIMIT :rows",
			       &st))
			return -EIO;
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":unit"),
				   (sqlite3_int64)t->unit);
		bind_key(st, ":after", t->after);
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":rows"),
				   (sqlite3_int64)rows);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			for (int i = 0; i < 3; i++)
				upto[i] = sqlite3_column_int64(st, i);
			t->counted++;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return fail_on(s, db, "totals");
		if (t->counted == rows)
			last = 0;
		else
			upto[0] = upto[1] = upto[2] = INT64_MAX;
	}
	/* named: the expressions before it name flags (:oom_killed) */
	snprintf(sql, sizeof(sql),
		 "SELECT %s FROM processes WHERE unit=:unit"
		 " AND " TOTALS_KEY ">(:after0, :after1, :after2)"
		 " AND " TOTALS_KEY "<=(:upto0, :upto1, :upto2)",
		 s->totals_columns);
	if (prepare_on(s, db, sql, &st))
		return -EIO;
	store_bind_flags(st);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":unit"), (sqlite3_int64)t->unit);
	bind_key(st, ":after", t->after);
	bind_key(st, ":upto", upto);
	rc = sqlite3_step(st);
	part = rc == SQLITE_ROW ? store_row_to_json(st) : NULL;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fail_on(s, db, "totals");
	if (!part)
		return -ENOMEM;
	rc = combine_into(t->acc, part);
	json_object_put(part);
	if (rc) {
		log_error("totals of unit %" PRIu64 ": integer overflow", t->unit);
		return rc;
	}
	memcpy(t->after, upto, sizeof(t->after));
	if (!last)
		return 1;
	if (sample_totals(s, db, t->unit, t->acc))
		return -EIO;
	*out = t->acc;
	t->acc = NULL;
	return 0;
}

int store_query_totals(struct store *s, sqlite3 *db, uint64_t unit, struct json_object **out)
{
	struct totals_steps t;
	int r;

	store_totals_begin(&t, unit);
	r = store_totals_step(s, db, &t, UINT_MAX, out);
	store_totals_end(&t);
	return r;
}

int store_unit_totals(struct store *s, uint64_t unit, struct json_object **out)
{
	return store_query_totals(s, store_db(s), unit, out);
}
