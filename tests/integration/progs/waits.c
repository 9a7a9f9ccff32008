/* Make a process wait in a known way and print the kernel's own account of it, for tracer's
 * wait and network figures to be compared with:
 *   waits cpu THREADS SECONDS   busy threads pinned to one CPU; prints "run_delay NS", the sum
 *                               of every thread's /proc/thread-self/schedstat run_delay
 *   waits cpu-leader-first THREADS SECONDS   the same, but the leader stops half-way and calls
 *                               pthread_exit: the process ends with a zombie leader
 *   waits io FILE MIB           synced writes; prints "blkio_ns N resolution_ns R elapsed_ns T":
 *                               delay accounting's block-I/O delay, from taskstats in ns (R 1)
 *                               or else /proc/self/stat field 42 in clock ticks (R one tick,
 *                               the true figure lies in [N, N + R)), and the wall time
 *   waits net KIB               TCP and UDP over loopback, both ends in this process; prints
 *                               "tx BYTES rx BYTES" as the calls returned them */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double seconds, leader_seconds; /* how long the workers and the leader (thread 0) burn */
static unsigned long long delays[64];
static pthread_t threads[64];

static unsigned long long run_delay_of(const char *schedstat)
{
	unsigned long long run, delay = 0;
	FILE *f = fopen(schedstat, "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}

static unsigned long long my_run_delay(void)
{
	return run_delay_of("/proc/thread-self/schedstat");
}

/* The leader's state letter ('Z' once it has exited and waits as a zombie), '?' unread */
static char leader_state(void)
{
	char path[64], state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", getpid());
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = '?';
		fclose(f);
	}
	return state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile unsigned long x = 0;
	double end = now() + (arg ? seconds : leader_seconds);

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x++;
	delays[(long)arg] = my_run_delay();
	return NULL;
}

static int cpu(int n, double secs)
{
	pthread_t t[64];
	cpu_set_t one;
	unsigned long long sum = 0;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (n < 1 || n > 64 || sched_setaffinity(0, sizeof(one), &one))
		return 1;
	seconds = leader_seconds = secs;
	for (long i = 1; i < n; i++)
		pthread_create(&t[i], NULL, burn, (void *)i);
	burn(0);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	delays[0] = my_run_delay();
	for (int i = 0; i < n; i++)
		sum += delays[i];
	printf("run_delay %llu\n", sum);
	return 0;
}

static int workers;
static volatile int leader_done;

/* The last thread of cpu_leader_first: sums every thread's run_delay once all have burnt. */
static void *last_worker(void *arg)
{
	unsigned long long sum = 0;

	burn(arg);
	for (int i = 2; i < workers; i++)
		pthread_join(threads[i], NULL);
	while (!leader_done)
		sched_yield();
	/* the leader's whole wait, its exit's too: it read its own before pthread_exit, whose
	 * path then waited for the CPU behind the busy threads (79-134 ms more under TCG on 6.1),
	 * which the tracer rightly counts; a zombie's schedstat stays readable. Not a zombie
	 * within 5 s: its own reading stands, and the comparison says so if it falls short. */
	for (int i = 0; i < 5000 && leader_state() != 'Z'; i++)
		usleep(1000);
	if (leader_state() == 'Z') {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", getpid());
		delays[0] = run_delay_of(path);
	}
	delays[1] = my_run_delay(); /* and this thread's own, its joins and waits since included */
	__sync_synchronize();
	for (int i = 0; i < workers; i++)
		sum += delays[i];
	printf("run_delay %llu\n", sum);
	fflush(stdout);
	return NULL;
}

static int cpu_leader_first(int n, double secs)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (n < 2 || n > 64 || sched_setaffinity(0, sizeof(one), &one))
		return 1;
	seconds = secs;
	leader_seconds = secs / 2;
	workers = n;
	for (long i = 2; i < n; i++)
		pthread_create(&threads[i], NULL, burn, (void *)i);
	pthread_create(&threads[1], NULL, last_worker, (void *)1);
	burn(0);
	__sync_synchronize();
	leader_done = 1;
	pthread_exit(NULL);
}

/* One generic-netlink request and its reply; the reply's first attribute, or NULL. */
struct genl_msg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[1024];
};

static struct nlattr *genl_ask(int fd, struct genl_msg *m, __u16 family, __u8 cmd, __u16 type,
			       const void *data, int len)
{
	struct nlattr *na = (struct nlattr *)m->buf;
	ssize_t got;

	memset(m, 0, sizeof(*m));
	m->n.nlmsg_type = family;
	m->n.nlmsg_flags = NLM_F_REQUEST;
	m->g.cmd = cmd;
	m->g.version = 1;
	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	memcpy((char *)na + NLA_HDRLEN, data, len);
	m->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
	if (send(fd, m, m->n.nlmsg_len, 0) < 0)
		return NULL;
	got = recv(fd, m, sizeof(*m), 0);
	if (got < (ssize_t)(NLMSG_LENGTH(GENL_HDRLEN) + NLA_HDRLEN) ||
	    m->n.nlmsg_type == NLMSG_ERROR)
		return NULL;
	return na;
}

