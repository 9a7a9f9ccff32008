/* threadexec PROGRAM [ARG...]: a thread other than the main one executes PROGRAM, so that the
 * kernel's de_thread() ends the group leader and the thread takes its place and its pid. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char **args;

static void *run(void *unused)
{
	(void)unused;
	execv(args[0], args);
	perror("threadexec: execv");
	_exit(127);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2) {
		fprintf(stderr, "usage: threadexec PROGRAM [ARG...]\n");
		return 2;
	}
	args = argv + 1;
	if (pthread_create(&t, NULL, run, NULL))
		return 1;
	pthread_join(t, NULL); /* never returns: the exec ends this thread */
	return 1;
}
