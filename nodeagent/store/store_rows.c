/* The queued rows of a job (row_queue.h), written on the committing thread: each bound to its
 * table's statement, or added into its unit's folded row (store_fold.c). A row that cannot be
 * written is counted lost for its unit; a failure after which SQLite gave the transaction up
 * ends the job, and the whole batch is lost (store_commit.c settles both). */
#include <stdio.h>
#include <stdlib.h>

#include "store_internal.h"

static void failed(struct store *s, struct commit_job *j, int rc)
{
	if (j->err_code)
		return;
	j->err_code = rc;
	snprintf(j->err, sizeof(j->err), "%s", sqlite3_errmsg(s->db));
}

static int write_row(struct store *s, struct commit_job *j, enum row_op op, uint64_t unit,
		     struct rec_row *r)
{
	static const struct rec_table *const tables[] = {
		[ROW_UNIT] = &store_units,
		[ROW_PROCESS] = &store_processes,
		[ROW_SAMPLE] = &store_samples,
		[ROW_STALL_START] = &store_stall_starts,
	};
	sqlite3_stmt *const stmts[] = {
		[ROW_UNIT] = s->put_unit,
		[ROW_PROCESS] = s->add_process,
		[ROW_SAMPLE] = s->add_sample,
		[ROW_STALL_START] = s->add_stall_start,
	};
	sqlite3_stmt *st = stmts[op];
	size_t bytes;
	int rc;

	if (op == ROW_FOLD || op == ROW_FOLD_OTHER) {
		rc = store_fold_write(s, r, op == ROW_FOLD_OTHER, &bytes);
		if (rc == SQLITE_OK && bytes) {
			unit_counts_add(&j->folded, unit, 1);
			unit_counts_add(&j->folded_bytes, unit, bytes);
		}
		return rc;
	}
	rec_bind(s, st, tables[op], r);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void store_rows_write(struct store *s, struct commit_job *j)
{
	struct rec_row *r = malloc(sizeof(*r));
	size_t at = 0;
	enum row_op op;
	uint64_t unit;
	int got, rc;

	if (!r) {
		j->rolled_back = 1;
		j->err_code = SQLITE_NOMEM;
		snprintf(j->err, sizeof(j->err), "out of memory");
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return;
	}
	while ((got = row_queue_next(j->rows, &at, &op, &unit, r)) > 0) {
		if (op > ROW_STALL_START)
			continue;
		rc = write_row(s, j, op, unit, r);
		if (rc == SQLITE_OK)
			continue;
		failed(s, j, rc);
		if (sqlite3_get_autocommit(s->db)) { /* SQLite rolled the batch back */
			j->rolled_back = 1;
			break;
		}
		if (op == ROW_PROCESS || op == ROW_FOLD || op == ROW_FOLD_OTHER)
			unit_counts_add(&j->failed, unit, 1);
	}
	free(r);
}
