/* The durable store: SQLite in WAL mode under the state directory. Writes are batched in one
 * open transaction and committed by store_commit() on a timer; what was committed survives a
 * crash of the daemon.
 *
 * The store is also the exporters' spool. Each process row written, and each write of a unit
 * that has finished, takes the next number of the export sequence ("seq"): a reader that
 * remembers the last number it delivered finds what is new with seq > it, in the order it was
 * written. A number is never given twice, across restarts and pruning (the highest is kept in
 * meta); rows moved to another unit take new numbers, so that they are sent again under it. */
#ifndef TRACER_STORE_H
#define TRACER_STORE_H

#include <stdint.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include "process_row.h"
#include "proctable.h"
#include "records.h"
#include "store_pragmas.h"
#include "unit.h"

#define ANY_UID UINT32_MAX /* queries: units of every user */

struct store;

int store_open(struct store **out, const char *dir, const char *boot_id);
/* The store's file: readers of other threads (the export's) open it on their own. */
const char *store_file(const struct store *s);
/* Called with the processes of a unit that a failed write or commit (disk full, I/O error)
 * could not store; unit 0 when more units were in the batch than it tracks. */
typedef void (*store_loss_fn)(void *ctx, uint64_t unit, uint32_t n);
void store_on_loss(struct store *s, store_loss_fn fn, void *ctx);
/* handover: called as the open batch (what was written so far) is handed to the committing
 * thread; committed: after that batch's commit succeeded, so that what was written before the
 * handover is on disk. Both on the loop's thread. */
typedef void (*store_commit_fn)(void *ctx);
void store_on_commit(struct store *s, store_commit_fn committed, store_commit_fn handover,
		     void *ctx);
/* Called with the folded rows (store_fold_process) a batch made for a unit, and their bytes */
typedef void (*store_folded_fn)(void *ctx, uint64_t unit, unsigned rows, size_t bytes);
void store_on_folded(struct store *s, store_folded_fn fn, void *ctx);
void store_close(struct store *s); /* commits what is pending */
/* Rows are written, and committed, on a thread of their own, so that the loop never waits on
 * the disk: process, sample and unit rows are copied into a queue, which a full batch, a tick
 * or a unit's start or end hands to the thread (store_commit_start), and the loop goes on
 * filling the next. It stops taking rows only when that one is full too (store_full). Any
 * other use of the store's own connection first waits for the thread and writes what is
 * queued, so that it sees every row in order; the job's end is settled on the loop's thread
 * (failures said and counted, callbacks called): store_settle does so alone, at once when
 * store_commit_fd is readable. */
int store_commit(struct store *s); /* commits now, and waits for it: 0, or the commit's error */
void store_commit_start(struct store *s);
/* The commit of a tick, then the checkpoint of the write-ahead log once it is long: handed over
 * as store_commit_start's. */
void store_checkpoint(struct store *s);
int store_settle(struct store *s);     /* 0, or the error of the commit it settled */
int store_busy(const struct store *s); /* a commit is handed and not settled yet */
/* What is written so far, handed to the thread now or after the job running: a ticket for
 * store_flushed, which is true once that job is settled (committed, or its failure counted),
 * and hands it over meanwhile if it still waits. A reader of its own connection then sees it. */
uint64_t store_flush_async(struct store *s);
int store_flushed(struct store *s, uint64_t ticket);
/* A commit runs and the next batch is full: rows wait (the ring's events) until it ends */
int store_full(const struct store *s);
int store_commit_fd(const struct store *s);    /* readable once the handed commit is over */
unsigned store_pending(const struct store *s); /* writes not committed yet */
uint64_t store_written(const struct store *s); /* bytes of rows written since open, roughly */
/* What the loop spent on the disk since open: its writes of rows, and its waits for commits
 * (the commits and checkpoints themselves run on their thread). */
void store_io_ns(const struct store *s, uint64_t *write_ns, uint64_t *waited_ns);

/* Insert or update a unit (its id is the key). */
/* Rows of processes and samples written under unit id from move to unit id to; to 0: deleted.
 * *rows: the processes'. For keys of tasks registered in the kernel (registry.h). */
