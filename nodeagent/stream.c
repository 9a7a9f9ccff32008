/* Streamed replies: one row at a time from a read-only store connection into the client's
 * output buffer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "log.h"
#include "store_internal.h"
#include "stream.h"

struct reply_stream {
        struct store *store; /* the daemon's connection: unit totals */
        sqlite3 *db;         /* this reply's own read-only connection */
        sqlite3_stmt *st;
        enum stream_kind kind;
        unsigned rows;       /* sent so far */
        int lead_sent, done;
};

static const char *const keys[] = { [STREAM_UNITS] = "units", [STREAM_PROCESSES] = "processes",
                                     [STREAM_TOOLS] = "tools" };

int reply_stream_new(struct store *s, enum stream_kind kind, uint64_t unit, const char *selector,
                     uint32_t uid, struct reply_stream **out)
{
        struct reply_stream *rs = calloc(1, sizeof(*rs));
        int err;

        if (!rs)
                return -ENOMEM;
        rs->store = s;
        rs->kind = kind;
        err = store_reader_open(s, &rs->db);
        if (!err)
                err = kind == STREAM_UNITS ? store_query_units(s, rs->db, selector, uid, &rs->st)
                      : kind == STREAM_PROCESSES ? store_query_processes(s, rs->db, unit, &rs->st)
                                                 : store_query_tools(s, rs->db, unit, &rs->st);
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
static struct json_object *next_row(struct reply_stream *rs, int *rc)
{
        struct json_object *row, *id, *totals;

        *rc = sqlite3_step(rs->st);
        if (*rc != SQLITE_ROW)
                return NULL;
        row = store_row_to_json(rs->st);
        if (row && rs->kind == STREAM_UNITS && json_object_object_get_ex(row, "id", &id) &&
            store_unit_totals(rs->store, json_object_get_int64(id), &totals) == 0)
                json_object_object_add(row, "totals", totals);
        return row;
}

int reply_stream_fill(struct reply_stream *rs, size_t want,
                      int (*emit)(void *ctx, const char *data, size_t n), void *ctx)
{
        char lead[32];
        size_t sent = 0;
        int rc, err;

        if (rs->done)
                return 0;
        if (!rs->lead_sent) {
                snprintf(lead, sizeof(lead), ",\"%s\":[", keys[rs->kind]);
                err = emit(ctx, lead, strlen(lead));
                if (err)
                        return err;
                rs->lead_sent = 1;
        }
        while (sent < want) {
                struct json_object *row = next_row(rs, &rc);
                const char *text;
                size_t n;

                if (!row) {
                        if (rc == SQLITE_ROW)
                                return -ENOMEM;
                        if (rc != SQLITE_DONE) {
                                log_error("%s", sqlite3_errmsg(rs->db));
                                return -EIO;
                        }
                        rs->done = 1;
                        return emit(ctx, "]}\n", 3);
                }
                text = json_object_to_json_string_length(row, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
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
        sqlite3_finalize(rs->st);
        sqlite3_close(rs->db);
        free(rs);
}
