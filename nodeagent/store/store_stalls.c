/* Stalls that began while their process ran (common/records.h's STALL_START_RECORD): written
 * with the next batch, numbered in the export sequence, so that the export says a stall when it
 * begins, not only once its process has ended. */
#include "store_internal.h"

int store_add_stall_start(struct store *s, const struct proc *p, int64_t offset_ns)
{
	struct rec_row r;

	rec_row_clear(&r);
	rec_int(&r, STCOL_pid, p->pid);
	rec_int(&r, STCOL_start_boot_ns, (int64_t)p->start_ns);
	rec_int(&r, STCOL_since_ns, (int64_t)p->stall.open_start_ns + offset_ns);
	rec_int(&r, STCOL_unit, (int64_t)p->unit);
	rec_text(&r, STCOL_comm, p->comm);
	rec_text(&r, STCOL_tool, p->tool.name);
	rec_text(&r, STCOL_reason, p->stall.open_reason);
	rec_int(&r, STCOL_seq, s->next_seq++);
	return store_queue_row(s, ROW_STALL_START, p->unit, &store_stall_starts, &r,
			       STORE_STALL_START_BYTES);
}
