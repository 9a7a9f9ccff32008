/* What a process's row says, finished or still running: the one place where the kernel's
 * counters become the figures of common/records.h's PROCESS_RECORD. The store writes these
 * rows, the replies list them and add running ones into tool groups and totals, and exporters
 * read them; none of them decides a figure of its own. */
#ifndef TRACER_PROCESS_ROW_H
#define TRACER_PROCESS_ROW_H

#include <stdint.h>
#include <string.h>
#include <json-c/json.h>
#include "proctable.h"
#include "records.h"
#include "tools.h"

/* The values of one row of a record (common/records.h), by column: what the store writes and
 * what a live row sends. A column left unset is NULL: unknown, absent from the JSON. */
#define REC_MAX 96 /* columns of a record at most */
struct rec_row {
	int64_t i[REC_MAX];
	const char *s[REC_MAX]; /* TEXT, BLOB */
	unsigned len[REC_MAX];	/* BLOB bytes */
	unsigned char set[REC_MAX];
};
/* No column set: what is read of a row is what set says (a queued row is not zeroed whole:
 * 2 KiB on each event's path) */
static inline void rec_row_clear(struct rec_row *r)
{
	memset(r->set, 0, sizeof(r->set));
}
static inline void rec_int(struct rec_row *r, int col, int64_t v)
{
	r->i[col] = v;
	r->set[col] = 1;
}
static inline void rec_text(struct rec_row *r, int col, const char *v)
{
	r->s[col] = v;
	r->set[col] = 1;
}
static inline void rec_blob(struct rec_row *r, int col, const void *v, unsigned len)
{
	r->s[col] = v;
	r->len[col] = len;
	r->set[col] = 1;
}

/* The listed columns of a process row a listing asks for: a bit per column (PCOL_), none set:
 * every one. A client that reads a few of them from a 100 000-process unit takes a fraction of
 * the bytes. */
struct row_fields {
	uint64_t w[2];
};
static inline int row_fields_all(const struct row_fields *f)
{
	return !f->w[0] && !f->w[1];
}
static inline int row_fields_has(const struct row_fields *f, int col)
{
	return row_fields_all(f) || (f->w[col / 64] >> (col % 64) & 1);
}
/* The fields a request names (names: a JSON array of column names, NULL: all) into *out: 0, or
 * -EINVAL with err saying what is wrong (not an array, too many, not a listed column). */
int process_row_fields(struct json_object *names, struct row_fields *out, char *err, size_t len);
/* A listed row (JSON) cut to f's columns, in place: uid and argv_hidden stay beside argv, and
 * its keys that are not columns stay. */
void process_row_cut(struct json_object *row, const struct row_fields *f);

/* A running process as read now (live.c: from /proc, or its last sample), with the command
 * its row names (process_row_command). */
struct proc_now {
	const struct proc *cmd; /* whose command line it runs; NULL: its own */
	struct tool_id tool;	/* named from cmd's */
	uint64_t cpu_ns;	/* as the kernel counts it: from its fork */
	uint64_t rss_kb;	/* resident now */
	uint64_t hwm_kb;	/* its peak, 0 unknown */
	struct proc_waits w;
	int net; /* the kernel side counts network traffic */
};

/* A process at its exit: e kept as its counters, ppid and comm from e where unknown, its
 * parent's command line copied if it never exec'd (the parent, found in t by ppid, may go
 * before its row is read), and its tool named by rules. */
void process_row_finish(struct proctable *t, const struct tool_rules *rules, struct proc *p,
			const struct exit_event *e);
/* The command line a running process's row names (its parent's while it has none of its own)
 * and its tool, into now. */
void process_row_command(struct proctable *t, const struct tool_rules *rules, const struct proc *p,
			 struct proc_now *now);
/* p's row: from its exit once it finished (PROC_FINISHED; now unused), else from now: no end,
 * status or exit-only figures. offset_ns turns boot time into unix time. The row points into
 * p (and now->cmd) for its strings. */
void process_row_fill(const struct proc *p, const struct proc_now *now, int64_t offset_ns,
		      struct rec_row *r);

/* A running process's row added into a unit's totals (TOTALS_RECORD), or into the row of its
 * tool group in an array of them (TOOL_RECORD), a new row if its group has none (*group: that
 * row; 0 or -ENOMEM), as each column's REC_LIVE says. */
void process_row_add_totals(const struct rec_row *r, struct json_object *totals);
int process_row_add_tools(const struct rec_row *r, struct json_object *rows,
			  struct json_object **group);

/* A unit's totals (TOTALS_RECORD) as numbers, kept in memory without the store: what the
 * Prometheus endpoint reads of running units on every scrape. set: a column has a value. */
struct row_sums {
	TOTALS_RECORD(REC_NUMBER)
	unsigned char set[32];
};
/* A row added into sums: a running process's as each column's REC_LIVE says (as
 * process_row_add_totals), a finished one's as the store's SQL sums it (its pre-exec CPU
 * counted as system too). */
void process_row_sum(const struct rec_row *r, struct row_sums *sums);
/* sums as the store's totals of the same rows say them (store_unit_totals' columns, without
 * its samples'): each column that has a value, and the count of processes always. NULL: no
 * memory. */
struct json_object *process_row_sums_json(const struct row_sums *sums);
/* from's sums added into to's (the totals of units taken together). */
void process_row_sums_merge(struct row_sums *to, const struct row_sums *from);

#endif
