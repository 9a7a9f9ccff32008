/* The records tracerd stores and sends: one line per field, in stored column order. From these
 * tables come the store's schema and its migrations, its inserts and selects, the JSON keys on
 * the wire (a column's name is its key) and tracer-jobstat's decoding of them. A field is
 * added by appending a line (columns are only ever appended, so that an older store gains it)
 * and by filling it where the record is written.
 *
 *   X(name, kind, sql, len, flags)
 *
 * kind:  INT   an integer
 *        INT0  an integer, 0 meaning unknown: stored as NULL, absent from the JSON
 *        TEXT  a string, empty stored as NULL; len: a client's copy's size, where it keeps
 *              the record's strings (units)
 *        BLOB  NUL-separated strings, a JSON array
 *        REAL  a real number
 *        BOOT  the boot id of the node whose tracerd wrote the row (TEXT)
 *        STATE a unit's state, "RUNNING" ... (TEXT)
 * sql:   the column's type and constraints; for an aggregate record, its expression
 * flags: REC_STORED: kept in the store, not listed to clients
 *        REC_LIVE(how, col): of an aggregate, how a running process's row adds into it, from
 *        its column col (nodeagent/process_row.c)
 */
#ifndef TRACER_RECORDS_H
#define TRACER_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define REC_STORED 0x1
/* How a running process, not in the store yet, adds into an aggregate's column: KEY, the
 * group's key, equal to the process's col; COUNT, one process more; SUM, MIN, MAX of its col.
 * Not the column's SQL read back: what a live row holds is not always what a stored one does. */
#define REC_LIVE_KEY 0x2
#define REC_LIVE_COUNT 0x4
#define REC_LIVE_SUM 0x6
#define REC_LIVE_MIN 0x8
#define REC_LIVE_MAX 0xa
#define REC_LIVE_HOW 0xe
#define REC_LIVE(how, col) (REC_LIVE_##how | (unsigned)(col) << 8)
#define REC_LIVE_COL(flags) ((flags) >> 8)

enum rec_kind { REC_INT, REC_INT0, REC_TEXT, REC_BLOB, REC_REAL, REC_BOOT, REC_STATE };

/* A field described at run time: what generic code walks (schema, binds, decoding). */
struct rec_col {
	const char *name;
	enum rec_kind kind;
	const char *sql;
	unsigned flags;
};
#define REC_COL(name, kind, sql, len, flags) { #name, REC_##kind, sql, flags },

/* A process's flags, as stored and sent; SQL binds them by name (:oom_killed) */
#define PROC_REDISCOVERED 0x1 /* found in /proc after a restart: start known to a clock tick */
#define PROC_EXECED 0x2	      /* an exec was seen: comm, exe and argv are the command's */
#define PROC_ARGV_TRUNCATED 0x4
#define PROC_OOM_KILLED 0x8
#define PROC_FINISHED 0x10 /* exit totals in .exit are valid */
/* stored only: from the exit event's flags */
#define PROC_THREADS_TRUNCATED 0x100 /* more live threads at the end than the kernel side walks */
#define PROC_PEAK_UNREAD 0x200	     /* the program's own peak was not readable: MaxRSS sampled */
#define PROC_EXIT_LOST 0x400	     /* its exit was never reported: closed from its last sample */

/* Where a process's time went besides its CPU, and its network (bpf/process.h's proc_waits):
 * a process's and a sample's columns, and their sums in a tool group and a unit's totals. */
#define WAITS_COLUMNS(X)                      \
	X(cpu_wait_ns, INT, "INTEGER", 0, 0)  \
	X(iowait_ns, INT, "INTEGER", 0, 0)    \
	X(offcpu_ns, INT, "INTEGER", 0, 0)    \
	X(net_rx_bytes, INT, "INTEGER", 0, 0) \
	X(net_tx_bytes, INT, "INTEGER", 0, 0)
