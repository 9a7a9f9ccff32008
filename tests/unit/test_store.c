/* Unit tests for nodeagent/store/store.c on a temporary directory: schema, units, processes,
 * queries, running units by boot, schema versions, batching and what a crash keeps. */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"
#include <sqlite3.h>

#include "log.h"
#include "store.h"
#include "store_internal.h"

#define BOOT_A "0b1d7a44-0000-4000-8000-00000000000a"
#define BOOT_B "0b1d7a44-0000-4000-8000-00000000000b"
#define OFFSET 1700000000000000000ll /* boottime → unix time */

static char dir[64];
static char dbpath[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_store.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(dbpath, sizeof(dbpath), "%s/db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tl_rmtree(dir);
}

static struct store *open_store(const char *boot)
{
	struct store *s = NULL;

	assert_int_equal(store_open(&s, dbpath, boot), 0);
	assert_non_null(s);
	return s;
}

/* ---- helpers: units, processes, JSON */

static struct unit mkunit(uint64_t id, const char *name, uint32_t uid, uint64_t job,
			  enum unit_state state)
{
	struct unit u;

	memset(&u, 0, sizeof(u));
	u.id = id;
	snprintf(u.name, sizeof(u.name), "%s", name);
	snprintf(u.kind, sizeof(u.kind), "%s", job ? "slurm" : "local");
	u.uid = uid;
	u.gid = uid + 1;
	u.root_pid = 1000 + id;
	u.root_start_ns = 5000000000ull * id;
	u.job_id = job;
	u.step_id = job ? 0 : STEP_NONE;
	u.task_id = -1;
	u.start_ns = OFFSET + 1000 * id;
	u.state = state;
	u.exit_status = -1;
	return u;
}

static void put(struct store *s, const struct unit *u)
{
	assert_int_equal(store_put_unit(s, u), 0);
}

static struct proc mkproc(uint64_t unit, uint32_t pid, uint64_t start)
{
	struct proc p;

	memset(&p, 0, sizeof(p));
	p.pid = pid;
	p.ppid = 1;
	p.uid = 1000;
	p.gid = 1001;
	p.start_ns = start;
	p.unit = unit;
	p.flags = PROC_FINISHED;
	p.exit.h.type = EVENT_EXIT;
	p.exit.h.pid = pid;
	p.exit.h.start_ns = start;
	p.exit.h.time_ns = start + 2000000000ull;
	return p;
}

/* A separate SQLite connection, as another process (tracer-jobstat, a restart) sees it. */
static int64_t count_rows(const char *sql)
{
	char path[192];
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	snprintf(path, sizeof(path), "%s/tracer.db", dbpath);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static void exec_sql(const char *sql)
{
	char path[192];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/tracer.db", dbpath);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* ---- tests */

static void test_open_creates_schema(void **state)
{
	struct store *s;

	(void)state;
	s = open_store(BOOT_A); /* creates the directory too */
	store_close(s);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND"
				    " name IN ('meta','units','processes','samples')"),
			 4);
	assert_int_equal(count_rows("SELECT value FROM meta WHERE key='schema_version'"), 1);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM pragma_journal_mode WHERE"
				    " journal_mode='wal'"),
			 1);
	/* opening again changes nothing, keeps one version row */
	s = open_store(BOOT_A);
	store_close(s);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM meta"), 1);
	store_close(NULL);
}

static void test_open_errors(void **state)
{
	struct store *s = (struct store *)0x1;
	char path[192];
	FILE *f;

	(void)state;
	assert_int_equal(store_open(&s, "/nonexistent/dir/state", BOOT_A), -ENOENT);
	assert_ptr_equal(s, (struct store *)0x1); /* untouched */

	/* a file that is not a database: an error, not a crash */
	assert_int_equal(mkdir(dbpath, 0700), 0);
	snprintf(path, sizeof(path), "%s/tracer.db", dbpath);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not an SQLite database, just some text long enough to have a header\n", f);
	fclose(f);
	assert_true(store_open(&s, dbpath, BOOT_A) < 0);
	assert_ptr_equal(s, (struct store *)0x1);
}

static void test_newer_schema_refused(void **state)
{
	struct store *s = NULL;

	(void)state;
	store_close(open_store(BOOT_A));
	exec_sql("UPDATE meta SET value='2' WHERE key='schema_version'");
	assert_int_equal(store_open(&s, dbpath, BOOT_A), -EPROTO);
	assert_null(s);
	/* and left as it was for the newer tracerd */
	assert_int_equal(count_rows("SELECT value FROM meta WHERE key='schema_version'"), 2);
	/* the same version opens */
	exec_sql("UPDATE meta SET value='1' WHERE key='schema_version'");
	store_close(open_store(BOOT_A));
}

static void test_units_and_ids(void **state)
{
	struct store *s;
	struct unit u;
	uint64_t id = 0;

	(void)state;
	s = open_store(BOOT_A);
	assert_int_equal(store_next_unit_id(s, &id), 0);
	assert_int_equal(id, 1);
	u = mkunit(1, "job-100", 1000, 100, UNIT_RUNNING);
	put(s, &u);
	u = mkunit(7, "build", 2000, 0, UNIT_COMPLETED);
	put(s, &u);
	/* uncommitted writes count for this connection */
	assert_int_equal(store_next_unit_id(s, &id), 0);
	assert_int_equal(id, 8);
	/* a put with the same id updates */
	u.state = UNIT_FAILED;
	u.end_ns = OFFSET + 99;
	put(s, &u);
	store_close(s);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units"), 2);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units WHERE id=7 AND state='FAILED'"), 1);
	/* the next id survives a restart */
	s = open_store(BOOT_A);
	assert_int_equal(store_next_unit_id(s, &id), 0);
	assert_int_equal(id, 8);
	store_close(s);
}

