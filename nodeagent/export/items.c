/* A stored row as OTLP items: a process or a unit as a span, and what went wrong in it as log
 * records. The one place that decides an exported name or attribute (ids: items_ids.c). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "records.h"
#include "slower.h"
#include "slurm_ids.h"
#include "store.h"
#include "items_attrs.h"
#include "log.h"
#include "source_internal.h"
#include "stmt.h"
#include "unit.h"

#define MEM_NEAR_LIMIT_PCT 90 /* a unit's peak this close to its --mem is said */

/* the span ids are made of the boot id, which the row holds as its boot's key */
#define PROCESS_BOOT STORE_BOOT_ID("p.boot_id")
#define PROCESS_SELECT                                                                     \
	"SELECT p.seq, " PROCESS_BOOT ", p.pid, p.ppid, p.start_boot_ns, "                 \
	"p.parent_start_boot_ns, p.start_ns, p.exec_ns, p.end_ns, p.comm, p.exe, p.argv, " \
	"p.uid, p.status, p.flags, p.tool, p.subcommand, p.cpu_ns, p.user_ns, p.sys_ns, "  \
	"p.maxrss_kb, p.read_bytes, p.write_bytes, p.rchar, p.wchar, p.cpu_wait_ns, "      \
	"p.iowait_ns, p.offcpu_ns, p.net_rx_bytes, p.net_tx_bytes, p.stall_ns, "           \
	"p.stall_reason, p.threads, p.unit FROM processes p WHERE p.seq > ?1"
const char items_process_sql[] = PROCESS_SELECT " ORDER BY p.seq LIMIT ?2";
/* The rows that can make a log record (process_logs: an outcome, a stall), of the many that
 * make none, through their own index (STORE_LOG_ROWS): a storm's successful processes are
 * read once, for their spans. A superset of them is enough; process_logs decides. */
const char items_process_logs_sql[] =
	PROCESS_SELECT " AND " STORE_LOG_ROWS " ORDER BY p.seq LIMIT ?2";
enum {
	PR_SEQ,
	PR_BOOT,
	PR_PID,
	PR_PPID,
	PR_START_BOOT,
	PR_PARENT_START,
	PR_START,
	PR_EXEC,
	PR_END,
	PR_COMM,
	PR_EXE,
	PR_ARGV,
	PR_UID,
	PR_STATUS,
	PR_FLAGS,
	PR_TOOL,
	PR_SUBCOMMAND,
	PR_CPU,
	PR_USER,
	PR_SYS,
	PR_MAXRSS,
	PR_READ,
	PR_WRITE,
	PR_RCHAR,
	PR_WCHAR,
	PR_CPU_WAIT,
	PR_IOWAIT,
	PR_OFFCPU,
	PR_NET_RX,
	PR_NET_TX,
	PR_STALL,
	PR_STALL_REASON,
	PR_THREADS,
	PR_UNIT
};

const char items_unit_sql[] =
	"SELECT u.seq, u.start_ns, u.end_ns, u.state, u.exit_status, u.lost_events, "
	"u.down_start_ns, u.down_end_ns, u.alloc_cpus, u.alloc_mem_mb, u.job_mem_peak_kb, "
	"u.cgroup_mem_peak_kb, u.cgroup_cpu_ns, u.idle_ns, u.procs_folded, u.stalls, " UNIT_COLUMNS
	" FROM units u WHERE u.seq > ?1 ORDER BY u.seq LIMIT ?2";
enum {
	UR_SEQ,
	UR_START,
	UR_END,
	UR_STATE,
	UR_EXIT,
	UR_LOST,
	UR_DOWN_START,
	UR_DOWN_END,
	UR_ALLOC_CPUS,
	UR_ALLOC_MEM_MB,
	UR_JOB_MEM_PEAK,
	UR_CG_MEM_PEAK,
	UR_CG_CPU,
	UR_IDLE,
	UR_FOLDED,
	UR_STALLS,
	UR_UNIT
};

#define STALL_BOOT STORE_BOOT_ID("t.boot_id")
const char items_stall_start_sql[] =
	"SELECT t.seq, " STALL_BOOT ", t.pid, t.start_boot_ns, t.since_ns, t.comm, t.tool, "
	"t.reason, " UNIT_COLUMNS " FROM stall_starts t LEFT JOIN units u ON u.id = t.unit"
	" WHERE t.seq > ?1 ORDER BY t.seq LIMIT ?2";
