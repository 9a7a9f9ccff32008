/* A process's row, finished or running: see process_row.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "process_row.h"

static const struct rec_col process_cols[] = { PROCESS_RECORD(REC_COL) };
static const struct rec_col tool_cols[] = { TOOL_RECORD(REC_COL) };
static const struct rec_col totals_cols[] = { TOTALS_RECORD(REC_COL) };
#define SUM_OFF(name, kind, sql, len, flags) offsetof(struct row_sums, name),
static const size_t sums_off[] = { TOTALS_RECORD(SUM_OFF) };
#define NTOTALS (sizeof(totals_cols) / sizeof(*totals_cols))
_Static_assert(sizeof(sums_off) / sizeof(*sums_off) == NTOTALS, "a totals column not a number");
_Static_assert(NTOTALS <= sizeof(((struct row_sums *)0)->set), "row_sums.set too small");

_Static_assert(REC_PROCESS_COLS <= REC_MAX, "REC_MAX too small");

static uint64_t minus(uint64_t v, uint64_t base)
{
	return v > base ? v - base : 0;
}

void process_row_finish(struct proctable *t, const struct tool_rules *rules, struct proc *p,
			const struct exit_event *e)
{
	const struct proc *parent;

	p->exit = *e;
	p->flags |= PROC_FINISHED;
	if (!p->ppid)
		p->ppid = e->ppid;
	if (!p->comm[0])
		memcpy(p->comm, e->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = 0;
	parent = proctable_find_pid(t, p->ppid);
	/* A process that never exec'd keeps its parent's name, and runs its parent's command. One
	 * whose name is its own exec'd while tracerd was away (its exec unseen): its command is
	 * unknown, and not its parent's. */
	if (parent && (!parent->comm[0] || !strncmp(parent->comm, p->comm, sizeof(p->comm))))
		proctable_inherit_command(p, parent);
	proctable_name_tool(rules, p, p->comm, &p->tool);
}

void process_row_command(struct proctable *t, const struct tool_rules *rules, const struct proc *p,
			 struct proc_now *now)
{
	now->cmd = proctable_command_holder(t, p);
	proctable_name_tool(rules, now->cmd, p->comm, &now->tool);
}

/* Who the process is, stored or live */
static void fill_ids(const struct proc *p, int64_t offset_ns, struct rec_row *r)
{
	rec_int(r, PCOL_pid, p->pid);
	rec_int(r, PCOL_ppid, p->ppid);
	if (p->parent_start_ns)
		rec_int(r, PCOL_parent_start_boot_ns, (int64_t)p->parent_start_ns);
	rec_int(r, PCOL_uid, p->uid);
	rec_int(r, PCOL_start_ns, (int64_t)p->start_ns + offset_ns);
	if (p->exec_ns)
		rec_int(r, PCOL_exec_ns, (int64_t)p->exec_ns + offset_ns);
	rec_text(r, PCOL_comm, p->comm);
}

/* getrusage(2)'s split: scheduler runtime is exact, the tick samples only give the ratio. */
static void cpu_split(const struct exit_event *e, uint64_t runtime, uint64_t *user, uint64_t *sys)
{
	uint64_t total = e->utime_ns + e->stime_ns;

	if (total == 0) {
		*user = runtime;
		*sys = 0;
		return;
	}
	*user = (uint64_t)((long double)runtime * e->utime_ns / total);
	*sys = runtime - *user;
}

