/* SQLite store: schema and its migration, batched writes. Reads are in store_query.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

#include "clock.h"
#include "log.h"
#include "store_internal.h"

#define SCHEMA_VERSION 1
/* Tables come from common/records.h (store_record.c): a store written by an older tracerd
 * gains the columns added since. */
/* Pages of SQLite's default 4 KiB. Pages of 16 KiB commit faster (each commit's end walks the
 * page cache, four times shorter with a quarter of the pages: bench/README.md), but a row of
 * more than 5.4 KiB (a long command line, up to what the store keeps of it) then takes a page of
 * its own, half of it empty: in test_store_fairness the same history took 21 % more pages, and
 * the file's peak came within StoreMaxSize's margin by less than 1 MB. A store made by an
 * earlier tracerd with 16 KiB pages keeps them (WAL mode fixes the size); the log's bounds are
 * in bytes (store_internal.h), whatever the size. */
static const char schema[] = "PRAGMA page_size=4096;" STORE_PRAGMAS
			     "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);";

/* units written before owner_uid was: their owner is their uid */
static const char indexes[] =
	"UPDATE units SET owner_uid = uid WHERE owner_uid IS NULL;"
	"CREATE INDEX IF NOT EXISTS units_name ON units(name);"
	"CREATE INDEX IF NOT EXISTS units_job ON units(job_id);"
	/* a step's earlier runs (store_history.c), which the export asks at each step's end */
	"CREATE INDEX IF NOT EXISTS units_history ON units(uid, job_name, step_id, start_ns);"
	"CREATE INDEX IF NOT EXISTS units_history_wf ON units(uid, pipeline, step_name, start_ns);"
	/* pruning's: a user's oldest finished units without a pass over all, and every user's
	 * sums from the index alone (what a round reads: 10 times faster than from the table) */
	"CREATE INDEX IF NOT EXISTS units_owner_end ON units(owner_uid, end_ns, state, "
	"stored_bytes);"
	/* a unit's processes listed in their order without a sort, however many they are; also
	 * every read of a unit's processes (an index on unit alone, as stores before had, cost
	 * each insert one more index to keep) */
	"DROP INDEX IF EXISTS processes_unit;"
	"CREATE INDEX IF NOT EXISTS processes_unit_start ON processes(unit, start_boot_ns, pid);"
	/* a unit's folded row found by what it stands for (store_fold.c); folded rows alone */
	"CREATE INDEX IF NOT EXISTS processes_folded ON processes(unit, tool, subcommand, status)"
	" WHERE folded IS NOT NULL;"
	"CREATE INDEX IF NOT EXISTS samples_unit ON samples(unit);"
	/* the exporter's reads after its cursor (export/source.c) */
	"CREATE INDEX IF NOT EXISTS processes_seq ON processes(seq) WHERE seq IS NOT NULL;"
	/* and its reads of the rows that make log records, a few of many (store.h) */
	"CREATE INDEX IF NOT EXISTS processes_logs ON processes(seq) WHERE seq IS NOT NULL"
	" AND " STORE_LOG_ROWS ";"
	"CREATE INDEX IF NOT EXISTS units_seq ON units(seq) WHERE seq IS NOT NULL;"
	"CREATE INDEX IF NOT EXISTS stall_starts_unit ON stall_starts(unit);"
	"CREATE INDEX IF NOT EXISTS stall_starts_seq ON stall_starts(seq) WHERE seq IS NOT NULL;";

/* The export sequence goes on from the highest number ever given, kept in meta at each commit:
 * the rows that held the highest may have been pruned since. (The rows' highest is read from
 * the partial indexes on seq, which "seq IS NOT NULL" lets SQLite use, not from every row.) */
