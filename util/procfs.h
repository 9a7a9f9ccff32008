/* The few /proc readings tracerd needs: identity checks, live samples, rediscovery. Only ever
 * called for tracked processes or for a registering client, never to scan untracked work
 * periodically. */
#ifndef TRACER_PROCFS_H
#define TRACER_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct procfs_stat {
	uint32_t pid, ppid, tgid;
	char state;
	char comm[16];
	uint64_t start_ticks;	  /* since boot, in clock ticks */
	uint64_t cpu_ticks;	  /* utime + stime */
	uint64_t child_cpu_ticks; /* cutime + cstime: of the children it reaped */
	uint64_t rss_pages;
	uint32_t threads; /* live threads (num_threads) */
};

int procfs_boot_id(char *out, size_t len);
uint64_t procfs_tick_ns(void);
/* Parse the text of /proc/PID/stat (exposed for tests). */
int procfs_parse_stat(const char *text, struct procfs_stat *out);
int procfs_read_stat(pid_t pid, struct procfs_stat *out);
/* Real uid from /proc/PID/status. */
int procfs_read_uid(pid_t pid, uint32_t *uid);
/* The value of a "Key:  N kB" line of /proc/PID/status text: 0, -ENOENT when absent,
 * -EINVAL when malformed (exposed for tests). */
int procfs_parse_status_kb(const char *text, const char *key, uint64_t *kb);
/* The peak resident set of the process's current image (VmHWM), in kB; kernel threads and
 * zombies have none (-ENOENT). */
int procfs_read_hwm(pid_t pid, uint64_t *hwm_kb);
/* A process's or a thread's I/O so far, as /proc/.../io counts it. */
struct procfs_io {
	uint64_t rchar, wchar, read_bytes, write_bytes;
};
/* Parse the text of an io file (exposed for tests). */
int procfs_parse_io(const char *text, struct procfs_io *out);
/* The process's own I/O so far (from its fork): the sum of its first max_threads live threads'
 * /proc/PID/task/TID/io; threads is its count of them (procfs_stat.threads), 1 reading the
 * leader's alone. Not /proc/PID/io, which adds the I/O of every child it has reaped: those
 * children's own figures hold it already. Threads that ended are left out as well (the kernel
 * keeps theirs with the reaped children's), so the sum may drop when one ends: a reader keeps
 * the largest it has seen, and the process's exit counts everything. */
int procfs_read_own_io(pid_t pid, uint32_t threads, unsigned max_threads, struct procfs_io *out);
/* The kernel function a sleeping process waits in (/proc/PID/wchan), "0" when running. */
int procfs_read_wchan(pid_t pid, char *buf, size_t len);
/* Whether one of the process's first max_threads threads is in state (e.g. 'D'); or -errno. */
int procfs_thread_in_state(pid_t pid, char state, unsigned max_threads);
/* Call fn for every thread of the process (the leader too) until it returns non-zero, which is
 * then returned; -errno when the process is gone. */
int procfs_threads(pid_t pid, int (*fn)(pid_t tid, void *ctx), void *ctx);
/* A thread's time spent runnable but waiting for a CPU so far (schedstat's run_delay), in ns. */
int procfs_read_run_delay(pid_t pid, pid_t tid, uint64_t *delay_ns);
/* NUL-separated argv; returns bytes or -errno; sets *truncated when it did not fit. */
ssize_t procfs_read_cmdline(pid_t pid, char *buf, size_t len, int *truncated);
int procfs_read_exe(pid_t pid, char *buf, size_t len);
/* Call fn for every live descendant of root (root excluded), from one pass over /proc. */
int procfs_descendants(pid_t root, int (*fn)(pid_t pid, void *ctx), void *ctx);
/* Call fn for every pid listed in a cgroup's cgroup.procs. */
int procfs_cgroup_procs(const char *cgroup_dir, int (*fn)(pid_t pid, void *ctx), void *ctx);

#endif