static void test_processes_roundtrip(void **state)
{
	static const char argv[] = "samtools\0sort\0-o\0out.bam\0--password=***";
	struct store *s;
	struct unit u = mkunit(1, "job-100", 1000, 100, UNIT_RUNNING);
	struct proc p = mkproc(1, 4242, 10000000000ull), q = mkproc(1, 4243, 11000000000ull);
	json_object *rows = NULL, *r, *a;

	(void)state;
	s = open_store(BOOT_A);
	put(s, &u);
	p.ppid = 4241;
	p.exec_ns = p.start_ns + 5000;
	p.exe = strdup("/usr/bin/samtools");
	p.argv = malloc(sizeof(argv));
	assert_non_null(p.argv);
	memcpy(p.argv, argv, sizeof(argv));
	p.argv_len = sizeof(argv) - 1;
	p.flags |= PROC_EXECED | PROC_OOM_KILLED;
	p.cgroup_id = 777;
	strcpy(p.comm, "samtools");
	p.exit.utime_ns = 3;
	p.exit.stime_ns = 1;
	p.exit.runtime_ns = 1000;
	p.exit.peak_rss_kb = 2048;
	p.exit.read_bytes = 1 << 20;
	p.exit.write_bytes = 1 << 21;
	p.exit.rchar = 11;
	p.exit.wchar = 12;
	p.exit.minflt = 13;
	p.exit.majflt = 14;
	p.exit.nvcsw = 15;
	p.exit.nivcsw = 16;
	p.exit.threads = 65;
	p.exit.status = 9; /* killed by SIGKILL */
	p.exit.flags = EXIT_THREADS_TRUNCATED;
	assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	/* a process known only from its exit: no exe, argv, comm or exec time */
	q.exit.runtime_ns = 500;
	q.exit.status = 1 << 8;
	assert_int_equal(store_add_process(s, &q, OFFSET), 0);
	/* stored twice (a replayed exit): still one row */
	assert_int_equal(store_add_process(s, &q, OFFSET), 0);
	assert_int_equal(store_commit(s), 0);
	store_close(s);
	free(p.exe);
	free(p.argv);

	s = open_store(BOOT_A);
	assert_int_equal(store_unit_processes(s, 1, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 2);
	r = json_object_array_get_idx(rows, 0);
	assert_int_equal(geti(r, "pid"), 4242);
	assert_int_equal(geti(r, "ppid"), 4241);
	assert_int_equal(geti(r, "uid"), 1000);
	assert_int_equal(geti(r, "start_ns"), OFFSET + 10000000000ll);
	assert_int_equal(geti(r, "exec_ns"), OFFSET + 10000005000ll);
	assert_int_equal(geti(r, "end_ns"), OFFSET + 12000000000ll);
	assert_string_equal(gets_(r, "comm"), "samtools");
	assert_string_equal(gets_(r, "exe"), "/usr/bin/samtools");
	a = key(r, "argv");
	assert_true(json_object_is_type(a, json_type_array));
	assert_int_equal(json_object_array_length(a), 5);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 0)), "samtools");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 3)), "out.bam");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 4)),
			    "--password=***");
	assert_int_equal(geti(r, "cpu_ns"), 1000);
	assert_int_equal(geti(r, "user_ns"), 750);
	assert_int_equal(geti(r, "sys_ns"), 250);
	assert_int_equal(geti(r, "maxrss_kb"), 2048);
	assert_int_equal(geti(r, "read_bytes"), 1 << 20);
	assert_int_equal(geti(r, "write_bytes"), 1 << 21);
	assert_int_equal(geti(r, "rchar"), 11);
	assert_int_equal(geti(r, "wchar"), 12);
	assert_int_equal(geti(r, "minflt"), 13);
	assert_int_equal(geti(r, "majflt"), 14);
	assert_int_equal(geti(r, "nvcsw"), 15);
	assert_int_equal(geti(r, "nivcsw"), 16);
	assert_int_equal(geti(r, "threads"), 65);
	assert_int_equal(geti(r, "status"), 9);
	assert_int_equal(geti(r, "flags"), PROC_FINISHED | PROC_EXECED | PROC_OOM_KILLED | 0x100);

	r = json_object_array_get_idx(rows, 1);
	assert_int_equal(geti(r, "pid"), 4243);
	/* NULL columns are absent: the reader prints them as unknown */
	assert_false(has(r, "exec_ns"));
	assert_false(has(r, "exe"));
	assert_false(has(r, "argv"));
	assert_false(has(r, "comm"));
	/* no tick split: all user time */
	assert_int_equal(geti(r, "user_ns"), 500);
	assert_int_equal(geti(r, "sys_ns"), 0);
	assert_int_equal(geti(r, "status"), 256);
	json_object_put(rows);

	/* another unit has none */
	assert_int_equal(store_unit_processes(s, 2, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	store_close(s);
}

static void test_argv_edge_blobs(void **state)
{
	struct store *s = open_store(BOOT_A);
	struct proc p = mkproc(3, 1, 1);
	json_object *rows, *a;

	(void)state;
	/* empty arguments keep their places; a blob without final NUL ends the last one */
	p.argv = malloc(8);
	assert_non_null(p.argv);
	memcpy(p.argv, "\0a\0\0b", 5);
	p.argv_len = 5;
	assert_int_equal(store_add_process(s, &p, 0), 0);
	free(p.argv);
	assert_int_equal(store_unit_processes(s, 3, &rows), 0);
	a = key(json_object_array_get_idx(rows, 0), "argv");
	assert_int_equal(json_object_array_length(a), 4);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 0)), "");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 1)), "a");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 2)), "");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 3)), "b");
	json_object_put(rows);
	store_close(s);
}

