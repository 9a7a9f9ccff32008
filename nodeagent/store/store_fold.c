/* Processes past their unit's cap (StoreUnitMaxSize) are not stored one row each: each is added
 * into one row of its unit per tool, subcommand, exit status and OOM kill, whose "folded" says
 * how many processes it stands for. Totals and tool tables add those rows up with the others
 * (common/records.h: a row counts as folded processes, or 1); listings leave them out. A
 * unit's storm thus costs the store a few rows, whatever its length, and its report still adds
 * up. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store_internal.h"

#define FOLD_OTHER_TOOL "(other tools)" /* the row of a unit with too many tools folded */

/* How a column of a folded row takes one more process: integers are summed, but for these.
 * Strings and the row's key stay those of its first process. */
enum fold_how { FOLD_SUM, FOLD_MAX, FOLD_MIN, FOLD_KEEP };
static const struct {
	const char *name;
	enum fold_how how;
} fold_rules[] = {
	{ "pid", FOLD_KEEP },	       { "start_boot_ns", FOLD_KEEP },
	{ "unit", FOLD_KEEP },	       { "ppid", FOLD_KEEP },
	{ "uid", FOLD_KEEP },	       { "gid", FOLD_KEEP },
	{ "cgroup_id", FOLD_KEEP },    { "status", FOLD_KEEP },
	{ "flags", FOLD_KEEP },	       { "tool_excluded", FOLD_KEEP },
	{ "tool_wrapper", FOLD_KEEP }, { "stall_start_ns", FOLD_KEEP },
	{ "start_ns", FOLD_MIN },      { "exec_ns", FOLD_MIN },
	{ "end_ns", FOLD_MAX },	       { "maxrss_kb", FOLD_MAX },
	{ "ru_maxrss_kb", FOLD_MAX },  { "threads", FOLD_MAX },
	{ "stall_ns", FOLD_MAX },      { "parent_start_boot_ns", FOLD_KEEP },
	{ "seq", FOLD_KEEP },
};

static enum fold_how fold_how(const struct rec_col *c)
{
	size_t i;

	if (c->kind != REC_INT && c->kind != REC_INT0)
		return FOLD_KEEP;
	for (i = 0; i < sizeof(fold_rules) / sizeof(*fold_rules); i++)
		if (!strcmp(fold_rules[i].name, c->name))
			return fold_rules[i].how;
	return FOLD_SUM;
}

/* INSERT of a process row that, on its key's row already there, adds into it instead; and the
 * lookups of a unit's folded row and of a new key. Prepared on the committing thread, at its
 * first fold, straight on the connection (the thread holds it). */
static int fold_prepare(struct store *s)
{
	char names[2048], params[512], sql[8192];
	size_t at;
	int n, err = rec_list(&store_processes, REC_NAMES, names, sizeof(names));

	if (!err)
		err = rec_list(&store_processes, REC_PARAMS, params, sizeof(params));
	if (err)
		return SQLITE_ERROR;
	n = snprintf(sql, sizeof(sql),
		     "INSERT INTO processes(%s) VALUES(%s)"
		     " ON CONFLICT(boot_id, pid, start_boot_ns) DO UPDATE SET ",
		     names, params);
	at = (size_t)n;
	for (size_t i = 0; i < store_processes.n && at < sizeof(sql); i++) {
		const char *c = store_processes.cols[i].name;
		enum fold_how how = fold_how(&store_processes.cols[i]);

		if (how == FOLD_KEEP)
			continue;
		n = how == FOLD_SUM ? snprintf(sql + at, sizeof(sql) - at,
					       "%s = CASE WHEN excluded.%s IS NULL THEN %s"
					       " ELSE COALESCE(%s, 0) + excluded.%s END, ",
					       c, c, c, c, c)
				    : snprintf(sql + at, sizeof(sql) - at,
					       "%s = CASE WHEN %s IS NULL OR excluded.%s %s %s"
					       " THEN excluded.%s ELSE %s END, ",
					       c, c, c, how == FOLD_MAX ? ">" : "<", c, c, c);
		at += (size_t)n;
	}
	if (at + 1 >= sizeof(sql))
		return SQLITE_TOOBIG;
	sql[at - 2] = 0; /* the last ", " */
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->fold, NULL) ||
	    sqlite3_prepare_v3(
		    s->db,
		    "SELECT start_boot_ns FROM processes WHERE folded IS NOT NULL"
		    " AND unit=?1 AND tool IS NULLIF(?3, '') AND subcommand IS NULLIF(?4, '')"
		    " AND status=?5 AND boot_id=?2 AND pid=0 AND ((flags & ?6) != 0) = ?7"
		    " AND tool_excluded=?8 AND tool_wrapper=?9",
		    -1, SQLITE_PREPARE_PERSISTENT, &s->fold_find, NULL) ||
	    sqlite3_prepare_v3(
		    s->db, "SELECT MIN(start_boot_ns) FROM processes WHERE boot_id=?1 AND pid=0",
		    -1, SQLITE_PREPARE_PERSISTENT, &s->fold_key, NULL))
		return sqlite3_errcode(s->db);
	return SQLITE_OK;
}

