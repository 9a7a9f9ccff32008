/* bench/storerows SRC DST N BATCH VARIANT: the CPU time SQLite takes to insert one process row
 * of a store tracerd wrote (SRC: its processes table's schema and rows) into a new store (DST),
 * as tracerd's committing thread does it: its pragmas, INSERT OR REPLACE naming every column,
 * BATCH rows per transaction, N rows in all (pid, start and seq made new for each). VARIANT
 * changes the new store's table first, to show what a row costs without some of it. Prints
 * the microseconds of this thread's CPU per row, commits and checkpoints included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>
#include "store_pragmas.h" /* nodeagent/store: tracerd's settings */

#define COLS_MAX 128

static double thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int run(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
		return 0;
	fprintf(stderr, "storerows: %s: %s\n", sql, err ? err : "?");
	sqlite3_free(err);
	return -1;
}

#define BOOT_ID "0b1d7a44-5e1f-4000-8000-00000000000a" /* one as the kernel gives it */

/* The variants: SQL run on the new store once it has tracerd's table and indexes. A table
 * recreated keeps tracerd's columns (CREATE TABLE ... AS SELECT) but no key. */
static const struct {
	const char *name, *sql;
	const char *edit[3][2]; /* the table's CREATE TABLE with these texts replaced */
	int boot_id;		/* the boot id itself in each row, as before the boots table */
	const char *pre;	/* run on the new store before its tables */
} variants[] = {
	{ "tracerd", "" },
	{ "no-seq-index", "DROP INDEX processes_seq" },
	{ "no-index", "DROP INDEX processes_seq; DROP INDEX processes_unit_start;"
		      " DROP INDEX processes_folded; DROP INDEX IF EXISTS processes_logs" },
	{ "heap", "DROP TABLE processes; CREATE TABLE processes AS SELECT * FROM src.processes"
		  " WHERE 0" },
	{ "heap-12-columns",
	  "DROP TABLE processes; CREATE TABLE processes AS SELECT boot_id, pid, start_boot_ns,"
	  " unit, ppid, start_ns, end_ns, comm, exe, argv, cpu_ns, seq FROM src.processes"
	  " WHERE 0" },
	{ "seq-rowid",
	  "DROP INDEX processes_seq",
	  { { "seq INTEGER", "seq INTEGER PRIMARY KEY" },
	    { "PRIMARY KEY(boot_id", "UNIQUE(boot_id" } } },
	{ "boot-id", "", {}, 1 },
	{ "without-rowid", "", { { "start_boot_ns))", "start_boot_ns)) WITHOUT ROWID" } } },
	{ "unit-key",
	  "DROP INDEX processes_unit_start",
	  { { "boot_id TEXT", "boot_id INTEGER" },
	    { "PRIMARY KEY(boot_id, pid, start_boot_ns)",
	      "UNIQUE(unit, start_boot_ns, pid, boot_id)" } } },
	{ "unit-key-no-seq-index",
	  "DROP INDEX processes_unit_start; DROP INDEX processes_seq",
	  { { "boot_id TEXT", "boot_id INTEGER" },
	    { "PRIMARY KEY(boot_id, pid, start_boot_ns)",
	      "UNIQUE(unit, start_boot_ns, pid, boot_id)" } } },
	{ "page-8k", "", {}, 0, "PRAGMA page_size=8192" },
	{ "page-16k", "", {}, 0, "PRAGMA page_size=16384" },
};

/* s with each edit's first text replaced by its second, into out; -1 when one is not there */
static int edit_sql(const char *s, const char *const edit[][2], size_t n, char *out, size_t len)
{
	char tmp[8192];

	snprintf(out, len, "%s", s);
	for (size_t e = 0; e < n && edit[e][0]; e++) {
		const char *at = strstr(out, edit[e][0]);

		if (!at)
			return -1;
		snprintf(tmp, sizeof(tmp), "%.*s%s%s", (int)(at - out), out, edit[e][1],
			 at + strlen(edit[e][0]));
		snprintf(out, len, "%s", tmp);
	}
	return 0;
}

