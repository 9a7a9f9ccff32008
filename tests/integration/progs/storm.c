/* An exec storm: vfork + execv("/bin/true") with two 4000-byte arguments, as fast as it goes,
 * for SECONDS seconds (default 10), or until STOPFILE exists. Prints how many programs it ran.
 * storm [SECONDS [STOPFILE]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char a[4001], b[4001];
	char *args[] = { "true", a, b, NULL };
	double end = now() + (argc > 1 ? atof(argv[1]) : 10);
	const char *stop = argc > 2 ? argv[2] : NULL;
	unsigned long n = 0;
	pid_t pid;

	memset(a, 'a', sizeof(a) - 1);
	memset(b, 'b', sizeof(b) - 1);
	while (now() < end && !(stop && n % 256 == 0 && access(stop, F_OK) == 0)) {
		pid = vfork();
		if (pid == 0) {
			execv("/bin/true", args);
			_exit(127);
		}
		if (pid < 0)
			return 1;
		waitpid(pid, NULL, 0);
		n++;
	}
	printf("%lu\n", n);
	return 0;
}
