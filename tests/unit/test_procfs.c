/* Unit tests for util/procfs.c: /proc/PID/stat parsing (odd comms, negative fields,
 * garbage), the readers on this process and on forked children, threads, descendants,
 * cgroup.procs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "procfs.h"

/* A real line from a 6.x kernel (52 fields), with the comm and the fields we read varied. */
#define STAT_TAIL                                                                           \
	" S 1 4242 4242 34816 4242 4194304 2143 0 12 0 250 75 3 1 20 0 4 0 987654 "         \
	"20000000 1234 18446744073709551615 94000000000000 94000000100000 140000000000000 " \
	"0 0 0 0 0 0 0 17 3 0 0 0 0 0 94000000200000 94000000210000 94000001000000 "        \
	"140000000010000 140000000010100 140000000010100 140000000020000 0\n"

static void test_parse_plain(void **state)
{
	struct procfs_stat st;

	(void)state;
	memset(&st, 0xa5, sizeof(st));
	assert_int_equal(procfs_parse_stat("4243 (samtools)" STAT_TAIL, &st), 0);
	assert_int_equal(st.pid, 4243);
	assert_int_equal(st.tgid, 4243);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.state, 'S');
	assert_string_equal(st.comm, "samtools");
	assert_int_equal(st.cpu_ticks, 250 + 75); /* utime + stime, not the children's */
	assert_int_equal(st.start_ticks, 987654);
	assert_int_equal(st.rss_pages, 1234);
	assert_int_equal(st.threads, 4);
	assert_int_equal(st.child_cpu_ticks, 3 + 1);
}

static void test_parse_odd_comm(void **state)
{
	struct procfs_stat st;

	(void)state;
	assert_int_equal(procfs_parse_stat("1 (a b c)" STAT_TAIL, &st), 0);
	assert_string_equal(st.comm, "a b c");
	assert_int_equal(st.start_ticks, 987654);
	/* a ')' inside: the last one closes the comm */
	assert_int_equal(procfs_parse_stat("2 (x) S 9 9 (y)" STAT_TAIL, &st), 0);
	assert_string_equal(st.comm, "x) S 9 9 (y");
	assert_int_equal(st.pid, 2);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.rss_pages, 1234);
	assert_int_equal(procfs_parse_stat("3 ())" STAT_TAIL, &st), 0);
	assert_string_equal(st.comm, ")");
	assert_int_equal(procfs_parse_stat("4 (()" STAT_TAIL, &st), 0);
	assert_string_equal(st.comm, "(");
	assert_int_equal(procfs_parse_stat("5 ()" STAT_TAIL, &st), 0);
	assert_string_equal(st.comm, "");
	/* longer than the kernel's 15 characters: cut, still terminated */
	assert_int_equal(procfs_parse_stat("6 (0123456789abcdefghij)" STAT_TAIL, &st), 0);
	assert_string_equal(st.comm, "0123456789abcde");
	assert_int_equal(st.start_ticks, 987654);
}

static void test_parse_negative_fields(void **state)
{
	struct procfs_stat st;

	(void)state;
	/* cutime/cstime, priority and nice are signed; priority is -100 under SCHED_FIFO */
	assert_int_equal(procfs_parse_stat("77 (rt) R 1 77 77 0 -1 4194560 10 0 0 0 5 6 -3 -4 "
					   "-100 -20 1 0 31337 1000 42 18446744073709551615",
					   &st),
			 0);
	assert_int_equal(st.pid, 77);
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.cpu_ticks, 11);
	assert_int_equal(st.start_ticks, 31337);
	assert_int_equal(st.rss_pages, 42);
}

static void bad(const char *text)
{
	struct procfs_stat st, before;

	memset(&st, 0x5a, sizeof(st));
	before = st;
	if (procfs_parse_stat(text, &st) != -EINVAL)
		fail_msg("accepted <<%s>>", text);
	assert_memory_equal(&st, &before, sizeof(st)); /* untouched on error */
}

