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

#include "log.h"
#include "store_internal.h"

#define SCHEMA_VERSION 1
#define BATCH_MAX 20000 /* commit early past this many pending writes */


/* Tables are lists of columns so that a store written by an older tracerd gains the columns
 * added since (ALTER TABLE ... ADD COLUMN): columns are only ever appended, never removed. */
static const char *const unit_cols[] = {
        "id INTEGER PRIMARY KEY", "name TEXT NOT NULL", "kind TEXT NOT NULL", "boot_id TEXT",
        "uid INTEGER", "gid INTEGER", "root_pid INTEGER", "root_start_ns INTEGER",
        "cgroup_id INTEGER", "cgroup_path TEXT", "cluster TEXT", "job_id INTEGER",
        "array_job_id INTEGER", "array_task_id INTEGER", "step_id INTEGER", "task_id INTEGER",
        "job_name TEXT", "alloc_cpus INTEGER", "alloc_cores TEXT", "alloc_mem_mb INTEGER",
        "pipeline TEXT", "run TEXT", "step_name TEXT", "traceparent TEXT", "start_ns INTEGER",
        "end_ns INTEGER", "state TEXT", "exit_status INTEGER", "lost_events INTEGER",
        "cgroup_cpu_ns INTEGER", "cgroup_mem_peak_kb INTEGER", "engine TEXT", "wf_job TEXT",
        "wildcards TEXT", "tag TEXT", "task_hash TEXT", "down_start_ns INTEGER",
        "down_end_ns INTEGER", NULL
};

static const char *const process_cols[] = {
        "boot_id TEXT NOT NULL", "pid INTEGER NOT NULL", "start_boot_ns INTEGER NOT NULL",
        "unit INTEGER NOT NULL", "ppid INTEGER", "uid INTEGER", "gid INTEGER", "start_ns INTEGER",
        "exec_ns INTEGER", "end_ns INTEGER", "comm TEXT", "exe TEXT", "argv BLOB",
        "cgroup_id INTEGER", "cpu_ns INTEGER", "user_ns INTEGER", "sys_ns INTEGER",
        "maxrss_kb INTEGER", "rchar INTEGER", "wchar INTEGER", "syscr INTEGER", "syscw INTEGER",
        "read_bytes INTEGER", "write_bytes INTEGER", "cancelled_write_bytes INTEGER",
        "minflt INTEGER", "majflt INTEGER", "nvcsw INTEGER", "nivcsw INTEGER", "threads INTEGER",
        "status INTEGER", "flags INTEGER", "tool TEXT", "subcommand TEXT", "interpreter TEXT",
        "tool_excluded INTEGER", "tool_wrapper INTEGER", "ru_maxrss_kb INTEGER", "pre_exec_cpu_ns INTEGER",
        "cpu_wait_ns INTEGER", "iowait_ns INTEGER", "offcpu_ns INTEGER", "net_rx_bytes INTEGER",
        "net_tx_bytes INTEGER", "net_rx_calls INTEGER", "net_tx_calls INTEGER",
        "stall_start_ns INTEGER", "stall_ns INTEGER", "stall_reason TEXT", NULL
};

static const char schema[] =
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous=NORMAL;"
        "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
        "CREATE TABLE IF NOT EXISTS samples("
        " unit INTEGER NOT NULL, pid INTEGER NOT NULL, start_boot_ns INTEGER NOT NULL,"
        " time_ns INTEGER NOT NULL, cpu_ns INTEGER, rss_kb INTEGER);"
        "CREATE INDEX IF NOT EXISTS samples_unit ON samples(unit);";

static const char indexes[] =
        "CREATE INDEX IF NOT EXISTS units_name ON units(name);"
        "CREATE INDEX IF NOT EXISTS units_job ON units(job_id);"
        "CREATE INDEX IF NOT EXISTS processes_unit ON processes(unit);";

int store_fail(struct store *s, const char *what)
{
        log_error("%s: %s", what, sqlite3_errmsg(s->db));
        return -EIO;
}

int store_prepare(struct store *s, const char *sql, sqlite3_stmt **out)
{
        if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) != SQLITE_OK)
                return store_fail(s, "prepare");
        return 0;
}