static void test_find_units(void **state)
{
	struct store *s = open_store(BOOT_A);
	struct unit u;
	json_object *rows;

	(void)state;
	u = mkunit(1, "job-100", 1000, 100, UNIT_RUNNING);
	put(s, &u);
	u = mkunit(2, "job-100.batch", 1000, 100, UNIT_COMPLETED);
	u.step_id = STEP_BATCH;
	snprintf(u.job_name, sizeof(u.job_name), "align");
	snprintf(u.pipeline, sizeof(u.pipeline), "nf-core/rnaseq");
	put(s, &u);
	u = mkunit(3, "build", 2000, 0, UNIT_COMPLETED);
	put(s, &u);
	u = mkunit(100, "hundred", 2000, 0, UNIT_RUNNING);
	put(s, &u);

	/* a run by its id "rN"; a bare number is a Slurm job id, never a run's */
	assert_int_equal(store_find_units(s, "r3", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	assert_string_equal(gets_(json_object_array_get_idx(rows, 0), "name"), "build");
	assert_string_equal(gets_(json_object_array_get_idx(rows, 0), "kind"), "local");
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "3", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "r1", UINT32_MAX, &rows), 0); /* unit 1 is a job's */
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "r3x", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);

	/* by job id: its units, ordered by id; not run 100 */
	assert_int_equal(store_find_units(s, "100", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 2);
	assert_int_equal(geti(json_object_array_get_idx(rows, 0), "id"), 1);
	assert_int_equal(geti(json_object_array_get_idx(rows, 1), "id"), 2);
	assert_int_equal(geti(json_object_array_get_idx(rows, 1), "step_id"), STEP_BATCH);
	assert_string_equal(gets_(json_object_array_get_idx(rows, 1), "pipeline"),
			    "nf-core/rnaseq");
	assert_string_equal(gets_(json_object_array_get_idx(rows, 1), "state"), "COMPLETED");
	assert_string_equal(gets_(json_object_array_get_idx(rows, 0), "boot_id"), BOOT_A);
	/* empty strings and a running unit's end are not stored */
	assert_false(has(json_object_array_get_idx(rows, 0), "job_name"));
	assert_false(has(json_object_array_get_idx(rows, 0), "end_ns"));
	json_object_put(rows);

	/* the uid filter: only that user's */
	assert_int_equal(store_find_units(s, "100", 1000, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 2);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "100", 2000, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "r100", 2000, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	assert_string_equal(gets_(json_object_array_get_idx(rows, 0), "name"), "hundred");
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "r100", 1000, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "job-100", 2000, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);

	/* by name, exactly */
	assert_int_equal(store_find_units(s, "job-100.batch", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	assert_int_equal(geti(json_object_array_get_idx(rows, 0), "id"), 2);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "job-10", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);

	/* not numbers, not names: nothing, and nothing harmed */
	assert_int_equal(store_find_units(s, "", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "3x", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "1' OR '1'='1", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "x'); DROP TABLE units; --", UINT32_MAX, &rows), 0);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "r3", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1); /* the table is intact */
	json_object_put(rows);
	/* a number is a Slurm job id, never a unit's own id */
	assert_int_equal(store_find_units(s, "2", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	store_close(s);
}

/* A unit's totals kept in memory (process_row_sum, for the Prometheus endpoint) say what the
 * store's totals say of the same processes: one definition of each figure. */
static void test_totals_in_memory(void **state)
{
	static const char *const keys[] = {
		"nprocs",      "cpu_ns", "user_ns", "sys_ns",	   "maxrss_kb", "read_bytes",
		"write_bytes", "rchar",	 "wchar",   "cpu_wait_ns", "iowait_ns", "offcpu_ns"
	};
	struct store *s = open_store(BOOT_A);
	struct row_sums sums, merged, half;
	struct rec_row r;
	json_object *t;
	struct proc p;

	(void)state;
	memset(&sums, 0, sizeof(sums));
	memset(&half, 0, sizeof(half));
	for (uint32_t i = 0; i < 6; i++) {
		p = mkproc(21, 300 + i, 1000000000ull * (i + 1));
		p.exit.runtime_ns = 7000000 * (i + 1);
		p.base.runtime_ns = 1000000 * i; /* its work before its exec */
		p.exit.utime_ns = 3;
		p.exit.stime_ns = 1;
		p.exit.peak_rss_kb = 1000 + 37 * i;
		p.exit.read_bytes = 4096 * i;
		p.exit.write_bytes = 512 * i;
		p.exit.rchar = 11 * i;
		p.exit.wchar = 13 * i;
		p.exit.w.cpu_wait_ns = 5000 * i;
		p.exit.w.iowait_ns = 7000 * i;
		p.exit.w.offcpu_ns = 9000 * i;
		assert_int_equal(store_add_process(s, &p, OFFSET), 0);
		memset(r.set, 0, sizeof(r.set));
		process_row_fill(&p, NULL, OFFSET, &r);
		process_row_sum(&r, i < 3 ? &half : &sums);
	}
	/* two halves taken together, as a step's tasks are */
	merged = half;
	process_row_sums_merge(&merged, &sums);
	assert_int_equal(store_unit_totals(s, 21, &t), 0);
#define COL(name, kind, sql, len, flags) { #name, offsetof(struct row_sums, name) },
	static const struct {
		const char *name;
		size_t off;
	} cols[] = { TOTALS_RECORD(COL) };
#undef COL
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++)
		for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++)
			if (!strcmp(cols[c].name, keys[k]))
				assert_int_equal(*(int64_t *)((char *)&merged + cols[c].off),
						 geti(t, keys[k]));
	assert_int_equal(merged.cpu_ns, 7000000ll * 21); /* its whole runtime, pre-exec too */
	json_object_put(t);
	store_close(s);
}