static void fill_finished(const struct proc *p, int64_t offset_ns, struct rec_row *r)
{
	const struct exit_event *e = &p->exit;
	/* The exit's CPU and faults count from fork; a program's own count from its first exec
	 * (its work before is the kernel's fork and exec, kept as pre_exec_cpu_ns). The
	 * user/system split is kept in proportion (it is tick-sampled anyway). I/O stays as
	 * /proc/PID/io counts it, from fork: before its exec a child does little I/O, and the
	 * exec's own reads of the program are part of starting it. */
	uint64_t cpu = minus(e->runtime_ns, p->base.runtime_ns), user, sys;
	uint64_t peak = e->peak_rss_kb;
	uint32_t xflags = e->flags;

	/* the OOM killer's reading, after its first exec: the reaper may have emptied the image
	 * before the exit read it */
	if (p->oom_rss_kb > peak) {
		peak = p->oom_rss_kb;
		xflags &= ~EXIT_PEAK_UNREAD;
	}
	cpu_split(e, cpu, &user, &sys);
	fill_ids(p, offset_ns, r);
	rec_int(r, PCOL_start_boot_ns, p->start_ns);
	rec_int(r, PCOL_unit, p->unit);
	rec_int(r, PCOL_gid, p->gid);
	rec_int(r, PCOL_end_ns, (int64_t)e->h.time_ns + offset_ns);
	rec_text(r, PCOL_exe, p->exe);
	rec_blob(r, PCOL_argv, p->argv, p->argv_len);
	rec_int(r, PCOL_cgroup_id, p->cgroup_id);
	rec_int(r, PCOL_cpu_ns, cpu);
	rec_int(r, PCOL_user_ns, user);
	rec_int(r, PCOL_sys_ns, sys);
	/* MaxRSS is the program's own peak; where the kernel left none to read, the last live
	 * sample is the closest honest figure (a lower bound), and without one it is unknown */
	if (!(xflags & EXIT_PEAK_UNREAD))
		rec_int(r, PCOL_maxrss_kb, peak);
	else if (p->sample_rss_kb)
		rec_int(r, PCOL_maxrss_kb, p->sample_rss_kb);
	rec_int(r, PCOL_rchar, e->rchar);
	rec_int(r, PCOL_wchar, e->wchar);
	rec_int(r, PCOL_syscr, e->syscr);
	rec_int(r, PCOL_syscw, e->syscw);
	rec_int(r, PCOL_read_bytes, e->read_bytes);
	rec_int(r, PCOL_write_bytes, e->write_bytes);
	rec_int(r, PCOL_cancelled_write_bytes, e->cancelled_write_bytes);
	rec_int(r, PCOL_minflt, minus(e->minflt, p->base.minflt));
	rec_int(r, PCOL_majflt, minus(e->majflt, p->base.majflt));
	rec_int(r, PCOL_nvcsw, e->nvcsw);
	rec_int(r, PCOL_nivcsw, e->nivcsw);
	rec_int(r, PCOL_threads, e->threads);
	rec_int(r, PCOL_status, e->status);
	rec_int(r, PCOL_flags,
		p->flags | (xflags & EXIT_THREADS_TRUNCATED ? PROC_THREADS_TRUNCATED : 0) |
			(xflags & EXIT_PEAK_UNREAD ? PROC_PEAK_UNREAD : 0));
	rec_text(r, PCOL_tool, p->tool.name);
	rec_text(r, PCOL_subcommand, p->tool.subcommand);
	rec_text(r, PCOL_interpreter, p->tool.interpreter);
	rec_int(r, PCOL_tool_excluded, p->tool.excluded);
	rec_int(r, PCOL_tool_wrapper, p->tool.wrapper);
	rec_int(r, PCOL_ru_maxrss_kb, e->ru_maxrss_kb);
	rec_int(r, PCOL_pre_exec_cpu_ns, p->base.runtime_ns);
	/* figures the kernel side may not have counted stay NULL (unknown), not a false 0 */
	if (!(p->flags & PROC_EXIT_LOST))
		rec_int(r, PCOL_cpu_wait_ns, e->w.cpu_wait_ns);
	if (!(e->flags & EXIT_NO_WAITS)) {
		rec_int(r, PCOL_iowait_ns, e->w.iowait_ns);
		rec_int(r, PCOL_offcpu_ns, e->w.offcpu_ns);
	}
	if (!(e->flags & EXIT_NO_NET)) {
		rec_int(r, PCOL_net_rx_bytes, e->w.net_rx_bytes);
		rec_int(r, PCOL_net_tx_bytes, e->w.net_tx_bytes);
		rec_int(r, PCOL_net_rx_calls, e->w.net_rx_calls);
		rec_int(r, PCOL_net_tx_calls, e->w.net_tx_calls);
	}
	if (p->stall.ns) {
		rec_int(r, PCOL_stall_start_ns, (int64_t)p->stall.start_ns + offset_ns);
		rec_int(r, PCOL_stall_ns, p->stall.ns);
		rec_text(r, PCOL_stall_reason, p->stall.reason);
	}
}

/* As a stored row is, with no end, status or exit-only figure: it runs. */
static void fill_running(const struct proc *p, const struct proc_now *now, int64_t offset_ns,
			 struct rec_row *r)
{
	const struct proc *cmd = now->cmd ? now->cmd : p;

	fill_ids(p, offset_ns, r);
	rec_text(r, PCOL_exe, cmd->exe);
	rec_blob(r, PCOL_argv, cmd->argv, cmd->argv_len);
	/* a program's CPU counts from its first exec, as at its exit */
	rec_int(r, PCOL_cpu_ns, minus(now->cpu_ns, p->base.runtime_ns));
	/* its peak is at least what it holds now */
	rec_int(r, PCOL_maxrss_kb, now->hwm_kb > now->rss_kb ? now->hwm_kb : now->rss_kb);
	rec_int(r, PCOL_cpu_wait_ns, now->w.cpu_wait_ns);
	rec_int(r, PCOL_iowait_ns, now->w.iowait_ns);
	rec_int(r, PCOL_offcpu_ns, now->w.offcpu_ns);
	if (now->net) {
		rec_int(r, PCOL_net_rx_bytes, now->w.net_rx_bytes);
		rec_int(r, PCOL_net_tx_bytes, now->w.net_tx_bytes);
	}
	/* those the exit would add are not known yet */
	rec_int(r, PCOL_flags, p->flags & (PROC_ARGV_TRUNCATED | PROC_OOM_KILLED));
	rec_text(r, PCOL_tool, now->tool.name);
	/* a listed row sends a set string even when empty, as a stored one does not */
	if (now->tool.subcommand[0])
		rec_text(r, PCOL_subcommand, now->tool.subcommand);
	if (now->tool.interpreter[0])
		rec_text(r, PCOL_interpreter, now->tool.interpreter);
	rec_int(r, PCOL_tool_excluded, now->tool.excluded);
}

