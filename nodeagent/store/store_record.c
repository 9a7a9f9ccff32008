/* The store's side of common/records.h: tables, column lists, binds and reads, walked from the
 * record tables so that a field is written down once. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "store_internal.h"

static const struct rec_col unit_cols[] = { UNIT_RECORD(REC_COL) };
static const struct rec_col process_cols[] = { PROCESS_RECORD(REC_COL) };
static const struct rec_col sample_cols[] = { SAMPLE_RECORD(REC_COL) };
static const struct rec_col stall_start_cols[] = { STALL_START_RECORD(REC_COL) };
static const struct rec_col tool_cols[] = { TOOL_RECORD(REC_COL) };
static const struct rec_col totals_cols[] = { TOTALS_RECORD(REC_COL) };

#define TABLE(n, c, k)                          \
	{                                       \
		n, c, sizeof(c) / sizeof(*c), k \
	}
const struct rec_table store_units = TABLE("units", unit_cols, NULL);
const struct rec_table store_processes =
	TABLE("processes", process_cols, "PRIMARY KEY(boot_id, pid, start_boot_ns)");
const struct rec_table store_samples = TABLE("samples", sample_cols, NULL);
const struct rec_table store_stall_starts = TABLE(
	"stall_starts", stall_start_cols, "PRIMARY KEY(boot_id, pid, start_boot_ns, since_ns)");
const struct rec_table store_tools = TABLE(NULL, tool_cols, NULL);
const struct rec_table store_totals = TABLE(NULL, totals_cols, NULL);

_Static_assert(sizeof(unit_cols) / sizeof(*unit_cols) <= REC_MAX, "REC_MAX too small");

/* Every statement the store runs is prepared here, and every SQLite error said once. */
int store_fail(struct store *s, const char *what)
{
	log_error("%s: %s", what, sqlite3_errmsg(s->db));
	return -EIO;
}

int store_prepare(struct store *s, const char *sql, sqlite3_stmt **out)
{
	if (sqlite3_prepare_v3(store_db(s), sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) !=
	    SQLITE_OK)
		return store_fail(s, "prepare");
	return 0;
}

/* Where a unit field lives in struct unit: the store reads and writes units whole */
struct member {
	unsigned off, size;
	int is_signed;
};
#define MEMBER(name, kind, sql, len, flags) MEMBER_##kind(name)
#define MEMBER_OF(name) { offsetof(struct unit, name), SIZE_OF(name), 0 },
#define SIZE_OF(name) sizeof(((struct unit *)0)->name)
/* integers of 4 or 8 bytes (anything else does not compile), widened by their signedness */
#define MEMBER_INT(name)                                                                       \
	{ offsetof(struct unit, name),                                                         \
	  SIZE_OF(name) + 0 * sizeof(char[SIZE_OF(name) == 4 || SIZE_OF(name) == 8 ? 1 : -1]), \
	  _Generic(((struct unit *)0)->name, int32_t : 1, int64_t : 1, default : 0) },
#define MEMBER_INT0 MEMBER_INT
#define MEMBER_TEXT MEMBER_OF
#define MEMBER_STATE MEMBER_OF
#define MEMBER_BOOT(name) { 0, 0, 0 }, /* the store's own */
static const struct member unit_members[] = { UNIT_RECORD(MEMBER) };

/* Names of the process flags that SQL uses: bound by name, never written as numbers */
static const struct {
	const char *param;
	int64_t value;
} flag_params[] = {
	{ ":oom_killed", PROC_OOM_KILLED },
	{ ":exit_lost", PROC_EXIT_LOST },
};

void store_bind_flags(sqlite3_stmt *st)
{
	for (size_t i = 0; i < sizeof(flag_params) / sizeof(*flag_params); i++) {
		int at = sqlite3_bind_parameter_index(st, flag_params[i].param);

		if (at > 0)
			sqlite3_bind_int64(st, at, flag_params[i].value);
	}
}

int rec_list(const struct rec_table *t, enum rec_list how, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct rec_col *c = &t->cols[i];
		const char *sep = at ? ", " : "";
		int n;

		if (how == REC_LISTED && (c->flags & REC_STORED))
			continue;
		n = how == REC_PARAMS ? snprintf(out + at, len - at, "%s?", at ? "," : "")
		    : how == REC_DEFS
			    ? snprintf(out + at, len - at, "%s%s %s", sep, c->name, c->sql)
		    : how == REC_EXPRS
			    ? snprintf(out + at, len - at, "%s%s AS %s", sep, c->sql, c->name)
			    : snprintf(out + at, len - at, "%s%s", sep, c->name);
		if (n < 0 || (size_t)n >= len - at)
			return -ENAMETOOLONG;
		at += n;
	}
	return 0;
}

/* Create the table, or add the columns an older store lacks (columns are only appended). */
int rec_ensure_table(struct store *s, const struct rec_table *t)
{
	char defs[3072], sql[4096];
	sqlite3_stmt *st;
	int rc, have, err = rec_list(t, REC_DEFS, defs, sizeof(defs));

	if (err)
		return err;
	if ((size_t)snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS %s(%s%s%s)", t->name,
			     defs, t->constraint ? ", " : "",
			     t->constraint ? t->constraint : "") >= sizeof(sql))
		return -ENAMETOOLONG;
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, t->name);
	for (size_t i = 0; i < t->n; i++) {
		const struct rec_col *c = &t->cols[i];

		snprintf(sql, sizeof(sql),
			 "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name='%s'", t->name,
			 c->name);
		if (store_prepare(s, sql, &st))
			return -EIO;
		rc = sqlite3_step(st);
		have = rc == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW)
			return store_fail(s, t->name);
		if (have)
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %s", t->name, c->name,
			 c->sql);
		if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return store_fail(s, sql);
		log_info("store: added column %s.%s", t->name, c->name);
	}
	return 0;
}

