/* The export thread: for each exported signal, the store's records after its cursor, read in a
 * short read transaction of its own connection (a long one would hold the write-ahead log
 * back), encoded, compressed, posted, and the cursor moved on once the collector took them
 * (and written to its file every few seconds). Failures wait (retry.h) per signal; nothing but the
 * next batch is held in memory, however long the collector is away: the backlog is the store's.
 * Metrics are no store records: the latest snapshot the loop put in the mailbox is posted once, and
 * a failure is counted and not retried (the next snapshot says it all anew). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sqlite3.h>

#include "clock.h"
#include "cursor.h"
#include "deliver.h"
#include "export_internal.h"
#include "export_metrics.h"
#include "log.h"
#include "retry.h"
#include "stmt.h"
#include "store.h"

#define REPLY_MSG_MAX 200
#define CURSOR_SAVE_MS 5000  /* the cursors' file written every 5 s at most */
#define REPLY_REASON_MAX 256 /* OTLP_REASON_BYTES escaped, what fits of it */

/* What the thread keeps of a signal between tries: its alone, no lock */
struct run_signal {
	struct deliver *deliver;
	unsigned attempt;    /* failed tries of the batch waiting */
	int64_t next_try_ms; /* monotonic */
	size_t max_items;    /* the batch's size: halved while bodies are too large */
	int looked;	     /* the store read once: the cursor is known to be its */
};

struct run {
	struct exporter *e;
	sqlite3 *db;
	struct export_batch *batch;
	struct otlp_buf body, gz;
	struct run_signal sig[EXPORT_TARGETS];
	int cursors_moved;	  /* since they were last written */
	int64_t cursors_saved_ms; /* monotonic */
};

static int stopping(const struct exporter *e)
{
	return __atomic_load_n(&e->stop, __ATOMIC_SEQ_CST);
}

