/* Unit tests for nodeagent/process_row.c: a process's row finished and running, the user/system
 * split, the program's own figures (the work before its first exec left out), MaxRSS and its
 * fallbacks, the flags, the command a row names, and running rows added into tool groups and
 * totals. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#include "process_row.h"

#define OFFSET 1700000000000000000ll
#define SEC 1000000000ull

static const char argv_sort[] = "samtools\0sort\0in.bam";

/* A finished process that exec'd samtools sort, as its exit event left it */
static void finished(struct proc *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = 42;
	p->ppid = 41;
	p->uid = 1000;
	p->gid = 1001;
	p->unit = 7;
	p->start_ns = 5 * SEC;
	p->exec_ns = 5 * SEC + 100;
	p->flags = PROC_EXECED | PROC_FINISHED;
	snprintf(p->comm, sizeof(p->comm), "samtools");
	p->exe = (char *)"/usr/bin/samtools";
	p->argv = (char *)argv_sort;
	p->argv_len = sizeof(argv_sort) - 1;
	snprintf(p->tool.name, sizeof(p->tool.name), "samtools");
	snprintf(p->tool.subcommand, sizeof(p->tool.subcommand), "sort");
	p->exit.h.time_ns = 7 * SEC;
	p->exit.utime_ns = 3;
	p->exit.stime_ns = 1;
	p->exit.runtime_ns = 1000;
	p->exit.peak_rss_kb = 2048;
	p->exit.ru_maxrss_kb = 4096;
	p->exit.minflt = 13;
	p->exit.majflt = 14;
	p->exit.read_bytes = 100;
	p->exit.w.cpu_wait_ns = 5;
	p->exit.w.iowait_ns = 6;
	p->exit.w.net_rx_bytes = 7;
	p->exit.status = 9;
}

static struct rec_row fill(const struct proc *p, const struct proc_now *now)
{
	struct rec_row r;

	memset(&r, 0, sizeof(r));
	process_row_fill(p, now, OFFSET, &r);
	return r;
}

static void test_finished(void **state)
{
	struct proc p;
	struct rec_row r;

	(void)state;
	finished(&p);
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_pid], 42);
	assert_int_equal(r.i[PCOL_start_ns], OFFSET + 5 * SEC);
	assert_int_equal(r.i[PCOL_start_boot_ns], 5 * SEC);
	assert_int_equal(r.i[PCOL_exec_ns], OFFSET + 5 * SEC + 100);
	assert_int_equal(r.i[PCOL_end_ns], OFFSET + 7 * SEC);
	assert_int_equal(r.i[PCOL_status], 9);
	assert_int_equal(r.i[PCOL_unit], 7);
	assert_string_equal(r.s[PCOL_exe], "/usr/bin/samtools");
	assert_int_equal(r.len[PCOL_argv], sizeof(argv_sort) - 1);
	assert_string_equal(r.s[PCOL_subcommand], "sort");
	assert_int_equal(r.i[PCOL_read_bytes], 100);
	assert_int_equal(r.i[PCOL_ru_maxrss_kb], 4096);
	/* getrusage's split: the exact runtime in the ticks' proportion */
	assert_int_equal(r.i[PCOL_cpu_ns], 1000);
	assert_int_equal(r.i[PCOL_user_ns], 750);
	assert_int_equal(r.i[PCOL_sys_ns], 250);
	/* no tick seen: all of it user */
	p.exit.utime_ns = p.exit.stime_ns = 0;
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_user_ns], 1000);
	assert_int_equal(r.i[PCOL_sys_ns], 0);
	/* figures the kernel side counted; no stall: none stored */
	assert_int_equal(r.i[PCOL_cpu_wait_ns], 5);
	assert_int_equal(r.i[PCOL_iowait_ns], 6);
	assert_int_equal(r.i[PCOL_net_rx_bytes], 7);
	assert_false(r.set[PCOL_stall_ns]);
	assert_false(r.set[PCOL_folded]);
}