/* INSERT OR REPLACE naming every column: right whatever order an older store has them in */
int rec_prepare_insert(struct store *s, const struct rec_table *t, sqlite3_stmt **out)
{
	char names[2048], params[512], sql[3072];
	int err = rec_list(t, REC_NAMES, names, sizeof(names));

	if (!err)
		err = rec_list(t, REC_PARAMS, params, sizeof(params));
	if (err)
		return err;
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s(%s) VALUES(%s)", t->name, names,
		 params);
	return store_prepare(s, sql, out);
}

/* Each column by its kind; what the row leaves unset is NULL: unknown. The strings are not
 * copied: each caller steps the statement and clears its bindings before they go. */
void rec_bind(struct store *s, sqlite3_stmt *st, const struct rec_table *t, const struct rec_row *r)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct rec_col *c = &t->cols[i];
		int at = (int)i + 1;

		switch (c->kind) {
		case REC_BOOT: /* units keep the id itself (store_boot.c) */
			sqlite3_bind_text(st, at, t == &store_units ? s->boot_id : s->boot_key, -1,
					  SQLITE_STATIC);
			break;
		case REC_INT:
		case REC_INT0:
			if (r->set[i] && (r->i[i] || c->kind == REC_INT))
				sqlite3_bind_int64(st, at, r->i[i]);
			break;
		case REC_REAL:
			break; /* no stored column is one */
		case REC_TEXT:
		case REC_STATE:
			/* empty is unknown, but where the column must hold a value */
			if (r->set[i] && r->s[i] && (*r->s[i] || strstr(c->sql, "NOT NULL")))
				sqlite3_bind_text(st, at, r->s[i], -1, SQLITE_STATIC);
			break;
		case REC_BLOB:
			if (r->set[i] && r->len[i])
				sqlite3_bind_blob(st, at, r->s[i], r->len[i], SQLITE_STATIC);
			break;
		}
	}
}

static int64_t member_get(const void *base, const struct member *m)
{
	const char *p = (const char *)base + m->off;
	int32_t i32;
	int64_t i64;

	if (m->size == sizeof(i64)) {
		memcpy(&i64, p, sizeof(i64));
		return i64;
	}
	memcpy(&i32, p, sizeof(i32));
	return m->is_signed ? (int64_t)i32 : (int64_t)(uint32_t)i32;
}

static void member_set(void *base, const struct member *m, int64_t v)
{
	char *p = (char *)base + m->off;
	int32_t i32 = (int32_t)v;

	if (m->size == sizeof(v))
		memcpy(p, &v, sizeof(v));
	else
		memcpy(p, &i32, sizeof(i32));
}

void rec_unit_to_row(const struct unit *u, struct rec_row *r)
{
	for (size_t i = 0; i < store_units.n; i++) {
		const struct member *m = &unit_members[i];

		r->set[i] = 1;
		switch (store_units.cols[i].kind) {
		case REC_INT:
		case REC_INT0:
			r->i[i] = member_get(u, m);
			break;
		case REC_TEXT:
			r->s[i] = (const char *)u + m->off;
			break;
		case REC_STATE:
			r->s[i] = unit_state_name(u->state);
			break;
		default:
			r->set[i] = 0;
		}
	}
}

void rec_unit_from_stmt(sqlite3_stmt *st, struct unit *u)
{
	memset(u, 0, sizeof(*u));
	u->state = UNIT_LOST;
	for (size_t i = 0; i < store_units.n; i++) {
		const struct member *m = &unit_members[i];
		const unsigned char *v;

		switch (store_units.cols[i].kind) {
		case REC_INT:
		case REC_INT0:
			member_set(u, m, sqlite3_column_int64(st, (int)i));
			break;
		case REC_TEXT:
			v = sqlite3_column_text(st, (int)i);
			snprintf((char *)u + m->off, m->size, "%s", v ? (const char *)v : "");
			break;
		case REC_STATE:
			if ((v = sqlite3_column_text(st, (int)i)))
				unit_state_parse((const char *)v, &u->state);
			break;
		default:
			break;
		}
	}
}

struct json_object *store_strings_json(const char *b, size_t len)
{
	struct json_object *v = json_object_new_array();
	size_t at = 0;

	while (v && at < len) {
		size_t l = strnlen(b + at, len - at);

		json_object_array_add(v, json_object_new_string_len(b + at, (int)l));
		at += l + 1;
	}
	return v;
}

struct json_object *store_process_json(const struct rec_row *r)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < store_processes.n; i++) {
		const struct rec_col *c = &store_processes.cols[i];
		struct json_object *v = NULL;

		if (!r->set[i] || (c->flags & REC_STORED))
			continue;
		switch (c->kind) {
		case REC_INT:
		case REC_INT0:
			if (r->i[i] || c->kind == REC_INT)
				v = json_object_new_int64(r->i[i]);
			break;
		case REC_TEXT:
		case REC_STATE:
			if (r->s[i])
				v = json_object_new_string(r->s[i]);
			break;
		case REC_BLOB:
			if (r->s[i])
				v = store_strings_json(r->s[i], r->len[i]);
			break;
		default:
			break;
		}
		if (v)
			json_object_object_add(o, c->name, v);
	}
	return o;
}
