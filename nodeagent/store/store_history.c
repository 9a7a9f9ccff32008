/* A step's history: the earlier runs of the same step, for "slower than usual". */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "store_internal.h"

/* The same step is the same pipeline and workflow step when the unit has them, else the same
 * Slurm job name and step number (a script submitted again), else the same traced command
 * name. Only finished, successful runs of the unit's own user that began before it count.
 * Columns: id, start_ns, end_ns; newest first. */
static int history_prepare(sqlite3 *db, const struct unit *u, unsigned limit, sqlite3_stmt **out)
{
	static const char base[] =
		"SELECT id, start_ns, end_ns FROM units u WHERE u.id != :id AND u.state = "
		":completed"
		" AND u.end_ns IS NOT NULL AND u.start_ns < :start AND u.uid = :uid"
		" AND u.kind = :kind AND ";
	static const char *const same[] = {
		"u.pipeline = :pipeline AND u.step_name = :step",
		"u.job_name = :job_name AND u.step_id = :step_id AND u.pipeline IS NULL",
		"u.name = :name AND u.job_id = 0 AND u.pipeline IS NULL",
	};
	char sql[1024];
	sqlite3_stmt *st;
	int which = u->pipeline[0] && u->step_name[0] ? 0 : u->job_id && u->job_name[0] ? 1 : 2;

	snprintf(sql, sizeof(sql), "%s%s ORDER BY u.start_ns DESC LIMIT :limit", base, same[which]);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	store_bind_unit_words(st);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":id"), (int64_t)u->id);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":start"), u->start_ns);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":uid"), u->uid);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":kind"), u->kind, -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":pipeline"), u->pipeline, -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":step"), u->step_name, -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":job_name"), u->job_name, -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":step_id"), u->step_id);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":name"), u->name, -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":limit"), limit);
	*out = st;
	return 0;
}

int store_history_elapsed(sqlite3 *db, const struct unit *u, unsigned limit, int64_t *elapsed,
			  size_t *n)
{
	sqlite3_stmt *st;
	size_t got = 0;
	int rc;

	if (history_prepare(db, u, limit, &st))
		return -EIO;
	while (got < limit && (rc = sqlite3_step(st)) == SQLITE_ROW)
		elapsed[got++] = sqlite3_column_int64(st, 2) - sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	if (got < limit && rc != SQLITE_DONE)
		return -EIO;
	*n = got;
	return 0;
}

int store_unit_history(struct store *s, uint64_t unit, unsigned limit, struct json_object **out)
{
	struct unit u;
	struct json_object *rows;
	sqlite3_stmt *st;
	int err, rc;

	err = store_get_unit(s, unit, &u);
	if (err)
		return err;
	if (history_prepare(store_db(s), &u, limit, &st))
		return store_fail(s, "history");
	rows = json_object_new_array();
	err = rows ? 0 : -ENOMEM;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct json_object *row = json_object_new_object(), *totals = NULL;
		uint64_t id = sqlite3_column_int64(st, 0);

		if (!row || json_object_array_add(rows, row) < 0) {
			json_object_put(row);
			err = -ENOMEM;
			break;
		}
		json_object_object_add(row, "unit", json_object_new_int64((int64_t)id));
		json_object_object_add(row, "start_ns",
				       json_object_new_int64(sqlite3_column_int64(st, 1)));
		json_object_object_add(row, "end_ns",
				       json_object_new_int64(sqlite3_column_int64(st, 2)));
		err = store_query_totals(s, s->db, id, &totals);
		if (!err)
			json_object_object_add(row, "totals", totals);
	}
	if (!err && rc != SQLITE_DONE)
		err = store_fail(s, "history");
	sqlite3_finalize(st);
	if (err) {
		json_object_put(rows);
		return err;
	}
	*out = rows;
	return 0;
}
