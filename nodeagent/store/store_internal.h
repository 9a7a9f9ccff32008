/* What store.c (schema, writes) and store_query.c (reads) share; not for other modules. */
#ifndef TRACER_STORE_INTERNAL_H
#define TRACER_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include "records.h"
#include "row_queue.h"
#include "store.h"

#define BATCH_MAX 20000 /* commit early past this many pending writes */
/* ... or this many bytes of rows: the write-ahead log holds a whole batch until its commit,
 * whatever the checkpoints, so a storm of large rows must not make one large batch */
#define BATCH_BYTES (1u << 20)
/* The write-ahead log's bounds are in bytes, its pages times the store's page size (a store
 * keeps the size it was made with: 4 KiB, or 16 KiB for one an earlier tracerd made), so
 * that they hold for both.
 * What the log may hold before streamed replies are cut: a reader's snapshot keeps the log
 * from being checkpointed back to its start, and it would otherwise grow for as long as a slow
 * client keeps taking a listing, or several in turn. */
#define STORE_WAL_BYTES_MAX (64LL << 20)
/* ... and the checkpoint of the tick that finds it this long (store_checkpoint), or of a
 * commit that left it longer than STORE_WAL_CHECKPOINT_NOW (a storm's commits, each of at most
 * a batch, between two ticks): the log stays within 4 MiB */
#define STORE_WAL_CHECKPOINT (2LL << 20)
#define STORE_WAL_CHECKPOINT_NOW (5LL << 19)
/* Bytes a process's row takes in the store besides its strings: its numbers, its keys in the
 * table and in the indexes, page slack. An estimate, what a user's share is counted in. */
#define ROW_FIXED_BYTES 320
/* A sample's row in the store, roughly (store_row_bytes() for a process's) */
#define STORE_SAMPLE_BYTES 120

/* A pruning round for the committing thread (store_prune.c): its limits, the export floor it
 * keeps, and what it did */
struct prune_job {
	int on;
	int64_t before_ns;
	uint64_t max_bytes;
	unsigned batch;
	int floor_set;
	int64_t floor;
	/* the thread's */
	unsigned pruned;
	uint64_t dropped; /* rows not exported yet that StoreMaxSize forced out */
	uint64_t used;	  /* the pages in use after it */
	int counted;	  /* used was counted */
	int err;
};

/* A commit handed to the committing thread (store_commit.c) */
struct commit_job {
	int commit;		/* the open batch's; else a checkpoint alone */
	int64_t min_bytes;	/* then a checkpoint, once the log is this long */
	int64_t seq;		/* the export sequence's highest number to keep in meta; 0: none */
	int in_txn;		/* the loop's writes began the transaction: the rows join it */
	struct row_queue *rows; /* written first (store_rows.c); NULL: none */
	struct unit_counts batch; /* processes the loop wrote itself in the transaction */
	struct unit_counts procs; /* the rows' processes */
	/* the thread's: what it could not write, and the folded rows it made */
	struct unit_counts failed, folded, folded_bytes;
	int rolled_back; /* a write failed and SQLite gave the transaction up */
	int err_code;	 /* the first failure's */
	char err[160];
	struct prune_job prune; /* after the commit; .on: one */
};
/* Writes a job's rows on the committing thread: store_rows_write (store_open gives it: the
 * commits' file calls nothing that calls it back) */
typedef void (*store_rows_fn)(struct store *s, struct commit_job *j);
/* A pruning round run on the thread (store_prune_run), and settled on the loop's
 * (store_prune_finished): given by store_open too */
typedef void (*store_prune_fn)(struct store *s, struct prune_job *p);

struct store_commit {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a job for the thread, or its end for a settle */
	int fd;		     /* eventfd: a job ended (the loop's epoll) */
	int inited, running;
	/* under lock */
	struct commit_job job;
	int queued, done, quit, rc;
	int seq_saved;		  /* the job's seq went to meta (read once done) */
	int busy;		  /* the loop's: a job is handed and not settled yet */
	uint64_t handed, settled; /* the loop's: jobs handed and settled since open */
	store_rows_fn write_rows;
	store_prune_fn prune_run, prune_finished;
};