static const char *text_of(const struct rec_row *r, int col)
{
	return r->set[col] && r->s[col] ? r->s[col] : "";
}

/* The unit's folded row of r's tool (or tool), subcommand, exit status, OOM kill and tool
 * kind: 1 and its key in *key, 0 when there is none yet, or -1 (an error of SQLite's). Looked
 * up by what the row stands for, through an index of folded rows only, so that no two units'
 * rows ever share a key, whatever their tools are named. */
static int fold_row_find(struct store *s, const struct rec_row *r, const char *tool,
			 const char *sub, int64_t *key)
{
	sqlite3_stmt *st = s->fold_find;
	int rc;

	sqlite3_bind_int64(st, 1, r->i[PCOL_unit]);
	sqlite3_bind_text(st, 2, s->boot_key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, tool, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, sub, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, r->i[PCOL_status]);
	sqlite3_bind_int64(st, 6, PROC_OOM_KILLED);
	sqlite3_bind_int(st, 7, !!(r->i[PCOL_flags] & PROC_OOM_KILLED));
	sqlite3_bind_int64(st, 8, r->i[PCOL_tool_excluded]);
	sqlite3_bind_int64(st, 9, r->i[PCOL_tool_wrapper]);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*key = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* A key for a new folded row: below every folded row's of this boot (pid 0), so never a real
 * process's start nor another row's. */
static int fold_new_key(struct store *s, int64_t *key)
{
	int64_t lowest = 0;
	int rc;

	sqlite3_bind_text(s->fold_key, 1, s->boot_key, -1, SQLITE_STATIC);
	rc = sqlite3_step(s->fold_key);
	if (rc == SQLITE_ROW) /* NULL, as 0: no folded row yet */
		lowest = sqlite3_column_int64(s->fold_key, 0);
	sqlite3_reset(s->fold_key);
	if (rc != SQLITE_ROW)
		return rc;
	*key = (lowest < 0 ? lowest : 0) - 1;
	return SQLITE_OK;
}

int store_fold_write(struct store *s, struct rec_row *r, int other, size_t *new_bytes)
{
	const char *tool = text_of(r, PCOL_tool), *sub = text_of(r, PCOL_subcommand);
	int64_t key;
	int has, rc;

	*new_bytes = 0;
	if (!s->fold && (rc = fold_prepare(s)) != SQLITE_OK)
		return rc;
	/* a tool with a row of its own keeps adding into it, however many rows the unit has */
	has = fold_row_find(s, r, tool, sub, &key);
	if (has == 0 && other) {
		tool = FOLD_OTHER_TOOL;
		sub = "";
		has = fold_row_find(s, r, tool, sub, &key);
	}
	if (has < 0)
		return sqlite3_errcode(s->db);
	if (has == 0 && (rc = fold_new_key(s, &key)) != SQLITE_OK)
		return rc;
	/* what the row keeps: its numbers, comm, tool and subcommand (not argv, exe) */
	if (!has)
		*new_bytes = ROW_FIXED_BYTES + strlen(text_of(r, PCOL_comm)) + strlen(tool) +
			     strlen(sub);
	rec_int(r, PCOL_pid, 0);
	rec_int(r, PCOL_start_boot_ns, key);
	rec_text(r, PCOL_tool, tool);
	rec_text(r, PCOL_subcommand, sub);
	rec_bind(s, s->fold, &store_processes, r);
	rc = sqlite3_step(s->fold);
	sqlite3_reset(s->fold);
	sqlite3_clear_bindings(s->fold);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}