static void test_pre_exec(void **state)
{
	struct proc p;
	struct rec_row r;

	(void)state;
	finished(&p);
	p.base.runtime_ns = 200;
	p.base.minflt = 3;
	p.base.majflt = 20; /* more than at the exit: none of its own */
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_cpu_ns], 800);
	assert_int_equal(r.i[PCOL_user_ns], 600); /* the program's CPU, split in proportion */
	assert_int_equal(r.i[PCOL_sys_ns], 200);
	assert_int_equal(r.i[PCOL_pre_exec_cpu_ns], 200);
	assert_int_equal(r.i[PCOL_minflt], 10);
	assert_int_equal(r.i[PCOL_majflt], 0);
	assert_int_equal(p.exit.runtime_ns, 1000); /* the exit's counters are left as they came */
	p.base.runtime_ns = 5000;
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_cpu_ns], 0);
}

static void test_maxrss_and_flags(void **state)
{
	struct proc p;
	struct rec_row r;

	(void)state;
	finished(&p);
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_maxrss_kb], 2048);
	assert_int_equal(r.i[PCOL_flags], PROC_EXECED | PROC_FINISHED);

	/* no peak to read: the last sample's, a lower bound, and said so */
	p.exit.flags = EXIT_PEAK_UNREAD | EXIT_THREADS_TRUNCATED;
	p.exit.peak_rss_kb = 0;
	p.sample_rss_kb = 512;
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_maxrss_kb], 512);
	assert_int_equal(r.i[PCOL_flags],
			 PROC_EXECED | PROC_FINISHED | PROC_PEAK_UNREAD | PROC_THREADS_TRUNCATED);
	/* ... and with no sample either: unknown */
	p.sample_rss_kb = 0;
	r = fill(&p, NULL);
	assert_false(r.set[PCOL_maxrss_kb]);

	/* the OOM killer's reading stands for the peak the reaper emptied */
	p.flags |= PROC_OOM_KILLED;
	p.oom_rss_kb = 9000;
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_maxrss_kb], 9000);
	assert_int_equal(r.i[PCOL_flags],
			 PROC_EXECED | PROC_FINISHED | PROC_OOM_KILLED | PROC_THREADS_TRUNCATED);
	p.exit.flags = 0;
	p.exit.peak_rss_kb = 10000; /* a larger peak of its own */
	r = fill(&p, NULL);
	assert_int_equal(r.i[PCOL_maxrss_kb], 10000);

	/* what the kernel side did not count is unknown, not 0 */
	p.flags |= PROC_EXIT_LOST;
	p.exit.flags = EXIT_NO_WAITS | EXIT_NO_NET;
	r = fill(&p, NULL);
	assert_false(r.set[PCOL_cpu_wait_ns]);
	assert_false(r.set[PCOL_iowait_ns]);
	assert_false(r.set[PCOL_offcpu_ns]);
	assert_false(r.set[PCOL_net_rx_bytes]);
	assert_false(r.set[PCOL_net_tx_calls]);
	assert_int_equal(r.i[PCOL_flags] & PROC_EXIT_LOST, PROC_EXIT_LOST);
}

