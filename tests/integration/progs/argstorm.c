/* argstorm SECONDS: run itself with two 4000-byte arguments (and so exit at once) again and
 * again (vfork + execv) for SECONDS; print how many ran. An exec storm whose rows are large,
 * of a tool of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char a[4001], b[4001], self[4096];
	char *args[] = { "argstorm", a, b, NULL };
	struct timespec t0, t;
	double secs = argc > 1 ? atof(argv[1]) : 10;
	unsigned long n = 0;
	pid_t pid;

	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (argc > 2 || len <= 0)
		return argc > 2 ? 0 : 1; /* one of the storm's: done */
	self[len] = 0;
	memset(a, 'a', sizeof(a) - 1);
	memset(b, 'b', sizeof(b) - 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pid = vfork();
		if (pid == 0) {
			execv(self, args);
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("%lu\n", n);
	return 0;
}