void process_row_fill(const struct proc *p, const struct proc_now *now, int64_t offset_ns,
		      struct rec_row *r)
{
	if (p->flags & PROC_FINISHED)
		fill_finished(p, offset_ns, r);
	else
		fill_running(p, now, offset_ns, r);
}

/* What r adds into an aggregate's column of flags (REC_LIVE): 1 and *y, or 0 for nothing. */
static int live_value(unsigned flags, const struct rec_row *r, int64_t *y)
{
	unsigned how = flags & REC_LIVE_HOW, from = REC_LIVE_COL(flags);

	if (how == REC_LIVE_COUNT)
		*y = 1;
	else if ((how == REC_LIVE_SUM || how == REC_LIVE_MIN || how == REC_LIVE_MAX) &&
		 r->set[from])
		*y = r->i[from];
	else
		return 0;
	return 1;
}

/* y combined with what the column holds (x, when have): 1 and *y the new value, 0 when it
 * stays as it is. */
static int live_combine(unsigned how, int have, int64_t x, int64_t *y)
{
	if (how == REC_LIVE_COUNT || how == REC_LIVE_SUM)
		*y += have ? x : 0;
	else if (have && (how == REC_LIVE_MIN ? *y >= x : *y <= x))
		return 0;
	return 1;
}

/* r's columns into an aggregate's row acc, each as its REC_LIVE says; what r leaves unset adds
 * nothing. A value acc lacks (NULL in SQL) is r's, as partial sums combine. */
static void add_into(const struct rec_col *cols, size_t n, const struct rec_row *r,
		     struct json_object *acc)
{
	for (size_t i = 0; i < n; i++) {
		struct json_object *v;
		int64_t y;
		int have;

		if (!live_value(cols[i].flags, r, &y))
			continue;
		have = json_object_object_get_ex(acc, cols[i].name, &v);
		if (live_combine(cols[i].flags & REC_LIVE_HOW, have,
				 have ? json_object_get_int64(v) : 0, &y))
			json_object_object_add(acc, cols[i].name, json_object_new_int64(y));
	}
}

void process_row_add_totals(const struct rec_row *r, struct json_object *totals)
{
	add_into(totals_cols, sizeof(totals_cols) / sizeof(*totals_cols), r, totals);
}

static const char *row_text(const struct rec_row *r, unsigned col)
{
	return r->set[col] && r->s[col] ? r->s[col] : "";
}

/* Is o the row of r's group: every key column alike (unset and absent alike empty)? */
static int same_group(struct json_object *o, const struct rec_row *r)
{
	for (size_t i = 0; i < sizeof(tool_cols) / sizeof(*tool_cols); i++) {
		struct json_object *v;
		const char *t;

		if ((tool_cols[i].flags & REC_LIVE_HOW) != REC_LIVE_KEY)
			continue;
		t = json_object_object_get_ex(o, tool_cols[i].name, &v) ? json_object_get_string(v)
									: NULL;
		if (strcmp(t ? t : "", row_text(r, REC_LIVE_COL(tool_cols[i].flags))))
			return 0;
	}
	return 1;
}

int process_row_add_tools(const struct rec_row *r, struct json_object *rows,
			  struct json_object **group)
{
	const size_t n = sizeof(tool_cols) / sizeof(*tool_cols);
	struct json_object *row = NULL;

	for (size_t i = 0; i < json_object_array_length(rows) && !row; i++)
		if (same_group(json_object_array_get_idx(rows, i), r))
			row = json_object_array_get_idx(rows, i);
	if (!row) {
		row = json_object_new_object();
		if (!row || json_object_array_add(rows, row) < 0) {
			json_object_put(row);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			unsigned from = REC_LIVE_COL(tool_cols[i].flags);

			if ((tool_cols[i].flags & REC_LIVE_HOW) == REC_LIVE_KEY && r->set[from] &&
			    r->s[from])
				json_object_object_add(row, tool_cols[i].name,
						       json_object_new_string(r->s[from]));
		}
	}
	add_into(tool_cols, n, r, row);
	*group = row;
	return 0;
}