static void test_running(void **state)
{
	struct proc p, parent;
	struct proc_now now = { .cpu_ns = 900, .rss_kb = 300, .hwm_kb = 200 };
	struct rec_row r;

	(void)state;
	finished(&parent);
	finished(&p);
	p.flags = PROC_ARGV_TRUNCATED | PROC_OOM_KILLED | PROC_REDISCOVERED;
	p.exe = p.argv = NULL;
	p.argv_len = 0;
	p.base.runtime_ns = 100;
	now.cmd = &parent;
	snprintf(now.tool.name, sizeof(now.tool.name), "samtools");
	now.w.iowait_ns = 4;
	now.w.net_rx_bytes = 8;
	r = fill(&p, &now);
	assert_int_equal(r.i[PCOL_pid], 42);
	assert_int_equal(r.i[PCOL_cpu_ns], 800);    /* from its first exec, as at its exit */
	assert_int_equal(r.i[PCOL_maxrss_kb], 300); /* at least what it holds now */
	assert_string_equal(r.s[PCOL_exe], "/usr/bin/samtools"); /* its parent's command */
	assert_int_equal(r.i[PCOL_flags], PROC_ARGV_TRUNCATED | PROC_OOM_KILLED);
	assert_int_equal(r.i[PCOL_iowait_ns], 4);
	assert_false(r.set[PCOL_net_rx_bytes]); /* network not followed */
	/* no end, status, exit-only figures; empty strings not sent */
	assert_false(r.set[PCOL_end_ns]);
	assert_false(r.set[PCOL_status]);
	assert_false(r.set[PCOL_user_ns]);
	assert_false(r.set[PCOL_read_bytes]);
	assert_false(r.set[PCOL_subcommand]);
	assert_false(r.set[PCOL_interpreter]);
	assert_true(r.set[PCOL_tool]);
	now.net = 1;
	now.hwm_kb = 700;
	r = fill(&p, &now);
	assert_int_equal(r.i[PCOL_net_rx_bytes], 8);
	assert_int_equal(r.i[PCOL_maxrss_kb], 700);
}

static void test_finish_and_command(void **state)
{
	struct proctable t;
	struct tool_rules *rules = NULL;
	struct proc *parent, *child;
	struct exit_event e;
	struct proc_now now;
	char err[256];
	int created;

	(void)state;
	assert_int_equal(proctable_init(&t, 10000000), 0);
	assert_int_equal(tool_rules_builtin(&rules, err, sizeof(err)), 0);
	assert_int_equal(proctable_get(&t, 100, 1, &parent, &created), 0);
	parent->flags = PROC_EXECED | PROC_ARGV_TRUNCATED;
	parent->exe = strdup("/usr/bin/samtools");
	parent->argv = malloc(sizeof(argv_sort));
	assert_non_null(parent->argv);
	memcpy(parent->argv, argv_sort, sizeof(argv_sort));
	parent->argv_len = sizeof(argv_sort) - 1;
	assert_int_equal(proctable_get(&t, 101, 2, &child, &created), 0);

	/* running, never exec'd: its parent's command line, known by ppid */
	child->ppid = 100;
	memset(&now, 0, sizeof(now));
	process_row_command(&t, rules, child, &now);
	assert_ptr_equal(now.cmd, parent);
	assert_string_equal(now.tool.name, "samtools");
	assert_string_equal(now.tool.subcommand, "sort");

	/* at its exit: the parent's copied, ppid and comm from the event */
	child->ppid = 0;
	memset(&e, 0, sizeof(e));
	e.ppid = 100;
	e.runtime_ns = 77;
	snprintf(e.comm, sizeof(e.comm), "samtools");
	process_row_finish(&t, rules, child, &e);
	assert_int_equal(child->ppid, 100);
	assert_string_equal(child->comm, "samtools");
	assert_true(child->flags & PROC_FINISHED);
	assert_true(child->flags & PROC_ARGV_TRUNCATED);
	assert_string_equal(child->exe, "/usr/bin/samtools");
	assert_int_equal(child->argv_len, sizeof(argv_sort) - 1);
	assert_string_equal(child->tool.subcommand, "sort");
	assert_int_equal(child->exit.runtime_ns, 77);

	/* a child whose exec was not seen (tracerd was away), known by its exit alone: a name of
	 * its own, so not its parent's command */
	snprintf(parent->comm, sizeof(parent->comm), "samtools");
	assert_int_equal(proctable_get(&t, 102, 3, &child, &created), 0);
	snprintf(e.comm, sizeof(e.comm), "sleep");
	process_row_finish(&t, rules, child, &e);
	assert_null(child->exe);
	assert_null(child->argv);
	assert_string_equal(child->tool.name, "sleep");
	proctable_free(&t);
	tool_rules_free(rules);
}