#define WAITS_SUMS(X)                                                                  \
	X(cpu_wait_ns, INT, "SUM(cpu_wait_ns)", 0, REC_LIVE(SUM, PCOL_cpu_wait_ns))    \
	X(iowait_ns, INT, "SUM(iowait_ns)", 0, REC_LIVE(SUM, PCOL_iowait_ns))          \
	X(offcpu_ns, INT, "SUM(offcpu_ns)", 0, REC_LIVE(SUM, PCOL_offcpu_ns))          \
	X(net_rx_bytes, INT, "SUM(net_rx_bytes)", 0, REC_LIVE(SUM, PCOL_net_rx_bytes)) \
	X(net_tx_bytes, INT, "SUM(net_tx_bytes)", 0, REC_LIVE(SUM, PCOL_net_tx_bytes))

/* A tracked unit (nodeagent/unit.h): a Slurm task, a job allocation, a traced command. */
#define UNIT_RECORD(X)                               \
	X(id, INT, "INTEGER PRIMARY KEY", 0, 0)      \
	X(name, TEXT, "TEXT NOT NULL", 128, 0)       \
	X(kind, TEXT, "TEXT NOT NULL", 16, 0)        \
	X(boot_id, BOOT, "TEXT", 40, 0)              \
	X(uid, INT, "INTEGER", 0, 0)                 \
	X(gid, INT, "INTEGER", 0, 0)                 \
	X(root_pid, INT, "INTEGER", 0, 0)            \
	X(root_start_ns, INT, "INTEGER", 0, 0)       \
	X(cgroup_id, INT, "INTEGER", 0, 0)           \
	X(cgroup_path, TEXT, "TEXT", 256, 0)         \
	X(cluster, TEXT, "TEXT", 64, 0)              \
	X(job_id, INT, "INTEGER", 0, 0)              \
	X(array_job_id, INT, "INTEGER", 0, 0)        \
	X(array_task_id, INT, "INTEGER", 0, 0)       \
	X(step_id, INT, "INTEGER", 0, 0)             \
	X(task_id, INT, "INTEGER", 0, 0)             \
	X(job_name, TEXT, "TEXT", 256, 0)            \
	X(alloc_cpus, INT, "INTEGER", 0, 0)          \
	X(alloc_cores, TEXT, "TEXT", 128, 0)         \
	X(alloc_mem_mb, INT, "INTEGER", 0, 0)        \
	X(pipeline, TEXT, "TEXT", 128, 0)            \
	X(run, TEXT, "TEXT", 128, 0)                 \
	X(step_name, TEXT, "TEXT", 128, 0)           \
	X(traceparent, TEXT, "TEXT", 56, 0)          \
	X(start_ns, INT, "INTEGER", 0, 0)            \
	X(end_ns, INT0, "INTEGER", 0, 0)             \
	X(state, STATE, "TEXT", 16, 0)               \
	X(exit_status, INT, "INTEGER", 0, 0)         \
	X(lost_events, INT, "INTEGER", 0, 0)         \
	X(cgroup_cpu_ns, INT0, "INTEGER", 0, 0)      \
	X(cgroup_mem_peak_kb, INT0, "INTEGER", 0, 0) \
	X(engine, TEXT, "TEXT", 16, 0)               \
	X(wf_job, TEXT, "TEXT", 64, 0)               \
	X(wildcards, TEXT, "TEXT", 256, 0)           \
	X(tag, TEXT, "TEXT", 128, 0)                 \
	X(task_hash, TEXT, "TEXT", 64, 0)            \
	X(down_start_ns, INT0, "INTEGER", 0, 0)      \
	X(down_end_ns, INT0, "INTEGER", 0, 0)        \
	X(idle_ns, INT0, "INTEGER", 0, 0)            \
	X(idle_windows, TEXT, "TEXT", 256, 0)        \
	X(mem_pressure_us, INT, "INTEGER", 0, 0)     \
	X(mem_pressure_scope, TEXT, "TEXT", 8, 0)    \
	X(stalls, INT0, "INTEGER", 0, 0)             \
	X(stall_pid, INT0, "INTEGER", 0, 0)          \
	X(stall_tool, TEXT, "TEXT", 64, 0)           \
	X(stall_start_ns, INT0, "INTEGER", 0, 0)     \
	X(stall_ns, INT0, "INTEGER", 0, 0)           \
	X(stall_reason, TEXT, "TEXT", 48, 0)         \
	X(sample_peak_mcores, INT, "INTEGER", 0, 0)  \
	X(sample_peak_rss_kb, INT0, "INTEGER", 0, 0) \
	X(sample_rounds, INT, "INTEGER", 0, 0)       \
	X(job_mem_peak_kb, INT0, "INTEGER", 0, 0)    \
	X(stored_bytes, INT0, "INTEGER", 0, 0)       \
	X(procs_folded, INT0, "INTEGER", 0, 0)       \
	X(owner_uid, INT, "INTEGER", 0, 0)           \
	X(seq, INT0, "INTEGER", 0, REC_STORED)       \
	X(account, TEXT, "TEXT", 64, 0)              \
	X(partition, TEXT, "TEXT", 64, 0)            \
	X(nodelist, TEXT, "TEXT", 256, 0)

