/* threadexec [-l] PROGRAM [ARG...]: a thread other than the main one executes PROGRAM, so that
 * the kernel's de_thread() ends the group leader and the thread takes its place and its pid.
 * With -l the leader has ended already (pthread_exit) when the thread executes. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char **args;
static int leader_first;

static void *run(void *unused)
{
	(void)unused;
	if (leader_first) {
		struct timespec pause = { 0, 200 * 1000 * 1000 };

		nanosleep(&pause, NULL);
	}
	execv(args[0], args);
	perror("threadexec: execv");
	_exit(127);
}

int main(int argc, char **argv)
{
	pthread_t t;

	leader_first = argc > 1 && !strcmp(argv[1], "-l");
	if (argc < 2 + leader_first) {
		fprintf(stderr, "usage: threadexec [-l] PROGRAM [ARG...]\n");
		return 2;
	}
	args = argv + 1 + leader_first;
	if (pthread_create(&t, NULL, run, NULL))
		return 1;
	if (leader_first)
		pthread_exit(NULL); /* the process lives on in the thread */
	pthread_join(t, NULL);	    /* never returns: the exec ends this thread */
	return 1;
}
