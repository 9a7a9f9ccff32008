/* Unit tests for nodeagent/stalls.c and nodeagent/activity.c: when a process is stalled and
 * what it is said to wait in (a real child blocked on a FIFO, another waiting for its own
 * child), and a unit's idle windows over sample rounds. */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "activity.h"
#include "stalls.h"

#define S 1000000000ull

static void test_words(void **state)
{
	char buf[STALL_REASON_MAX];

	(void)state;
	assert_string_equal(stall_words('S', "pipe_read", buf, sizeof(buf)),
			    "waiting on a pipe or FIFO");
	assert_string_equal(stall_words('S', "anon_pipe_read", buf, sizeof(buf)),
			    "waiting on a pipe or FIFO"); /* Linux 6.16 on */
	assert_string_equal(stall_words('S', "fifo_pipe_read", buf, sizeof(buf)),
			    "waiting on a pipe or FIFO");
	assert_string_equal(stall_words('S', "wait_for_partner", buf, sizeof(buf)),
			    "waiting on a pipe or FIFO");
	assert_string_equal(stall_words('S', "futex_wait_queue", buf, sizeof(buf)),
			    "waiting on a lock");
	assert_string_equal(stall_words('D', "0", buf, sizeof(buf)), "blocked on I/O");
	assert_string_equal(stall_words('T', "do_signal_stop", buf, sizeof(buf)), "stopped");
	assert_string_equal(stall_words('S', "some_odd_place", buf, sizeof(buf)),
			    "asleep in some_odd_place");
	assert_null(stall_words('S', "do_wait", buf, sizeof(buf)));
}

/* A stall starts after `after` without progress, ends with progress, and the longest is kept. */
static void test_sample(void **state)
{
	struct stall s = { 0 };
	pid_t self = getpid(); /* running: its reason is "no CPU, I/O or network" */

	(void)state;
	assert_int_equal(stall_sample(&s, self, 10, 1 * S, 5 * S), 0);
	assert_int_equal(stall_sample(&s, self, 10, 3 * S, 5 * S), 0);
	assert_int_equal(stall_sample(&s, self, 10, 6 * S, 5 * S), 1); /* 5 s since 1 s */
	assert_int_equal(s.open_start_ns, 1 * S);
	assert_int_equal(stall_sample(&s, self, 10, 9 * S, 5 * S), 0);	/* said once */
	assert_int_equal(stall_sample(&s, self, 11, 10 * S, 5 * S), 0); /* progress */
	assert_int_equal(s.open_start_ns, 0);
	assert_int_equal(s.start_ns, 1 * S);
	assert_int_equal(s.ns, 9 * S);
	/* a shorter one later does not replace it; one open at the end is closed there */
	stall_sample(&s, self, 11, 16 * S, 5 * S);
	assert_int_equal(s.open_start_ns, 10 * S);
	stall_close(&s, 17 * S);
	assert_int_equal(s.ns, 9 * S);
	/* a parent of live work: not stalled while it has it, however long it sits still; the
	 * stall under way when its child came ends then */
	memset(&s, 0, sizeof(s));
	stall_sample(&s, self, 5, 1 * S, 5 * S);
	assert_int_equal(stall_sample(&s, self, 5, 7 * S, 5 * S), 1);
	stall_parent(&s, 8 * S);
	assert_int_equal(s.open_start_ns, 0);
	assert_int_equal(s.ns, 7 * S);
	stall_parent(&s, 20 * S);
	assert_int_equal(stall_sample(&s, self, 5, 21 * S, 5 * S), 0); /* 1 s since its child */
	assert_int_equal(stall_sample(&s, self, 5, 26 * S, 5 * S), 1); /* 6 s without */
	assert_int_equal(s.open_start_ns, 20 * S);
	/* off: never stalled */
	memset(&s, 0, sizeof(s));
	stall_sample(&s, self, 1, 1 * S, 0);
	assert_int_equal(stall_sample(&s, self, 1, 100 * S, 0), 0);
}

