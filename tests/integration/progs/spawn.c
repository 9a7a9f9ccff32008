/* spawn MIB fork|vfork|forkwork CMD ARGS...: hold and touch MIB MiB, then run CMD in a child
 * started by fork or vfork and wait for it: a large parent starting a small tool, as workflow
 * engines do. forkwork: the child first writes over the parent's memory (copy-on-write faults)
 * and burns 0.3 s of CPU before its exec. Exits with the child's status. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void burn(double seconds)
{
	struct timespec ts;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	size_t mib, i;
	volatile char *p;
	pid_t pid;
	int status;

	if (argc < 4)
		return 2;
	mib = strtoul(argv[1], NULL, 10);
	p = malloc((mib << 20) + 1);
	if (!p)
		return 2;
	for (i = 0; i < mib << 20; i += 4096)
		p[i] = 1;
	pid = strcmp(argv[2], "vfork") ? fork() : vfork();
	if (pid == 0) {
		if (!strcmp(argv[2], "forkwork")) {
			for (i = 0; i < mib << 20; i += 4096)
				p[i] = 2;
			burn(0.3);
		}
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
