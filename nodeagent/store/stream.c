/* Streamed replies: one row at a time from a read-only store connection into the client's
 * output buffer. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "log.h"
#include "store_internal.h"
#include "stream.h"

struct reply_stream {
	struct store *store;
	sqlite3 *db; /* this reply's own read-only connection: one snapshot for all */
	sqlite3_stmt *st;
	enum stream_kind kind;
	uint32_t viewer;	   /* whose eyes: another uid's command lines are not shown */
	uint64_t unit;		   /* a unit's listing ends with the unit's totals */
	struct stream_extra extra; /* what the daemon knows beyond the store */
	size_t tail_next;	   /* the next of extra.tail's rows, once the store's are sent */
	int store_done;		   /* the store's rows are all sent */
	/* totals counted in steps (TOTALS_STEP_ROWS processes at a time), a turn of the loop
	 * each: a unit's row waiting for them (units), or the reply's end (processes, tools) */
	struct totals_steps totals;
	struct json_object *pending; /* the unit row whose totals are being counted */
	int counting;
	unsigned rows;	      /* sent so far */
	struct row_text text; /* a process's or a sample's row, written from its columns */
	int lead_sent, done;
};

/* Processes counted into totals per turn of the loop, over all the units of the page: a few
 * ms of the loop's time */
#define TOTALS_STEP_ROWS 4096
/* What a unit's totals cost beyond their processes (the statements, its samples), in processes:
 * a listing of many small units counts a few dozen of them per turn, not a page's worth */
#define TOTALS_UNIT_COST 64

static const char *const keys[] = {
	[STREAM_UNITS] = "units",
	[STREAM_PROCESSES] = "processes",
	[STREAM_TOOLS] = "tools",
	[STREAM_SAMPLES] = "samples",
};