/* This thread's block-I/O delay in ns from taskstats, or -1 where taskstats is not there. */
static long long taskstats_blkio_ns(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct genl_msg m;
	struct nlattr *na, *end;
	__u16 family = 0;
	__u32 pid = getpid();
	long long ns = -1;
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto out;
	na = genl_ask(fd, &m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		      TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));
	for (end = (struct nlattr *)((char *)&m + m.n.nlmsg_len);
	     na && na < end && na->nla_len >= NLA_HDRLEN;
	     na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len)))
		if (na->nla_type == CTRL_ATTR_FAMILY_ID)
			family = *(__u16 *)((char *)na + NLA_HDRLEN);
	if (!family)
		goto out;
	na = genl_ask(fd, &m, family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid));
	/* TASKSTATS_TYPE_AGGR_PID nests the pid and then the stats */
	if (na && na->nla_type == TASKSTATS_TYPE_AGGR_PID) {
		struct nlattr *pa = (struct nlattr *)((char *)na + NLA_HDRLEN);
		struct nlattr *sa2 = (struct nlattr *)((char *)pa + NLA_ALIGN(pa->nla_len));
		struct taskstats *ts = (struct taskstats *)((char *)sa2 + NLA_HDRLEN);

		if (sa2->nla_type == TASKSTATS_TYPE_STATS &&
		    sa2->nla_len >= NLA_HDRLEN + offsetof(struct taskstats, blkio_delay_total) + 8)
			ns = (long long)ts->blkio_delay_total;
	}
out:
	if (fd >= 0)
		close(fd);
	return ns;
}

static int io(const char *path, int mib)
{
	static char buf[1 << 16];
	unsigned long long ticks = 0;
	long long ns, res = 1;
	char stat[1024], *p;
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600), i;
	double t0 = now();
	FILE *f;

	if (fd < 0)
		return 1;
	memset(buf, 'w', sizeof(buf));
	for (i = 0; i < mib * 16; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fdatasync(fd))
			return 1;
	close(fd);
	unlink(path);
	ns = taskstats_blkio_ns();
	if (ns < 0) {
		f = fopen("/proc/self/stat", "r");
		if (!f || !fgets(stat, sizeof(stat), f))
			return 1;
		fclose(f);
		p = strrchr(stat, ')'); /* fields after the command name, from field 3 */
		for (i = 3; p && i <= 42; i++)
			p = strchr(p + 1, ' ');
		if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
			return 1;
		res = 1000000000LL / sysconf(_SC_CLK_TCK);
		ns = (long long)ticks * res;
	}
	printf("blkio_ns %lld resolution_ns %lld elapsed_ns %.0f\n", ns, res, (now() - t0) * 1e9);
	return 0;
}

static long long pump(int from, int to, size_t bytes, long long *rx)
{
	static char buf[1 << 15];
	size_t sent = 0;
	long long tx = 0;
	ssize_t n;

	memset(buf, 'n', sizeof(buf));
	while (sent < bytes) {
		size_t want = bytes - sent < sizeof(buf) ? bytes - sent : sizeof(buf);

		n = send(from, buf, want, 0);
		if (n <= 0)
			return -1;
		tx += n;
		sent += n;
		for (ssize_t got = 0; got < n;) {
			ssize_t r = recv(to, buf, sizeof(buf), 0);

			if (r <= 0)
				return -1;
			got += r;
			*rx += r;
		}
	}
	return tx;
}

static int net(int kib)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s;
	int u1 = socket(AF_INET, SOCK_DGRAM, 0), u2 = socket(AF_INET, SOCK_DGRAM, 0);
	long long tx = 0, rx = 0, n;
	char dgram[1000];

	if (bind(l, (void *)&a, sizeof(a)) || listen(l, 1) || getsockname(l, (void *)&a, &len) ||
	    connect(c, (void *)&a, sizeof(a)) || (s = accept(l, NULL, NULL)) < 0)
		return 1;
	if ((n = pump(c, s, (size_t)kib << 10, &rx)) < 0)
		return 1;
	tx += n;
	if ((n = pump(s, c, (size_t)kib << 9, &rx)) < 0)
		return 1;
	tx += n;
	a.sin_port = 0;
	len = sizeof(a);
	if (bind(u2, (void *)&a, sizeof(a)) || getsockname(u2, (void *)&a, &len))
		return 1;
	memset(dgram, 'u', sizeof(dgram));
	for (int i = 0; i < 100; i++) {
		if ((n = sendto(u1, dgram, sizeof(dgram), 0, (void *)&a, sizeof(a))) <= 0)
			return 1;
		tx += n;
		if ((n = recv(u2, dgram, sizeof(dgram), 0)) <= 0)
			return 1;
		rx += n;
	}
	printf("tx %lld rx %lld\n", tx, rx);
	return 0;
}

static void *nap(void *arg)
{
	double secs = *(double *)arg;
	struct timespec t = { .tv_sec = (time_t)secs,
			      .tv_nsec = (long)((secs - (time_t)secs) * 1e9) };

	nanosleep(&t, NULL);
	return NULL;
}

/* off-CPU: n threads asleep for secs while their leader waits for them */
static int sleepers(int n, double secs)
{
	/* a moment before the process ends: a joined thread's final switch-out (which accounts
	 * its last sleep) may come after its join returns, on another CPU, and one that comes
	 * after the process's exit is not counted (tracerd(8), BUGS) */
	double settle = 0.1;
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, nap, &secs))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	nap(&settle);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "sleep"))
		return sleepers(atoi(argv[2]), atof(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "cpu"))
		return cpu(atoi(argv[2]), atof(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "cpu-leader-first"))
		return cpu_leader_first(atoi(argv[2]), atof(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "io"))
		return io(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "net"))
		return net(atoi(argv[2]));
	fprintf(stderr, "usage: waits cpu|cpu-leader-first|sleep THREADS SECONDS | io FILE MIB | "
			"net KIB\n");
	return 2;
}