static void test_parse_garbage(void **state)
{
	char line[] = "4243 (samtools)" STAT_TAIL;
	char *cut;
	size_t i;

	(void)state;
	bad("");
	bad("\n");
	bad("4243");
	bad("4243 (samtools");
	bad("4243 samtools) S 1");
	bad("4243 )samtools( S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21");
	bad("4243 (samtools)");
	bad("4243 (samtools) ");
	bad("4243 (samtools)S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21");
	bad("4243 (samtools) S");
	bad("4243 (samtools) S ");
	bad("(samtools)" STAT_TAIL);
	bad("pid (samtools)" STAT_TAIL);
	bad("4243 (samtools) S 1 2 3 x 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21");
	bad("4243 (samtools) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 -");
	bad("4243 (samtools) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20");
	/* every truncation before the rss field fails, none crashes */
	cut = strstr(line, " 1234 ");
	assert_non_null(cut);
	for (i = 0; line + i <= cut; i++) {
		char *copy = strndup(line, i);

		assert_non_null(copy);
		bad(copy);
		free(copy);
	}
	/* bytes that are not text at all */
	{
		char junk[256];
		struct procfs_stat st;

		for (i = 0; i < sizeof(junk) - 1; i++)
			junk[i] = (char)(i * 37 + 11) ? (char)(i * 37 + 11) : 'z';
		junk[sizeof(junk) - 1] = 0;
		(void)procfs_parse_stat(junk, &st);
	}
}

/* ---- the readers on real processes */

static void test_read_self(void **state)
{
	struct procfs_stat st;
	uint32_t uid = 12345;
	char exe[PATH_MAX], want[PATH_MAX], buf[4096];
	ssize_t n;
	int trunc = -1;

	(void)state;
	assert_int_equal(procfs_read_stat(getpid(), &st), 0);
	assert_int_equal(st.pid, getpid());
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.state, 'R');
	assert_true(st.start_ticks > 0);
	assert_true(st.rss_pages > 0);

	assert_int_equal(procfs_read_uid(getpid(), &uid), 0);
	assert_int_equal(uid, getuid());

	n = readlink("/proc/self/exe", want, sizeof(want) - 1);
	assert_true(n > 0);
	want[n] = 0;
	assert_int_equal(procfs_read_exe(getpid(), exe, sizeof(exe)), 0);
	assert_string_equal(exe, want);

	n = procfs_read_cmdline(getpid(), buf, sizeof(buf), &trunc);
	assert_true(n > 0);
	assert_int_equal(trunc, 0);
	assert_non_null(memmem(buf, n, "test_procfs", 11)); /* argv[0], or valgrind's argv */
	assert_true(buf[n - 1] != 0);			    /* the trailing NUL is dropped */

	/* a small buffer: cut and said so, still terminated */
	n = procfs_read_cmdline(getpid(), buf, 5, &trunc);
	assert_int_equal(n, 4);
	assert_int_equal(trunc, 1);
	assert_int_equal(buf[4], 0);

	/* a small exe buffer is cut and terminated */
	assert_int_equal(procfs_read_exe(getpid(), exe, 4), 0);
	assert_int_equal(strlen(exe), 3);
}

static void test_boot_id_and_tick(void **state)
{
	char id[40], small[8];

	(void)state;
	assert_int_equal(procfs_boot_id(id, sizeof(id)), 0);
	assert_int_equal(strlen(id), 36); /* a UUID */
	assert_null(strchr(id, '\n'));
	assert_int_equal(procfs_boot_id(small, sizeof(small)), -EINVAL);
	assert_int_equal(procfs_tick_ns(), 1000000000ull / sysconf(_SC_CLK_TCK));
}