static void test_totals(void **state)
{
	struct store *s = open_store(BOOT_A);
	json_object *t;
	struct proc p;
	uint32_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		p = mkproc(9, 100 + i, 1000000000ull * (i + 1));
		p.exit.runtime_ns = 1000 * (i + 1); /* 1000 + ... + 5000 = 15000 */
		p.exit.utime_ns = 1;
		p.exit.stime_ns = 1;
		p.exit.peak_rss_kb = 100 * (i + 1) % 350; /* peak 300 */
		p.exit.read_bytes = 10;
		p.exit.write_bytes = 20;
		p.exit.rchar = 1;
		p.exit.wchar = 2;
		if (i == 3)
			p.flags |= PROC_OOM_KILLED;
		assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	}
	/* another unit's process is not counted */
	p = mkproc(10, 999, 1);
	p.exit.runtime_ns = 1ull << 40;
	assert_int_equal(store_add_process(s, &p, OFFSET), 0);

	assert_int_equal(store_unit_totals(s, 9, &t), 0);
	assert_int_equal(geti(t, "nprocs"), 5);
	assert_int_equal(geti(t, "cpu_ns"), 15000);
	assert_int_equal(geti(t, "user_ns") + geti(t, "sys_ns"), 15000);
	assert_int_equal(geti(t, "user_ns"), 7500);
	assert_int_equal(geti(t, "maxrss_kb"), 300);
	assert_int_equal(geti(t, "read_bytes"), 50);
	assert_int_equal(geti(t, "write_bytes"), 100);
	assert_int_equal(geti(t, "rchar"), 5);
	assert_int_equal(geti(t, "wchar"), 10);
	assert_int_equal(geti(t, "oom_kills"), 1);
	assert_int_equal(geti(t, "first_start_ns"), OFFSET + 1000000000ll);
	assert_int_equal(geti(t, "last_end_ns"), OFFSET + 5000000000ll + 2000000000ll);

	/* the same counted in steps of 2 processes (a listing's, between turns of the loop) */
	{
		struct totals_steps steps;
		json_object *u = NULL;
		int r, nsteps = 0;

		store_totals_begin(&steps, 9);
		while ((r = store_totals_step(s, s->db, &steps, 2, &u)) == 1) {
			nsteps++;
			assert_int_equal(steps.counted, 2);
		}
		assert_int_equal(steps.counted, 1); /* what each step cost its caller */
		store_totals_end(&steps);
		assert_int_equal(r, 0);
		assert_int_equal(nsteps, 2);
		assert_string_equal(json_object_to_json_string(u), json_object_to_json_string(t));
		json_object_put(u);
	}
	json_object_put(t);

	/* the live-sample figures come from the unit's row as kept when its samples came, not
	 * from reading all its samples */
	{
		struct unit u = mkunit(9, "sampled", 1000, 0, UNIT_COMPLETED);

		u.sample_rounds = 4;
		u.sample_peak_mcores = 1790;
		u.sample_peak_rss_kb = 5488;
		put(s, &u);
		assert_int_equal(store_unit_totals(s, 9, &t), 0);
		assert_int_equal(geti(t, "sample_rounds"), 4);
		assert_true(json_object_get_double(key(t, "peak_cores")) == 1.79);
		assert_int_equal(geti(t, "peak_sampled_rss_kb"), 5488);
		assert_int_equal(geti(t, "nprocs"), 5);
		json_object_put(t);
	}

	/* sums past 64 bits fail counted in steps as counted whole, never wrapped around */
	{
		struct totals_steps steps;
		json_object *u = NULL;
		uint32_t pid;
		int r;

		for (pid = 1; pid <= 3; pid++) {
			p = mkproc(13, pid, 1000000000ull * pid);
			p.exit.runtime_ns = 1ull << 62;
			assert_int_equal(store_add_process(s, &p, OFFSET), 0);
		}
		assert_int_equal(store_unit_totals(s, 13, &t), -EIO);
		store_totals_begin(&steps, 13);
		while ((r = store_totals_step(s, s->db, &steps, 1, &u)) == 1)
			;
		store_totals_end(&steps);
		assert_int_equal(r, -EOVERFLOW);
	}

	/* a unit without processes: a count of 0 and no made-up sums */
	assert_int_equal(store_unit_totals(s, 11, &t), 0);
	assert_int_equal(geti(t, "nprocs"), 0);
	assert_false(has(t, "cpu_ns"));
	assert_false(has(t, "maxrss_kb"));
	json_object_put(t);
	store_close(s);
}