static pid_t fifo_reader(const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(path, O_RDONLY); /* blocks: nobody writes */
		_exit(fd < 0);
	}
	return pid;
}

static void test_reason_of_real_processes(void **state)
{
	char dir[] = "/tmp/test-signals.XXXXXX", path[64], buf[STALL_REASON_MAX];
	const char *why = NULL;
	pid_t reader, waiter;
	int i, status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	reader = fifo_reader(path);
	waiter = fork();
	if (waiter == 0) { /* waits for a child of its own; a group of their own, killed whole */
		pid_t c;

		setpgid(0, 0);
		c = fork();

		if (c == 0) {
			pause();
			_exit(0);
		}
		waitpid(c, NULL, 0);
		_exit(0);
	}
	for (i = 0; i < 200; i++) { /* until both sleep where they should */
		why = stall_reason(reader, buf, sizeof(buf));
		if (why && !strcmp(why, "waiting on a pipe or FIFO") &&
		    !stall_reason(waiter, buf, sizeof(buf)))
			break;
		usleep(10000);
	}
	assert_non_null(why);
	assert_string_equal(why, "waiting on a pipe or FIFO");
	assert_null(stall_reason(waiter, buf, sizeof(buf)));
	kill(reader, SIGKILL);
	kill(-waiter, SIGKILL);
	kill(waiter, SIGKILL);
	waitpid(reader, &status, 0);
	waitpid(waiter, &status, 0);
	unlink(path);
	rmdir(dir);
}

/* 3 rounds of work, a process that did the last of it exits at 3.4 s, then idle rounds to the
 * end at 10 s: one window [3.4 s, 10 s]. */
static void test_idle_window(void **state)
{
	struct activity a = { 0 };
	char text[128];

	(void)state;
	activity_round(&a, 0 * S + 1, 2 * S);
	activity_add(&a, S);
	activity_round(&a, 1 * S, 2 * S);
	activity_add(&a, S);
	activity_round(&a, 2 * S, 2 * S);
	activity_add(&a, S / 2);
	activity_round(&a, 3 * S, 2 * S);
	activity_exit(&a, 3 * S + 4 * S / 10, 4 * S / 10);
	activity_round(&a, 4 * S, 2 * S); /* its work was the exit's: still working */
	for (uint64_t t = 5; t <= 9; t++)
		activity_round(&a, t * S, 2 * S);
	assert_int_equal(a.idle_since_ns, 3 * S + 4 * S / 10);
	activity_end(&a, 10 * S, 2 * S);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.w[0].start_ns, 3 * S + 4 * S / 10);
	assert_int_equal(a.w[0].end_ns, 10 * S);
	assert_int_equal(a.idle_ns, 10 * S - (3 * S + 4 * S / 10));
	activity_windows_text(&a, 100, text, sizeof(text));
	assert_string_equal(text, "3400000100-10000000100");
}

/* Short idle stretches are not windows; work resuming closes one; the longest are kept. */
static void test_idle_windows_kept(void **state)
{
	struct activity a = { 0 };
	uint64_t t = 1;
	int i, w;

	(void)state;
	activity_round(&a, t++ * S, 3 * S);
	for (w = 0; w < IDLE_WINDOWS_MAX + 2; w++) {
		for (i = 0; i < w + 3; i++) /* idle rounds: w + 3 s */
			activity_round(&a, t++ * S, 3 * S);
		activity_add(&a, S);
		activity_round(&a, t++ * S, 3 * S);
	}
	activity_add(&a, S);
	activity_round(&a, t++ * S, 3 * S);
	activity_round(&a, t++ * S, 3 * S); /* 1 s idle at the end: too short */
	activity_end(&a, t * S, 3 * S);
	assert_int_equal(a.n, IDLE_WINDOWS_MAX);
	for (i = 0; i < (int)a.n; i++) /* the shortest (3 s, 4 s) gave way */
		assert_true(a.w[i].end_ns - a.w[i].start_ns >= 4 * S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_reason_of_real_processes),
		cmocka_unit_test(test_idle_window),
		cmocka_unit_test(test_idle_windows_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