static int seq_open(struct store *s)
{
	int64_t saved = 0, procs = 0, units = 0;
	int err = store_query_int(s,
				  "SELECT COALESCE(MAX(CAST(value AS INTEGER)), 0) FROM meta"
				  " WHERE key='" STORE_META_SEQ "'",
				  "export sequence", &saved);

	if (!err)
		err = store_query_int(
			s, "SELECT COALESCE(MAX(seq), 0) FROM processes WHERE seq IS NOT NULL",
			"export sequence", &procs);
	if (!err)
		err = store_query_int(
			s, "SELECT COALESCE(MAX(seq), 0) FROM units WHERE seq IS NOT NULL",
			"export sequence", &units);
	if (err)
		return err;
	s->seq_saved = saved;
	s->next_seq = (saved > procs ? saved : procs);
	s->next_seq = (s->next_seq > units ? s->next_seq : units) + 1;
	return store_prepare(
		s, "INSERT OR REPLACE INTO meta(key, value) VALUES('" STORE_META_SEQ "', ?)",
		&s->save_seq);
}

static int check_version(struct store *s)
{
	sqlite3_stmt *st;
	int err = 0, version = 0;

	if (store_prepare(s, "SELECT value FROM meta WHERE key='schema_version'", &st))
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version > SCHEMA_VERSION) {
		log_error("store schema version %d is newer than this tracerd's (%d)", version,
			  SCHEMA_VERSION);
		return -EPROTO;
	}
	if (version == 0 &&
	    sqlite3_exec(s->db, "INSERT INTO meta VALUES('schema_version','1')", NULL, NULL, NULL))
		err = store_fail(s, "schema version");
	return err;
}

/* The store holds every user's command lines: its files are the daemon's alone (0600), whatever
 * the umask or an earlier version left, and never reached through a link. SQLite gives the
 * -wal and -shm files it creates the database file's mode. */
static int secure_files(const char *dir)
{
	static const char *const names[] = { "tracer.db", "tracer.db-wal", "tracer.db-shm",
					     STORE_ALIVE_FILE };
	struct stat st;
	size_t i;
	int dfd, fd, err = 0;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		err = -errno;
		log_error("%s: %m", dir);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		log_error("%s belongs to uid %u, not to tracerd", dir, st.st_uid);
		err = -EPERM;
		goto out;
	}
	if ((st.st_mode & 07777) != 0750 && fchmod(dfd, 0750) < 0) {
		err = -errno;
		log_error("chmod %s: %m", dir);
		goto out;
	}
	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		fd = openat(dfd, names[i],
			    O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (i ? 0 : O_CREAT), 0600);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || fstat(fd, &st) < 0) {
			err = -errno;
			log_error("%s/%s: %m", dir, names[i]);
		} else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
			err = -EPERM;
			log_error("%s/%s is not a regular file of tracerd's", dir, names[i]);
		} else if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0) {
			err = -errno;
			log_error("chmod %s/%s: %m", dir, names[i]);
		}
		if (fd >= 0)
			close(fd);
		if (err)
			break;
	}
out:
	if (dfd >= 0)
		close(dfd);
	return err;
}

const char *store_file(const struct store *s)
{
	return sqlite3_db_filename(s->db, "main");
}

