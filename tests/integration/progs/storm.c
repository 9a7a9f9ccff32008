/* An exec storm: vfork + execv("/bin/true") with two 4000-byte arguments, as fast as it goes,
 * for SECONDS seconds (default 10), or until STOPFILE exists. Prints how many programs it ran.
 * storm [SECONDS [STOPFILE]]
 * Built with STORM_SELF (argstorm.c), it runs itself instead, which exits at once when given the
 * two arguments: a storm of a tool of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ARG_BYTES 4000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char a[ARG_BYTES + 1], b[ARG_BYTES + 1], prog[4096] = "/bin/true";
	char *args[] = { "true", a, b, NULL };
	double end = now() + (argc > 1 ? atof(argv[1]) : 10);
	const char *stop = argc > 2 ? argv[2] : NULL;
	unsigned long n = 0;
	pid_t pid;

#ifdef STORM_SELF
	ssize_t len;

	if (argc == 3 && strlen(argv[1]) == ARG_BYTES)
		return 0; /* one of the storm's: done */
	len = readlink("/proc/self/exe", prog, sizeof(prog) - 1);
	if (len <= 0)
		return 1;
	prog[len] = 0;
	args[0] = STORM_SELF;
#endif
	memset(a, 'a', ARG_BYTES);
	memset(b, 'b', ARG_BYTES);
	while (now() < end && !(stop && n % 256 == 0 && access(stop, F_OK) == 0)) {
		pid = vfork();
		if (pid == 0) {
			execv(prog, args);
			_exit(127);
		}
		if (pid < 0)
			return 1;
		if (waitpid(pid, NULL, 0) == pid)
			n++;
	}
	printf("%lu\n", n);
	return 0;
}