struct store {
	sqlite3 *
		db; /* the loop's through store_db() once open, the committing thread's meanwhile */
	struct store_commit commit;
	char boot_id[40];
	char boot_key[40]; /* this boot's in rows of processes and stall starts (store_boot.c) */
	int in_txn;
	unsigned pending;
	size_t pending_bytes; /* of rows in the open batch, roughly */
	uint64_t written;     /* bytes of rows written since open, roughly */
	int failing;	      /* writes fail (disk full, I/O error): said once, until they work */
	struct unit_counts batch; /* processes the loop wrote itself in the open transaction */
	/* rows for the committing thread: one filling, the other the running job's */
	struct row_queue queue[2];
	int filling;
	store_loss_fn on_loss;
	void *loss_ctx;
	store_commit_fn on_commit, on_handover;
	void *commit_ctx;
	store_folded_fn on_folded;
	void *folded_ctx;
	sqlite3_stmt *put_unit, *add_process, *add_sample, *add_stall_start;
	/* the export sequence (store.h): the next number, and the last one written to meta */
	int64_t next_seq, seq_saved;
	sqlite3_stmt *save_seq;
	/* the heartbeat's file (store.h: store_set_alive), -1 when it cannot be opened */
	int alive_fd;
	/* store_fold.c's, prepared at its first use */
	sqlite3_stmt *fold, *fold_find, *fold_key;
	/* each user's (owner_uid's) holding, summed once a round and kept up to date as units
	 * go (store_prune.c): the committing thread's while a round runs */
	struct owner_sums {
		struct store_owner {
			uint32_t uid;
			uint64_t bytes, units, finished;
			int64_t oldest_ns; /* the end of its oldest finished unit; INT64_MAX: none
					    */
		} * o;
		size_t n, cap;
	} sums;
	int round_open;		     /* a backlog's rounds go on with the sums they began with */
	struct prune_job last_prune; /* the last round settled */
	/* the loop's: the last round's sums, users with units only, the most first (the shares
	 * status shows), the pages in use then, and StoreMaxSize */
	struct owner_sums shares;
	int shares_known;
	uint64_t shares_used, shares_max;
	uint64_t used_bytes; /* the last count of the pages in use */
	int used_known;
	/* the loop's time since open in its writes, and waiting for commits (store_io_ns) */
	uint64_t write_ns, waited_ns;
	/* store_export.c's: the export cursor of the slowest signal, above which pruning keeps
	 * what StoreMaxSize lets it keep, and what it could not keep */
	int export_floor_set;
	int64_t export_floor;
	uint64_t export_dropped;
	int page_bytes;	   /* the store's page size */
	int64_t wal_bytes; /* the write-ahead log's pages after the last commit, in bytes (atomic)
			    */
	int64_t wal_bytes_max; /* STORE_WAL_BYTES_MAX (tests make it smaller) */
	/* built from common/records.h at open: what the reads select */
	char unit_columns[2048];    /* every column of units, in the record's order */
	char process_columns[2048]; /* the columns of processes that listings show */
	char tool_columns[4096];    /* a tool group's expressions */
	char totals_columns[2048];  /* a unit's totals' expressions */
};

/* ---- records (store_record.c): the tables of common/records.h walked */

struct rec_table {
	const char *name; /* NULL: not a table of its own, an aggregate's columns */
	const struct rec_col *cols;
	size_t n;
	const char *constraint;
};
extern const struct rec_table store_units, store_processes, store_samples, store_tools,
	store_totals, store_stall_starts;

enum rec_list {
	REC_NAMES,  /* "a, b" */
	REC_LISTED, /* the same, without the stored-only columns */
	REC_PARAMS, /* "?,?" */
	REC_DEFS,   /* "a INTEGER, b TEXT" */
	REC_EXPRS,  /* "SUM(a) AS a, ..." */
};
int rec_list(const struct rec_table *t, enum rec_list how, char *out, size_t len);
int rec_ensure_table(struct store *s, const struct rec_table *t);
int rec_prepare_insert(struct store *s, const struct rec_table *t, sqlite3_stmt **out);
void rec_bind(struct store *s, sqlite3_stmt *st, const struct rec_table *t,
	      const struct rec_row *r);