int reply_stream_new(struct store *s, enum stream_kind kind, uint64_t unit, const char *selector,
		     uint32_t uid, const struct stream_extra *extra, struct reply_stream **out)
{
	struct reply_stream *rs = calloc(1, sizeof(*rs));
	int err;

	if (!rs) {
		if (extra)
			json_object_put(extra->tail);
		return -ENOMEM;
	}
	if (extra)
		rs->extra = *extra;
	rs->store = s;
	rs->kind = kind;
	rs->viewer = uid;
	/* the listings of a unit's processes and tools end with its totals, unless the client
	 * has them already (from its units listing): counting them costs a pass over the unit */
	rs->unit = (kind == STREAM_PROCESSES || kind == STREAM_TOOLS) && !rs->extra.no_totals ? unit
											      : 0;
	err = store_reader_open(s, &rs->db);
	/* one read transaction for the rows and the totals after them: one snapshot */
	if (!err && sqlite3_exec(rs->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		err = -EIO;
	if (!err)
		err = kind == STREAM_UNITS ? store_query_units(s, rs->db, selector, uid, &rs->st)
		      : kind == STREAM_PROCESSES
			      ? store_query_processes(s, rs->db, unit, &rs->extra.fields, &rs->st)
		      : kind == STREAM_TOOLS
			      ? store_query_tools(s, rs->db, unit, &rs->st)
			      : store_query_samples(s, rs->db, unit, rs->extra.offset_ns, &rs->st);
	if (err) {
		reply_stream_free(rs);
		return err;
	}
	*out = rs;
	return 0;
}

int reply_stream_head(const char *head, size_t *len)
{
	/* a non-empty object: the rows follow its last member after a ',' */
	if (*len < 4 || head[0] != '{' || head[*len - 3] == '{' || head[*len - 2] != '}' ||
	    head[*len - 1] != '\n')
		return -EINVAL;
	*len -= 2;
	return 0;
}

/* One row as JSON text; units carry their totals, as when the reply was built whole. */
static void add_extra_totals(struct reply_stream *rs, uint64_t unit, struct json_object *totals)
{
	if (rs->extra.totals)
		rs->extra.totals(rs->extra.ctx, unit, totals);
}

/* The store's rows, then the daemon's own (extra.tail): NULL with *rc SQLITE_DONE at the end. */
static struct json_object *next_row(struct reply_stream *rs, int *rc)
{
	struct json_object *row, *id;

	*rc = rs->store_done ? SQLITE_DONE : sqlite3_step(rs->st);
	if (*rc == SQLITE_DONE)
		rs->store_done = 1;
	if (*rc == SQLITE_ROW) {
		row = store_row_to_json(rs->st);
	} else if (*rc == SQLITE_DONE && rs->extra.tail &&
		   rs->tail_next < json_object_array_length(rs->extra.tail)) {
		row = json_object_get(json_object_array_get_idx(rs->extra.tail, rs->tail_next++));
		/* the daemon's rows are whole, and sent once: cut as the store's are */
		if (rs->kind == STREAM_PROCESSES)
			process_row_cut(row, &rs->extra.fields);
		*rc = SQLITE_ROW;
	} else {
		return NULL;
	}
	/* a process of another user inside the viewer's unit (a setuid program, sudo's child):
	 * recorded, but its arguments are for root and SlurmUser only */
	if (row && rs->kind == STREAM_PROCESSES && rs->viewer != ANY_UID &&
	    json_object_object_get_ex(row, "uid", &id) &&
	    (uint32_t)json_object_get_int64(id) != rs->viewer) {
		json_object_object_add(row, "argv", NULL);
		json_object_object_add(row, "argv_hidden", json_object_new_boolean(1));
	}
	return row;
}

/* The store's next row of a processes or samples listing, sent as text: 1 (with *n its bytes),
 * 0 when the store's rows are all sent (store_done), or -errno. */
static int text_row(struct reply_stream *rs, int (*emit)(void *ctx, const char *data, size_t n),
		    void *ctx, size_t *n)
{
	int rc = sqlite3_step(rs->st), err;

	if (rc == SQLITE_DONE) {
		rs->store_done = 1;
		return 0;
	}
	if (rc != SQLITE_ROW) {
		log_error("%s", sqlite3_errmsg(rs->db));
		return -EIO;
	}
	err = store_row_text(rs->st, rs->kind == STREAM_PROCESSES ? rs->viewer : ANY_UID,
			     &rs->text);
	err = err ? err : rs->rows ? emit(ctx, ",", 1) : 0;
	err = err ? err : emit(ctx, rs->text.p, rs->text.len);
	if (err)
		return err;
	rs->rows++;
	*n = rs->text.len + 1;
	return 1;
}

/* One step of the totals being counted (rs->counting), of at most *budget processes (the
 * turn's, which it spends): 1 while steps are left, 0 with *totals the unit's (NULL when they
 * could not be had: the reply goes on without them). */
static int count_step(struct reply_stream *rs, struct json_object **totals, unsigned *budget)
{
	unsigned cost;
	int r;

	if (!*budget)
		return 1; /* the turn's counting is done: the rest on the next */
	r = store_totals_step(rs->store, rs->db, &rs->totals, *budget, totals);
	cost = rs->totals.counted + (r > 0 ? 0 : TOTALS_UNIT_COST);
	*budget = cost < *budget ? *budget - cost : 0;
	if (r > 0)
		return 1;
	rs->counting = 0;
	if (r < 0)
		*totals = NULL;
	else
		add_extra_totals(rs, rs->totals.unit, *totals);
	store_totals_end(&rs->totals);
	return 0;
}

/* The end of the array, and of the reply: a unit's listing carries the unit's totals, from the
 * same snapshot as its rows, counted a step per call (1 while steps are left). */
static int finish(struct reply_stream *rs, int (*emit)(void *ctx, const char *data, size_t n),
		  void *ctx, unsigned *budget)
{
	struct json_object *totals = NULL;
	const char *text;
	size_t n;
	int err;

	if (rs->unit && !rs->counting && !rs->done) {
		store_totals_begin(&rs->totals, rs->unit);
		rs->counting = 1;
	}
	if (rs->counting && count_step(rs, &totals, budget))
		return 1;
	rs->done = 1;
	if (!totals)
		return emit(ctx, "]}\n", 3);
	text = json_object_to_json_string_length(
		totals, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	err = text ? emit(ctx, "],\"totals\":", 11) : -ENOMEM;
	if (!err)
		err = emit(ctx, text, n);
	if (!err)
		err = emit(ctx, "}\n", 2);
	json_object_put(totals);
	return err;
}

int reply_stream_fill(struct reply_stream *rs, size_t want,
		      int (*emit)(void *ctx, const char *data, size_t n), void *ctx)
{
	unsigned budget = TOTALS_STEP_ROWS; /* processes this call may count */
	char lead[32];
	size_t sent = 0;
	int rc, err;

	if (rs->done)
		return 0;
	/* the log grew past its bound while snapshots were held (this one or others): they all
	 * go, for the log to start over (a client that does not read is let go when idle) */
	if (__atomic_load_n(&rs->store->wal_bytes, __ATOMIC_RELAXED) > rs->store->wal_bytes_max) {
		log_warn("store log at %" PRId64
			 " bytes: a streamed reply is cut, for the log to be"
			 " checkpointed",
			 __atomic_load_n(&rs->store->wal_bytes, __ATOMIC_RELAXED));
		return -ENOBUFS;
	}
	if (!rs->lead_sent) {
		snprintf(lead, sizeof(lead), ",\"%s\":[", keys[rs->kind]);
		err = emit(ctx, lead, strlen(lead));
		if (err)
			return err;
		rs->lead_sent = 1;
	}
	while (sent < want) {
		struct json_object *row, *id, *totals;
		const char *text;
		size_t n;

		/* the store's processes and points: text straight from their columns */
		if (!rs->store_done &&
		    (rs->kind == STREAM_PROCESSES || rs->kind == STREAM_SAMPLES)) {
			if ((err = text_row(rs, emit, ctx, &n)) < 0)
				return err;
			if (err == 1) {
				sent += n;
				continue;
			}
		}
		if (rs->store_done && rs->pending == NULL && rs->counting)
			return finish(rs, emit, ctx, &budget); /* counting the reply's totals */
		if (rs->pending) { /* a unit row whose totals are being counted */
			if (count_step(rs, &totals, &budget))
				return 1; /* a step per turn: the next on the next */
			row = rs->pending;
			rs->pending = NULL;
			if (totals)
				json_object_object_add(row, "totals", totals);
		} else {
			row = next_row(rs, &rc);
			if (!row) {
				if (rc == SQLITE_ROW)
					return -ENOMEM;
				if (rc != SQLITE_DONE) {
					log_error("%s", sqlite3_errmsg(rs->db));
					return -EIO;
				}
				return finish(rs, emit, ctx, &budget);
			}
			/* a unit's row carries its totals, counted first */
			if (rs->kind == STREAM_UNITS && json_object_object_get_ex(row, "id", &id)) {
				store_totals_begin(&rs->totals, json_object_get_int64(id));
				rs->counting = 1;
				rs->pending = row;
				continue;
			}
		}
		text = json_object_to_json_string_length(
			row, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
		err = rs->rows ? emit(ctx, ",", 1) : 0;
		err = err ? err : text ? emit(ctx, text, n) : -ENOMEM;
		json_object_put(row);
		if (err)
			return err;
		rs->rows++;
		sent += n + 1;
	}
	return 1;
}

void reply_stream_free(struct reply_stream *rs)
{
	if (!rs)
		return;
	store_totals_end(&rs->totals);
	json_object_put(rs->pending);
	sqlite3_finalize(rs->st);
	sqlite3_close(rs->db);
	json_object_put(rs->extra.tail);
	store_row_text_free(&rs->text);
	free(rs);
}
