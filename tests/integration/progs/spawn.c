/* spawn MIB fork|vfork CMD ARGS...: hold and touch MIB MiB, then run CMD in a child started
 * by fork or vfork and wait for it: a large parent starting a small tool, as workflow engines
 * do. Exits with the child's status. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
                execvp(argv[3], argv + 3);
                _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) < 0)
                return 2;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
