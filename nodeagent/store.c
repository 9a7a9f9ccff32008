/* SQLite store: schema, batched writes, and the queries the control socket answers. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sqlite3.h>

#include "log.h"
#include "store.h"

#define SCHEMA_VERSION 1
#define BATCH_MAX 20000 /* commit early past this many pending writes */

struct store {
        sqlite3 *db;
        char boot_id[40];
        int in_txn;
        unsigned pending;
        sqlite3_stmt *put_unit, *add_process, *add_sample;
        char unit_columns[1024]; /* names of unit_cols, in order: what SELECTs of units list */
};

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
        "wildcards TEXT", "tag TEXT", "task_hash TEXT", NULL
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
        "tool_excluded INTEGER", NULL
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

static int fail(struct store *s, const char *what)
{
        log_error("%s: %s", what, sqlite3_errmsg(s->db));
        return -EIO;
}

static int prepare(struct store *s, const char *sql, sqlite3_stmt **out)
{
        if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) != SQLITE_OK)
                return fail(s, "prepare");
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
                return fail(s, table);
        for (i = 0; cols[i]; i++) {
                snprintf(name, sizeof(name), "%.*s", (int)strcspn(cols[i], " "), cols[i]);
                snprintf(sql, sizeof(sql),
                         "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name='%s'", table, name);
                if (prepare(s, sql, &st))
                        return -EIO;
                rc = sqlite3_step(st);
                have = rc == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
                sqlite3_finalize(st);
                if (rc != SQLITE_ROW)
                        return fail(s, table);
                if (have)
                        continue;
                snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s", table, cols[i]);
                if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
                        return fail(s, sql);
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
        return prepare(s, sql, out);
}

static int check_version(struct store *s)
{
        sqlite3_stmt *st;
        int err = 0, version = 0;

        if (prepare(s, "SELECT value FROM meta WHERE key='schema_version'", &st))
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
                err = fail(s, "schema version");
        return err;
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
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        snprintf(s->boot_id, sizeof(s->boot_id), "%s", boot_id);
        if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                            SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
                err = fail(s, path);
                goto fail;
        }
        sqlite3_busy_timeout(s->db, 2000);
        if (sqlite3_exec(s->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
                err = fail(s, "schema");
                goto fail;
        }
        err = ensure_table(s, "units", unit_cols, NULL);
        if (!err)
                err = ensure_table(s, "processes", process_cols, "PRIMARY KEY(boot_id, pid, start_boot_ns)");
        if (!err && sqlite3_exec(s->db, indexes, NULL, NULL, NULL) != SQLITE_OK)
                err = fail(s, "indexes");
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
                err = prepare(s, "INSERT INTO samples VALUES(?,?,?,?,?,?)", &s->add_sample);
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

int store_commit(struct store *s)
{
        if (!s->in_txn)
                return 0;
        if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
                return fail(s, "commit");
        s->in_txn = 0;
        s->pending = 0;
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
                if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
                        return fail(s, "begin");
                s->in_txn = 1;
        }
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc != SQLITE_DONE)
                return fail(s, "write");
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
        return write_step(s, st);
}

int store_next_unit_id(struct store *s, uint64_t *out)
{
        sqlite3_stmt *st;
        int rc;

        if (prepare(s, "SELECT COALESCE(MAX(id), 0) + 1 FROM units", &st))
                return -EIO;
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                *out = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return rc == SQLITE_ROW ? 0 : fail(s, "next unit id");
}

static void copy_col(sqlite3_stmt *st, int col, char *dst, size_t len)
{
        const unsigned char *v = sqlite3_column_text(st, col);

        snprintf(dst, len, "%s", v ? (const char *)v : "");
}