enum { SS_SEQ, SS_BOOT, SS_PID, SS_START_BOOT, SS_SINCE, SS_COMM, SS_TOOL, SS_REASON, SS_UNIT };

/* ---- attributes of a row's unit */

/* The Slurm and workflow context of a row's unit */
static void attrs_unit(struct attrs *as, sqlite3_stmt *st, int at)
{
	char step[32];

	if (num(st, at + U_JOB) > 0) {
		attr_num(as, "slurm.job_id", st, at + U_JOB);
		if (num(st, at + U_STEP) != STEP_NONE)
			attr_str(
				as, "slurm.step_id",
				slurm_step_name((uint32_t)num(st, at + U_STEP), step, sizeof(step)),
				strlen(step));
		if (num(st, at + U_TASK) >= 0)
			attr_num(as, "slurm.task_id", st, at + U_TASK);
		if (num(st, at + U_ARRAY_JOB) > 0) {
			attr_num(as, "slurm.array_job_id", st, at + U_ARRAY_JOB);
			attr_num(as, "slurm.array_task_id", st, at + U_ARRAY_TASK);
		}
		attr_col(as, "slurm.cluster", st, at + U_CLUSTER);
		attr_col(as, "slurm.job_name", st, at + U_JOB_NAME);
		attr_col(as, "slurm.account", st, at + U_ACCOUNT);
		attr_col(as, "slurm.partition", st, at + U_PARTITION);
		attr_col(as, "slurm.nodelist", st, at + U_NODELIST);
		attr_owner(as, "slurm.user", (uint32_t)num(st, at + U_UID));
	}
	attr_col(as, "tracer.unit.name", st, at + U_NAME);
	attr_col(as, "tracer.pipeline", st, at + U_PIPELINE);
	attr_col(as, "tracer.run", st, at + U_RUN);
	attr_col(as, "tracer.step", st, at + U_STEP_NAME);
	attr_col(as, "tracer.wildcards", st, at + U_WILDCARDS);
	attr_col(as, "tracer.engine", st, at + U_ENGINE);
}

/* ---- names and outcomes */

/* "bwa mem", else its comm */
static const char *process_name(struct export_batch *b, sqlite3_stmt *st)
{
	char name[160];
	const char *tool = text(st, PR_TOOL), *sub = text(st, PR_SUBCOMMAND);

	if (!*tool)
		tool = *text(st, PR_COMM) ? text(st, PR_COMM) : "process";
	snprintf(name, sizeof(name), "%s%s%s", tool, *sub ? " " : "", sub);
	return batch_text(b, name, strlen(name));
}

static const char *unit_name(struct export_batch *b, sqlite3_stmt *st, int at)
{
	char name[192], step[32];
	int64_t job = num(st, at + U_JOB), task = num(st, at + U_TASK);
	uint32_t s = (uint32_t)num(st, at + U_STEP);

	if (job <= 0)
		snprintf(name, sizeof(name), "%s", text(st, at + U_NAME));
	else if (s == STEP_NONE)
		snprintf(name, sizeof(name), "job %" PRId64, job);
	else
		snprintf(name, sizeof(name), "step %" PRId64 ".%s task %" PRId64, job,
			 slurm_step_name(s, step, sizeof(step)), task < 0 ? 0 : task);
	return batch_text(b, name, strlen(name));
}

/* How a process ended, as words for a span's status and a log's body: "" when it succeeded */
static void outcome(int64_t status, int64_t flags, char *out, size_t len)
{
	const char *sig;

	out[0] = 0;
	if (flags & PROC_OOM_KILLED)
		snprintf(out, len, "killed by the OOM killer");
	else if (status > 0 && WIFSIGNALED((int)status))
		snprintf(out, len, "killed by signal %s",
			 (sig = sigabbrev_np(WTERMSIG((int)status))) ? sig : "?");
	else if (status > 0 && WIFEXITED((int)status) && WEXITSTATUS((int)status))
		snprintf(out, len, "exit %d", WEXITSTATUS((int)status));
}

