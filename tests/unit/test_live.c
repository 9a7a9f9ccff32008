/* Unit tests for nodeagent/live.c: a running unit's live processes in the processes, tools
 * and totals replies, with figures read from /proc for a real child of this test; other
 * units', finished, and stale (reused pid) entries left out. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#include "agent_internal.h" /* the agent is put together by hand */
#include "live.h"
#include "procfs.h"
#include "units.h"

static const char argv_sleep[] = "python3\0"
				 "/opt/x/train.py";

struct fixture {
	struct agent a;
	struct unit *u;
	pid_t child;
};

static struct proc *add_proc(struct agent *a, pid_t pid, uint64_t start_ns, uint64_t unit)
{
	struct proc *p;
	int created;

	assert_int_equal(proctable_get(&a->procs, pid, start_ns, &p, &created), 0);
	p->unit = unit;
	p->ppid = getpid();
	p->flags = PROC_EXECED;
	snprintf(p->comm, sizeof(p->comm), "sleep");
	p->exe = strdup("/usr/bin/python3");
	p->argv = malloc(sizeof(argv_sleep));
	assert_non_null(p->exe);
	assert_non_null(p->argv);
	memcpy(p->argv, argv_sleep, sizeof(argv_sleep));
	p->argv_len = sizeof(argv_sleep) - 1;
	return p;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct procfs_stat st;
	char err[256];

	if (!f)
		return -1;
	f->a.tick_ns = procfs_tick_ns();
	f->a.offset_ns = 1700000000000000000ll;
	if (proctable_init(&f->a.procs, f->a.tick_ns) ||
	    tool_rules_builtin(&f->a.rules, err, sizeof(err)))
		return -1;
	f->u = units_adopt(&f->a, &(struct unit){ .id = 7, .state = UNIT_RUNNING });
	if (!f->u)
		return -1;
	f->child = fork();
	if (f->child == 0) {
		volatile unsigned long x = 0;

		while (clock() < CLOCKS_PER_SEC / 20) /* 50 ms of CPU to be seen */
			x++;
		pause();
		_exit(0);
	}
	if (f->child < 0)
		return -1;
	for (int i = 0; i < 500; i++) { /* until its CPU shows (the machine may be busy) */
		if (procfs_read_stat(f->child, &st) < 0)
			return -1;
		if (st.cpu_ticks >= 2)
			break;
		usleep(10000);
	}
	add_proc(&f->a, f->child, st.start_ticks * f->a.tick_ns, 7);
	f->u->live = 1;
	/* another unit's process, a finished one and a stale one (same pid, other start) */
	add_proc(&f->a, getpid(), 1, 8);
	add_proc(&f->a, 1, 2 * f->a.tick_ns, 7)->flags |= PROC_FINISHED;
	add_proc(&f->a, f->child, (st.start_ticks + 100) * f->a.tick_ns, 7);
	f->u->live = 3;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kill(f->child, SIGKILL);
	waitpid(f->child, NULL, 0);
	proctable_free(&f->a.procs);
	tool_rules_free(f->a.rules);
	units_free(&f->a);
	free(f);
	return 0;
}

static void test_processes(void **state)
{
	struct fixture *f = *state;
	struct json_object *rows = json_object_new_array(), *o, *v;

	assert_int_equal(live_add_processes(&f->a, 7, rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	o = json_object_array_get_idx(rows, 0);
	assert_int_equal(geti(o, "pid"), f->child);
	assert_true(json_object_object_get_ex(o, "running", &v) && json_object_get_boolean(v));
	assert_false(json_object_object_get_ex(o, "end_ns", NULL));
	assert_false(json_object_object_get_ex(o, "status", NULL));
	assert_true(geti(o, "cpu_ns") > 0);
	assert_true(geti(o, "maxrss_kb") >= geti(o, "rss_kb"));
	assert_true(geti(o, "rss_kb") > 0);
	assert_string_equal(gets_(o, "tool"), "train.py");
	assert_string_equal(gets_(o, "interpreter"), "python3");
	assert_true(json_object_object_get_ex(o, "argv", &v) && json_object_array_length(v) == 2);
	assert_true(geti(o, "start_ns") > f->a.offset_ns);
	json_object_put(rows);

	/* another unit, and a unit with nothing live in memory: nothing added */
	rows = json_object_new_array();
	assert_int_equal(live_add_processes(&f->a, 8, rows), 0);
	assert_int_equal(live_add_processes(&f->a, 9, rows), 0);
	assert_int_equal(json_object_array_length(rows), 0);
	json_object_put(rows);
}

static void test_totals_and_tools(void **state)
{
	struct fixture *f = *state;
	struct json_object *t = json_tokener_parse("{\"nprocs\":2,\"cpu_ns\":100,\"maxrss_kb\":1}");
	struct json_object *tools =
		json_tokener_parse("[{\"tool\":\"train.py\",\"nprocs\":1,\"cpu_ns\":5,\"maxrss_"
				   "kb\":1,\"status_counts\":\"0:1\"},"
				   "{\"tool\":\"sort\",\"nprocs\":4}]");
	struct json_object *row;

	assert_int_equal(live_add_totals(&f->a, 7, t), 0);
	assert_int_equal(geti(t, "nprocs"), 3);
	assert_int_equal(geti(t, "running_procs"), 1);
	assert_true(geti(t, "cpu_ns") > 100);
	assert_true(geti(t, "maxrss_kb") > 1);
	json_object_put(t);
	t = json_tokener_parse("{\"nprocs\":0}"); /* a unit with nothing stored yet */
	assert_int_equal(live_add_totals(&f->a, 7, t), 0);
	assert_int_equal(geti(t, "nprocs"), 1);
	json_object_put(t);

	assert_int_equal(live_add_rows(&f->a, "tools", 7, tools), 0);
	assert_int_equal(json_object_array_length(tools), 2);
	row = json_object_array_get_idx(tools, 0);
	assert_int_equal(geti(row, "nprocs"), 2);
	assert_int_equal(geti(row, "running"), 1);
	assert_string_equal(gets_(row, "status_counts"), "0:1,:1"); /* no exit code yet */
	assert_true(geti(row, "maxrss_kb") > 1);
	assert_int_equal(geti(json_object_array_get_idx(tools, 1), "nprocs"), 4);
	json_object_put(tools);

	tools = json_object_new_array(); /* a tool with no stored row yet */
	assert_int_equal(live_add_tools(&f->a, 7, tools), 0);
	assert_int_equal(json_object_array_length(tools), 1);
	assert_string_equal(gets_(json_object_array_get_idx(tools, 0), "status_counts"), ":1");
	json_object_put(tools);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals_and_tools, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