/* "a, b, c" from column definitions; with params, "?,?,?" instead */
static int column_list(const char *const *cols, int params, char *out, size_t len)
{
        size_t at = 0;
        int i;

        out[0] = 0;
        for (i = 0; cols[i]; i++) {
                int n = params ? snprintf(out + at, len - at, "%s?", i ? "," : "")
                               : snprintf(out + at, len - at, "%s%.*s", i ? ", " : "",
                                          (int)strcspn(cols[i], " "), cols[i]);

                if (n < 0 || (size_t)n >= len - at)
                        return -ENAMETOOLONG;
                at += n;
        }
        return 0;
}

/* Create the table, or add the columns an older store lacks. */
static int ensure_table(struct store *s, const char *table, const char *const *cols,
                        const char *constraint)
{
        char sql[4096], name[64];
        sqlite3_stmt *st;
        size_t at;
        int i, have, rc;

        at = snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS %s(", table);
        for (i = 0; cols[i] && at < sizeof(sql); i++)
                at += snprintf(sql + at, sizeof(sql) - at, "%s%s", i ? ", " : "", cols[i]);
        if (at < sizeof(sql))
                at += snprintf(sql + at, sizeof(sql) - at, "%s%s)", constraint ? ", " : "",
                               constraint ? constraint : "");
        if (at >= sizeof(sql))
                return -ENAMETOOLONG;
        if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
                return store_fail(s, table);
        for (i = 0; cols[i]; i++) {
                snprintf(name, sizeof(name), "%.*s", (int)strcspn(cols[i], " "), cols[i]);
                snprintf(sql, sizeof(sql),
                         "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name='%s'", table, name);
                if (store_prepare(s, sql, &st))
                        return -EIO;
                rc = sqlite3_step(st);
                have = rc == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
                sqlite3_finalize(st);
                if (rc != SQLITE_ROW)
                        return store_fail(s, table);
                if (have)
                        continue;
                snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s", table, cols[i]);
                if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
                        return store_fail(s, sql);
                log_info("store: added column %s.%s", table, name);
        }
        return 0;
}

/* INSERT OR REPLACE naming every column: right whatever order an older store has them in */
static int prepare_insert(struct store *s, const char *table, const char *const *cols,
                          sqlite3_stmt **out)
{
        char names[2048], params[512], sql[3072];
        int err = column_list(cols, 0, names, sizeof(names));

        if (!err)
                err = column_list(cols, 1, params, sizeof(params));
        if (err)
                return err;
        snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s(%s) VALUES(%s)", table, names, params);
        return store_prepare(s, sql, out);
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
        static const char *const names[] = { "tracer.db", "tracer.db-wal", "tracer.db-shm" };
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
                fd = openat(dfd, names[i], O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (i ? 0 : O_CREAT), 0600);
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

int store_reader_open(struct store *s, sqlite3 **out)
{
        const char *path = sqlite3_db_filename(s->db, "main");
        sqlite3 *db = NULL;

        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
                log_error("%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
                sqlite3_close(db);
                return -EIO;
        }
        /* many readers at once: each keeps little */
        sqlite3_exec(db, "PRAGMA cache_size=-128", NULL, NULL, NULL);
        *out = db;
        return 0;
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
        snprintf(s->boot_id, sizeof(s->boot_id), "%s", boot_id);
        if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                            SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
                err = store_fail(s, path);
                goto fail;
        }
        sqlite3_busy_timeout(s->db, 2000);
        if (sqlite3_exec(s->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
                err = store_fail(s, "schema");
                goto fail;
        }
        err = ensure_table(s, "units", unit_cols, NULL);
        if (!err)
                err = ensure_table(s, "processes", process_cols, "PRIMARY KEY(boot_id, pid, start_boot_ns)");
        if (!err && sqlite3_exec(s->db, indexes, NULL, NULL, NULL) != SQLITE_OK)
                err = store_fail(s, "indexes");
        if (!err)
                err = column_list(unit_cols, 0, s->unit_columns, sizeof(s->unit_columns));
        if (err)
                goto fail;
        err = check_version(s);
        if (err)
                goto fail;
        err = prepare_insert(s, "units", unit_cols, &s->put_unit);
        if (!err)
                err = prepare_insert(s, "processes", process_cols, &s->add_process);
        if (!err)
                err = store_prepare(s, "INSERT INTO samples VALUES(?,?,?,?,?,?)", &s->add_sample);
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
        if (!s)
                return;
        if (s->db)
                store_commit(s);
        sqlite3_finalize(s->put_unit);
        sqlite3_finalize(s->add_process);
        sqlite3_finalize(s->add_sample);
        sqlite3_close(s->db);
        free(s);
}

void store_on_loss(struct store *s, store_loss_fn fn, void *ctx)
{
        s->on_loss = fn;
        s->loss_ctx = ctx;
}

static void lose(struct store *s, uint64_t unit, uint32_t n)
{
        if (s->on_loss && n)
                s->on_loss(s->loss_ctx, unit, n);
}

/* A process joined the open batch: counted for its unit in case the batch is lost. */
static void note_batch(struct store *s, uint64_t unit)
{
        unsigned i;

        for (i = 0; i < s->nbatch && s->batch[i].unit != unit; i++)
                ;
        if (i == s->nbatch) {
                if (s->nbatch == STORE_BATCH_UNITS) {
                        s->batch_rest++; /* more units than tracked: unattributed */
                        return;
                }
                s->batch[s->nbatch++] = (typeof(s->batch[0])){ unit, 0 };
        }
        s->batch[i].n++;
}

/* The open batch is gone (rolled back): what it held is lost, for its units. */
static void batch_lost(struct store *s)
{
        unsigned i;

        for (i = 0; i < s->nbatch; i++)
                lose(s, s->batch[i].unit, s->batch[i].n);
        lose(s, 0, s->batch_rest);
        s->nbatch = 0;
        s->batch_rest = 0;
        s->in_txn = 0;
        s->pending = 0;
}

/* A write or the commit failed (disk full, I/O error). Said once until writes work again; the
 * batch state follows SQLite's: a batch it rolled back is counted lost. */
int store_write_failed(struct store *s, const char *what)
{
        int full = sqlite3_errcode(s->db) == SQLITE_FULL;

        if (!s->failing)
                log_error("store: %s failed: %s: what cannot be written is counted per unit (Lost) "
                          "until writes work again", what, sqlite3_errmsg(s->db));
        s->failing = 1;
        if (s->in_txn && sqlite3_get_autocommit(s->db))
                batch_lost(s);
        return full ? -ENOSPC : -EIO;
}

int store_commit(struct store *s)
{
        int err;

        if (!s->in_txn)
                return 0;
        if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
                err = store_write_failed(s, "commit");
                if (s->in_txn) { /* still open after a failed COMMIT: give it up */
                        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
                        batch_lost(s);
                }
                return err;
        }
        if (s->failing)
                log_info("store: writes work again");
        s->failing = 0;
        s->in_txn = 0;
        s->pending = 0;
        s->nbatch = 0;
        s->batch_rest = 0;
        return 0;
}

unsigned store_pending(const struct store *s)
{
        return s->pending;
}

/* Every write joins the open batch; a full batch is committed at once. */
static int write_step(struct store *s, sqlite3_stmt *st)
{
        int rc;

        if (!s->in_txn) {
                if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
                        sqlite3_reset(st);
                        sqlite3_clear_bindings(st);
                        return store_write_failed(s, "begin");
                }
                s->in_txn = 1;
        }
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc != SQLITE_DONE)
                return store_write_failed(s, "write");
        if (++s->pending >= BATCH_MAX)
                return store_commit(s);
        return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
        if (v && *v)
                sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
        else
                sqlite3_bind_null(st, i);
}