int store_move_rows(struct store *s, uint64_t from, uint64_t to, uint64_t *rows);
int store_put_unit(struct store *s, const struct unit *u);
/* The next free unit id. */
int store_next_unit_id(struct store *s, uint64_t *out);
/* Units left RUNNING by an earlier boot cannot be found again: mark them LOST. */
int store_close_stale_units(struct store *s);
/* Delete up to batch finished units (with their processes and samples) that ended before
 * before_ns (unix ns; 0: no age limit), then, while the pages in use exceed max_bytes (0: no
 * limit), the oldest finished ones. Never a running unit. */
int store_prune(struct store *s, int64_t before_ns, uint64_t max_bytes, unsigned batch,
		unsigned *pruned);
/* The same round, with the open batch, handed to the committing thread: the loop goes on, and
 * the shares and the pages in use follow once the round is settled. -EBUSY while a commit
 * runs (nothing handed: the next tick tries again). */
int store_prune_async(struct store *s, int64_t before_ns, uint64_t max_bytes, unsigned batch);
/* The last settled round pruned a full batch: more waits for the next. */
int store_prune_backlog(const struct store *s);
/* The pages in use as the last round counted them (counted now before the first): a scrape
 * never waits on the disk. */
int store_used_bytes(struct store *s, uint64_t *out);
/* The store's use as the last pruning round left it: {used_bytes,
 * max_bytes, users: [{uid, bytes, units}], more_users}, users' shares (stored_bytes, by
 * owner_uid) the most first: the first limit of them and how many more for ANY_UID, else uid's
 * own alone wherever it ranks (and no more_users). NULL before the first count. */
struct json_object *store_shares(struct store *s, uint32_t uid, unsigned limit);
/* The export cursor of the slowest exported signal (export/cursor.h), or -1 when nothing is
 * exported: pruning by StoreRetention keeps every unit that has a row above it, and only
 * StoreMaxSize may take such units, counted as dropped (and said in the log). */
void store_set_export_floor(struct store *s, int64_t floor);
/* Rows (processes and units) pruned before they were exported, since the store was opened */
uint64_t store_export_dropped(const struct store *s);
/* The highest export sequence the store ever gave, on db (a reader connection: the export
 * thread's): 0 with *seq (0 for a new store), or -EIO. Below a cursor, the store is not the
 * one the cursor was kept for (it was removed and made again). Its statement stays with db
 * (stmt.h): close db with stmt_close_db. */
int store_export_latest(sqlite3 *db, int64_t *seq);
/* The process rows that make log records in the export (export/items.c's process_logs): a
 * failure, an OOM kill, a stall. They have a partial index of their own (processes_logs), so
 * that the export's logs read a storm's successful rows not at all: read through the export
 * sequence's index, each row was fetched to be found wanting. An index's condition cannot name
 * a bound parameter, so this one writes the flag from its definition (records.h); the export's
 * query holds this text as it is, which is what lets SQLite take the index. */
#define STORE_LOG_ROWS \
	"(status != 0 OR (flags & " STORE_STR(PROC_OOM_KILLED) ") != 0 OR stall_ns > 0)"
/* The boot id of a row of processes or stall starts, whose column col holds its boot's key
 * (store_boot.c): the id itself for a boot whose rows an earlier tracerd wrote */
#define STORE_BOOT_ID(col) "COALESCE((SELECT b.boot FROM boots b WHERE b.key = " col "), " col ")"
/* The process flags a statement names (:oom_killed), bound to their values: SQL names them,
 * never writes them as numbers (but in STORE_LOG_ROWS). */
void store_bind_flags(sqlite3_stmt *st);
/* The last number of the export sequence given so far */
int64_t store_export_head(const struct store *s);
/* The daemon's heartbeat (unix ns): a restart reads the last one to know when it went away.
 * It is a line in a file of its own beside the store (STORE_ALIVE_FILE), written in place at
 * once, not with a commit: an idle daemon commits nothing. An earlier version wrote it into
 * meta with each commit: the later of the two is the last (one may have run since). */
