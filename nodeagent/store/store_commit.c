/* The store's commits and checkpoints, on a thread of their own, and what becomes of a batch
 * that cannot be written.
 *
 * A commit writes a whole batch to the write-ahead log, and a checkpoint copies the log back:
 * under an exec storm on a busy disk, either can take hundreds of milliseconds. The loop hands
 * them here and goes back to its clients; it uses the connection again only once the commit is
 * over (store_db, which waits for it), and leaves the ring's events where they are meanwhile.
 * What follows a commit (its failure said, its batch counted lost, the ring released through
 * on_commit) is done on the loop's thread, when it settles the commit. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "store_internal.h"

/* After each commit: how long the log is (what streamed replies check, stream.c, and what
 * checkpoint() goes by). Called on the committing thread. */
static int wal_hook(void *ctx, sqlite3 *db, const char *name, int frames)
{
	struct store *s = ctx;

	(void)db;
	(void)name;
	__atomic_store_n(&s->wal_bytes, (int64_t)frames * s->page_bytes, __ATOMIC_RELAXED);
	return SQLITE_OK;
}

/* A passive checkpoint once the log holds min_bytes: it copies what no reader still needs
 * back into the database, and the next commit starts the log over (truncated to
 * STORE_WAL_LIMIT_BYTES) if nothing was left. */
static void checkpoint(struct store *s, int64_t min_bytes)
{
	if (__atomic_load_n(&s->wal_bytes, __ATOMIC_RELAXED) < min_bytes)
		return;
	if (sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) !=
	    SQLITE_OK)
		log_debug("store: checkpoint: %s", sqlite3_errmsg(s->db));
}

/* One job, on the committing thread: its rows written, the export sequence's highest number
 * kept, the commit, then the checkpoint of a long log. SQLITE_OK, or the commit's error. */