static struct otlp_log *log_of(struct export_batch *b, const struct ids *ids, uint64_t time_ns,
			       enum otlp_severity sev, const char *body)
{
	static const char *const words[] = {
		[OTLP_SEV_INFO] = "INFO", [OTLP_SEV_WARN] = "WARN", [OTLP_SEV_ERROR] = "ERROR"
	};
	struct otlp_log *l;
	const char *t = batch_text(b, body, strlen(body));

	if (!t || !(l = batch_log(b)))
		return NULL;
	l->time_unix_ns = l->observed_unix_ns = time_ns;
	l->severity = sev;
	l->severity_text = words[sev];
	l->body = t;
	memcpy(l->trace_id, ids->trace, sizeof(l->trace_id));
	memcpy(l->span_id, ids->span, sizeof(l->span_id));
	return l;
}

/* ---- a process */

static void attrs_process(struct attrs *as, sqlite3_stmt *st)
{
	int64_t status = num(st, PR_STATUS);
	struct otlp_attr *a;

	attr_num(as, "process.pid", st, PR_PID);
	attr_num(as, "process.parent_pid", st, PR_PPID);
	attr_col(as, "process.executable.name", st, PR_COMM);
	attr_col(as, "process.executable.path", st, PR_EXE);
	if (sqlite3_column_bytes(st, PR_ARGV) > 0) {
		size_t len = (size_t)sqlite3_column_bytes(st, PR_ARGV);
		const char *argv = batch_text(as->b, sqlite3_column_blob(st, PR_ARGV), len);

		if (argv && (a = attr(as, "process.command_args", OTLP_STRINGS))) {
			a->s = argv;
			a->len = len;
		} else {
			as->oom = 1;
		}
	}
	attr_owner(as, "process.owner", (uint32_t)num(st, PR_UID));
	if (sqlite3_column_type(st, PR_STATUS) != SQLITE_NULL && status >= 0) {
		if (WIFEXITED((int)status))
			attr_int(as, "process.exit.code", WEXITSTATUS((int)status));
		else if (WIFSIGNALED((int)status))
			attr_int(as, "tracer.exit.signal", WTERMSIG((int)status));
	}
	attr_col(as, "tracer.tool", st, PR_TOOL);
	attr_col(as, "tracer.tool.subcommand", st, PR_SUBCOMMAND);
	attr_num(as, "tracer.cpu_ns", st, PR_CPU);
	attr_num(as, "tracer.user_ns", st, PR_USER);
	attr_num(as, "tracer.sys_ns", st, PR_SYS);
	attr_num(as, "tracer.peak_rss_kb", st, PR_MAXRSS);
	attr_num(as, "tracer.read_bytes", st, PR_READ);
	attr_num(as, "tracer.write_bytes", st, PR_WRITE);
	attr_num(as, "tracer.rchar", st, PR_RCHAR);
	attr_num(as, "tracer.wchar", st, PR_WCHAR);
	attr_num(as, "tracer.cpu_wait_ns", st, PR_CPU_WAIT);
	attr_num(as, "tracer.io_wait_ns", st, PR_IOWAIT);
	attr_num(as, "tracer.off_cpu_ns", st, PR_OFFCPU);
	attr_num(as, "tracer.net.rx_bytes", st, PR_NET_RX);
	attr_num(as, "tracer.net.tx_bytes", st, PR_NET_TX);
	attr_num(as, "tracer.threads", st, PR_THREADS);
	if (num(st, PR_STALL) > 0) {
		attr_num(as, "tracer.stall_ns", st, PR_STALL);
		attr_col(as, "tracer.stall_reason", st, PR_STALL_REASON);
	}
	if (num(st, PR_FLAGS) & PROC_OOM_KILLED)
		attr_bool(as, "tracer.oom_killed", 1);
}

static void process_ids(sqlite3_stmt *st, struct ids *ids)
{
	const char *boot = text(st, PR_BOOT);

	/* under its unit's span (unit_ids), or its parent's */
	memcpy(ids->parent, ids->span, sizeof(ids->parent));
	if (num(st, PR_PARENT_START) > 0)
		items_put64(ids->parent,
			    items_process_span(boot, num(st, PR_PPID), num(st, PR_PARENT_START)));
	items_put64(ids->span, items_process_span(boot, num(st, PR_PID), num(st, PR_START_BOOT)));
}

/* What makes a record here is in STORE_LOG_ROWS too: a condition added here is added there,
 * or its rows are never read for logs. */