#define STORE_ALIVE_FILE "alive"
int store_set_alive(struct store *s, int64_t now_ns); /* 0 or -errno (said at debug level) */
int store_last_alive(struct store *s, int64_t *out);  /* -ENOENT: never written */
/* Units still running on this boot, for rediscovery after a restart. */
int store_running_units(struct store *s, int (*fn)(const struct unit *u, void *ctx), void *ctx);

/* Column indexes by name: SCOL_time_ns (a process's: records.h's PCOL_pid) */
#define REC_INDEX_S(name, kind, sql, len, flags) SCOL_##name,
enum { SAMPLE_RECORD(REC_INDEX_S) };

/* A process row as JSON: its listed columns, as store_unit_processes() sends them; a TEXT or a
 * BLOB that is set is sent even when empty. */
struct json_object *store_process_json(const struct rec_row *r);

/* A finished process (PROC_FINISHED), its row as process_row.h fills it; offset_ns turns
 * boottime into unix time. */
int store_add_process(struct store *s, const struct proc *p, int64_t offset_ns);
/* The bytes a process's row takes in the store, roughly: what a unit's and a user's share of
 * the store are counted in. */
size_t store_row_bytes(const struct proc *p);
size_t store_sample_bytes(void);
/* A finished process of a unit past its cap: added into the unit's row for its tool,
 * subcommand, exit status and OOM kill, which counts it in the unit's totals and tool table but
 * does not list it. With no_new_tool (a unit with too many such rows) a process whose row is
 * not there yet goes to the "(other tools)" row of its exit status instead. A row made for it
 * is said to on_folded (store_on_folded) once written. */
int store_fold_process(struct store *s, const struct proc *p, int64_t offset_ns, int no_new_tool);
/* Both with the process's row already filled (process_row_fill, with offset_ns): the row is
 * the caller's, and only who the process is changes in it (its export sequence number set,
 * or, folded, its identity left out), never its figures. */
int store_add_process_row(struct store *s, const struct proc *p, struct rec_row *r);
int store_fold_process_row(struct store *s, const struct proc *p, struct rec_row *r,
			   int no_new_tool);
/* A stall of running process p has begun (p->stall.open_start_ns): its row for the export's log
 * record, of about STORE_STALL_START_BYTES. 0 or -errno. */
#define STORE_STALL_START_BYTES 200
int store_add_stall_start(struct store *s, const struct proc *p, int64_t offset_ns);
/* A live process's sample for timelines. */
int store_add_sample(struct store *s, const struct proc *p, uint64_t time_boot_ns,
		     int64_t offset_ns);

/* Queries answer JSON arrays for the control socket. uid (uint32 max: anybody) restricts to
 * units of that user. A selector is a Slurm job id ("N", "N_M" an array task), a traced run's
 * id ("rN"), or a unit name. */
int store_find_units(struct store *s, const char *selector, uint32_t uid, struct json_object **out);
/* Unit id as stored: 0, -ENOENT, or -EIO. */
int store_get_unit(struct store *s, uint64_t id, struct unit *out);
int store_unit_processes(struct store *s, uint64_t unit, struct json_object **out);
/* One row per tool (and subcommand) of a unit, plumbing left out, biggest CPU first: sums,
 * the largest peak RSS of the tool's own processes (a wrapper's only when there is no other)
 * and "status_counts", each wait status with its count ("0:12,256:1"). */
int store_unit_tools(struct store *s, uint64_t unit, struct json_object **out);
/* Totals of one unit's processes: count, cpu, peak rss, I/O, ... as a JSON object. */
int store_unit_totals(struct store *s, uint64_t unit, struct json_object **out);
/* The earlier successful runs of the same step as unit by the same user (store_history.c),
 * newest first, at most limit: [{unit, start_ns, end_ns, totals}]. */
int store_unit_history(struct store *s, uint64_t unit, unsigned limit, struct json_object **out);
/* The same runs of unit u (its id, start, uid, kind, names and ids filled) read through db,
 * another connection (the export's): the time each took into elapsed[0..limit), newest first,
 * their number in *n. 0, or -EIO. */
int store_history_elapsed(sqlite3 *db, const struct unit *u, unsigned limit, int64_t *elapsed,
			  size_t *n);

#endif