int store_reader_open(struct store *s, sqlite3 **out)
{
	const char *path = sqlite3_db_filename(s->db, "main");
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		log_error("%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	/* many readers at once: each keeps little */
	sqlite3_exec(db, "PRAGMA cache_size=-128", NULL, NULL, NULL);
	*out = db;
	return 0;
}

/* The size the store's pages have: the one it was made with */
static int read_page_size(struct store *s)
{
	sqlite3_stmt *st;
	int size = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA page_size", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, "page size");
	if (sqlite3_step(st) == SQLITE_ROW)
		size = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (size <= 0)
		return store_fail(s, "page size");
	s->page_bytes = size;
	return 0;
}

/* The heartbeat's file beside the store: a line written in place each CommitInterval, which
 * costs no commit (a page of the log each while nothing else is written) */
static int alive_open(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/" STORE_ALIVE_FILE, dir) >= sizeof(path))
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		log_warn("cannot open %s: %m: a restart will not know when tracerd went away",
			 path);
	return fd;
}

int store_open(struct store **out, const char *dir, const char *boot_id)
{
	char path[PATH_MAX];
	struct store *s;
	int err;

	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		err = -errno;
		log_error("cannot create %s: %m", dir);
		return err;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/tracer.db", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	err = secure_files(dir);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->commit.fd = -1;
	snprintf(s->boot_id, sizeof(s->boot_id), "%s", boot_id);
	s->alive_fd = alive_open(dir);
	/* no count of SQLite's memory, and so no lock around each of its allocations (a
	 * no-op once SQLite is initialised: an earlier store did it) */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(path, &s->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		err = store_fail(s, path);
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 2000);
	s->wal_bytes_max = STORE_WAL_BYTES_MAX;
	if (sqlite3_exec(s->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		err = store_fail(s, "schema");
		goto fail;
	}
	err = read_page_size(s);
	if (err)
		goto fail;
	err = rec_ensure_table(s, &store_units);
	if (!err)
		err = rec_ensure_table(s, &store_processes);
	if (!err)
		err = rec_ensure_table(s, &store_samples);
	if (!err)
		err = rec_ensure_table(s, &store_stall_starts);
	if (!err && sqlite3_exec(s->db, indexes, NULL, NULL, NULL) != SQLITE_OK)
		err = store_fail(s, "indexes");
	if (!err)
		err = store_boot_open(s);
	if (!err)
		err = rec_list(&store_units, REC_NAMES, s->unit_columns, sizeof(s->unit_columns));
	if (!err)
		err = rec_list(&store_processes, REC_LISTED, s->process_columns,
			       sizeof(s->process_columns));
	if (!err)
		err = rec_list(&store_tools, REC_EXPRS, s->tool_columns, sizeof(s->tool_columns));
	if (!err)
		err = rec_list(&store_totals, REC_EXPRS, s->totals_columns,
			       sizeof(s->totals_columns));
	if (!err)
		err = store_totals_check();
	if (err)
		goto fail;
	err = check_version(s);
	if (err)
		goto fail;
	err = rec_prepare_insert(s, &store_units, &s->put_unit);
	if (!err)
		err = rec_prepare_insert(s, &store_processes, &s->add_process);
	if (!err)
		err = rec_prepare_insert(s, &store_samples, &s->add_sample);
	if (!err)
		err = rec_prepare_insert(s, &store_stall_starts, &s->add_stall_start);
	if (!err)
		err = seq_open(s);
	if (!err)
		err = store_commit_init(s, store_rows_write, store_prune_run, store_prune_finished);
	if (err)
		goto fail;
	*out = s;
	return 0;
fail:
	store_close(s);
	return err;
}

void store_close(struct store *s)
{
	sqlite3_stmt *st;

	if (!s)
		return;
	if (s->db) {
		store_commit(s);
		store_commit_fini(s);
		/* every statement prepared for the connection's life, store_fold.c's too */
		while ((st = sqlite3_next_stmt(s->db, NULL)))
			sqlite3_finalize(st);
		sqlite3_close(s->db);
	}
	store_commit_fini(s); /* a store that failed to open */
	row_queue_free(&s->queue[0]);
	row_queue_free(&s->queue[1]);
	free(s->sums.o);
	free(s->shares.o);
	if (s->alive_fd >= 0)
		close(s->alive_fd);
	free(s);
}

void store_on_commit(struct store *s, store_commit_fn committed, store_commit_fn handover,
		     void *ctx)
{
	s->on_commit = committed;
	s->on_handover = handover;
	s->commit_ctx = ctx;
}

void store_on_folded(struct store *s, store_folded_fn fn, void *ctx)
{
	s->on_folded = fn;
	s->folded_ctx = ctx;
}

void store_on_loss(struct store *s, store_loss_fn fn, void *ctx)
{
	s->on_loss = fn;
	s->loss_ctx = ctx;
}

int64_t store_export_head(const struct store *s)
{
	return s->next_seq - 1;
}

uint64_t store_written(const struct store *s)
{
	return s->written;
}

unsigned store_pending(const struct store *s)
{
	return s->pending;
}

int store_write_step(struct store *s, sqlite3_stmt *st, size_t bytes)
{
	sqlite3 *db = store_db(s);
	uint64_t t0;
	int rc;

	if (!s->in_txn) {
		if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			return store_write_failed(s, "begin");
		}
		s->in_txn = 1;
	}
	t0 = clock_mono_ns();
	rc = sqlite3_step(st);
	s->write_ns += clock_mono_ns() - t0;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return store_write_failed(s, "write");
	s->pending_bytes += bytes;
	s->written += bytes;
	if (++s->pending >= BATCH_MAX || s->pending_bytes >= BATCH_BYTES)
		store_commit_start(s); /* its failure is said, and counted, when it settles */
	return 0;
}

int store_put_unit(struct store *s, const struct unit *u)
{
	struct rec_row r;

	rec_row_clear(&r);
	rec_unit_to_row(u, &r);
	/* a unit is exported once finished, again at each later write */
	r.set[UCOL_seq] = 0;
	if (u->state != UNIT_RUNNING)
		rec_int(&r, UCOL_seq, s->next_seq++);
	return store_queue_row(s, ROW_UNIT, u->id, &store_units, &r, ROW_FIXED_BYTES);
}

/* One statement of store_move_rows, within the batch: its rows changed in *changed. */
static int move_step(struct store *s, const char *sql, uint64_t from, uint64_t to,
		     uint64_t *changed)
{
	sqlite3_stmt *st;
	int err;

	if (store_prepare(s, sql, &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, (int64_t)from);
	if (to)
		sqlite3_bind_int64(st, 2, (int64_t)to);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, s->next_seq);
	err = store_write_step(s, st, 0);
	*changed = err ? 0 : (uint64_t)sqlite3_changes(store_db(s));
	sqlite3_finalize(st);
	return err;
}

int store_move_rows(struct store *s, uint64_t from, uint64_t to, uint64_t *rows)
{
	uint64_t samples, folded = 0;
	int err;

	/* moved rows are exported again, under their unit: each takes the next number, in the
	 * order they were written (folded rows are not exported: they only move) */
	err = move_step(
		s,
		to ? "UPDATE processes SET unit=?2, seq=?3 + m.n - 1 FROM (SELECT rowid AS id,"
		     " row_number() OVER (ORDER BY rowid) AS n FROM processes WHERE unit=?1"
		     " AND folded IS NULL) AS m WHERE processes.rowid = m.id"
		   : "DELETE FROM processes WHERE unit=?1",
		from, to, rows);
	if (!err && to) {
		s->next_seq += (int64_t)*rows;
		err = move_step(s, "UPDATE processes SET unit=?2 WHERE unit=?1", from, to, &folded);
		*rows += folded;
	}
	if (!err)
		err = move_step(s,
				to ? "UPDATE samples SET unit=?2 WHERE unit=?1"
				   : "DELETE FROM samples WHERE unit=?1",
				from, to, &samples);
	return err;
}

int store_query_int(struct store *s, const char *sql, const char *what, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	if (store_prepare(s, sql, &st))
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : store_fail(s, what);
}

int store_next_unit_id(struct store *s, uint64_t *out)
{
	int64_t id;
	int err = store_query_int(s, "SELECT COALESCE(MAX(id), 0) + 1 FROM units", "next unit id",
				  &id);

	if (err == 0)
		*out = (uint64_t)id;
	return err;
}

int store_add_process_row(struct store *s, const struct proc *p, struct rec_row *r)
{
	rec_int(r, PCOL_seq, s->next_seq++);
	return store_queue_row(s, ROW_PROCESS, p->unit, &store_processes, r, store_row_bytes(p));
}

int store_add_process(struct store *s, const struct proc *p, int64_t offset_ns)
{
	struct rec_row r;

	rec_row_clear(&r);
	process_row_fill(p, NULL, offset_ns, &r);
	return store_add_process_row(s, p, &r);
}

int store_fold_process_row(struct store *s, const struct proc *p, struct rec_row *r,
			   int no_new_tool)
{
	/* the process's figures; who it was is not kept (its row's key is the thread's) */
	rec_int(r, PCOL_folded, 1);
	r->set[PCOL_ppid] = r->set[PCOL_exe] = r->set[PCOL_argv] = r->set[PCOL_interpreter] = 0;
	r->set[PCOL_stall_reason] = r->set[PCOL_stall_start_ns] = 0;
	r->set[PCOL_parent_start_boot_ns] = 0;
	return store_queue_row(s, no_new_tool ? ROW_FOLD_OTHER : ROW_FOLD, p->unit,
			       &store_processes, r, 0);
}

int store_fold_process(struct store *s, const struct proc *p, int64_t offset_ns, int no_new_tool)
{
	struct rec_row r;

	rec_row_clear(&r);
	process_row_fill(p, NULL, offset_ns, &r);
	return store_fold_process_row(s, p, &r, no_new_tool);
}

size_t store_sample_bytes(void)
{
	return STORE_SAMPLE_BYTES;
}

size_t store_row_bytes(const struct proc *p)
{
	return ROW_FIXED_BYTES + strlen(p->comm) + (p->exe ? strlen(p->exe) : 0) + p->argv_len +
	       strlen(p->tool.name) + strlen(p->tool.subcommand);
}

int store_add_sample(struct store *s, const struct proc *p, uint64_t time_boot_ns,
		     int64_t offset_ns)
{
	struct rec_row r;

	rec_row_clear(&r);
	rec_int(&r, SCOL_unit, p->unit);
	rec_int(&r, SCOL_pid, p->pid);
	rec_int(&r, SCOL_start_boot_ns, p->start_ns);
	rec_int(&r, SCOL_time_ns, (int64_t)time_boot_ns + offset_ns);
	rec_int(&r, SCOL_cpu_ns, p->sample_cpu_ns);
	rec_int(&r, SCOL_rss_kb, p->sample_rss_kb);
	rec_int(&r, SCOL_cpu_wait_ns, p->sample_w.cpu_wait_ns);
	rec_int(&r, SCOL_iowait_ns, p->sample_w.iowait_ns);
	rec_int(&r, SCOL_offcpu_ns, p->sample_w.offcpu_ns);
	rec_int(&r, SCOL_net_rx_bytes, p->sample_w.net_rx_bytes);
	rec_int(&r, SCOL_net_tx_bytes, p->sample_w.net_tx_bytes);
	rec_int(&r, SCOL_read_bytes, (int64_t)p->sample_read_bytes);
	rec_int(&r, SCOL_write_bytes, (int64_t)p->sample_write_bytes);
	return store_queue_row(s, ROW_SAMPLE, p->unit, &store_samples, &r, STORE_SAMPLE_BYTES);
}

/* The heartbeat's line: unix ns, of one width, so that each write covers the last whole */
#define ALIVE_LINE_LEN 21

int store_set_alive(struct store *s, int64_t now_ns)
{
	char line[ALIVE_LINE_LEN + 1];

	if (s->alive_fd < 0)
		return -EBADF;
	snprintf(line, sizeof(line), "%020" PRId64 "\n", now_ns);
	if (pwrite(s->alive_fd, line, ALIVE_LINE_LEN, 0) != ALIVE_LINE_LEN) {
		int err = errno ? -errno : -EIO;

		log_debug("store: heartbeat: %s", strerror(-err));
		return err;
	}
	return 0;
}

int store_last_alive(struct store *s, int64_t *out)
{
	char line[ALIVE_LINE_LEN + 1] = "", *end;
	int64_t file = 0, meta = 0;
	long long v;
	int err;

	if (s->alive_fd >= 0 && pread(s->alive_fd, line, ALIVE_LINE_LEN, 0) == ALIVE_LINE_LEN &&
	    line[ALIVE_LINE_LEN - 1] == '\n') {
		errno = 0;
		v = strtoll(line, &end, 10);
		if (!errno && end == line + ALIVE_LINE_LEN - 1 && v > 0)
			file = v;
		else
			log_warn("store: the heartbeat's file holds no time: only the store's "
				 "older one is read");
	}
	/* an earlier version's heartbeat went with each commit into meta: the later of the two,
	 * for a store that an earlier tracerd wrote since this one last ran (a downgrade, then
	 * this version again) */
	err = store_query_int(s, "SELECT CAST(value AS INTEGER) FROM meta WHERE key='alive_ns'",
			      "heartbeat", &meta);
	if (err)
		meta = 0; /* none (-ENOENT), or said by store_query_int */
	if (!file && err)
		return err;
	*out = file > meta ? file : meta;
	return 0;
}
