/* execstorm: N times fork + execve("/bin/true") + waitpid, as fast as possible, or at RATE
 * execs per second when given (execstorm N RATE: each exec starts on its own tick, a late one
 * at once).
 * Prints "WALL_NS CPU_NS" on stdout: elapsed wall time, and the CPU time (user + system) of
 * this process and its children, which includes the BPF programs run in their context and is
 * less disturbed than wall time by other work on the machine. Exits non-zero on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long cpu_ns(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return (s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec + c.ru_stime.tv_sec) *
		       1000000000LL +
	       (s.ru_utime.tv_usec + s.ru_stime.tv_usec + c.ru_utime.tv_usec + c.ru_stime.tv_usec) *
		       1000LL;
}

/* Sleep until exec i's tick, t0 + i / rate seconds. */
static void pace(long long t0, long i, long rate)
{
	long long at = t0 + i * 1000000000LL / rate;
	struct timespec ts = { at / 1000000000LL, at % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int main(int argc, char **argv)
{
	char *const args[] = { "true", NULL };
	char *const env[] = { NULL };
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	long rate = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	long long t0, c0;
	long i;

	if (n <= 0 || rate < 0) {
		fprintf(stderr, "usage: %s [N [RATE]]\n", argv[0]);
		return 2;
	}
	c0 = cpu_ns();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int status;
		pid_t pid;

		if (rate)
			pace(t0, i, rate);
		pid = fork();

		if (pid < 0) {
			fprintf(stderr, "execstorm: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			execve("/bin/true", args, env);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "execstorm: child %ld failed (status %#x)\n", i, status);
			return 1;
		}
	}
	t0 = now_ns() - t0;
	printf("%lld %lld\n", t0, cpu_ns() - c0);
	return 0;
}