/* TOTALS_RECORD's columns by name: TOT_nprocs */
#define TOT_INDEX(name, kind, sql, len, flags) TOT_##name,
enum { TOTALS_RECORD(TOT_INDEX) TOT_COLS };

/* What TOTALS_RECORD's SQL counts of finished rows that no live total has (no REC_LIVE): its
 * OOM kills and its first start. */
static void sum_finished(const struct rec_row *r, struct row_sums *sums)
{
	int64_t start = r->i[PCOL_start_ns];

	sums->oom_kills += r->set[PCOL_flags] && (r->i[PCOL_flags] & PROC_OOM_KILLED);
	sums->set[TOT_oom_kills] = 1;
	if (r->set[PCOL_start_ns] &&
	    (!sums->set[TOT_first_start_ns] || start < sums->first_start_ns)) {
		sums->first_start_ns = start;
		sums->set[TOT_first_start_ns] = 1;
	}
}

void process_row_sum(const struct rec_row *r, struct row_sums *sums)
{
	int finished = r->set[PCOL_end_ns];

	if (finished)
		sum_finished(r, sums);

	for (size_t i = 0; i < NTOTALS; i++) {
		unsigned from = REC_LIVE_COL(totals_cols[i].flags);
		int64_t *acc = (int64_t *)((char *)sums + sums_off[i]), y;

		if (!live_value(totals_cols[i].flags, r, &y))
			continue;
		/* TOTALS_RECORD's SQL: a finished process's CPU from its fork, pre-exec as system
		 */
		if (finished && (from == PCOL_cpu_ns || from == PCOL_sys_ns) &&
		    r->set[PCOL_pre_exec_cpu_ns])
			y += r->i[PCOL_pre_exec_cpu_ns];
		if (!live_combine(totals_cols[i].flags & REC_LIVE_HOW, sums->set[i], *acc, &y))
			continue;
		*acc = y;
		sums->set[i] = 1;
	}
}

struct json_object *process_row_sums_json(const struct row_sums *sums)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < NTOTALS; i++) {
		const int64_t *v = (const int64_t *)((const char *)sums + sums_off[i]);

		/* SQL's: a COUNT is 0 over no row, a SUM, MIN or MAX of none is NULL (absent) */
		if (sums->set[i] || i == TOT_nprocs)
			json_object_object_add(o, totals_cols[i].name,
					       json_object_new_int64(sums->set[i] ? *v : 0));
	}
	return o;
}

void process_row_sums_merge(struct row_sums *to, const struct row_sums *from)
{
	for (size_t i = 0; i < NTOTALS; i++) {
		unsigned how = totals_cols[i].flags & REC_LIVE_HOW;
		int64_t *acc = (int64_t *)((char *)to + sums_off[i]);
		int64_t y = *(const int64_t *)((const char *)from + sums_off[i]);

		if (!from->set[i] || !how || how == REC_LIVE_KEY)
			continue;
		if (!live_combine(how, to->set[i], *acc, &y))
			continue;
		*acc = y;
		to->set[i] = 1;
	}
}

_Static_assert(REC_PROCESS_COLS <= 8 * sizeof(struct row_fields), "row_fields too small");

int process_row_fields(struct json_object *names, struct row_fields *out, char *err, size_t len)
{
	struct row_fields f = { { 0, 0 } };
	size_t n, i;
	int c;

	if (!names) {
		*out = f;
		return 0;
	}
	if (!json_object_is_type(names, json_type_array)) {
		snprintf(err, len, "fields: not an array of column names");
		return -EINVAL;
	}
	n = json_object_array_length(names);
	if (n > REC_PROCESS_COLS) {
		snprintf(err, len, "fields: more than the %d columns a process has",
			 REC_PROCESS_COLS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(names, i);
		const char *name =
			json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

		for (c = 0; name && c < REC_PROCESS_COLS; c++)
			if (!(process_cols[c].flags & REC_STORED) &&
			    !strcmp(process_cols[c].name, name))
				break;
		if (!name || c == REC_PROCESS_COLS) {
			snprintf(err, len, "fields[%zu]: not a column of a process", i);
			return -EINVAL;
		}
		f.w[c / 64] |= (uint64_t)1 << (c % 64);
	}
	*out = f;
	return 0;
}

void process_row_cut(struct json_object *row, const struct row_fields *f)
{
	if (row_fields_all(f))
		return;
	/* what is not a column (a running process's figures of now) stays */
	for (int c = 0; c < REC_PROCESS_COLS; c++)
		if (!row_fields_has(f, c) && !(c == PCOL_uid && row_fields_has(f, PCOL_argv)))
			json_object_object_del(row, process_cols[c].name);
	if (!row_fields_has(f, PCOL_argv))
		json_object_object_del(row, "argv_hidden");
}