/* tools: processes grouped by tool and subcommand, plumbing left out, the most CPU first; a
 * wrapper's peak RSS (inherited from the large parent it was forked from) is not the tool's */
static void add_tool_proc(struct store *s, uint32_t pid, const char *tool, const char *sub,
			  int excluded, int wrapper, uint64_t cpu_ns, uint64_t rss_kb)
{
	struct proc p = mkproc(12, pid, 1000000000ull * pid);

	snprintf(p.tool.name, sizeof(p.tool.name), "%s", tool);
	snprintf(p.tool.subcommand, sizeof(p.tool.subcommand), "%s", sub);
	p.tool.excluded = excluded;
	p.tool.wrapper = wrapper;
	p.exit.runtime_ns = cpu_ns;
	p.exit.peak_rss_kb = rss_kb;
	p.exit.status = pid == 2 ? 256 : pid == 6 ? 512 : 0; /* samtools sort exited 1 once, ls 2 */
	assert_int_equal(store_add_process(s, &p, OFFSET), 0);
}

static void test_tools(void **state)
{
	struct store *s = open_store(BOOT_A);
	json_object *t, *o;

	(void)state;
	add_tool_proc(s, 1, "samtools", "sort", 0, 1, 1000,
		      74000); /* time -v, forked from python */
	add_tool_proc(s, 2, "samtools", "sort", 0, 0, 70000, 16000); /* samtools itself */
	add_tool_proc(s, 3, "samtools", "index", 0, 0, 500, 3600);
	add_tool_proc(s, 4, "bwa", "mem", 0, 1, 100, 2000); /* only its wrapper seen */
	add_tool_proc(s, 5, "sh", "", 1, 0, 900000, 90000); /* plumbing */
	add_tool_proc(s, 6, "ls", "", 1, 0, 50, 2000);	    /* plumbing that failed: shown */
	add_tool_proc(s, 7, "ls", "", 1, 0, 40, 2000);	    /* ... with the ls that did not */
	assert_int_equal(store_unit_tools(s, 12, &t), 0);
	assert_int_equal(json_object_array_length(t), 4);
	o = json_object_array_get_idx(t, 0);
	assert_string_equal(json_object_get_string(key(o, "tool")), "samtools");
	assert_string_equal(json_object_get_string(key(o, "subcommand")), "sort");
	assert_int_equal(geti(o, "nprocs"), 2);
	assert_int_equal(geti(o, "cpu_ns"), 71000);
	assert_int_equal(geti(o, "maxrss_kb"), 16000);
	/* exit codes are the processes' own: the wrapper's (time's) is not samtools's */
	assert_string_equal(json_object_get_string(key(o, "status_counts")), "256:1");
	o = json_object_array_get_idx(t, 1);
	assert_string_equal(json_object_get_string(key(o, "subcommand")), "index");
	assert_int_equal(geti(o, "maxrss_kb"), 3600);
	o = json_object_array_get_idx(t, 2);
	assert_string_equal(json_object_get_string(key(o, "tool")), "bwa");
	assert_int_equal(geti(o, "maxrss_kb"), 2000);
	/* only its launcher was seen here (an srun client): no exit code of bwa's */
	assert_false(has(o, "status_counts"));
	o = json_object_array_get_idx(t, 3);
	assert_string_equal(json_object_get_string(key(o, "tool")), "ls");
	assert_int_equal(geti(o, "nprocs"), 2);
	assert_string_equal(json_object_get_string(key(o, "status_counts")), "0:1,512:1");
	json_object_put(t);
	store_close(s);
}

struct seen {
	uint64_t ids[16];
	size_t n;
	int stop;
	struct unit last;
};

static int seen_fn(const struct unit *u, void *ctx)
{
	struct seen *v = ctx;

	if (v->n < 16)
		v->ids[v->n++] = u->id;
	v->last = *u;
	return v->stop;
}

static void test_running_units_by_boot(void **state)
{
	struct store *s;
	struct unit u;
	struct seen v;

	(void)state;
	s = open_store(BOOT_A);
	u = mkunit(1, "job-5", 1000, 5, UNIT_RUNNING);
	put(s, &u);
	u = mkunit(2, "done", 1000, 0, UNIT_COMPLETED);
	put(s, &u);
	u = mkunit(3, "job-6.0", 1001, 6, UNIT_RUNNING);
	put(s, &u);
	store_close(s);

	/* after a reboot: none of the old boot's units is running here */
	s = open_store(BOOT_B);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_running_units(s, seen_fn, &v), 0);
	assert_int_equal(v.n, 0);
	u = mkunit(4, "job-7", 1000, 7, UNIT_RUNNING);
	put(s, &u);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_running_units(s, seen_fn, &v), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.ids[0], 4);
	store_close(s);

	/* a restart on the first boot finds its two running units, every field intact */
	s = open_store(BOOT_A);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_running_units(s, seen_fn, &v), 0);
	assert_int_equal(v.n, 2);
	assert_true((v.ids[0] == 1 && v.ids[1] == 3) || (v.ids[0] == 3 && v.ids[1] == 1));
	/* the early stop returns the callback's value */
	memset(&v, 0, sizeof(v));
	v.stop = -ECANCELED;
	assert_int_equal(store_running_units(s, seen_fn, &v), -ECANCELED);
	assert_int_equal(v.n, 1);
	store_close(s);
}

