/* /proc readers. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

static ssize_t read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = 0;
	return total;
}

/* /proc/PID/NAME into buf, NUL-terminated: bytes read or -errno */
static ssize_t read_pid_file(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return read_file(path, buf, len);
}

int procfs_boot_id(char *out, size_t len)
{
	char buf[64];
	ssize_t n = read_file("/proc/sys/kernel/random/boot_id", buf, sizeof(buf));

	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = 0;
	if (!*buf || strlen(buf) >= len)
		return -EINVAL;
	strcpy(out, buf);
	return 0;
}

uint64_t procfs_tick_ns(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return 1000000000ull / (hz > 0 ? hz : 100);
}

int procfs_parse_stat(const char *text, struct procfs_stat *out)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long f[52];
	struct procfs_stat st = {};
	const char *p;
	char *end;
	int i;
	size_t clen;

	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return -EINVAL;
	st.pid = strtoul(text, &end, 10);
	if (end == text)
		return -EINVAL;
	clen = close - open - 1;
	if (clen >= sizeof(st.comm))
		clen = sizeof(st.comm) - 1;
	memcpy(st.comm, open + 1, clen);
	st.state = close[2];
	/* fields after the state, numbered from 4 (ppid) as in proc(5) */
	p = close + 3;
	for (i = 4; i <= 24; i++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		errno = 0;
		f[i] = strtoull(p, &end, 10);
		if (end == p) {
			/* signed fields may be negative */
			f[i] = (unsigned long long)strtoll(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		p = end;
	}
	st.ppid = f[4];
	st.cpu_ticks = f[14] + f[15];
	st.child_cpu_ticks = f[16] + f[17];
	st.threads = (uint32_t)f[20];
	st.start_ticks = f[22];
	st.rss_pages = f[24];
	st.tgid = st.pid;
	*out = st;
	return 0;
}

int procfs_read_stat(pid_t pid, struct procfs_stat *out)
{
	char path[64], buf[1024];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	return procfs_parse_stat(buf, out);
}

/* /proc/PID/status, cut at len (its first 4 KiB hold every field read here) */
static ssize_t read_status(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return read_file(path, buf, len);
}

int procfs_read_uid(pid_t pid, uint32_t *uid)
{
	char buf[4096], *line;
	ssize_t n = read_status(pid, buf, sizeof(buf));

	if (n < 0)
		return n;
	line = strstr(buf, "\nUid:");
	if (!line)
		return -EINVAL;
	*uid = strtoul(line + 5, NULL, 10);
	return 0;
}

int procfs_parse_status_kb(const char *text, const char *key, uint64_t *kb)
{
	size_t klen = strlen(key);
	const char *line = text;
	char *end;
	unsigned long long v;

	/* "VmHWM:\t  1234 kB": the key at a line start, a number, the unit kB */
	while (line && *line) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *at = line + klen + 1;

			while (*at == ' ' || *at == '\t')
				at++;
			if (*at < '0' || *at > '9')
				return -EINVAL;
			errno = 0;
			v = strtoull(at, &end, 10);
			if (errno || strncmp(end, " kB", 3) != 0)
				return -EINVAL;
			*kb = v;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

int procfs_read_hwm(pid_t pid, uint64_t *hwm_kb)
{
	char buf[4096];
	ssize_t n = read_status(pid, buf, sizeof(buf));

	if (n < 0)
		return n;
	return procfs_parse_status_kb(buf, "VmHWM", hwm_kb);
}

int procfs_parse_io(const char *text, struct procfs_io *out)
{
	static const char *const keys[] = { "rchar: ", "wchar: ", "read_bytes: ", "write_bytes: " };
	unsigned long long v[4];
	const char *p;
	char *end;

	for (size_t i = 0; i < 4; i++) {
		p = strstr(text, keys[i]);
		/* a key at a line's start: "write_bytes" ends "cancelled_write_bytes" too */
		while (p && p != text && p[-1] != '\n')
			p = strstr(p + 1, keys[i]);
		if (!p)
			return -EINVAL;
		p += strlen(keys[i]);
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (!isdigit((unsigned char)*p) || errno || (*end && *end != '\n'))
			return -EINVAL;
	}
	*out = (struct procfs_io){ v[0], v[1], v[2], v[3] };
	return 0;
}

static int read_thread_io(pid_t pid, pid_t tid, struct procfs_io *out)
{
	char path[64], buf[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/io", pid, tid);
	n = read_file(path, buf, sizeof(buf));
	return n < 0 ? (int)n : procfs_parse_io(buf, out);
}

struct io_sum {
	pid_t pid;
	unsigned left; /* threads still to read */
	unsigned read; /* threads read */
	struct procfs_io sum;
};

/* 1 once max_threads are read; a thread that ended meanwhile is passed over */
static int add_thread_io(pid_t tid, void *ctx)
{
	struct io_sum *s = ctx;
	struct procfs_io io;

	if (read_thread_io(s->pid, tid, &io) == 0) {
		s->sum.rchar += io.rchar;
		s->sum.wchar += io.wchar;
		s->sum.read_bytes += io.read_bytes;
		s->sum.write_bytes += io.write_bytes;
		s->read++;
	}
	return --s->left ? 0 : 1;
}

int procfs_read_own_io(pid_t pid, uint32_t threads, unsigned max_threads, struct procfs_io *out)
{
	struct io_sum s = { .pid = pid, .left = max_threads };
	int err;

	if (threads <= 1 || max_threads <= 1)
		return read_thread_io(pid, pid, out);
	err = procfs_threads(pid, add_thread_io, &s);
	if (err < 0)
		return err;
	if (!s.read)
		return -ESRCH;
	*out = s.sum;
	return 0;
}

int procfs_read_wchan(pid_t pid, char *buf, size_t len)
{
	ssize_t n = read_pid_file(pid, "wchan", buf, len);

	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int procfs_threads(pid_t pid, int (*fn)(pid_t tid, void *ctx), void *ctx)
{
	struct dirent *d;
	char path[64];
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			err = fn((pid_t)strtol(d->d_name, NULL, 10), ctx);
	closedir(dir);
	return err;
}

struct state_probe {
	pid_t pid;
	char state;
	unsigned left; /* threads still to look at */
};

/* 1: the thread is in the state; 2: no more threads to look at */
static int probe_state(pid_t tid, void *ctx)
{
	struct state_probe *p = ctx;
	struct procfs_stat st;
	char path[64], text[1024];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", p->pid, tid);
	n = read_file(path, text, sizeof(text));
	if (n > 0 && procfs_parse_stat(text, &st) == 0 && st.state == p->state)
		return 1;
	return --p->left ? 0 : 2;
}

int procfs_thread_in_state(pid_t pid, char state, unsigned max_threads)
{
	struct state_probe p = { .pid = pid, .state = state, .left = max_threads };
	int err;

	if (!max_threads)
		return 0;
	err = procfs_threads(pid, probe_state, &p);
	return err < 0 ? err : err == 1;
}

int procfs_read_run_delay(pid_t pid, pid_t tid, uint64_t *delay_ns)
{
	unsigned long long run, delay;
	char path[64], buf[128];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (sscanf(buf, "%llu %llu", &run, &delay) != 2)
		return -EINVAL;
	*delay_ns = delay;
	return 0;
}

ssize_t procfs_read_cmdline(pid_t pid, char *buf, size_t len, int *truncated)
{
	ssize_t n = read_pid_file(pid, "cmdline", buf, len);

	if (n < 0)
		return n;
	*truncated = (size_t)n == len - 1;
	while (n > 0 && buf[n - 1] == 0)
		n--;
	return n;
}

int procfs_read_exe(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

struct pid_pair {
	pid_t pid, ppid;
};

int procfs_descendants(pid_t root, int (*fn)(pid_t pid, void *ctx), void *ctx)
{
	struct pid_pair *all = NULL, *tmp;
	size_t n = 0, cap = 0, i, j;
	pid_t *queue = NULL;
	size_t qhead = 0, qlen = 0;
	struct procfs_stat st;
	struct dirent *de;
	DIR *d;
	int err = 0;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (procfs_read_stat(atoi(de->d_name), &st) < 0)
			continue; /* gone meanwhile */
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			tmp = realloc(all, cap * sizeof(*all));
			if (!tmp) {
				err = -ENOMEM;
				goto out;
			}
			all = tmp;
		}
		all[n].pid = st.pid;
		all[n++].ppid = st.ppid;
	}
	queue = malloc((n + 1) * sizeof(*queue));
	if (!queue) {
		err = -ENOMEM;
		goto out;
	}
	queue[qlen++] = root;
	while (qhead < qlen && !err) {
		pid_t parent = queue[qhead++];

		for (j = 0; j < n; j++) {
			if (all[j].ppid != parent || all[j].pid == root)
				continue;
			for (i = 0; i < qlen && queue[i] != all[j].pid; i++)
				;
			if (i < qlen)
				continue;
			queue[qlen++] = all[j].pid;
			err = fn(all[j].pid, ctx);
			if (err)
				break;
		}
	}
out:
	closedir(d);
	free(all);
	free(queue);
	return err;
}

int procfs_cgroup_procs(const char *cgroup_dir, int (*fn)(pid_t pid, void *ctx), void *ctx)
{
	char path[4096], line[32];
	FILE *f;
	int err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_dir) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		long pid = strtol(line, NULL, 10);

		if (pid > 0)
			err = fn(pid, ctx);
	}
	fclose(f);
	return err;
}