static int run_job(struct store *s, struct commit_job *j)
{
	int rc = SQLITE_OK;

	if (j->commit && !j->in_txn && sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return sqlite3_errcode(s->db);
	if (j->rows)
		s->commit.write_rows(s, j);
	if (j->rolled_back) /* nothing left to commit */
		return j->err_code ? j->err_code : SQLITE_ERROR;
	if (j->commit) {
		if (j->seq) {
			sqlite3_bind_int64(s->save_seq, 1, j->seq);
			s->commit.seq_saved = sqlite3_step(s->save_seq) == SQLITE_DONE;
			sqlite3_reset(s->save_seq);
		}
		rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	}
	if (rc == SQLITE_OK && j->prune.on)
		s->commit.prune_run(s, &j->prune);
	if (rc == SQLITE_OK)
		checkpoint(s, j->min_bytes);
	return rc;
}

static void *committer(void *arg)
{
	struct store *s = arg;
	struct store_commit *c = &s->commit;
	uint64_t one = 1;
	int rc;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->queued && !c->quit)
			pthread_cond_wait(&c->wake, &c->lock);
		if (!c->queued)
			break;
		pthread_mutex_unlock(&c->lock);
		rc = run_job(s, &c->job); /* the loop leaves it alone until done */
		pthread_mutex_lock(&c->lock);
		c->queued = 0;
		c->rc = rc;
		c->done = 1;
		pthread_cond_broadcast(&c->wake);
		/* the loop's wakeup; a full counter (never: it is read at each settle) wakes it too
		 */
		if (write(c->fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			log_warn("store: commit wakeup: %m");
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int store_commit_init(struct store *s, store_rows_fn write_rows, store_prune_fn prune_run,
		      store_prune_fn prune_finished)
{
	struct store_commit *c = &s->commit;
	int err;

	c->write_rows = write_rows;
	c->prune_run = prune_run;
	c->prune_finished = prune_finished;
	c->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->fd < 0) {
		err = -errno;
		log_error("store: eventfd: %m");
		return err;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	c->inited = 1;
	sqlite3_wal_hook(s->db, wal_hook, s);
	err = -pthread_create(&c->thread, NULL, committer, s);
	if (err) {
		log_error("store: cannot start the committing thread: %s", strerror(-err));
		return err;
	}
	pthread_setname_np(c->thread, "tracerd-store"); /* ps -L, top -H, perf tell it apart */
	c->running = 1;
	return 0;
}

void store_commit_fini(struct store *s)
{
	struct store_commit *c = &s->commit;

	if (c->running) {
		store_settle(s);
		pthread_mutex_lock(&c->lock);
		c->quit = 1;
		pthread_cond_broadcast(&c->wake);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
		c->running = 0;
	}
	if (c->inited) {
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		c->inited = 0;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

void store_lose(struct store *s, uint64_t unit, uint32_t n)
{
	if (s->on_loss && n)
		s->on_loss(s->loss_ctx, unit, n);
}

static void counts_lost(struct store *s, const struct unit_counts *c)
{
	for (unsigned i = 0; i < c->n; i++)
		store_lose(s, c->u[i].unit, (uint32_t)c->u[i].n);
	store_lose(s, 0, (uint32_t)c->rest);
}

void store_batch_lost(struct store *s)
{
	counts_lost(s, &s->batch);
	memset(&s->batch, 0, sizeof(s->batch));
	s->in_txn = 0;
}

/* A write or the commit failed (disk full, I/O error). Said once until writes work again; the
 * batch state follows SQLite's: a batch it rolled back is counted lost. */
int store_write_failed(struct store *s, const char *what)
{
	int full = sqlite3_errcode(s->db) == SQLITE_FULL;

	if (!s->failing)
		log_error("store: %s failed: %s: what cannot be written is counted per unit (Lost) "
			  "until writes work again",
			  what, sqlite3_errmsg(s->db));
	s->failing = 1;
	if (s->in_txn && sqlite3_get_autocommit(s->db))
		store_batch_lost(s);
	return full ? -ENOSPC : -EIO;
}

/* A failure of the thread's, said once until writes work again */
static int job_failed(struct store *s, const struct commit_job *j, int rc, const char *what)
{
	if (!s->failing)
		log_error("store: %s failed: %s: what cannot be written is counted per unit (Lost) "
			  "until writes work again",
			  what, j->err[0] ? j->err : sqlite3_errstr(rc));
	s->failing = 1;
	return rc == SQLITE_FULL ? -ENOSPC : -EIO;
}

/* What follows a job, on the loop's thread: folded rows said; then the batch is on disk
 * (on_commit) with the rows it could not write counted lost, or the commit failed and all it
 * held is lost (each process once: the rows that failed are among them). Then the pruning
 * round that followed it, if any. */
static int commit_finished(struct store *s, struct commit_job *j, int rc)
{
	int err = 0;

	/* the same units in the same order in both */
	for (unsigned i = 0; s->on_folded && i < j->folded.n; i++)
		s->on_folded(s->folded_ctx, j->folded.u[i].unit, (unsigned)j->folded.u[i].n,
			     (size_t)j->folded_bytes.u[i].n);
	if (j->rows)
		row_queue_clear(j->rows);
	if (j->prune.on) {
		if (rc != SQLITE_OK) /* never ran */
			j->prune.err = -EIO;
		s->last_prune = j->prune;
		s->commit.prune_finished(s, &j->prune);
	}
	if (j->commit && rc != SQLITE_OK) {
		if (!j->err[0])
			snprintf(j->err, sizeof(j->err), "%s", sqlite3_errmsg(s->db));
		err = job_failed(s, j, rc, "commit");
		if (!sqlite3_get_autocommit(s->db)) /* still open after it: give it up */
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		counts_lost(s, &j->batch);
		counts_lost(s, &j->procs);
		return err;
	}
	counts_lost(s, &j->failed);
	if (j->failed.n || j->failed.rest)
		err = job_failed(s, j, j->err_code, "write");
	if (!j->commit)
		return err;
	if (s->commit.seq_saved)
		s->seq_saved = j->seq;
	if (s->failing && !err)
		log_info("store: writes work again");
	s->failing = !!err;
	if (s->on_commit)
		s->on_commit(s->commit_ctx);
	return err;
}

int store_settle(struct store *s)
{
	struct store_commit *c = &s->commit;
	uint64_t n, t0;
	int rc;

	if (!c->busy)
		return 0;
	t0 = clock_mono_ns();
	pthread_mutex_lock(&c->lock);
	while (!c->done)
		pthread_cond_wait(&c->wake, &c->lock);
	s->waited_ns += clock_mono_ns() - t0;
	c->done = 0;
	rc = c->rc;
	pthread_mutex_unlock(&c->lock);
	if (read(c->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_warn("store: commit wakeup: %m");
	c->busy = 0;
	c->settled++;
	return commit_finished(s, &c->job, rc);
}

/* Anything for the next commit: the loop's own writes, queued rows */
static int has_writes(const struct store *s)
{
	return s->in_txn || s->queue[s->filling].n;
}

/* Hand the open batch (the queued rows, the loop's own writes) and its commit, if any, then the
 * pruning round prune (NULL: none), then the checkpoint of a log of min_bytes, to the
 * committing thread. Nothing to do, or a job already running: nothing handed. Without the
 * thread (before it starts, after it ends), done here at once. */
static int commit_start(struct store *s, int64_t min_bytes, const struct prune_job *prune)
{
	struct store_commit *c = &s->commit;
	struct row_queue *q = &s->queue[s->filling];
	struct commit_job *j = &c->job;

	if (c->busy)
		return 0;
	if (!prune && !has_writes(s) &&
	    __atomic_load_n(&s->wal_bytes, __ATOMIC_RELAXED) < min_bytes)
		return 0;
	memset(j, 0, sizeof(*j));
	if (prune) {
		j->prune = *prune;
		j->prune.on = 1;
		j->prune.floor_set = s->export_floor_set;
		j->prune.floor = s->export_floor;
	}
	j->min_bytes = min_bytes;
	j->in_txn = s->in_txn;
	j->commit = has_writes(s);
	if (q->n) {
		j->rows = q;
		j->procs = q->procs;
		s->filling ^= 1;
	}
	if (j->commit && s->next_seq - 1 > s->seq_saved)
		j->seq = s->next_seq - 1;
	j->batch = s->batch;
	memset(&s->batch, 0, sizeof(s->batch));
	s->in_txn = 0;
	s->pending = 0;
	s->pending_bytes = 0;
	c->seq_saved = 0;
	if (j->commit && s->on_handover)
		s->on_handover(s->commit_ctx);
	c->handed++;
	if (!c->running) {
		c->settled++;
		return commit_finished(s, j, run_job(s, j));
	}
	pthread_mutex_lock(&c->lock);
	c->queued = 1;
	c->done = 0;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	c->busy = 1;
	return 0;
}

sqlite3 *store_db(struct store *s)
{
	store_settle(s);
	if (s->queue[s->filling].n) { /* what is queued goes first, in order */
		commit_start(s, STORE_WAL_CHECKPOINT_NOW, NULL);
		store_settle(s);
	}
	return s->db;
}

int store_queue_row(struct store *s, enum row_op op, uint64_t unit, const struct rec_table *t,
		    const struct rec_row *r, size_t bytes)
{
	int err;

	/* a job runs, and this batch is far past full: memory stays bounded, the loop waits */
	if (s->pending_bytes >= 4 * BATCH_BYTES)
		store_settle(s);
	err = row_queue_put(&s->queue[s->filling], op, unit, t, r);
	if (err) {
		if (op == ROW_PROCESS || op == ROW_FOLD || op == ROW_FOLD_OTHER)
			store_lose(s, unit, 1);
		return err;
	}
	s->pending_bytes += bytes;
	s->written += bytes;
	if (++s->pending >= BATCH_MAX || s->pending_bytes >= BATCH_BYTES)
		store_commit_start(s);
	return 0;
}

int store_full(const struct store *s)
{
	return s->commit.busy && (s->pending >= BATCH_MAX || s->pending_bytes >= BATCH_BYTES);
}

void store_commit_start(struct store *s)
{
	/* a storm's commits between two ticks: the log still stays within its bound */
	(void)commit_start(s, STORE_WAL_CHECKPOINT_NOW, NULL);
}

void store_checkpoint(struct store *s)
{
	(void)commit_start(s, STORE_WAL_CHECKPOINT, NULL);
}

int store_prune_start(struct store *s, const struct prune_job *p)
{
	if (s->commit.busy)
		return -EBUSY;
	return commit_start(s, STORE_WAL_CHECKPOINT, p);
}

int store_pruned(const struct store *s, unsigned *pruned)
{
	*pruned = s->last_prune.pruned;
	return s->last_prune.err;
}

int store_commit(struct store *s)
{
	int err = store_settle(s);

	if (err || !has_writes(s))
		return err;
	err = commit_start(s, STORE_WAL_CHECKPOINT_NOW, NULL);
	return err ? err : store_settle(s);
}

uint64_t store_flush_async(struct store *s)
{
	struct store_commit *c = &s->commit;

	if (!has_writes(s))
		return c->busy ? c->handed : c->settled;
	if (!c->busy) {
		commit_start(s, STORE_WAL_CHECKPOINT_NOW, NULL);
		return c->handed;
	}
	return c->handed + 1; /* the job after the one running */
}

int store_flushed(struct store *s, uint64_t ticket)
{
	struct store_commit *c = &s->commit;
	int done = 0;

	if (c->settled < ticket && c->busy) { /* over, and its wakeup not read yet */
		pthread_mutex_lock(&c->lock);
		done = c->done;
		pthread_mutex_unlock(&c->lock);
		if (done)
			store_settle(s);
	}
	if (c->settled >= ticket)
		return 1;
	if (!c->busy) /* the job it waits for is not handed yet: now */
		commit_start(s, STORE_WAL_CHECKPOINT_NOW, NULL);
	return 0;
}

int store_busy(const struct store *s)
{
	return s->commit.busy;
}

int store_commit_fd(const struct store *s)
{
	return s->commit.fd;
}

void store_io_ns(const struct store *s, uint64_t *write_ns, uint64_t *waited_ns)
{
	*write_ns = s->write_ns;
	*waited_ns = s->waited_ns;
}