/* A unit's column indexes by name: UCOL_job_id */
#define REC_INDEX_U(name, kind, sql, len, flags) UCOL_##name,
enum { UNIT_RECORD(REC_INDEX_U) REC_UNIT_COLS };

/* A finished process with its totals. Keyed by (boot_id, pid, start_boot_ns). Its parent's
 * start (boot ns) is kept where the parent was tracked in the same unit: with ppid, the
 * parent's identity. "seq", of units and processes: the store's export sequence (store.h). A row
 * with "folded" stands for that many processes of a unit past its cap, of one tool, subcommand and
 * exit status, their figures added up (pid 0, a start_boot_ns below 0;
 * nodeagent/store/store_fold.c): counted in totals and tools, never listed. */
#define PROCESS_RECORD(X)                                        \
	X(boot_id, BOOT, "TEXT NOT NULL", 0, REC_STORED)         \
	X(pid, INT, "INTEGER NOT NULL", 0, 0)                    \
	X(start_boot_ns, INT, "INTEGER NOT NULL", 0, REC_STORED) \
	X(unit, INT, "INTEGER NOT NULL", 0, REC_STORED)          \
	X(ppid, INT, "INTEGER", 0, 0)                            \
	X(uid, INT, "INTEGER", 0, 0)                             \
	X(gid, INT, "INTEGER", 0, REC_STORED)                    \
	X(start_ns, INT, "INTEGER", 0, 0)                        \
	X(exec_ns, INT0, "INTEGER", 0, 0)                        \
	X(end_ns, INT, "INTEGER", 0, 0)                          \
	X(comm, TEXT, "TEXT", 0, 0)                              \
	X(exe, TEXT, "TEXT", 0, 0)                               \
	X(argv, BLOB, "BLOB", 0, 0)                              \
	X(cgroup_id, INT, "INTEGER", 0, REC_STORED)              \
	X(cpu_ns, INT, "INTEGER", 0, 0)                          \
	X(user_ns, INT, "INTEGER", 0, 0)                         \
	X(sys_ns, INT, "INTEGER", 0, 0)                          \
	X(maxrss_kb, INT, "INTEGER", 0, 0)                       \
	X(rchar, INT, "INTEGER", 0, 0)                           \
	X(wchar, INT, "INTEGER", 0, 0)                           \
	X(syscr, INT, "INTEGER", 0, REC_STORED)                  \
	X(syscw, INT, "INTEGER", 0, REC_STORED)                  \
	X(read_bytes, INT, "INTEGER", 0, 0)                      \
	X(write_bytes, INT, "INTEGER", 0, 0)                     \
	X(cancelled_write_bytes, INT, "INTEGER", 0, REC_STORED)  \
	X(minflt, INT, "INTEGER", 0, 0)                          \
	X(majflt, INT, "INTEGER", 0, 0)                          \
	X(nvcsw, INT, "INTEGER", 0, 0)                           \
	X(nivcsw, INT, "INTEGER", 0, 0)                          \
	X(threads, INT, "INTEGER", 0, 0)                         \
	X(status, INT, "INTEGER", 0, 0)                          \
	X(flags, INT, "INTEGER", 0, 0)                           \
	X(tool, TEXT, "TEXT", 0, 0)                              \
	X(subcommand, TEXT, "TEXT", 0, 0)                        \
	X(interpreter, TEXT, "TEXT", 0, 0)                       \
	X(tool_excluded, INT, "INTEGER", 0, 0)                   \
	X(tool_wrapper, INT, "INTEGER", 0, REC_STORED)           \
	X(ru_maxrss_kb, INT, "INTEGER", 0, 0)                    \
	X(pre_exec_cpu_ns, INT, "INTEGER", 0, 0)                 \
	WAITS_COLUMNS(X)                                         \
	X(net_rx_calls, INT, "INTEGER", 0, 0)                    \
	X(net_tx_calls, INT, "INTEGER", 0, 0)                    \
	X(stall_start_ns, INT, "INTEGER", 0, 0)                  \
	X(stall_ns, INT, "INTEGER", 0, 0)                        \
	X(stall_reason, TEXT, "TEXT", 0, 0)                      \
	X(folded, INT0, "INTEGER", 0, REC_STORED)                \
	X(parent_start_boot_ns, INT0, "INTEGER", 0, REC_STORED)  \
	X(seq, INT0, "INTEGER", 0, REC_STORED)

