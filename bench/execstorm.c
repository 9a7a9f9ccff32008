/* execstorm: N times fork + execve("/bin/true") + waitpid, as fast as possible.
 * Prints the elapsed wall time in nanoseconds on stdout; exits non-zero on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
        char *const args[] = { "true", NULL };
        char *const env[] = { NULL };
        long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
        long long t0;
        long i;

        if (n <= 0) {
                fprintf(stderr, "usage: %s [N]\n", argv[0]);
                return 2;
        }
        t0 = now_ns();
        for (i = 0; i < n; i++) {
                int status;
                pid_t pid = fork();

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
        printf("%lld\n", now_ns() - t0);
        return 0;
}