int main(int argc, char **argv)
{
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_stmt *q = NULL, *ins = NULL;
	sqlite3_value **rows[4096];
	char sql[8192], wal[4096], names[4096] = "", params[1024] = "", col[COLS_MAX][64];
	int ncols = 0, nrows = 0, at[COLS_MAX], pid = -1, start = -1, seq = -1, boot = -1;
	long n, batch, i;
	const char *want;
	size_t v;
	double t0;

	if (argc != 6 || (n = atol(argv[3])) <= 0 || (batch = atol(argv[4])) <= 0) {
		fprintf(stderr, "usage: storerows SRC DST N BATCH VARIANT\n");
		return 2;
	}
	want = argv[5];
	for (v = 0; v < sizeof(variants) / sizeof(*variants) && strcmp(variants[v].name, want); v++)
		;
	if (v == sizeof(variants) / sizeof(*variants)) {
		fprintf(stderr, "storerows: no variant %s\n", want);
		return 2;
	}
	snprintf(wal, sizeof(wal), "%s-wal", argv[2]);
	unlink(argv[2]);
	unlink(wal);
	if (sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_open(argv[2], &dst) != SQLITE_OK) {
		fprintf(stderr, "storerows: cannot open the stores\n");
		return 1;
	}
	/* the page size of the store tracerd made, unless the variant sets one */
	if (sqlite3_prepare_v2(src, "PRAGMA page_size", -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW)
		return 1;
	snprintf(sql, sizeof(sql), "PRAGMA page_size=%d", sqlite3_column_int(q, 0));
	sqlite3_finalize(q);
	if (run(dst, variants[v].pre ? variants[v].pre : sql))
		return 1;
	if (run(dst, STORE_PRAGMAS)) /* tracerd's */
		return 1;
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS src", argv[1]);
	if (run(dst, sql))
		return 1;
	if (sqlite3_prepare_v2(src,
			       "SELECT sql FROM sqlite_master WHERE tbl_name = 'processes' AND"
			       " sql IS NOT NULL ORDER BY type DESC",
			       -1, &q, NULL) != SQLITE_OK)
		return 1;
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *create = (const char *)sqlite3_column_text(q, 0);

		if (!strncmp(create, "CREATE TABLE", 12) &&
		    edit_sql(create, variants[v].edit, 3, sql, sizeof(sql))) {
			fprintf(stderr, "storerows: %s: the table is not as the variant expects\n",
				want);
			return 1;
		}
		if (run(dst, strncmp(create, "CREATE TABLE", 12) ? create : sql))
			return 1;
	}
	sqlite3_finalize(q);
	if (*variants[v].sql && run(dst, variants[v].sql))
		return 1;
	/* the new table's columns, filled from the source's rows of the same names */
	snprintf(sql, sizeof(sql), "SELECT * FROM src.processes WHERE folded IS NULL LIMIT %zu",
		 sizeof(rows) / sizeof(*rows));
	if (sqlite3_prepare_v2(dst, "SELECT name FROM pragma_table_info('processes')", -1, &q,
			       NULL) != SQLITE_OK)
		return 1;
	while (sqlite3_step(q) == SQLITE_ROW && ncols < COLS_MAX) {
		snprintf(col[ncols], sizeof(col[ncols]), "%s", sqlite3_column_text(q, 0));
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 ncols ? ", " : "", col[ncols]);
		snprintf(params + strlen(params), sizeof(params) - strlen(params), "%s?",
			 ncols ? ", " : "");
		pid = strcmp(col[ncols], "pid") ? pid : ncols;
		start = strcmp(col[ncols], "start_boot_ns") ? start : ncols;
		seq = strcmp(col[ncols], "seq") ? seq : ncols;
		boot = strcmp(col[ncols], "boot_id") ? boot : ncols;
		ncols++;
	}
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(dst, sql, -1, &q, NULL) != SQLITE_OK)
		return 1;
	for (int c = 0; c < ncols; c++) {
		at[c] = -1;
		for (int k = 0; k < sqlite3_column_count(q); k++)
			if (!strcmp(col[c], sqlite3_column_name(q, k)))
				at[c] = k;
	}
	while (nrows < (int)(sizeof(rows) / sizeof(*rows)) && sqlite3_step(q) == SQLITE_ROW) {
		rows[nrows] = calloc((size_t)ncols, sizeof(**rows));
		for (int c = 0; c < ncols; c++)
			rows[nrows][c] =
				at[c] < 0 ? NULL
					  : sqlite3_value_dup(sqlite3_column_value(q, at[c]));
		nrows++;
	}
	sqlite3_finalize(q);
	if (!nrows || pid < 0 || start < 0) {
		fprintf(stderr, "storerows: %s holds no process rows\n", argv[1]);
		return 1;
	}
	run(dst, "DETACH src");
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO processes(%s) VALUES(%s)", names,
		 params);
	if (sqlite3_prepare_v3(dst, sql, -1, SQLITE_PREPARE_PERSISTENT, &ins, NULL) != SQLITE_OK) {
		fprintf(stderr, "storerows: %s\n", sqlite3_errmsg(dst));
		return 1;
	}
	t0 = thread_cpu_s();
	for (i = 0; i < n;) {
		run(dst, "BEGIN");
		for (long k = 0; k < batch && i < n; k++, i++) {
			sqlite3_value **r = rows[i % nrows];

			for (int c = 0; c < ncols; c++) {
				if (c == pid)
					sqlite3_bind_int64(ins, c + 1, 100000 + i);
				else if (c == start)
					sqlite3_bind_int64(ins, c + 1, 1000000000LL + i * 1000);
				else if (c == seq)
					sqlite3_bind_int64(ins, c + 1, i + 1);
				else if (c == boot && variants[v].boot_id)
					sqlite3_bind_text(ins, c + 1, BOOT_ID, -1, SQLITE_STATIC);
				else if (r[c] && sqlite3_value_type(r[c]) != SQLITE_NULL)
					sqlite3_bind_value(ins, c + 1, r[c]);
			}
			if (sqlite3_step(ins) != SQLITE_DONE) {
				fprintf(stderr, "storerows: %s\n", sqlite3_errmsg(dst));
				return 1;
			}
			sqlite3_reset(ins);
			sqlite3_clear_bindings(ins);
		}
		if (run(dst, "COMMIT"))
			return 1;
	}
	printf("%.3f\n", (thread_cpu_s() - t0) / (double)n * 1e6);
	sqlite3_finalize(ins);
	sqlite3_close(dst);
	sqlite3_close(src);
	unlink(argv[2]);
	unlink(wal);
	return 0;
}