/* A process row's column indexes by name: PCOL_pid */
#define REC_INDEX_P(name, kind, sql, len, flags) PCOL_##name,
enum { PROCESS_RECORD(REC_INDEX_P) REC_PROCESS_COLS };

/* A stall that began while its process ran (nodeagent/stalls.h), for the log record the export
 * sends at its start: the process (boot_id, pid, start_boot_ns), its unit, and since when
 * (unix ns) it has made no progress, in what. */
#define STALL_START_RECORD(X)                           \
	X(boot_id, BOOT, "TEXT NOT NULL", 0, 0)         \
	X(pid, INT, "INTEGER NOT NULL", 0, 0)           \
	X(start_boot_ns, INT, "INTEGER NOT NULL", 0, 0) \
	X(since_ns, INT, "INTEGER NOT NULL", 0, 0)      \
	X(unit, INT, "INTEGER NOT NULL", 0, 0)          \
	X(comm, TEXT, "TEXT", 0, 0)                     \
	X(tool, TEXT, "TEXT", 0, 0)                     \
	X(reason, TEXT, "TEXT", 0, 0)                   \
	X(seq, INT0, "INTEGER", 0, REC_STORED)
#define REC_INDEX_ST(name, kind, sql, len, flags) STCOL_##name,
enum { STALL_START_RECORD(REC_INDEX_ST) REC_STALL_START_COLS };

/* A live process's sample, for timelines and a unit's peaks. */
#define SAMPLE_RECORD(X)                                \
	X(unit, INT, "INTEGER NOT NULL", 0, 0)          \
	X(pid, INT, "INTEGER NOT NULL", 0, 0)           \
	X(start_boot_ns, INT, "INTEGER NOT NULL", 0, 0) \
	X(time_ns, INT, "INTEGER NOT NULL", 0, 0)       \
	X(cpu_ns, INT, "INTEGER", 0, 0)                 \
	X(rss_kb, INT, "INTEGER", 0, 0)                 \
	WAITS_COLUMNS(X)                                \
	X(read_bytes, INT, "INTEGER", 0, 0)             \
	X(write_bytes, INT, "INTEGER", 0, 0)

/* How many processes rows stand for (a folded row for "folded" of them), and how many of those
 * the OOM killer chose: what tool groups and totals count. Both add up over parts of the rows
 * (a COUNT and SUMs), as totals counted in steps need. */
#define REC_NPROCS "COUNT(*) + COALESCE(SUM(folded - 1), 0)"
#define REC_OOM_KILLS "SUM(((flags & :oom_killed) != 0) * COALESCE(folded, 1))"

