/* Run a command and print what wait4(2) reports for it, at full precision: the figures
 * /usr/bin/time -v prints rounded to 10 ms. Output: "user_us sys_us maxrss_kb". */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 3)
		return 2;
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return 1;
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%ld %ld %ld\n", ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
		ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec, ru.ru_maxrss);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