/* A unit whole, to a row and from a SELECT of unit_columns */
void rec_unit_to_row(const struct unit *u, struct rec_row *r);
void rec_unit_from_stmt(sqlite3_stmt *st, struct unit *u);
/* NUL-separated strings (argv) as a JSON array. */
struct json_object *store_strings_json(const char *b, size_t len);

/* ---- commits (store_commit.c) */

/* Start and stop the committing thread (store_commit_init registers the log's hook). */
int store_commit_init(struct store *s, store_rows_fn write_rows, store_prune_fn prune_run,
		      store_prune_fn prune_finished);
void store_commit_fini(struct store *s);
/* The connection, once the commit running on it (if any) has ended and been settled: what
 * every use of it on the loop's side goes through. */
sqlite3 *store_db(struct store *s);
/* Hand the open batch and then the pruning round p to the committing thread: -EBUSY while a
 * job runs (nothing handed). store_settle ends it; store_pruned then says what it did. */
int store_prune_start(struct store *s, const struct prune_job *p);
/* What the last settled round pruned, and its error */
int store_pruned(const struct store *s, unsigned *pruned);
/* The pruning round on the thread (store_prune.c), and what the loop takes from it once settled */
void store_prune_run(struct store *s, struct prune_job *p);
void store_prune_finished(struct store *s, struct prune_job *p);
/* The open batch is gone (rolled back): what it held is lost, for its units. */
void store_batch_lost(struct store *s);
/* n processes of unit could not be stored (on_loss). */
void store_lose(struct store *s, uint64_t unit, uint32_t n);

/* A write joins the open batch (begun if none is open); a batch of BATCH_MAX writes or
 * BATCH_BYTES of rows is handed to the committing thread at once. bytes: the row's, roughly. */
int store_write_step(struct store *s, sqlite3_stmt *st, size_t bytes);
/* A row for the committing thread, which writes it in the open batch (its share counted as
 * store_write_step's). 0, or -ENOMEM (counted lost when a process's). */
int store_queue_row(struct store *s, enum row_op op, uint64_t unit, const struct rec_table *t,
		    const struct rec_row *r, size_t bytes);
/* The rows' writer (store_rows.c), and the folded rows' (store_fold.c), on the thread */
void store_rows_write(struct store *s, struct commit_job *j);
/* r added into its unit's folded row (other: into "(other tools)" when its tool has none):
 * *new_bytes the bytes of a row made for it, 0 when it joined one. SQLITE_OK or the error. */
int store_fold_write(struct store *s, struct rec_row *r, int other, size_t *new_bytes);

/* The unit states and kinds a statement names (:running, :lost, :local), bound to unit.h's
 * words: SQL never spells them. store_query.c's. */
void store_bind_unit_words(sqlite3_stmt *st);

/* Log the database's error about what, and return -EIO. */
int store_fail(struct store *s, const char *what);
/* A write failed (disk full, I/O error): said once until writes work again; a batch SQLite
 * rolled back is counted lost. -ENOSPC or -EIO. */
int store_write_failed(struct store *s, const char *what);
/* A prepared statement kept for the connection's life. */
int store_prepare(struct store *s, const char *sql, sqlite3_stmt **out);
/* One integer from a one-row query; -ENOENT when it has no row, outputs untouched on failure */
int store_query_int(struct store *s, const char *sql, const char *what, int64_t *out);

/* One row as a JSON object, column names as keys; argv (NUL-separated) as an array. */
struct json_object *store_row_to_json(sqlite3_stmt *st);
/* The same row as JSON text into t (row_text.c), byte for byte what the object serialises to
 * (plain, no slash escapes); a row with a uid other than viewer (ANY_UID: none) has its argv
 * null and "argv_hidden":true, as stream.c withholds it. 0 or -ENOMEM. A row_text serves one
 * statement (it keeps its columns): store_row_text_free before it serves another. */