/* The I/O of a tool group's and a unit's processes */
#define IO_SUMS(X)                                                                  \
	X(read_bytes, INT, "SUM(read_bytes)", 0, REC_LIVE(SUM, PCOL_read_bytes))    \
	X(write_bytes, INT, "SUM(write_bytes)", 0, REC_LIVE(SUM, PCOL_write_bytes)) \
	X(rchar, INT, "SUM(rchar)", 0, REC_LIVE(SUM, PCOL_rchar))                   \
	X(wchar, INT, "SUM(wchar)", 0, REC_LIVE(SUM, PCOL_wchar))

/* One tool (and subcommand) of a unit: its processes in rows of p, grouped by tool and
 * subcommand; c counts their exit statuses (store_query.c). A wrapper's peak RSS is not its
 * tool's: time -v forked from a 70 MB python keeps python's peak as its ru_maxrss. */
#define TOOL_RECORD(X)                                                           \
	X(tool, TEXT, "tool", 0, REC_LIVE(KEY, PCOL_tool))                       \
	X(subcommand, TEXT, "subcommand", 0, REC_LIVE(KEY, PCOL_subcommand))     \
	X(nprocs, INT, REC_NPROCS, 0, REC_LIVE_COUNT)                            \
	X(cpu_ns, INT, "SUM(cpu_ns)", 0, REC_LIVE(SUM, PCOL_cpu_ns))             \
	X(user_ns, INT, "SUM(user_ns)", 0, REC_LIVE(SUM, PCOL_user_ns))          \
	X(sys_ns, INT, "SUM(sys_ns)", 0, REC_LIVE(SUM, PCOL_sys_ns))             \
	X(maxrss_kb, INT,                                                        \
	  "COALESCE(MAX(CASE WHEN tool_wrapper THEN NULL ELSE maxrss_kb END),"   \
	  " MAX(maxrss_kb))",                                                    \
	  0, REC_LIVE(MAX, PCOL_maxrss_kb))                                      \
	IO_SUMS(X)                                                               \
	X(first_start_ns, INT, "MIN(start_ns)", 0, REC_LIVE(MIN, PCOL_start_ns)) \
	X(last_end_ns, INT, "MAX(end_ns)", 0, REC_LIVE(MAX, PCOL_end_ns))        \
	X(status_counts, TEXT,                                                   \
	  "(SELECT group_concat(COALESCE(c.status, '') || ':' || c.n)"           \
	  " FROM c WHERE c.tool = p.tool AND c.subcommand IS p.subcommand)",     \
	  0, 0)                                                                  \
	WAITS_SUMS(X)                                                            \
	X(oom_kills, INT, REC_OOM_KILLS, 0, 0)

/* A unit's totals over its processes. Its CPU is all its processes' CPU, their work before an
 * exec too (a tool's figures leave that out; it is mostly the kernel's fork and exec, counted
 * as system). A running process's row has no pre-exec figure, and moves no first start. */
#define TOTALS_RECORD(X)                                                      \
	X(nprocs, INT, REC_NPROCS, 0, REC_LIVE_COUNT)                         \
	X(cpu_ns, INT, "SUM(cpu_ns + COALESCE(pre_exec_cpu_ns, 0))", 0,       \
	  REC_LIVE(SUM, PCOL_cpu_ns))                                         \
	X(user_ns, INT, "SUM(user_ns)", 0, REC_LIVE(SUM, PCOL_user_ns))       \
	X(sys_ns, INT, "SUM(sys_ns + COALESCE(pre_exec_cpu_ns, 0))", 0,       \
	  REC_LIVE(SUM, PCOL_sys_ns))                                         \
	X(maxrss_kb, INT, "MAX(maxrss_kb)", 0, REC_LIVE(MAX, PCOL_maxrss_kb)) \
	IO_SUMS(X)                                                            \
	WAITS_SUMS(X)                                                         \
	X(oom_kills, INT, REC_OOM_KILLS, 0, 0)                                \
	X(first_start_ns, INT, "MIN(start_ns)", 0, 0)                         \
	X(last_end_ns, INT, "MAX(end_ns)", 0, REC_LIVE(MAX, PCOL_end_ns))

