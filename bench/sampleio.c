/* What reading a process's own I/O costs a live sample (procfs_read_own_io), against reading
 * /proc/PID/io once (what a sample read before, which held the reaped children's I/O too): a
 * child of 1 thread and one of THREADS threads, each read N times in turns, REPS times. Prints
 * microseconds per read and the ratios of the medians. Usage: sampleio N REPS THREADS */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"

static void *sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

/* a child with threads threads in all, asleep until killed */
static pid_t child(unsigned threads, int ready)
{
	pid_t pid = fork();
	pthread_t t;

	if (pid)
		return pid;
	for (unsigned i = 1; i < threads; i++)
		if (pthread_create(&t, NULL, sleeper, NULL))
			_exit(1);
	if (write(ready, "x", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* /proc/PID/io, read and parsed as a sample read it */
static int whole_io(pid_t pid, struct procfs_io *io)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return procfs_parse_io(buf, io);
}

static double per_read(pid_t pid, unsigned threads, int own, long n)
{
	struct procfs_io io;
	double t0 = now_us();

	for (long i = 0; i < n; i++)
		if ((own ? procfs_read_own_io(pid, threads, threads, &io) : whole_io(pid, &io)) <
		    0) {
			fprintf(stderr, "sampleio: cannot read %d's I/O\n", pid);
			exit(1);
		}
	return (now_us() - t0) / (double)n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	unsigned wide = argc > 3 ? (unsigned)atoi(argv[3]) : 64;
	unsigned counts[2] = { 1, wide };
	double m[2][2][64];
	pid_t pids[2];
	int ready[2];
	char c;

	if (n < 1 || reps < 1 || reps > 64 || wide < 2 || pipe(ready))
		return 2;
	for (int k = 0; k < 2; k++) {
		pids[k] = child(counts[k], ready[1]);
		if (read(ready[0], &c, 1) != 1)
			return 1;
	}
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < 2; k++)
			for (int own = 0; own < 2; own++)
				m[k][own][r] = per_read(pids[k], counts[k], own, n);
	for (int k = 0; k < 2; k++) {
		kill(pids[k], SIGKILL);
		waitpid(pids[k], NULL, 0);
	}
	for (int k = 0; k < 2; k++) {
		double base, own;

		qsort(m[k][0], reps, sizeof(double), cmp);
		qsort(m[k][1], reps, sizeof(double), cmp);
		base = m[k][0][reps / 2];
		own = m[k][1][reps / 2];
		printf("%3u thread%s: /proc/PID/io %.2f us, its threads' io %.2f us per read: "
		       "%.2fx\n",
		       counts[k], counts[k] > 1 ? "s" : " ", base, own, own / base);
	}
	return 0;
}