static int process_logs(struct export_batch *b, sqlite3_stmt *st, const struct ids *ids)
{
	char how[64], body[512];
	const char *name = process_name(b, st);
	int64_t flags = num(st, PR_FLAGS), pid = num(st, PR_PID);
	uint64_t end = (uint64_t)num(st, PR_END);

	if (!name)
		return -ENOMEM;
	outcome(num(st, PR_STATUS), flags, how, sizeof(how));
	if (*how) {
		snprintf(body, sizeof(body), "process %" PRId64 " (%s) %s%s", pid, name,
			 flags & PROC_OOM_KILLED ? "was " : "", how);
		if (!log_of(b, ids, end,
			    flags & PROC_OOM_KILLED || strstr(how, "signal") ? OTLP_SEV_ERROR
									     : OTLP_SEV_WARN,
			    body))
			return -ENOMEM;
	}
	if (num(st, PR_STALL) > 0) {
		snprintf(body, sizeof(body), "process %" PRId64 " (%s) stalled for %.1f s (%s)",
			 pid, name, (double)num(st, PR_STALL) / 1e9, text(st, PR_STALL_REASON));
		if (!log_of(b, ids, end, OTLP_SEV_WARN, body))
			return -ENOMEM;
	}
	return 0;
}

/* The unit of id (a process row's): its ids and attributes, read and made once for the rows of
 * one unit. NULL when it has no stored row (*err 0), or on an error (*err -errno). */
static const struct unit_part *unit_part(struct export_batch *b, int64_t id, int *err)
{
	static const char sql[] = "SELECT " UNIT_COLUMNS " FROM units u WHERE u.id = ?1";
	struct unit_part *u = &b->unit;
	sqlite3_stmt *st;
	struct attrs as;
	int rc;

	*err = 0;
	if (u->id == id && id)
		return u->stored ? u : NULL;
	memset(u, 0, sizeof(*u));
	if (!(st = stmt_get(b->db, sql))) {
		log_error("export: %s", sqlite3_errmsg(b->db));
		*err = -EIO;
		return NULL;
	}
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && items_unit_ids(b, st, 0, &u->ids) == 0) {
		attrs_begin(&as, b);
		attrs_unit(&as, st, 0);
		if (attrs_end(&as, &u->attrs, &u->nattrs))
			*err = -ENOMEM;
		else
			u->stored = 1;
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		log_error("export: %s", sqlite3_errmsg(b->db));
		*err = -EIO;
	}
	stmt_done(st);
	u->id = *err ? 0 : id;
	return u->stored ? u : NULL;
}

int items_process(struct export_batch *b, sqlite3_stmt *st)
{
	const struct unit_part *u;
	struct ids ids;
	struct attrs as;
	struct otlp_span *s;
	char how[64];
	int err;

	if (!(u = unit_part(b, num(st, PR_UNIT), &err)))
		return err; /* 0: a key's rows not linked yet, sent once moved to their unit */
	ids = u->ids;
	process_ids(st, &ids);
	if (b->signal == EXPORT_LOGS)
		return process_logs(b, st, &ids);
	attrs_begin(&as, b);
	attrs_process(&as, st);
	attrs_add(&as, u->attrs, u->nattrs);
	s = batch_span(b);
	if (!s || !(s->name = process_name(b, st)) || attrs_end(&as, &s->attrs, &s->nattrs))
		return -ENOMEM;
	memcpy(s->trace_id, ids.trace, sizeof(ids.trace));
	memcpy(s->span_id, ids.span, sizeof(ids.span));
	memcpy(s->parent_span_id, ids.parent, sizeof(ids.parent));
	s->kind = OTLP_SPAN_INTERNAL;
	s->start_unix_ns = (uint64_t)num(st, PR_START);
	s->end_unix_ns = (uint64_t)num(st, PR_END);
	outcome(num(st, PR_STATUS), num(st, PR_FLAGS), how, sizeof(how));
	if (*how) {
		s->status = OTLP_STATUS_ERROR;
		if (!(s->status_message = batch_text(b, how, strlen(how))))
			return -ENOMEM;
	}
	return 0;
}

/* ---- a unit */

/* "Slower than usual" (slower.h) at a step's end: against its earlier runs in the store, by
 * the store's rule of which runs are the same step. 0, or -ENOMEM. */