static void test_unit_roundtrip(void **state)
{
	struct store *s;
	struct unit u, *r;
	struct seen v;

	(void)state;
	s = open_store(BOOT_A);
	u = mkunit(3, "job-6.0", 1001, 6, UNIT_RUNNING);
	u.step_id = STEP_EXTERN;
	u.task_id = 3;
	u.root_start_ns = 0xfedcba987654ull;
	u.cgroup_id = 0x1234567890ull;
	u.alloc_cpus = 8;
	u.alloc_mem_mb = 16384;
	u.lost_events = 2;
	u.exit_status = 0;
	snprintf(u.cgroup_path, sizeof(u.cgroup_path), "/sys/fs/cgroup/system.slice/job_6");
	snprintf(u.cluster, sizeof(u.cluster), "hpc");
	snprintf(u.job_name, sizeof(u.job_name), "align reads");
	snprintf(u.pipeline, sizeof(u.pipeline), "nf-core/sarek");
	snprintf(u.run, sizeof(u.run), "happy_turing");
	snprintf(u.step_name, sizeof(u.step_name), "BWA_MEM (1)");
	put(s, &u);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_running_units(s, seen_fn, &v), 0);
	assert_int_equal(v.n, 1);
	r = &v.last;
	assert_int_equal(r->id, 3);
	assert_string_equal(r->name, "job-6.0");
	assert_string_equal(r->kind, "slurm");
	assert_int_equal(r->uid, 1001);
	assert_int_equal(r->gid, 1002);
	assert_int_equal(r->root_pid, 1003);
	assert_int_equal(r->root_start_ns, 0xfedcba987654ull);
	assert_int_equal(r->cgroup_id, 0x1234567890ull);
	assert_string_equal(r->cgroup_path, "/sys/fs/cgroup/system.slice/job_6");
	assert_string_equal(r->cluster, "hpc");
	assert_int_equal(r->job_id, 6);
	assert_int_equal(r->step_id, STEP_EXTERN);
	assert_int_equal(r->task_id, 3);
	assert_string_equal(r->job_name, "align reads");
	assert_int_equal(r->alloc_cpus, 8);
	assert_int_equal(r->alloc_mem_mb, 16384);
	assert_string_equal(r->pipeline, "nf-core/sarek");
	assert_string_equal(r->run, "happy_turing");
	assert_string_equal(r->step_name, "BWA_MEM (1)");
	assert_int_equal(r->start_ns, u.start_ns);
	assert_int_equal(r->end_ns, 0);
	assert_int_equal(r->state, UNIT_RUNNING);
	assert_int_equal(r->exit_status, 0);
	assert_int_equal(r->lost_events, 2);
	assert_int_equal(r->live, 0);
	assert_null(r->next);

	/* a negative task id and exit status survive as such */
	u.task_id = -1;
	u.exit_status = -1;
	put(s, &u);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_running_units(s, seen_fn, &v), 0);
	assert_int_equal(v.last.task_id, -1);
	assert_int_equal(v.last.exit_status, -1);

	/* once ended it is no longer running */
	u.state = UNIT_CANCELLED;
	u.end_ns = u.start_ns + 1;
	put(s, &u);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_running_units(s, seen_fn, &v), 0);
	assert_int_equal(v.n, 0);
	store_close(s);
}

static void test_batching(void **state)
{
	struct store *s = open_store(BOOT_A);
	struct unit u = mkunit(1, "job-1", 1000, 1, UNIT_RUNNING);
	struct proc p = mkproc(1, 50, 123);
	unsigned i, full;

	(void)state;
	assert_int_equal(store_pending(s), 0);
	assert_int_equal(store_commit(s), 0); /* nothing to commit is fine */
	put(s, &u);
	assert_int_equal(store_pending(s), 1);
	assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	assert_int_equal(store_pending(s), 2);
	p.sample_cpu_ns = 5;
	p.sample_rss_kb = 6;
	assert_int_equal(store_add_sample(s, &p, 1000, OFFSET), 0);
	assert_int_equal(store_pending(s), 3);
	/* one open transaction: nobody else sees the batch yet */
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units"), 0);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM samples"), 0);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(store_pending(s), 0);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units"), 1);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM processes"), 1);
	assert_int_equal(count_rows("SELECT time_ns FROM samples"), OFFSET + 1000);
	assert_int_equal(count_rows("SELECT rss_kb FROM samples"), 6);

	/* a full batch commits by itself: BATCH_MAX writes, or sooner BATCH_BYTES of rows */
	full = BATCH_BYTES / store_sample_bytes() + 1;
	if (full > BATCH_MAX)
		full = BATCH_MAX;
	for (i = 1; i < full; i++) {
		assert_int_equal(store_add_sample(s, &p, i, OFFSET), 0);
		assert_int_equal(store_pending(s), i);
	}
	/* ... handed to the committing thread: the loop goes on, and settles it later */
	assert_int_equal(store_add_sample(s, &p, i, OFFSET), 0);
	assert_true(store_busy(s));
	assert_int_equal(store_settle(s), 0);
	assert_false(store_busy(s));
	assert_int_equal(store_pending(s), 0);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM samples"), full + 1);
	/* rows written while a commit runs go into the next batch, without waiting; once that one
	 * is full too, the store says so (the loop then stops taking events) */
	for (i = 1; i < full; i++)
		assert_int_equal(store_add_sample(s, &p, i, OFFSET), 0);
	store_commit_start(s);
	assert_true(store_busy(s));
	assert_int_equal(store_add_sample(s, &p, i, OFFSET), 0);
	assert_true(store_busy(s)); /* until settled */
	assert_int_equal(store_pending(s), 1);
	assert_false(store_full(s));
	for (i = 1; i < full; i++)
		assert_int_equal(store_add_sample(s, &p, i, OFFSET), 0);
	assert_true(store_full(s));
	assert_int_equal(store_settle(s), 0);
	assert_false(store_full(s));
	assert_int_equal(count_rows("SELECT COUNT(*) FROM samples"), 2 * full);
	assert_int_equal(store_commit(s), 0); /* any use of the store writes what is queued */
	assert_int_equal(count_rows("SELECT COUNT(*) FROM samples"), 3 * full);

	/* close commits what is pending */
	u = mkunit(2, "job-2", 1000, 2, UNIT_RUNNING);
	put(s, &u);
	assert_int_equal(store_pending(s), 1);
	store_close(s);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units"), 2);
}