/* ... and over its live samples (store_query.c): the most cores busy at once between two
 * sampling rounds, the largest sum of its resident sets in one round. */
#define SAMPLE_TOTALS_RECORD(X)               \
	X(peak_cores, REAL, "", 0, 0)         \
	X(peak_sampled_rss_kb, INT, "", 0, 0) \
	X(sample_rounds, INT, "", 0, 0)

/* ... and of its processes still running (nodeagent/live.c): the longest stall under way, and
 * since when the unit has been idle (no work for an idle window's least length). */
#define LIVE_TOTALS_RECORD(X)              \
	X(stalled_pid, INT, "", 0, 0)      \
	X(stalled_tool, TEXT, "", 64, 0)   \
	X(stalled_since_ns, INT, "", 0, 0) \
	X(stalled_reason, TEXT, "", 48, 0) \
	X(idle_since_ns, INT, "", 0, 0)

/* A client's struct of a record: each field a member of its kind (INT-like int64_t, REAL
 * double, TEXT-like char[len]; BLOB none), and where the decoding puts each. */
#define REC_MEMBER(name, kind, sql, len, flags) REC_MEMBER_##kind(name, len)
#define REC_MEMBER_INT(name, len) int64_t name;
#define REC_MEMBER_INT0(name, len) int64_t name;
#define REC_MEMBER_REAL(name, len) double name;
#define REC_MEMBER_BLOB(name, len)
#define REC_MEMBER_TEXT(name, len) char name[len];
#define REC_MEMBER_BOOT REC_MEMBER_TEXT
#define REC_MEMBER_STATE REC_MEMBER_TEXT
/* numbers only: for a struct whose strings are built otherwise */
#define REC_NUMBER(name, kind, sql, len, flags) REC_NUMBER_##kind(name)
#define REC_NUMBER_INT(name) int64_t name;
#define REC_NUMBER_INT0(name) int64_t name;
#define REC_NUMBER_REAL(name) double name;
#define REC_NUMBER_BLOB(name)
#define REC_NUMBER_TEXT(name)
#define REC_NUMBER_BOOT(name)
#define REC_NUMBER_STATE(name)

/* Where decoding puts a field in a client's struct: its name and kind, offset and size. */
struct rec_slot {
	const char *name;
	enum rec_kind kind;
	unsigned off, size;
};
#define REC_SLOT_OF(type, name, kind) \
	{ #name, REC_##kind, offsetof(type, name), sizeof(((type *)0)->name) },
/* The slots of the members REC_MEMBER (or REC_NUMBER) declared, with a macro of the user's:
 *   #define SLOT(name, kind, sql, len, flags) REC_SLOT_MEMBER_##kind(struct t, name, kind)
 *   static const struct rec_slot slots[] = { UNIT_RECORD(SLOT) }; */
#define REC_SLOT_MEMBER_INT REC_SLOT_OF
#define REC_SLOT_MEMBER_INT0 REC_SLOT_OF
#define REC_SLOT_MEMBER_REAL REC_SLOT_OF
#define REC_SLOT_MEMBER_BLOB(type, name, kind)
#define REC_SLOT_MEMBER_TEXT REC_SLOT_OF
#define REC_SLOT_MEMBER_BOOT REC_SLOT_OF
#define REC_SLOT_MEMBER_STATE REC_SLOT_OF
#define REC_SLOT_NUMBER_INT REC_SLOT_OF
#define REC_SLOT_NUMBER_INT0 REC_SLOT_OF
#define REC_SLOT_NUMBER_REAL REC_SLOT_OF
#define REC_SLOT_NUMBER_BLOB(type, name, kind)
#define REC_SLOT_NUMBER_TEXT(type, name, kind)
#define REC_SLOT_NUMBER_BOOT(type, name, kind)
#define REC_SLOT_NUMBER_STATE(type, name, kind)

#endif