static int slower_log(struct export_batch *b, sqlite3_stmt *st, const struct ids *ids,
		      const char *name)
{
	int64_t runs[SLOWER_RUNS], took = num(st, UR_END) - num(st, UR_START), usual;
	struct unit u = {};
	struct otlp_log *l;
	struct attrs as;
	char body[512];
	size_t n = 0;
	int at = UR_UNIT;

	if (!slower_compared(num(st, at + U_STEP), num(st, at + U_TASK)) || num(st, UR_END) <= 0)
		return 0;
	u.id = (uint64_t)num(st, at + U_ID);
	u.start_ns = num(st, UR_START);
	u.uid = (uint32_t)num(st, at + U_UID);
	u.job_id = (uint64_t)num(st, at + U_JOB);
	u.step_id = (uint32_t)num(st, at + U_STEP);
	snprintf(u.kind, sizeof(u.kind), "%s", text(st, at + U_KIND));
	snprintf(u.name, sizeof(u.name), "%s", text(st, at + U_NAME));
	snprintf(u.job_name, sizeof(u.job_name), "%s", text(st, at + U_JOB_NAME));
	snprintf(u.pipeline, sizeof(u.pipeline), "%s", text(st, at + U_PIPELINE));
	snprintf(u.step_name, sizeof(u.step_name), "%s", text(st, at + U_STEP_NAME));
	if (store_history_elapsed(b->db, &u, SLOWER_RUNS, runs, &n) < 0 || !n)
		return 0; /* no history to say it against: nothing to say */
	usual = slower_median(runs, n);
	if (!slower_than_usual(took, usual))
		return 0;
	snprintf(body, sizeof(body),
		 "%s took %.1f\xc3\x97 its median of the last %zu run%s (%.1f s against %.1f s)",
		 name, (double)took / (double)usual, n, n > 1 ? "s" : "", (double)took / 1e9,
		 (double)usual / 1e9);
	if (!(l = log_of(b, ids, (uint64_t)num(st, UR_END), OTLP_SEV_WARN, body)))
		return -ENOMEM;
	attrs_begin(&as, b);
	attr_str(&as, "tracer.event", "slower_than_usual", strlen("slower_than_usual"));
	attr_int(&as, "tracer.elapsed_ns", took);
	attr_int(&as, "tracer.usual_elapsed_ns", usual);
	attr_int(&as, "tracer.history_runs", (int64_t)n);
	attrs_unit(&as, st, UR_UNIT);
	return attrs_end(&as, &l->attrs, &l->nattrs);
}

static int unit_logs(struct export_batch *b, sqlite3_stmt *st, const struct ids *ids,
		     const char *name, enum unit_state state)
{
	char body[512];
	uint64_t end = (uint64_t)num(st, UR_END);
	int64_t limit_kb = num(st, UR_ALLOC_MEM_MB) * 1024;
	int64_t peak =
		num(st, UR_JOB_MEM_PEAK) ? num(st, UR_JOB_MEM_PEAK) : num(st, UR_CG_MEM_PEAK);

	if (state != UNIT_COMPLETED && state != UNIT_RUNNING) {
		snprintf(body, sizeof(body), "%s ended %s (wait status %" PRId64 ")", name,
			 unit_state_name(state), num(st, UR_EXIT));
		if (!log_of(b, ids, end, OTLP_SEV_ERROR, body))
			return -ENOMEM;
	}
	if (num(st, UR_LOST) > 0) {
		snprintf(body, sizeof(body),
			 "%s: %" PRId64 " events lost, its record of processes is incomplete", name,
			 num(st, UR_LOST));
		if (!log_of(b, ids, end, OTLP_SEV_WARN, body))
			return -ENOMEM;
	}
	if (num(st, UR_DOWN_START) > 0) {
		snprintf(body, sizeof(body),
			 "%s: tracerd was down for %.1f s while it ran; processes of that time may"
			 " be missing",
			 name, (double)(num(st, UR_DOWN_END) - num(st, UR_DOWN_START)) / 1e9);
		if (!log_of(b, ids, (uint64_t)num(st, UR_DOWN_START), OTLP_SEV_WARN, body))
			return -ENOMEM;
	}
	if (limit_kb > 0 && peak * 100 >= limit_kb * MEM_NEAR_LIMIT_PCT) {
		snprintf(body, sizeof(body),
			 "%s: peak memory %" PRId64 " MB is %" PRId64 " %% of its %" PRId64 " MB",
			 name, peak / 1024, peak * 100 / limit_kb, limit_kb / 1024);
		if (!log_of(b, ids, end, OTLP_SEV_WARN, body))
			return -ENOMEM;
	}
	return state == UNIT_RUNNING ? 0 : slower_log(b, st, ids, name);
}