static void test_crash_keeps_committed(void **state)
{
	int ready[2], status;
	pid_t pid;
	struct store *s;
	json_object *rows;
	char x;

	(void)state;
	store_close(open_store(BOOT_A));
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct unit u = mkunit(1, "committed", 1000, 1, UNIT_RUNNING);
		struct store *c = NULL;

		close(ready[0]);
		if (store_open(&c, dbpath, BOOT_A) || store_put_unit(c, &u) || store_commit(c))
			_exit(1);
		u = mkunit(2, "pending", 1000, 2, UNIT_RUNNING);
		if (store_put_unit(c, &u) || write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause(); /* until kill -9: no close, no commit */
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &x, 1), 1);
	close(ready[0]);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);

	s = open_store(BOOT_A);
	assert_int_equal(store_find_units(s, "committed", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "pending", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
	store_close(s);
}

/* A store written by an older tracerd (fewer unit columns, in another order) gains the new
 * columns and takes writes and reads as usual. */
static void test_migrates_older_store(void **state)
{
	char path[256], cmd[1024];
	struct json_object *rows;
	struct store *s;
	struct unit u;

	(void)state;
	assert_int_equal(mkdir(dbpath, 0700), 0);
	snprintf(path, sizeof(path), "%s/tracer.db", dbpath);
	snprintf(cmd, sizeof(cmd),
		 "sqlite3 %s \"CREATE TABLE units(id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
		 " kind TEXT NOT NULL, boot_id TEXT, uid INTEGER, state TEXT, job_id INTEGER);"
		 " INSERT INTO units(id, name, kind, boot_id, uid, state, job_id)"
		 " VALUES(7, 'old', 'local', '%s', 0, 'COMPLETED', 0);\"",
		 path, BOOT_A);
	assert_int_equal(system(cmd), 0);
	s = open_store(BOOT_A);
	u = mkunit(8, "new", 0, 42, UNIT_RUNNING);
	snprintf(u.alloc_cores, sizeof(u.alloc_cores), "0-1");
	assert_int_equal(store_put_unit(s, &u), 0);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(store_find_units(s, "42", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	assert_string_equal(gets_(json_object_array_get_idx(rows, 0), "alloc_cores"), "0-1");
	json_object_put(rows);
	assert_int_equal(store_find_units(s, "old", UINT32_MAX, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	json_object_put(rows);
	store_close(s);
}

/* Retention: finished units past the age go with their processes and samples; then the oldest
 * while the store is over its size; a running unit never. */
static void test_prune(void **state)
{
	struct store *s = open_store(BOOT_A);
	struct unit u;
	struct proc p;
	uint64_t used;
	unsigned n;
	int i;

	(void)state;
	for (i = 1; i <= 6; i++) {
		u = mkunit(i, "u", 1000, 0, i == 1 ? UNIT_RUNNING : UNIT_COMPLETED);
		u.end_ns = i == 1 ? 0 : OFFSET + 1000000000ll * i; /* unit i ended at i s */
		put(s, &u);
		p = mkproc(i, 100 + i, 7000 + i);
		assert_int_equal(store_add_process(s, &p, OFFSET), 0);
		assert_int_equal(store_add_sample(s, &p, 7000 + i, OFFSET), 0);
	}
	assert_int_equal(store_commit(s), 0);
	/* ended before 4 s: units 2 and 3 */
	assert_int_equal(store_prune(s, OFFSET + 4000000000ll, 0, 100, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units"), 4);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM processes WHERE unit IN (2, 3)"), 0);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM samples WHERE unit IN (2, 3)"), 0);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM processes"), 4);
	/* batches are bounded */
	assert_int_equal(store_prune(s, OFFSET + 100000000000ll, 0, 1, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units WHERE id = 4"), 0);
	/* over any size: the oldest finished ones go, the running one stays */
	assert_int_equal(store_used_bytes(s, &used), 0);
	assert_true(used > 0);
	assert_int_equal(used, count_rows("SELECT (SELECT page_count FROM pragma_page_count)"
					  " * (SELECT page_size FROM pragma_page_size)"
					  " - (SELECT freelist_count FROM pragma_freelist_count)"
					  " * (SELECT page_size FROM pragma_page_size)"));
	assert_int_equal(store_prune(s, 0, 1, 100, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM units"), 1);
	assert_int_equal(
		count_rows("SELECT COUNT(*) FROM units WHERE id = 1 AND state = 'RUNNING'"), 1);
	assert_int_equal(store_prune(s, 0, 1, 100, &n), 0);
	assert_int_equal(n, 0);
	store_close(s);
}

/* The heartbeat: the last one written is read back; none yet is -ENOENT. */
static uint32_t lost_of_unit1, lost_elsewhere;

static void count_loss(void *ctx, uint64_t unit, uint32_t n)
{
	(void)ctx;
	if (unit == 1)
		lost_of_unit1 += n;
	else
		lost_elsewhere += n;
}

/* A file that cannot grow (a full disk): every process is either stored or counted lost for
 * its unit, once (SQLite gives the batch up at its first row that needs a page: all of it is
 * lost, and said as the commit's failure). */
static void test_write_failures_counted_once(void **state)
{
	struct store *s = open_store(BOOT_A);
	struct unit u = mkunit(1, "job-1", 1000, 1, UNIT_RUNNING);
	char sql[64];
	int64_t pages = 0;
	unsigned i, n = 3000;

	(void)state;
	lost_of_unit1 = lost_elsewhere = 0;
	store_on_loss(s, count_loss, NULL);
	put(s, &u);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(store_query_int(s, "PRAGMA page_count", "pages", &pages), 0);
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld", (long long)pages + 4);
	assert_int_equal(sqlite3_exec(store_db(s), sql, NULL, NULL, NULL), SQLITE_OK);
	for (i = 0; i < n; i++) {
		struct proc p = mkproc(1, 1000 + i, 5000 + i);

		assert_int_equal(store_add_process(s, &p, OFFSET), 0);
	}
	assert_int_not_equal(store_commit(s), 0);
	assert_true(lost_of_unit1 > 0);
	assert_int_equal(lost_elsewhere, 0);
	assert_int_equal(count_rows("SELECT COUNT(*) FROM processes") + lost_of_unit1, n);
	store_close(s);
}

static off_t file_size(const char *name)
{
	char path[192];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dbpath, name);
	return stat(path, &st) ? -1 : st.st_size;
}

static void write_alive(const char *text)
{
	char path[192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" STORE_ALIVE_FILE, dbpath);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* The heartbeat is a line of its own file, written at once and costing no commit (an idle
 * daemon writes nothing to the store); it outlives the daemon; a store from before the file,
 * a file that holds no time, or a store an earlier version ran on since, gives the one in
 * meta. */
static void test_heartbeat(void **state)
{
	struct store *s = open_store(BOOT_A);
	int64_t t = 0;
	off_t wal;

	(void)state;
	assert_int_equal(store_last_alive(s, &t), -ENOENT);
	assert_int_equal(store_commit(s), 0);
	wal = file_size("tracer.db-wal");
	assert_int_equal(store_set_alive(s, 1234567890123456789ll), 0);
	assert_int_equal(store_set_alive(s, 1234567890123456790ll), 0);
	assert_int_equal(store_pending(s), 0);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(file_size("tracer.db-wal"), wal); /* no commit, no page of the log */
	assert_int_equal(store_last_alive(s, &t), 0);
	assert_true(t == 1234567890123456790ll);
	assert_int_equal(file_size(STORE_ALIVE_FILE), 21);
	store_close(s);
	s = open_store(BOOT_A);
	assert_int_equal(store_last_alive(s, &t), 0);
	assert_true(t == 1234567890123456790ll);
	store_close(s);

	exec_sql("INSERT OR REPLACE INTO meta VALUES('alive_ns', '777')");
	write_alive("");
	s = open_store(BOOT_A);
	assert_int_equal(store_last_alive(s, &t), 0);
	assert_int_equal(t, 777);
	store_close(s);
	write_alive("12345678901234567x90\n");
	s = open_store(BOOT_A);
	assert_int_equal(store_last_alive(s, &t), 0);
	assert_int_equal(t, 777);
	store_close(s);
	/* an earlier version ran on the store after this one: its heartbeat is the later */
	write_alive("00000000000000000500\n");
	s = open_store(BOOT_A);
	assert_int_equal(store_last_alive(s, &t), 0);
	assert_int_equal(t, 777);
	assert_int_equal(store_set_alive(s, 900), 0);
	assert_int_equal(store_last_alive(s, &t), 0);
	assert_int_equal(t, 900);
	store_close(s);
}

/* The heartbeat's file is checked as the store's are: made 0600 whatever it was, and never
 * reached through a link (a link to a file elsewhere would have it rewritten each second) */
static void test_heartbeat_file_checked(void **state)
{
	char path[192], target[192];
	struct store *s;
	struct stat st;

	(void)state;
	store_close(open_store(BOOT_A));
	snprintf(path, sizeof(path), "%s/" STORE_ALIVE_FILE, dbpath);
	assert_int_equal(chmod(path, 0666), 0);
	store_close(open_store(BOOT_A));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	write_alive(""); /* the file stays a file until it is replaced by the link */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_not_equal(store_open(&s, dbpath, BOOT_A), 0);
	assert_int_equal(access(target, F_OK), -1); /* nothing made through the link */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_creates_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heartbeat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heartbeat_file_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_units_and_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_processes_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_argv_edge_blobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_older_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals_in_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tools, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_units_by_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unit_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batching, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_keeps_committed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failures_counted_once, setup, teardown),
	};

	/* expected failures (bad files, refused versions) log at error level only */
	log_open("test_store", 1, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
