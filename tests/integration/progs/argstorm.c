/* argstorm SECONDS: run /bin/true with two 4000-byte arguments again and again (vfork + execv)
 * for SECONDS; print how many ran. An exec storm whose rows are large. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char a[4001], b[4001];
	char *args[] = { "true", a, b, NULL };
	struct timespec t0, t;
	double secs = argc > 1 ? atof(argv[1]) : 10;
	unsigned long n = 0;
	pid_t pid;

	memset(a, 'a', sizeof(a) - 1);
	memset(b, 'b', sizeof(b) - 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pid = vfork();
		if (pid == 0) {
			execv("/bin/true", args);
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("%lu\n", n);
	return 0;
}