struct row_text {
	char *p;
	size_t len, cap;
	/* the statement's columns, looked up on its first row: each one's "name": */
	sqlite3_stmt *cols_of;
	int ncols, uid_col, argv_col;
	char *keys;   /* the columns' "name": texts, one after the other */
	size_t *koff; /* where each starts in keys; ncols + 1 of them */
};
void store_row_text_free(struct row_text *t);
int store_row_text(sqlite3_stmt *st, uint32_t viewer, struct row_text *t);
/* The statements behind the listings, prepared on db: the store's own connection or a
 * read-only one of stream.c. The caller finalizes *out. */
int store_query_units(struct store *s, sqlite3 *db, const char *selector, uint32_t uid,
		      sqlite3_stmt **out);
/* ... a unit's processes: f's columns (NULL: all listed ones; uid too when argv is one) */
int store_query_processes(struct store *s, sqlite3 *db, uint64_t unit, const struct row_fields *f,
			  sqlite3_stmt **out);
int store_query_tools(struct store *s, sqlite3 *db, uint64_t unit, sqlite3_stmt **out);
/* The points of a unit's timeline: each live sample of its processes, then each finished
 * process's exit, with the figures a timeline counts (CPU, I/O and waits so far from the
 * process's fork; resident set of a sample) and the process's identity (pid, start_boot_ns);
 * "start_ns" (unix: boot time + offset_ns) where the unit is of this boot, "exit" 1 on an
 * exit's point. Store order: a process's points come in their time order. */
int store_query_samples(struct store *s, sqlite3 *db, uint64_t unit, int64_t offset_ns,
			sqlite3_stmt **out);
/* store_unit_totals() on db, in one go. */
int store_query_totals(struct store *s, sqlite3 *db, uint64_t unit, struct json_object **out);
/* The same in bounded steps, for a reply that must not hold the event loop (stream.c): each
 * step counts at most rows (at least 1) of the unit's processes (UINT_MAX: all) and adds them up,
 * and says in t->counted how many it counted. Returns
 * 1 while processes are left, 0 with *out the totals (the caller's), or -errno. Begin before
 * the first step; end always (it frees what an unfinished count holds). */
struct totals_steps {
	uint64_t unit;
	/* the last process counted, as the unit's index orders them (start, pid, rowid): each
	 * step seeks there, where a rowid bound would scan the whole unit's index every step */
	sqlite3_int64 after[3];
	struct json_object *acc; /* the sums so far */
	unsigned counted;	 /* processes the last step counted (not known for UINT_MAX) */
};
void store_totals_begin(struct totals_steps *t, uint64_t unit);
int store_totals_step(struct store *s, sqlite3 *db, struct totals_steps *t, unsigned rows,
		      struct json_object **out);
void store_totals_end(struct totals_steps *t);
/* Every totals column can be counted in steps (COUNT, SUM, MIN or MAX at its top): 0 or
 * -EINVAL, said in the log. */
int store_totals_check(void);
/* ---- the export floor (store_export.c) */

/* The column of processes and units that holds a row's export sequence (export/source.h) */
#define STORE_EXPORT_SEQ "seq"
/* The key in meta of the highest number ever given: rows that held it may be pruned */
#define STORE_META_SEQ "export_seq"
/* A condition on units (as "units") that holds when the unit and all its processes are at or
 * below :floor: exported. "" when no floor is set. */
const char *store_exported_condition(int floor_set);
/* Bind :floor in st, when the statement has it. */
void store_bind_floor(int64_t floor, sqlite3_stmt *st);
/* The units in temp.prune are about to go: count what of them was not exported yet as
 * dropped, and say it. */
int store_count_dropped(struct store *s, struct prune_job *p);

/* A read-only connection of its own to the store's file, with a small page cache. */
int store_reader_open(struct store *s, sqlite3 **out);

/* This boot's key (store_boot.c): the one kept, or a new one; 0 or -EIO */
int store_boot_open(struct store *s);

#endif