int store_put_unit(struct store *s, const struct unit *u)
{
        sqlite3_stmt *st = s->put_unit;
        int i = 1;

        sqlite3_bind_int64(st, i++, u->id);
        sqlite3_bind_text(st, i++, u->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, i++, u->kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, i++, s->boot_id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, i++, u->uid);
        sqlite3_bind_int64(st, i++, u->gid);
        sqlite3_bind_int64(st, i++, u->root_pid);
        sqlite3_bind_int64(st, i++, u->root_start_ns);
        sqlite3_bind_int64(st, i++, u->cgroup_id);
        bind_text(st, i++, u->cgroup_path);
        bind_text(st, i++, u->cluster);
        sqlite3_bind_int64(st, i++, u->job_id);
        sqlite3_bind_int64(st, i++, u->array_job_id);
        sqlite3_bind_int64(st, i++, u->array_task_id);
        sqlite3_bind_int64(st, i++, u->step_id);
        sqlite3_bind_int64(st, i++, u->task_id);
        bind_text(st, i++, u->job_name);
        sqlite3_bind_int64(st, i++, u->alloc_cpus);
        bind_text(st, i++, u->alloc_cores);
        sqlite3_bind_int64(st, i++, u->alloc_mem_mb);
        bind_text(st, i++, u->pipeline);
        bind_text(st, i++, u->run);
        bind_text(st, i++, u->step_name);
        bind_text(st, i++, u->traceparent);
        sqlite3_bind_int64(st, i++, u->start_ns);
        if (u->end_ns)
                sqlite3_bind_int64(st, i++, u->end_ns);
        else
                sqlite3_bind_null(st, i++);
        sqlite3_bind_text(st, i++, unit_state_name(u->state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, i++, u->exit_status);
        sqlite3_bind_int64(st, i++, u->lost_events);
        if (u->cgroup_cpu_ns || u->cgroup_mem_peak_kb) {
                sqlite3_bind_int64(st, i, u->cgroup_cpu_ns);
                sqlite3_bind_int64(st, i + 1, u->cgroup_mem_peak_kb);
        }
        i += 2;
        bind_text(st, i++, u->engine);
        bind_text(st, i++, u->wf_job);
        bind_text(st, i++, u->wildcards);
        bind_text(st, i++, u->tag);
        bind_text(st, i++, u->task_hash);
        if (u->down_start_ns) {
                sqlite3_bind_int64(st, i, u->down_start_ns);
                sqlite3_bind_int64(st, i + 1, u->down_end_ns);
        }
        i += 2;
        return write_step(s, st);
}

int store_next_unit_id(struct store *s, uint64_t *out)
{
        sqlite3_stmt *st;
        int rc;

        if (store_prepare(s, "SELECT COALESCE(MAX(id), 0) + 1 FROM units", &st))
                return -EIO;
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                *out = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return rc == SQLITE_ROW ? 0 : store_fail(s, "next unit id");
}

/* getrusage(2)'s split: scheduler runtime is exact, the tick samples only give the ratio. */
static void cpu_split(const struct exit_event *e, uint64_t *user, uint64_t *sys)
{
        uint64_t total = e->utime_ns + e->stime_ns;

        if (total == 0) {
                *user = e->runtime_ns;
                *sys = 0;
                return;
        }
        *user = (uint64_t)((long double)e->runtime_ns * e->utime_ns / total);
        *sys = e->runtime_ns - *user;
}

/* A figure the kernel side may not have counted: NULL (unknown) rather than a false 0. */
static void bind_known(sqlite3_stmt *st, int i, uint64_t v, int known)
{
        if (known)
                sqlite3_bind_int64(st, i, v);
        else
                sqlite3_bind_null(st, i);
}

int store_add_process(struct store *s, const struct proc *p, int64_t offset_ns)
{
        sqlite3_stmt *st = s->add_process;
        const struct exit_event *e = &p->exit;
        uint64_t user, sys;
        int i = 1, err;

        cpu_split(e, &user, &sys);
        sqlite3_bind_text(st, i++, s->boot_id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, i++, p->pid);
        sqlite3_bind_int64(st, i++, p->start_ns);
        sqlite3_bind_int64(st, i++, p->unit);
        sqlite3_bind_int64(st, i++, p->ppid);
        sqlite3_bind_int64(st, i++, p->uid);
        sqlite3_bind_int64(st, i++, p->gid);
        sqlite3_bind_int64(st, i++, (int64_t)p->start_ns + offset_ns);
        if (p->exec_ns)
                sqlite3_bind_int64(st, i++, (int64_t)p->exec_ns + offset_ns);
        else
                sqlite3_bind_null(st, i++);
        sqlite3_bind_int64(st, i++, (int64_t)e->h.time_ns + offset_ns);
        bind_text(st, i++, p->comm);
        bind_text(st, i++, p->exe);
        if (p->argv_len)
                sqlite3_bind_blob(st, i++, p->argv, p->argv_len, SQLITE_TRANSIENT);
        else
                sqlite3_bind_null(st, i++);
        sqlite3_bind_int64(st, i++, p->cgroup_id);
        sqlite3_bind_int64(st, i++, e->runtime_ns);
        sqlite3_bind_int64(st, i++, user);
        sqlite3_bind_int64(st, i++, sys);
        /* MaxRSS is the program's own peak; where the kernel left none to read, the last live
         * sample is the closest honest figure (a lower bound), and without one it is unknown */
        if (!(e->flags & EXIT_PEAK_UNREAD))
                sqlite3_bind_int64(st, i++, e->peak_rss_kb);
        else if (p->sample_rss_kb)
                sqlite3_bind_int64(st, i++, p->sample_rss_kb);
        else
                sqlite3_bind_null(st, i++);
        sqlite3_bind_int64(st, i++, e->rchar);
        sqlite3_bind_int64(st, i++, e->wchar);
        sqlite3_bind_int64(st, i++, e->syscr);
        sqlite3_bind_int64(st, i++, e->syscw);
        sqlite3_bind_int64(st, i++, e->read_bytes);
        sqlite3_bind_int64(st, i++, e->write_bytes);
        sqlite3_bind_int64(st, i++, e->cancelled_write_bytes);
        sqlite3_bind_int64(st, i++, e->minflt);
        sqlite3_bind_int64(st, i++, e->majflt);
        sqlite3_bind_int64(st, i++, e->nvcsw);
        sqlite3_bind_int64(st, i++, e->nivcsw);
        sqlite3_bind_int64(st, i++, e->threads);
        sqlite3_bind_int64(st, i++, e->status);
        sqlite3_bind_int64(st, i++, p->flags | (e->flags & EXIT_THREADS_TRUNCATED ? PROC_THREADS_TRUNCATED : 0) |
                                            (e->flags & EXIT_PEAK_UNREAD ? PROC_PEAK_UNREAD : 0));
        bind_text(st, i++, p->tool.name);
        bind_text(st, i++, p->tool.subcommand);
        bind_text(st, i++, p->tool.interpreter);
        sqlite3_bind_int(st, i++, p->tool.excluded);
        sqlite3_bind_int(st, i++, p->tool.wrapper);
        sqlite3_bind_int64(st, i++, e->ru_maxrss_kb);
        sqlite3_bind_int64(st, i++, p->base.runtime_ns);
        bind_known(st, i++, e->w.cpu_wait_ns, !(p->flags & PROC_EXIT_LOST));
        bind_known(st, i++, e->w.iowait_ns, !(e->flags & EXIT_NO_WAITS));
        bind_known(st, i++, e->w.offcpu_ns, !(e->flags & EXIT_NO_WAITS));
        bind_known(st, i++, e->w.net_rx_bytes, !(e->flags & EXIT_NO_NET));
        bind_known(st, i++, e->w.net_tx_bytes, !(e->flags & EXIT_NO_NET));
        bind_known(st, i++, e->w.net_rx_calls, !(e->flags & EXIT_NO_NET));
        bind_known(st, i++, e->w.net_tx_calls, !(e->flags & EXIT_NO_NET));
        bind_known(st, i++, (int64_t)p->stall.start_ns + offset_ns, p->stall.ns);
        bind_known(st, i++, p->stall.ns, p->stall.ns);
        bind_text(st, i++, p->stall.ns ? p->stall.reason : NULL);
        err = write_step(s, st);
        if (err)
                lose(s, p->unit, 1);
        else if (s->in_txn)
                note_batch(s, p->unit);
        return err;
}

int store_add_sample(struct store *s, const struct proc *p, uint64_t time_boot_ns, int64_t offset_ns)
{
        sqlite3_stmt *st = s->add_sample;

        sqlite3_bind_int64(st, 1, p->unit);
        sqlite3_bind_int64(st, 2, p->pid);
        sqlite3_bind_int64(st, 3, p->start_ns);
        sqlite3_bind_int64(st, 4, (int64_t)time_boot_ns + offset_ns);
        sqlite3_bind_int64(st, 5, p->sample_cpu_ns);
        sqlite3_bind_int64(st, 6, p->sample_rss_kb);
        return write_step(s, st);
}