static void unit_from_row(sqlite3_stmt *st, struct unit *u)
{
        enum unit_state state = UNIT_LOST;
        const unsigned char *sn;
        int i = 0;

        memset(u, 0, sizeof(*u));
        u->id = sqlite3_column_int64(st, i++);
        copy_col(st, i++, u->name, sizeof(u->name));
        copy_col(st, i++, u->kind, sizeof(u->kind));
        i++; /* boot_id */
        u->uid = sqlite3_column_int64(st, i++);
        u->gid = sqlite3_column_int64(st, i++);
        u->root_pid = sqlite3_column_int64(st, i++);
        u->root_start_ns = sqlite3_column_int64(st, i++);
        u->cgroup_id = sqlite3_column_int64(st, i++);
        copy_col(st, i++, u->cgroup_path, sizeof(u->cgroup_path));
        copy_col(st, i++, u->cluster, sizeof(u->cluster));
        u->job_id = sqlite3_column_int64(st, i++);
        u->array_job_id = sqlite3_column_int64(st, i++);
        u->array_task_id = sqlite3_column_int64(st, i++);
        u->step_id = sqlite3_column_int64(st, i++);
        u->task_id = sqlite3_column_int64(st, i++);
        copy_col(st, i++, u->job_name, sizeof(u->job_name));
        u->alloc_cpus = sqlite3_column_int64(st, i++);
        copy_col(st, i++, u->alloc_cores, sizeof(u->alloc_cores));
        u->alloc_mem_mb = sqlite3_column_int64(st, i++);
        copy_col(st, i++, u->pipeline, sizeof(u->pipeline));
        copy_col(st, i++, u->run, sizeof(u->run));
        copy_col(st, i++, u->step_name, sizeof(u->step_name));
        copy_col(st, i++, u->traceparent, sizeof(u->traceparent));
        u->start_ns = sqlite3_column_int64(st, i++);
        u->end_ns = sqlite3_column_int64(st, i++);
        sn = sqlite3_column_text(st, i++);
        if (sn)
                unit_state_parse((const char *)sn, &state);
        u->state = state;
        u->exit_status = sqlite3_column_int64(st, i++);
        u->lost_events = sqlite3_column_int64(st, i++);
        u->cgroup_cpu_ns = sqlite3_column_int64(st, i++);
        u->cgroup_mem_peak_kb = sqlite3_column_int64(st, i++);
        copy_col(st, i++, u->engine, sizeof(u->engine));
        copy_col(st, i++, u->wf_job, sizeof(u->wf_job));
        copy_col(st, i++, u->wildcards, sizeof(u->wildcards));
        copy_col(st, i++, u->tag, sizeof(u->tag));
        copy_col(st, i++, u->task_hash, sizeof(u->task_hash));
}