/* A running row as add_* take it: start, CPU, peak and a wait */
static struct rec_row live_row(const char *tool, const char *sub, int64_t start, int64_t cpu,
			       int64_t rss)
{
	struct rec_row r;

	memset(&r, 0, sizeof(r));
	rec_text(&r, PCOL_tool, tool);
	if (sub)
		rec_text(&r, PCOL_subcommand, sub);
	rec_int(&r, PCOL_start_ns, start);
	rec_int(&r, PCOL_cpu_ns, cpu);
	rec_int(&r, PCOL_maxrss_kb, rss);
	rec_int(&r, PCOL_iowait_ns, 1);
	return r;
}

static void test_add_totals(void **state)
{
	struct json_object *t = json_tokener_parse("{\"nprocs\":2,\"cpu_ns\":100,\"maxrss_kb\":50,"
						   "\"first_start_ns\":9}");
	struct rec_row a = live_row("a", NULL, 1, 10, 40), b = live_row("b", NULL, 2, 20, 60);

	(void)state;
	process_row_add_totals(&a, t);
	process_row_add_totals(&b, t);
	assert_int_equal(geti(t, "nprocs"), 4);
	assert_int_equal(geti(t, "cpu_ns"), 130);
	assert_int_equal(geti(t, "maxrss_kb"), 60);
	assert_int_equal(geti(t, "iowait_ns"), 2);	/* absent: the running rows' alone */
	assert_int_equal(geti(t, "first_start_ns"), 9); /* a unit's start is not moved */
	assert_false(json_object_object_get_ex(t, "read_bytes", NULL)); /* unset adds nothing */
	assert_false(json_object_object_get_ex(t, "last_end_ns", NULL));
	json_object_put(t);
}

static void test_add_tools(void **state)
{
	struct json_object *rows = json_tokener_parse(
		"[{\"tool\":\"samtools\",\"subcommand\":\"sort\",\"nprocs\":1,\"cpu_ns\":5,"
		"\"maxrss_kb\":100,\"first_start_ns\":50},{\"tool\":\"samtools\",\"nprocs\":3}]");
	struct rec_row a = live_row("samtools", "sort", 20, 10, 40);
	struct rec_row b = live_row("samtools", NULL, 70, 1, 1);
	struct rec_row c = live_row("bwa", NULL, 80, 2, 3);
	struct json_object *g, *row;

	(void)state;
	assert_int_equal(process_row_add_tools(&a, rows, &g), 0);
	row = json_object_array_get_idx(rows, 0);
	assert_ptr_equal(g, row);
	assert_int_equal(geti(row, "nprocs"), 2);
	assert_int_equal(geti(row, "cpu_ns"), 15);
	assert_int_equal(geti(row, "maxrss_kb"), 100);
	assert_int_equal(geti(row, "first_start_ns"), 20);
	assert_int_equal(process_row_add_tools(&b, rows, &g), 0); /* no subcommand: its own row */
	assert_ptr_equal(g, json_object_array_get_idx(rows, 1));
	assert_int_equal(geti(g, "nprocs"), 4);
	assert_int_equal(process_row_add_tools(&c, rows, &g), 0); /* a group with no row yet */
	assert_int_equal(json_object_array_length(rows), 3);
	assert_string_equal(gets_(g, "tool"), "bwa");
	assert_false(json_object_object_get_ex(g, "subcommand", NULL));
	assert_int_equal(geti(g, "nprocs"), 1);
	assert_int_equal(geti(g, "first_start_ns"), 80);
	assert_int_equal(geti(g, "maxrss_kb"), 3);
	json_object_put(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finished),	   cmocka_unit_test(test_pre_exec),
		cmocka_unit_test(test_maxrss_and_flags),   cmocka_unit_test(test_running),
		cmocka_unit_test(test_finish_and_command), cmocka_unit_test(test_add_totals),
		cmocka_unit_test(test_add_tools),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