int items_unit(struct export_batch *b, sqlite3_stmt *st)
{
	struct ids ids;
	struct attrs as;
	struct otlp_span *s;
	enum unit_state state = UNIT_LOST;
	const char *name;

	unit_state_parse(text(st, UR_STATE), &state);
	if (items_unit_ids(b, st, UR_UNIT, &ids) < 0)
		return 0;
	if (!(name = unit_name(b, st, UR_UNIT)))
		return -ENOMEM;
	if (b->signal == EXPORT_LOGS)
		return unit_logs(b, st, &ids, name, state);
	attrs_begin(&as, b);
	attr_col(&as, "tracer.unit.kind", st, UR_UNIT + U_KIND);
	attr_col(&as, "tracer.unit.state", st, UR_STATE);
	attr_num(&as, "tracer.unit.exit_status", st, UR_EXIT);
	attr_num(&as, "tracer.lost_events", st, UR_LOST);
	attr_num(&as, "tracer.alloc_cpus", st, UR_ALLOC_CPUS);
	attr_num(&as, "tracer.alloc_mem_mb", st, UR_ALLOC_MEM_MB);
	attr_num(&as, "tracer.job_mem_peak_kb", st, UR_JOB_MEM_PEAK);
	attr_num(&as, "tracer.cgroup_mem_peak_kb", st, UR_CG_MEM_PEAK);
	attr_num(&as, "tracer.cgroup_cpu_ns", st, UR_CG_CPU);
	attr_num(&as, "tracer.idle_ns", st, UR_IDLE);
	attr_num(&as, "tracer.procs_folded", st, UR_FOLDED);
	attr_num(&as, "tracer.stalls", st, UR_STALLS);
	attrs_unit(&as, st, UR_UNIT);
	s = batch_span(b);
	if (!s || attrs_end(&as, &s->attrs, &s->nattrs))
		return -ENOMEM;
	s->name = name;
	memcpy(s->trace_id, ids.trace, sizeof(ids.trace));
	memcpy(s->span_id, ids.span, sizeof(ids.span));
	memcpy(s->parent_span_id, ids.parent, sizeof(ids.parent));
	s->kind = OTLP_SPAN_INTERNAL;
	s->start_unix_ns = (uint64_t)num(st, UR_START);
	s->end_unix_ns = (uint64_t)num(st, UR_END);
	if (state != UNIT_COMPLETED) {
		s->status = OTLP_STATUS_ERROR;
		s->status_message = unit_state_name(state);
	}
	return 0;
}

/* ---- a stall's start: a log record on its process's span, while the process runs */

int items_stall_start(struct export_batch *b, sqlite3_stmt *st)
{
	const char *tool = *text(st, SS_TOOL) ? text(st, SS_TOOL) : text(st, SS_COMM);
	struct otlp_log *l;
	struct attrs as;
	struct ids ids;
	char body[512];

	if (b->signal != EXPORT_LOGS || items_unit_ids(b, st, SS_UNIT, &ids) < 0)
		return 0;
	items_put64(ids.span,
		    items_process_span(text(st, SS_BOOT), num(st, SS_PID), num(st, SS_START_BOOT)));
	snprintf(body, sizeof(body),
		 "process %" PRId64 " (%s) stalled: no CPU, I/O or network (%s)", num(st, SS_PID),
		 *tool ? tool : "process", text(st, SS_REASON));
	if (!(l = log_of(b, &ids, (uint64_t)num(st, SS_SINCE), OTLP_SEV_WARN, body)))
		return -ENOMEM;
	attrs_begin(&as, b);
	attr_str(&as, "tracer.event", "stall.start", strlen("stall.start"));
	attr_num(&as, "process.pid", st, SS_PID);
	attr_col(&as, "tracer.tool", st, SS_TOOL);
	attr_col(&as, "tracer.stall_reason", st, SS_REASON);
	attrs_unit(&as, st, SS_UNIT);
	return attrs_end(&as, &l->attrs, &l->nattrs);
}