static int open_db(struct run *r)
{
	if (r->db)
		return 0;
	if (sqlite3_open_v2(r->e->store_path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		log_error("export: %s: %s", r->e->store_path,
			  r->db ? sqlite3_errmsg(r->db) : "out of memory");
		sqlite3_close(r->db);
		r->db = NULL;
		return -EIO;
	}
	sqlite3_busy_timeout(r->db, 1000);
	sqlite3_exec(r->db, "PRAGMA cache_size=-512", NULL, NULL, NULL);
	return 0;
}

static void close_db(struct run *r)
{
	stmt_close_db(r->db); /* with the statements kept with it (source.c) */
	r->db = NULL;
}

/* A failure said in status (and the log, whose call sites sum floods) */
static void failed(struct run *r, int sig, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void failed(struct run *r, int sig, const char *fmt, ...)
{
	struct export_signal_status *s = &r->e->st[sig];
	char msg[sizeof(s->last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warn("export: %s: %s", export_signal_names[sig], msg);
	pthread_mutex_lock(&r->e->lock);
	snprintf(s->last_error, sizeof(s->last_error), "%s", msg);
	s->last_error_ns = clock_unix_ns();
	pthread_mutex_unlock(&r->e->lock);
}

/* The next try of sig after a failure of its batch of n items */
static void again_later(struct run *r, int sig, size_t n, int has_retry_after,
			uint32_t retry_after_ms)
{
	struct run_signal *rs = &r->sig[sig];
	uint32_t rnd = 0, wait;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)clock_mono_ns();
	wait = retry_wait_ms(++rs->attempt, r->e->set.backoff_max_ms, rnd, has_retry_after,
			     retry_after_ms);
	rs->next_try_ms = clock_mono_ms() + wait;
	pthread_mutex_lock(&r->e->lock);
	r->e->st[sig].retries++;
	r->e->st[sig].resent += n;
	r->e->st[sig].retry_at_ms = rs->next_try_ms;
	pthread_mutex_unlock(&r->e->lock);
}

/* The cursors in the file, with the endpoints they are of: every CURSOR_SAVE_MS at most while they
 * move (a sync of the file per batch costs more than the batch), at once when forced. Kept in
 * memory meanwhile: a restart after a crash sends those seconds' batches again, and
 * the spans' ids make them replace themselves at the collector. */
static void save_cursors(struct run *r, int force)
{
	int64_t seq[EXPORT_SIGNALS];
	const char *url[EXPORT_SIGNALS];
	int64_t now = clock_mono_ms();

	if (!r->cursors_moved || (!force && now - r->cursors_saved_ms < CURSOR_SAVE_MS))
		return;
	pthread_mutex_lock(&r->e->lock);
	for (int i = 0; i < EXPORT_SIGNALS; i++) {
		seq[i] = r->e->st[i].cursor;
		url[i] = r->e->cursor_url[i];
	}
	pthread_mutex_unlock(&r->e->lock);
	r->cursors_moved = 0;
	r->cursors_saved_ms = now;
	cursor_save(r->e->cursor_path, seq, url); /* its failure said there */
}

/* The cursor moves to next, in memory now, in the file within CURSOR_SAVE_MS */
static void advance(struct run *r, int sig, int64_t next)
{
	pthread_mutex_lock(&r->e->lock);
	r->e->st[sig].cursor = next;
	pthread_mutex_unlock(&r->e->lock);
	r->cursors_moved = 1;
}

/* Read sig's next batch after cursor in one short read transaction, with what status shows of
 * the backlog. -ESTALE: the store's sequence ends below the cursor. */
static int read_batch(struct run *r, int sig, int64_t cursor, int64_t *next)
{
	int64_t oldest = 0, latest = -1;
	uint64_t written = 0;
	int err;

	if ((err = open_db(r)))
		return err;
	if (sqlite3_exec(r->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		err = -EIO;
	if (!err)
		err = export_source_read(r->db, sig, cursor, r->sig[sig].max_items, r->batch, next);
	if (!err)
		err = export_source_oldest(r->db, sig, cursor, &oldest, &written);
	if (!err && store_export_latest(r->db, &latest))
		latest = -1;
	sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
	if (err) {
		close_db(r); /* opened afresh at the next try */
		return err;
	}
	if (latest >= 0 && latest < cursor)
		return -ESTALE;
	pthread_mutex_lock(&r->e->lock);
	r->e->st[sig].oldest_ns = oldest ? written : 0;
	r->e->st[sig].behind = latest < 0 ? -1 : latest > cursor ? latest - cursor : 0;
	pthread_mutex_unlock(&r->e->lock);
	return 0;
}

/* What the collector's 2xx reply says: a partial success is counted */
static void took(struct run *r, int sig, size_t n, const struct deliver_result *res)
{
	const struct export_target *t = &r->e->set.sig[sig];
	char msg[REPLY_MSG_MAX] = "";
	int64_t rejected = 0;
	int bad = 0;

	if (!res->body_cut)
		bad = otlp_decode_response(t->format, res->body, res->body_len, &rejected, msg,
					   sizeof(msg)) < 0;
	if (rejected < 0)
		rejected = 0;
	if (bad || res->body_cut)
		failed(r, sig,
		       "HTTP %ld with a reply that is no Export response (%s): taken as "
		       "delivered",
		       res->http, res->body_cut ? "too long" : "does not decode");
	else if (rejected)
		failed(r, sig, "the collector rejected %" PRId64 " of %zu items: %s", rejected, n,
		       msg[0] ? msg : "(no message)");
	pthread_mutex_lock(&r->e->lock);
	r->e->st[sig].sent += n;
	r->e->st[sig].batches++;
	r->e->st[sig].rejected += (uint64_t)rejected;
	r->e->st[sig].last_success_ns = clock_unix_ns();
	r->e->st[sig].retry_at_ms = 0;
	pthread_mutex_unlock(&r->e->lock);
}

/* A post that failed: tried again later, or (once) counted as refused and let go */
static void not_now(struct run *r, int sig, size_t n, int once, int has_retry_after,
		    uint32_t retry_after_ms)
{
	if (!once) {
		again_later(r, sig, n, has_retry_after, retry_after_ms);
		return;
	}
	pthread_mutex_lock(&r->e->lock);
	r->e->st[sig].refused += n;
	pthread_mutex_unlock(&r->e->lock);
}

/* What became of a post */
enum posted {
	POSTED_WAIT,	/* not taken: the same batch at the signal's next try */
	POSTED_PAST,	/* taken or refused: the cursor moves on past it */
	POSTED_SMALLER, /* too large for the collector: read again at once, half as many */
};

/* Post the encoded body of n items, once (counted as refused when not taken) or until it is
 * taken */
static enum posted post(struct run *r, int sig, size_t n, int once)
{
	const struct export_target *t = &r->e->set.sig[sig];
	struct run_signal *rs = &r->sig[sig];
	struct deliver_result res;
	const struct otlp_buf *b = &r->body;
	char reason[REPLY_REASON_MAX]; /* what the collector said why, escaped */
	int err;

	if (!rs->deliver && (err = deliver_new(&rs->deliver, t, &r->e->stop))) {
		failed(r, sig, "cannot set up the connection: %s", strerror(-err));
		not_now(r, sig, n, once, 0, 0);
		return POSTED_WAIT;
	}
	if (t->gzip) {
		r->gz.len = 0;
		if ((err = otlp_gzip(r->body.data, r->body.len, &r->gz))) {
			failed(r, sig, "gzip: %s", strerror(-err));
			not_now(r, sig, n, once, 0, 0);
			return POSTED_WAIT;
		}
		b = &r->gz;
	}
	deliver_post(rs->deliver, b->data, b->len, &res);
	if (stopping(r->e))
		return POSTED_WAIT;
	reason[0] = 0;
	if (res.http && (res.http < 200 || res.http >= 300))
		otlp_reply_reason(t->format, res.body, res.body_len, reason, sizeof(reason));
	/* a post once (metrics) is one piece: a 413 refuses it */
	switch (retry_verdict_of(res.http, once ? 1 : export_batch_rows(r->batch))) {
	case RETRY_DELIVERED:
		took(r, sig, n, &res);
		rs->attempt = 0;
		return POSTED_PAST;
	case RETRY_AGAIN:
		if (res.http)
			failed(r, sig, "HTTP %ld: %s%s%s", res.http,
			       once ? "not sent" : "tried again later", reason[0] ? ": " : "",
			       reason);
		else
			failed(r, sig, "%s: %s", res.error,
			       once ? "not sent" : "tried again later");
		not_now(r, sig, n, once, res.has_retry_after, res.retry_after_ms);
		return POSTED_WAIT;
	case RETRY_SMALLER:
		failed(r, sig, "HTTP %ld for %zu items (%zu bytes): sent again in halves", res.http,
		       n, b->len);
		rs->max_items = export_batch_rows(r->batch) / 2;
		pthread_mutex_lock(&r->e->lock);
		r->e->st[sig].retries++;
		r->e->st[sig].resent += n;
		pthread_mutex_unlock(&r->e->lock);
		return POSTED_SMALLER;
	case RETRY_REFUSED:
		failed(r, sig, "HTTP %ld: %zu items refused, skipped%s%s", res.http, n,
		       reason[0] ? ": " : "", reason);
		pthread_mutex_lock(&r->e->lock);
		r->e->st[sig].refused += n;
		r->e->st[sig].retry_at_ms = 0;
		pthread_mutex_unlock(&r->e->lock);
		rs->attempt = 0;
		return POSTED_PAST;
	}
	return POSTED_WAIT;
}

/* One step of sig: 1 when more may wait (go on at once), 0 when all there was is sent or the
 * signal waits for its next try. */
static int step(struct run *r, int sig)
{
	struct run_signal *rs = &r->sig[sig];
	int64_t cursor, head, next = 0;
	size_t n;
	int err, more;

	pthread_mutex_lock(&r->e->lock);
	cursor = r->e->st[sig].cursor;
	head = __atomic_load_n(&r->e->head, __ATOMIC_RELAXED);
	if (rs->looked && head >= 0 && cursor >= head) {
		/* nothing numbered after the cursor: nothing to read, nothing behind */
		r->e->st[sig].behind = 0;
		r->e->st[sig].oldest_ns = 0;
		pthread_mutex_unlock(&r->e->lock);
		return 0;
	}
	pthread_mutex_unlock(&r->e->lock);
	err = read_batch(r, sig, cursor, &next);
	if (!err)
		rs->looked = 1;
	if (err == -ESTALE) {
		/* a new store under old cursors: all it holds was never sent */
		log_warn("export: %s: the store's records end below the cursor %" PRId64
			 ": the store is new, everything in it is sent",
			 export_signal_names[sig], cursor);
		advance(r, sig, 0);
		save_cursors(r, 1);
		return 1;
	}
	if (err) {
		failed(r, sig, "cannot read the store: %s", strerror(-err));
		again_later(r, sig, 0, 0, 0);
		return 0;
	}
	/* a read short of its limit took all there was: the next look is the next round's (a
	 * second on), not a read at once that finds nothing */
	more = export_batch_rows(r->batch) >= rs->max_items;
	n = export_batch_count(r->batch);
	if (!n) {
		if (next > cursor)
			advance(r, sig, next); /* rows that make no item */
		return next > cursor && more;
	}
	r->body.len = 0;
	if ((err = export_batch_encode(r->batch, r->e->set.sig[sig].format, &r->e->res,
				       &r->body))) {
		failed(r, sig, "cannot encode %zu items: %s", n, strerror(-err));
		again_later(r, sig, 0, 0, 0);
		return 0;
	}
	if (r->body.len > EXPORT_BODY_MAX && export_batch_rows(r->batch) > 1) {
		rs->max_items = export_batch_rows(r->batch) / 2; /* read again, fewer */
		return 1;
	}
	switch (post(r, sig, n, 0)) {
	case POSTED_WAIT:
		return 0;
	case POSTED_SMALLER:
		return 1;
	case POSTED_PAST:
		break;
	}
	advance(r, sig, next);
	if (rs->max_items < EXPORT_BATCH_ITEMS)
		rs->max_items *= 2;
	return more;
}

/* The latest metrics snapshot, if one waits, posted once: its data points count as items */
static void metrics_step(struct run *r)
{
	struct metrics_snapshot *s = metrics_box_take(r->e->metrics);
	size_t n;
	int err;

	if (!s)
		return;
	n = s->nunits * MF_UNIT_FIGS + s->ntools * MF_TOOL_FIGS;
	pthread_mutex_lock(&r->e->lock);
	r->e->st[EXPORT_METRICS].idle = !n;
	pthread_mutex_unlock(&r->e->lock);
	r->body.len = 0;
	if (!n) /* nothing runs: nothing to say */
		;
	else if ((err = export_metrics_encode(s, r->e->set.sig[EXPORT_METRICS].format, &r->e->res,
					      &r->body)))
		failed(r, EXPORT_METRICS, "cannot encode %zu data points: %s", n, strerror(-err));
	else
		post(r, EXPORT_METRICS, n, 1);
	metrics_snapshot_free(s);
}

/* Sleep until ms (monotonic) or a stop */
static void wait_until(struct exporter *e, int64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	pthread_mutex_lock(&e->lock);
	if (!stopping(e))
		pthread_cond_timedwait(&e->wake, &e->lock, &ts);
	pthread_mutex_unlock(&e->lock);
}

/* Buffers that a large batch grew are given back */
static void trim(struct otlp_buf *b)
{
	if (b->cap > 2 * EXPORT_BODY_MAX) {
		free(b->data);
		memset(b, 0, sizeof(*b));
	}
}

void *export_run(void *arg)
{
	struct run r = { .e = arg };
	int sig, moved;
	int64_t now, wake;

	if (export_batch_new(&r.batch, r.e->node)) {
		log_error("export: out of memory: nothing is exported");
		return NULL;
	}
	for (sig = 0; sig < EXPORT_TARGETS; sig++)
		r.sig[sig].max_items = EXPORT_BATCH_ITEMS;
	while (!stopping(r.e)) {
		moved = 0;
		now = clock_mono_ms();
		wake = now + EXPORT_IDLE_MS;
		for (sig = 0; sig < EXPORT_SIGNALS && !stopping(r.e); sig++) {
			if (!r.e->set.sig[sig].url[0])
				continue;
			if (r.sig[sig].next_try_ms > now) {
				if (r.sig[sig].next_try_ms < wake)
					wake = r.sig[sig].next_try_ms;
				continue;
			}
			moved |= step(&r, sig);
			if (r.sig[sig].next_try_ms > now && r.sig[sig].next_try_ms < wake)
				wake = r.sig[sig].next_try_ms;
		}
		if (r.e->metrics && !stopping(r.e))
			metrics_step(&r);
		save_cursors(&r, 0);
		if (r.cursors_moved && r.cursors_saved_ms + CURSOR_SAVE_MS < wake)
			wake = r.cursors_saved_ms + CURSOR_SAVE_MS;
		trim(&r.body);
		trim(&r.gz);
		if (!moved)
			wait_until(r.e, wake);
	}
	save_cursors(&r, 1);
	for (sig = 0; sig < EXPORT_TARGETS; sig++)
		deliver_free(r.sig[sig].deliver);
	close_db(&r);
	export_batch_free(r.batch);
	free(r.body.data);
	free(r.gz.data);
	return NULL;
}