static void test_read_missing(void **state)
{
	struct procfs_stat st;
	uint32_t uid;
	char buf[64];
	int trunc;

	(void)state;
	/* above pid_max: never a process */
	assert_int_equal(procfs_read_stat(1 << 23, &st), -ENOENT);
	assert_int_equal(procfs_read_uid(1 << 23, &uid), -ENOENT);
	assert_int_equal(procfs_read_cmdline(1 << 23, buf, sizeof(buf), &trunc), -ENOENT);
	assert_int_equal(procfs_read_exe(1 << 23, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(procfs_threads(1 << 23, NULL, NULL), -ENOENT);
	assert_int_equal(procfs_thread_in_state(1 << 23, 'D', 8), -ENOENT);
	assert_int_equal(procfs_read_run_delay(1 << 23, 1 << 23, &(uint64_t){ 0 }), -ENOENT);
}

struct tids {
	pid_t seen[4];
	int n, stop_at; /* the callback's non-zero return after that many */
};

static int add_tid(pid_t tid, void *ctx)
{
	struct tids *t = ctx;

	if (t->n < 4)
		t->seen[t->n] = tid;
	return ++t->n == t->stop_at ? 7 : 0;
}

struct waiter {
	pid_t tid; /* set by the thread once it runs */
	int fd;	   /* it waits until this pipe closes */
};

static void *wait_on_pipe(void *arg)
{
	struct waiter *w = arg;
	char c;

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	return read(w->fd, &c, 1) < 0 ? NULL : arg;
}

/* A process's threads, the leader among them, until the callback stops; a thread's run delay */
static void test_threads(void **state)
{
	struct tids t = { .n = 0 };
	struct waiter w = { 0 };
	uint64_t delay = 1;
	pthread_t th;
	int hold[2];

	(void)state;
	assert_int_equal(pipe(hold), 0);
	w.fd = hold[0];
	assert_int_equal(pthread_create(&th, NULL, wait_on_pipe, &w), 0);
	while (!__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	assert_int_equal(procfs_threads(getpid(), add_tid, &t), 0);
	assert_int_equal(t.n, 2);
	assert_true(t.seen[0] == getpid() || t.seen[1] == getpid());
	assert_true(t.seen[0] == w.tid || t.seen[1] == w.tid);
	t = (struct tids){ .stop_at = 1 };
	assert_int_equal(procfs_threads(getpid(), add_tid, &t), 7);
	assert_int_equal(t.n, 1);
	/* this thread runs as it reads; the other sleeps */
	assert_int_equal(procfs_thread_in_state(getpid(), 'R', 8), 1);
	assert_int_equal(procfs_thread_in_state(getpid(), 'Z', 8), 0);
	if (access("/proc/self/schedstat", R_OK) == 0) { /* CONFIG_SCHED_INFO */
		assert_int_equal(procfs_read_run_delay(getpid(), w.tid, &delay), 0);
		assert_true(delay < 3600 * 1000000000ull);
	}
	close(hold[1]);
	assert_int_equal(pthread_join(th, NULL), 0);
	close(hold[0]);
}

/* A child that renames itself and waits until the pipe closes. */
struct child {
	pid_t pid;
	int hold; /* write end: closing it lets the child go */
};

static void child_wait(int ready, int hold)
{
	char c;

	if (write(ready, "x", 1) != 1)
		_exit(1);
	while (read(hold, &c, 1) > 0)
		;
}

static struct child spawn(const char *name)
{
	int ready[2], hold[2];
	struct child c;
	char x;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(hold), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		close(ready[0]);
		close(hold[1]);
		prctl(PR_SET_NAME, name);
		child_wait(ready[1], hold[0]);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	assert_int_equal(read(ready[0], &x, 1), 1);
	close(ready[0]);
	c.hold = hold[1];
	return c;
}

static void reap(struct child c)
{
	int status;

	close(c.hold);
	assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
	/* exited, not killed; the code is not checked: valgrind's leak check in a forked
	 * child may set its own */
	assert_true(WIFEXITED(status));
}

static void test_read_child(void **state)
{
	struct child c = spawn("we (ird)) name");
	struct procfs_stat st, self;
	char exe[PATH_MAX], want[PATH_MAX], a[4096];
	ssize_t na;
	uint32_t uid;
	int trunc;

	(void)state;
	assert_int_equal(procfs_read_stat(c.pid, &st), 0);
	assert_int_equal(procfs_read_stat(getpid(), &self), 0);
	assert_int_equal(st.pid, c.pid);
	assert_int_equal(st.ppid, getpid());
	assert_string_equal(st.comm, "we (ird)) name");
	assert_true(st.state == 'S' || st.state == 'R'); /* about to block in read */
	assert_true(st.start_ticks >= self.start_ticks);
	assert_int_equal(procfs_read_uid(c.pid, &uid), 0);
	assert_int_equal(uid, getuid());
	/* it never exec'd: the parent's program (valgrind shows itself here, so ask the
	 * kernel directly rather than trusting our own /proc/self view) */
	assert_int_equal(procfs_read_exe(c.pid, exe, sizeof(exe)), 0);
	snprintf(want, sizeof(want), "/proc/%d/exe", c.pid);
	na = readlink(want, a, sizeof(a) - 1);
	assert_true(na > 0);
	a[na] = 0;
	assert_string_equal(exe, a);
	na = procfs_read_cmdline(c.pid, a, sizeof(a), &trunc);
	assert_true(na > 0);
	assert_non_null(memmem(a, na, "test_procfs", 11));
	reap(c);
	/* gone and reaped */
	assert_true(procfs_read_stat(c.pid, &st) < 0);
}

/* A child that execs sh, reading its stdin (the hold pipe) until EOF. */
static void test_read_exec_child(void **state)
{
	int ready[2], hold[2], status;
	char exe[PATH_MAX], want[PATH_MAX], buf[4096], x;
	static const char argv[] = "sh\0-c\0read x\0arg0\0a b\0\0--password=hunter2";
	struct procfs_stat st;
	ssize_t n;
	pid_t pid;
	int trunc = -1;

	(void)state;
	assert_non_null(realpath("/bin/sh", want));
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe(hold), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		if (dup2(hold[0], 0) < 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c", "read x", "arg0", "a b", "", "--password=hunter2",
		      (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	close(hold[0]);
	/* EOF once the exec closed the child's copy */
	assert_int_equal(read(ready[0], &x, 1), 0);
	close(ready[0]);

	assert_int_equal(procfs_read_exe(pid, exe, sizeof(exe)), 0);
	assert_string_equal(exe, want);
	n = procfs_read_cmdline(pid, buf, sizeof(buf), &trunc);
	assert_int_equal(trunc, 0);
	/* as the kernel has it, empty argument included, trailing NUL dropped: unredacted
	 * here, redaction is the caller's job */
	assert_int_equal(n, sizeof(argv) - 1);
	assert_memory_equal(buf, argv, n);
	assert_int_equal(procfs_read_stat(pid, &st), 0);
	assert_string_equal(st.comm, "sh");
	assert_int_equal(st.ppid, getpid());

	close(hold[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
}

/* ---- descendants */

struct pids {
	pid_t pid[64];
	size_t n, stop_at;
};

static int collect(pid_t pid, void *ctx)
{
	struct pids *p = ctx;

	if (p->n < sizeof(p->pid) / sizeof(*p->pid))
		p->pid[p->n++] = pid;
	return p->stop_at && p->n == p->stop_at ? -ECANCELED : 0;
}

static int has(const struct pids *p, pid_t pid)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->pid[i] == pid)
			return 1;
	return 0;
}

static void test_descendants(void **state)
{
	int ready[2], hold[2];
	pid_t child, grandchild = 0;
	struct pids found = {};
	int status;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(hold), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t g;

		close(ready[0]);
		close(hold[1]);
		g = fork();
		if (g < 0)
			_exit(1);
		if (g == 0) {
			pid_t me = getpid();

			if (write(ready[1], &me, sizeof(me)) != sizeof(me))
				_exit(1);
			child_wait(ready[1], hold[0]);
			_exit(0);
		}
		close(ready[1]);
		close(hold[0]);
		_exit(waitpid(g, &status, 0) == g && WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	close(ready[1]);
	close(hold[0]);
	assert_int_equal(read(ready[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	{
		char x;

		assert_int_equal(read(ready[0], &x, 1), 1);
	}
	close(ready[0]);

	assert_int_equal(procfs_descendants(getpid(), collect, &found), 0);
	assert_int_equal(found.n, 2);
	assert_true(has(&found, child));
	assert_true(has(&found, grandchild));
	assert_false(has(&found, getpid())); /* the root itself is not a descendant */
	/* the parent is reported before its child */
	assert_int_equal(found.pid[0], child);
	assert_int_equal(found.pid[1], grandchild);

	/* from the child: only the grandchild */
	memset(&found, 0, sizeof(found));
	assert_int_equal(procfs_descendants(child, collect, &found), 0);
	assert_int_equal(found.n, 1);
	assert_int_equal(found.pid[0], grandchild);

	/* the callback's error stops the walk and comes back */
	memset(&found, 0, sizeof(found));
	found.stop_at = 1;
	assert_int_equal(procfs_descendants(getpid(), collect, &found), -ECANCELED);
	assert_int_equal(found.n, 1);

	/* leaves and missing roots have none */
	memset(&found, 0, sizeof(found));
	assert_int_equal(procfs_descendants(grandchild, collect, &found), 0);
	assert_int_equal(procfs_descendants(1 << 23, collect, &found), 0);
	assert_int_equal(found.n, 0);

	close(hold[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	/* exited, not killed; the code is not checked: valgrind's leak check in a forked
	 * child may set its own */
	assert_true(WIFEXITED(status));
}

/* ---- cgroup.procs */

static char tmpdir[] = "/tmp/test_procfs.XXXXXX";

static void write_procs(const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_cgroup_procs(void **state)
{
	struct pids found = {};
	char longdir[5000];
	char path[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(tmpdir));

	write_procs("123\n456\n7\n");
	assert_int_equal(procfs_cgroup_procs(tmpdir, collect, &found), 0);
	assert_int_equal(found.n, 3);
	assert_int_equal(found.pid[0], 123);
	assert_int_equal(found.pid[1], 456);
	assert_int_equal(found.pid[2], 7);

	/* empty: nobody */
	memset(&found, 0, sizeof(found));
	write_procs("");
	assert_int_equal(procfs_cgroup_procs(tmpdir, collect, &found), 0);
	assert_int_equal(found.n, 0);

	/* junk lines, zero, negatives and a missing final newline */
	write_procs("\n0\n-5\nabc\n  88\n99");
	assert_int_equal(procfs_cgroup_procs(tmpdir, collect, &found), 0);
	assert_int_equal(found.n, 2);
	assert_int_equal(found.pid[0], 88);
	assert_int_equal(found.pid[1], 99);

	/* a junk line longer than the reader's buffer is skipped, piece by piece */
	memset(&found, 0, sizeof(found));
	write_procs(
		"42\n"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n43\n");
	assert_int_equal(procfs_cgroup_procs(tmpdir, collect, &found), 0);
	assert_int_equal(found.n, 2);
	assert_int_equal(found.pid[0], 42);
	assert_int_equal(found.pid[1], 43);

	/* the callback stops it */
	memset(&found, 0, sizeof(found));
	found.stop_at = 2;
	write_procs("1\n2\n3\n");
	assert_int_equal(procfs_cgroup_procs(tmpdir, collect, &found), -ECANCELED);
	assert_int_equal(found.n, 2);

	/* no such cgroup, a path too long */
	assert_int_equal(procfs_cgroup_procs("/nonexistent/cgroup", collect, &found), -ENOENT);
	memset(longdir, 'a', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = 0;
	assert_int_equal(procfs_cgroup_procs(longdir, collect, &found), -ENAMETOOLONG);

	snprintf(path, sizeof(path), "%s/cgroup.procs", tmpdir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(tmpdir), 0);
}

/* "VmHWM:   1234 kB" lines of /proc/PID/status; absent and malformed values refused */
static void test_status_kb(void **state)
{
	uint64_t kb = 7;

	(void)state;
	assert_int_equal(procfs_parse_status_kb("Name:\tx\nVmPeak:\t  9 kB\nVmHWM:\t    1234 kB\n",
						"VmHWM", &kb),
			 0);
	assert_int_equal(kb, 1234);
	assert_int_equal(procfs_parse_status_kb("VmHWM:\t5 kB", "VmHWM", &kb),
			 0); /* first line, no newline */
	assert_int_equal(kb, 5);
	assert_int_equal(procfs_parse_status_kb("Name:\tVmHWM: 3 kB\n", "VmHWM", &kb),
			 -ENOENT); /* not a line start */
	assert_int_equal(procfs_parse_status_kb("VmHWMx:\t3 kB\n", "VmHWM", &kb), -ENOENT);
	assert_int_equal(procfs_parse_status_kb("VmHWM:\t-3 kB\n", "VmHWM", &kb), -EINVAL);
	assert_int_equal(procfs_parse_status_kb("VmHWM:\t3 MB\n", "VmHWM", &kb), -EINVAL);
	assert_int_equal(
		procfs_parse_status_kb("VmHWM:\t99999999999999999999999 kB\n", "VmHWM", &kb),
		-EINVAL);
	assert_int_equal(procfs_parse_status_kb("VmHWM:", "VmHWM", &kb), -EINVAL);
	assert_int_equal(procfs_parse_status_kb("", "VmHWM", &kb), -ENOENT);
	assert_int_equal(kb, 5);
	assert_int_equal(procfs_read_hwm(getpid(), &kb), 0);
	assert_true(kb > 0);
}

static void test_io(void **state)
{
	static const char text[] = "rchar: 11\nwchar: 22\nsyscr: 3\nsyscw: 4\nread_bytes: 55\n"
				   "write_bytes: 66\ncancelled_write_bytes: 77\n";
	struct procfs_io io = { 9, 9, 9, 9 };

	(void)state;
	assert_int_equal(procfs_parse_io(text, &io), 0);
	assert_true(io.rchar == 11 && io.wchar == 22 && io.read_bytes == 55 &&
		    io.write_bytes == 66);
	/* cancelled_write_bytes is not write_bytes, whatever the order */
	assert_int_equal(procfs_parse_io("cancelled_write_bytes: 1\nrchar: 1\nwchar: 2\n"
					 "read_bytes: 3\nwrite_bytes: 4",
					 &io),
			 0);
	assert_int_equal(io.write_bytes, 4);
	assert_int_equal(procfs_parse_io("rchar: 1\nwchar: 2\nread_bytes: 3\n"
					 "cancelled_write_bytes: 4\n",
					 &io),
			 -EINVAL);
	assert_int_equal(
		procfs_parse_io("rchar: -1\nwchar: 2\nread_bytes: 3\nwrite_bytes: 4\n", &io),
		-EINVAL);
	assert_int_equal(procfs_parse_io("rchar: 99999999999999999999999\nwchar: 2\n"
					 "read_bytes: 3\nwrite_bytes: 4\n",
					 &io),
			 -EINVAL);
	assert_int_equal(
		procfs_parse_io("rchar: 1x\nwchar: 2\nread_bytes: 3\nwrite_bytes: 4\n", &io),
		-EINVAL);
	assert_int_equal(procfs_parse_io("", &io), -EINVAL);
	assert_int_equal(io.write_bytes, 4); /* untouched on failure */
}

#define MIB (1u << 20)

/* bytes written to /dev/null: they count in wchar, whatever the filesystems */
static void write_null(size_t bytes)
{
	static char block[64 << 10];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (size_t done = 0; fd >= 0 && done < bytes; done += sizeof(block))
		if (write(fd, block, sizeof(block)) < 0)
			break;
	if (fd >= 0)
		close(fd);
}

static void whole_io(struct procfs_io *io)
{
	char buf[512];
	FILE *f = fopen("/proc/self/io", "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	assert_int_equal(procfs_parse_io(buf, io), 0);
}

static void *write_then_wait(void *arg)
{
	struct waiter *w = arg;
	char c;

	write_null(MIB);
	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	return read(w->fd, &c, 1) < 0 ? NULL : arg;
}

/* This process's live threads, once the kernel has let go of any just joined */
static uint32_t settled_threads(uint32_t want)
{
	struct procfs_stat st = { .threads = 0 };

	for (int i = 0; i < 1000; i++) {
		assert_int_equal(procfs_read_stat(getpid(), &st), 0);
		if (st.threads == want)
			break;
		usleep(1000);
	}
	return st.threads;
}

/* A process's own I/O: its threads', never a reaped child's (which /proc/PID/io adds: a
 * parent's samples would count its children's writes again); as many threads as asked */
static void test_own_io(void **state)
{
	struct procfs_io before, whole, own;
	struct waiter w[2] = { { 0 }, { 0 } };
	pthread_t th[2];
	int hold[2], status;
	pid_t child;

	(void)state;
	assert_int_equal(settled_threads(1), 1);
	assert_int_equal(procfs_read_own_io(getpid(), 1, 64, &before), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		write_null(4 * MIB);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	whole_io(&whole);
	assert_true(whole.wchar >= before.wchar + 4 * MIB);
	assert_int_equal(procfs_read_own_io(getpid(), 1, 64, &own), 0);
	assert_true(own.wchar >= before.wchar && own.wchar < before.wchar + MIB);

	/* two more threads, 1 MiB each: the process's own */
	assert_int_equal(pipe(hold), 0);
	for (int i = 0; i < 2; i++) {
		w[i].fd = hold[0];
		assert_int_equal(pthread_create(&th[i], NULL, write_then_wait, &w[i]), 0);
		while (!__atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE))
			usleep(1000);
	}
	assert_int_equal(settled_threads(3), 3);
	assert_int_equal(procfs_read_own_io(getpid(), 3, 64, &own), 0);
	assert_true(own.wchar >= before.wchar + 2 * MIB && own.wchar < before.wchar + 3 * MIB);
	/* bounded: the first two listed (the leader, then the first made), the first alone */
	assert_int_equal(procfs_read_own_io(getpid(), 3, 2, &own), 0);
	assert_true(own.wchar >= before.wchar + MIB && own.wchar < before.wchar + 2 * MIB);
	assert_int_equal(procfs_read_own_io(getpid(), 3, 1, &own), 0);
	assert_true(own.wchar < before.wchar + MIB);
	close(hold[1]);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	close(hold[0]);
	assert_int_equal(procfs_read_own_io(-1, 1, 64, &own), -ENOENT);
	assert_int_equal(procfs_read_own_io(-1, 3, 64, &own), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_plain),
		cmocka_unit_test(test_parse_odd_comm),
		cmocka_unit_test(test_parse_negative_fields),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_status_kb),
		cmocka_unit_test(test_io),
		cmocka_unit_test(test_read_self),
		cmocka_unit_test(test_boot_id_and_tick),
		cmocka_unit_test(test_read_missing),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_own_io),
		cmocka_unit_test(test_read_child),
		cmocka_unit_test(test_read_exec_child),
		cmocka_unit_test(test_descendants),
		cmocka_unit_test(test_cgroup_procs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