int store_close_stale_units(struct store *s)
{
        sqlite3_stmt *st;
        int rc;

        if (prepare(s, "UPDATE units SET state='LOST', end_ns=COALESCE(end_ns, start_ns)"
                       " WHERE state='RUNNING' AND boot_id IS NOT ?", &st))
                return -EIO;
        sqlite3_bind_text(st, 1, s->boot_id, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
                return fail(s, "stale units");
        rc = sqlite3_changes(s->db);
        if (rc)
                log_info("store: %d units of an earlier boot marked LOST", rc);
        return 0;
}

int store_running_units(struct store *s, int (*fn)(const struct unit *u, void *ctx), void *ctx)
{
        char sql[1536];
        sqlite3_stmt *st;
        struct unit u;
        int rc, err = 0;

        snprintf(sql, sizeof(sql), "SELECT %s FROM units WHERE state='RUNNING' AND boot_id=?",
                 s->unit_columns);
        if (prepare(s, sql, &st))
                return -EIO;
        sqlite3_bind_text(st, 1, s->boot_id, -1, SQLITE_STATIC);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && !err) {
                unit_from_row(st, &u);
                err = fn(&u, ctx);
        }
        sqlite3_finalize(st);
        if (!err && rc != SQLITE_DONE && rc != SQLITE_ROW)
                err = fail(s, "running units");
        return err;
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

int store_add_process(struct store *s, const struct proc *p, int64_t offset_ns)
{
        sqlite3_stmt *st = s->add_process;
        const struct exit_event *e = &p->exit;
        uint64_t user, sys;
        int i = 1;

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
        sqlite3_bind_int64(st, i++, e->maxrss_kb);
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
        sqlite3_bind_int64(st, i++, p->flags | (e->flags & EXIT_THREADS_TRUNCATED ? 0x100 : 0));
        bind_text(st, i++, p->tool.name);
        bind_text(st, i++, p->tool.subcommand);
        bind_text(st, i++, p->tool.interpreter);
        sqlite3_bind_int(st, i++, p->tool.excluded);
        return write_step(s, st);
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

/* One row as a JSON object, column names as keys; argv (NUL-separated) as an array. */
static struct json_object *row_to_json(sqlite3_stmt *st)
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
                case SQLITE_BLOB: {
                        const char *b = sqlite3_column_blob(st, i);
                        int len = sqlite3_column_bytes(st, i), at = 0;

                        v = json_object_new_array();
                        while (v && at < len) {
                                int l = strnlen(b + at, len - at);

                                json_object_array_add(v, json_object_new_string_len(b + at, l));
                                at += l + 1;
                        }
                        break;
                }
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
                json_object_array_add(arr, row_to_json(st));
        if (rc != SQLITE_DONE) {
                json_object_put(arr);
                return fail(s, "query");
        }
        *out = arr;
        return 0;
}

int store_find_units(struct store *s, const char *selector, uint32_t uid, struct json_object **out)
{
        long long num = -1, task = -1;
        char sql[1536], *end;
        sqlite3_stmt *st;
        int err;

        /* "N": Slurm job N (all its steps) or local run N; "N_M": task M of job array N;
         * anything else: a unit name ("N.batch", "N.0", a run's --name) */
        if (isdigit((unsigned char)*selector)) {
                num = strtoll(selector, &end, 10);
                if (*end == '_' && isdigit((unsigned char)end[1]))
                        task = strtoll(end + 1, &end, 10);
                if (*end)
                        num = task = -1;
        }
        snprintf(sql, sizeof(sql),
                 "SELECT %s FROM units WHERE (name=?1"
                 " OR (?3 < 0 AND ((job_id=?2 AND ?2 > 0) OR (kind='local' AND id=?2)))"
                 " OR (?3 >= 0 AND array_job_id=?2 AND array_task_id=?3))"
                 " AND (?4 OR uid=?5) ORDER BY id",
                 s->unit_columns);
        if (prepare(s, sql, &st))
                return -EIO;
        sqlite3_bind_text(st, 1, selector, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, num);
        sqlite3_bind_int64(st, 3, task);
        sqlite3_bind_int(st, 4, uid == UINT32_MAX);
        sqlite3_bind_int64(st, 5, uid);
        err = rows_to_array(s, st, out);
        sqlite3_finalize(st);
        return err;
}

int store_get_unit(struct store *s, uint64_t id, struct unit *out)
{
        char sql[1536];
        sqlite3_stmt *st;
        int rc;

        snprintf(sql, sizeof(sql), "SELECT %s FROM units WHERE id=?", s->unit_columns);
        if (prepare(s, sql, &st))
                return -EIO;
        sqlite3_bind_int64(st, 1, id);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                unit_from_row(st, out);
        sqlite3_finalize(st);
        if (rc == SQLITE_ROW)
                return 0;
        return rc == SQLITE_DONE ? -ENOENT : fail(s, "unit");
}

int store_unit_processes(struct store *s, uint64_t unit, struct json_object **out)
{
        sqlite3_stmt *st;
        int err;

        if (prepare(s, "SELECT pid, ppid, uid, start_ns, exec_ns, end_ns, comm, exe, argv,"
                       " cpu_ns, user_ns, sys_ns, maxrss_kb, rchar, wchar, read_bytes, write_bytes,"
                       " minflt, majflt, nvcsw, nivcsw, threads, status, flags, tool, subcommand,"
                       " interpreter, tool_excluded"
                       " FROM processes WHERE unit=? ORDER BY start_boot_ns, pid", &st))
                return -EIO;
        sqlite3_bind_int64(st, 1, unit);
        err = rows_to_array(s, st, out);
        sqlite3_finalize(st);
        return err;
}

int store_unit_tools(struct store *s, uint64_t unit, struct json_object **out)
{
        sqlite3_stmt *st;
        int err;

        if (prepare(s, "SELECT tool, subcommand, COUNT(*) AS nprocs, SUM(cpu_ns) AS cpu_ns,"
                       " SUM(user_ns) AS user_ns, SUM(sys_ns) AS sys_ns, MAX(maxrss_kb) AS maxrss_kb,"
                       " SUM(read_bytes) AS read_bytes, SUM(write_bytes) AS write_bytes,"
                       " MIN(start_ns) AS first_start_ns, MAX(end_ns) AS last_end_ns,"
                       " group_concat(DISTINCT status) AS statuses,"
                       " SUM((flags & 8) != 0) AS oom_kills"
                       " FROM processes WHERE unit=? AND tool IS NOT NULL AND NOT tool_excluded"
                       " GROUP BY tool, subcommand ORDER BY SUM(cpu_ns) DESC", &st))
                return -EIO;
        sqlite3_bind_int64(st, 1, unit);
        err = rows_to_array(s, st, out);
        sqlite3_finalize(st);
        return err;
}

int store_unit_totals(struct store *s, uint64_t unit, struct json_object **out)
{
        struct json_object *o = NULL;
        sqlite3_stmt *st;
        int rc;

        if (prepare(s, "SELECT COUNT(*) AS nprocs, SUM(cpu_ns) AS cpu_ns, SUM(user_ns) AS user_ns,"
                       " SUM(sys_ns) AS sys_ns, MAX(maxrss_kb) AS maxrss_kb,"
                       " SUM(read_bytes) AS read_bytes, SUM(write_bytes) AS write_bytes,"
                       " SUM(rchar) AS rchar, SUM(wchar) AS wchar,"
                       " SUM((flags & 8) != 0) AS oom_kills, MIN(start_ns) AS first_start_ns,"
                       " MAX(end_ns) AS last_end_ns FROM processes WHERE unit=?", &st))
                return -EIO;
        sqlite3_bind_int64(st, 1, unit);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                o = row_to_json(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW)
                return fail(s, "totals");
        /* Live samples: the most cores busy at once between two sampling rounds, and the
         * largest sum of the unit's resident sets in one round. */
        if (prepare(s, "WITH d AS (SELECT time_ns, rss_kb,"
                       "  cpu_ns - LAG(cpu_ns) OVER w AS dcpu, time_ns - LAG(time_ns) OVER w AS dt"
                       "  FROM samples WHERE unit=?1"
                       "  WINDOW w AS (PARTITION BY pid, start_boot_ns ORDER BY time_ns))"
                       " SELECT (SELECT MAX(busy) FROM (SELECT SUM(dcpu * 1.0 / dt) AS busy FROM d"
                       "   WHERE dt > 0 GROUP BY time_ns)) AS peak_cores,"
                       "  (SELECT MAX(rss) FROM (SELECT SUM(rss_kb) AS rss FROM d GROUP BY time_ns))"
                       "   AS peak_sampled_rss_kb,"
                       "  (SELECT COUNT(DISTINCT time_ns) FROM d) AS sample_rounds", &st)) {
                json_object_put(o);
                return -EIO;
        }
        sqlite3_bind_int64(st, 1, unit);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
                struct json_object *extra = row_to_json(st);

                json_object_object_foreach(extra, key, val)
                        json_object_object_add(o, key, json_object_get(val));
                json_object_put(extra);
        }
        sqlite3_finalize(st);
        *out = o;
        return 0;
}
