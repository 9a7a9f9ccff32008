/* Unit tests for the event path of nodeagent/agent.c without a kernel: ring-buffer records
 * built from bpf/process.h go through agent_on_event into the process table and the store.
 * The agent is put together by hand (agent_init would load BPF). */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testagent.h"
#include "testlib.h"

#include "agent_internal.h" /* the agent is put together by hand */
#include "store_internal.h" /* the timeline's query */
#include "live.h"
#include "log.h"
#include "units.h"

#define TICK 10000000ull
#define OFFSET 1700000000000000000ll
#define BOOT "5e1f7e57-0000-4000-8000-000000000001"
#define SEC 1000000000ull

static char dir[64];

static struct unit *add_unit(struct agent *a, uint64_t id, enum unit_state state)
{
	struct unit t = { .id = id, .state = state, .exit_status = -1 }, *u;

	snprintf(t.name, sizeof(t.name), "unit-%llu", (unsigned long long)id);
	snprintf(t.kind, sizeof(t.kind), "local");
	u = units_adopt(a, &t);
	assert_non_null(u);
	u->done_whole = 1; /* no row yet, no sample: as units_new makes one */
	u->sample_peak_mcores = -1;
	return u;
}

/* A unit's totals from memory (units_totals, what its end answers) are the store's of the same
 * rows, key for key, in the same order and of the same types, each with what memory adds after
 * it (live_add_totals, as the end's reply has them); its record saved and committed, as its end
 * leaves it. */
static void same_totals(struct agent *a, uint64_t id)
{
	struct unit *u = units_find(a, id);
	json_object *stored, *mem;

	units_save(a, u);
	assert_int_equal(store_commit(a->store), 0);
	assert_int_equal(store_unit_totals(a->store, id, &stored), 0);
	assert_int_equal(units_totals(u, &mem), 0);
	assert_int_equal(live_add_totals(a, id, stored), 0);
	assert_int_equal(live_add_totals(a, id, mem), 0);
	assert_string_equal(json_object_to_json_string(mem), json_object_to_json_string(stored));
	json_object_put(stored);
	json_object_put(mem);
}

static int setup(void **state)
{
	struct agent *a = ta_agent_new("test_agent_events", BOOT, dir);

	if (!a)
		return -1;
	assert_int_equal(a->tick_ns, TICK);
	a->offset_ns = OFFSET;
	add_unit(a, 1, UNIT_RUNNING);
	*state = a;
	return 0;
}

static int teardown(void **state)
{
	return ta_agent_free(*state, dir);
}

/* ---- events, each handed over in a heap buffer of exactly its size */

static void deliver(struct agent *a, const void *ev, size_t size)
{
	void *copy = malloc(size ? size : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, ev, size);
	r = agent_on_event(a, copy, size);
	/* stops the loop's reading only while a commit it handed over runs (a batch filled) */
	assert_true(r == 0 || (r == -EBUSY && store_busy(a->store)));
	store_settle(a->store); /* as the loop does once the commit is over */
	free(copy);
}

/* A tick's writes and its commit, waited for */
static void tick(struct agent *a)
{
	units_flush(a);
	assert_int_equal(store_commit(a->store), 0);
}

static struct event_header hdr(uint32_t type, uint32_t pid, uint64_t start, uint64_t unit,
			       uint64_t time)
{
	struct event_header h = {
		.type = type, .pid = pid, .start_ns = start, .unit = unit, .time_ns = time
	};
	return h;
}

static void fork_ev(struct agent *a, uint32_t pid, uint64_t start, uint64_t unit, uint32_t ppid,
		    uint64_t parent_start)
{
	struct fork_event e;

	memset(&e, 0, sizeof(e));
	e.h = hdr(EVENT_FORK, pid, start, unit, start);
	e.ppid = ppid;
	e.uid = 1000;
	e.parent_start_ns = parent_start;
	deliver(a, &e, sizeof(e));
}

/* argv: argv_len bytes, NUL-separated. */
static struct exec_event *mk_exec(uint32_t pid, uint64_t start, uint64_t unit, uint32_t ppid,
				  const char *path, const char *argv, uint32_t argv_len)
{
	struct exec_event *e = calloc(1, sizeof(*e));
	const char *base;

	assert_non_null(e);
	e->h = hdr(EVENT_EXEC, pid, start, unit, start + SEC / 100);
	e->ppid = ppid;
	e->uid = 1000;
	e->gid = 1001;
	e->cgroup_id = 4242;
	base = strrchr(path, '/');
	snprintf(e->comm, sizeof(e->comm), "%s", base ? base + 1 : path);
	snprintf(e->path, sizeof(e->path), "%s", path);
	e->argv_len = argv_len;
	memcpy(e->argv, argv, argv_len);
	return e;
}

static void exec_ev(struct agent *a, uint32_t pid, uint64_t start, uint64_t unit, uint32_t ppid,
		    const char *path, const char *argv, uint32_t argv_len)
{
	struct exec_event *e = mk_exec(pid, start, unit, ppid, path, argv, argv_len);

	/* only the used part of argv travels */
	deliver(a, e, offsetof(struct exec_event, argv) + argv_len);
	free(e);
}

#define EXEC(a, pid, start, unit, ppid, path, argv) \
	exec_ev(a, pid, start, unit, ppid, path, argv, sizeof(argv) - 1)

static struct exit_event mk_exit(uint32_t pid, uint64_t start, uint64_t unit, int32_t status)
{
	struct exit_event e;

	memset(&e, 0, sizeof(e));
	e.h = hdr(EVENT_EXIT, pid, start, unit, start + 3 * SEC);
	e.ppid = 1;
	e.status = status;
	e.utime_ns = 3;
	e.stime_ns = 1;
	e.runtime_ns = 2 * SEC;
	e.peak_rss_kb = 1024;
	e.read_bytes = 4096;
	e.write_bytes = 8192;
	e.threads = 1;
	snprintf(e.comm, sizeof(e.comm), "exitcomm");
	return e;
}

static void exit_ev(struct agent *a, uint32_t pid, uint64_t start, uint64_t unit, int32_t status)
{
	struct exit_event e = mk_exit(pid, start, unit, status);

	deliver(a, &e, sizeof(e));
}

static void oom_ev(struct agent *a, uint32_t victim, uint64_t unit)
{
	struct oom_event e;

	memset(&e, 0, sizeof(e));
	e.h = hdr(EVENT_OOM, 0, 0, unit, 99 * SEC);
	e.victim_tid = victim;
	e.anon_rss_kb = 1 << 20;
	deliver(a, &e, sizeof(e));
}

/* ---- reading back */

static json_object *processes(struct agent *a, uint64_t unit)
{
	json_object *rows = NULL;

	assert_int_equal(store_unit_processes(a->store, unit, &rows), 0);
	assert_non_null(rows);
	return rows;
}

/* argv of a stored row as "a|b|c" */
static const char *argv_str(json_object *row, char *buf, size_t len)
{
	json_object *arr = key(row, "argv");
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < json_object_array_length(arr); i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? "|" : "",
			       json_object_get_string(json_object_array_get_idx(arr, i)));
	return buf;
}

/* ---- tests */

/* Two programs attached to a tracepoint at once (an upgrade's instant, an old pin set's programs
 * running beside the new ones) send each event twice, maybe out of order across two rings: a
 * finished process is one row and one process of its unit, with its command. */
static void test_repeated_events(void **state)
{
	struct agent *a = *state;
	struct unit *u = units_find(a, 1);
	uint64_t start = 100 * SEC + 777;
	json_object *rows, *r;
	char buf[256];

	fork_ev(a, 300, start, 1, 100, 50 * SEC);
	fork_ev(a, 300, start, 1, 100, 50 * SEC);
	EXEC(a, 300, start, 1, 100, "/bin/sleep",
	     "sleep\0"
	     "1");
	EXEC(a, 300, start, 1, 100, "/bin/sleep",
	     "sleep\0"
	     "1");
	assert_int_equal(u->live, 1);
	exit_ev(a, 300, start, 1, 0);
	exit_ev(a, 300, start, 1, 0);
	/* the other ring's copies, after the exit */
	EXEC(a, 300, start, 1, 100, "/bin/sleep",
	     "sleep\0"
	     "1");
	exit_ev(a, 300, start, 1, 0);
	assert_int_equal(u->live, 0);
	assert_int_equal(u->finished, 1);
	assert_int_equal(a->stored, 1);
	assert_int_equal(a->procs.count, 0);
	assert_int_equal(a->finished.repeats, 3);
	rows = processes(a, 1);
	assert_int_equal(json_object_array_length(rows), 1);
	r = json_object_array_get_idx(rows, 0);
	assert_string_equal(json_object_get_string(key(r, "exe")), "/bin/sleep");
	assert_string_equal(argv_str(r, buf, sizeof(buf)), "sleep|1");
	json_object_put(rows);

	/* the same pid started again is another process */
	EXEC(a, 300, start + SEC, 1, 100, "/bin/true", "true");
	exit_ev(a, 300, start + SEC, 1, 0);
	assert_int_equal(u->finished, 2);
}

/* More finished processes than two generations hold: the memory stays bounded, the newest are
 * remembered, and the oldest are forgotten. */
static void test_finished_bounded(void **state)
{
	struct finished f;
	uint32_t i;

	(void)state;
	assert_int_equal(finished_init(&f), 0);
	for (i = 1; i <= 5 * FINISHED_GEN; i++)
		finished_add(&f, i, 1000 + i);
	assert_true(finished_has(&f, 5 * FINISHED_GEN, 1000 + 5 * FINISHED_GEN));
	assert_true(finished_has(&f, 4 * FINISHED_GEN + 1, 1000 + 4 * FINISHED_GEN + 1));
	assert_false(finished_has(&f, 1, 1001));
	assert_false(finished_has(&f, 5 * FINISHED_GEN, 999)); /* another start */
	assert_false(finished_has(&f, 0, 0));
	assert_false(finished_has(&f, 7, 1001 + 5 * FINISHED_GEN)); /* later than every key */
	finished_add(&f, 7, 500);				    /* started before others */
	assert_true(finished_has(&f, 7, 500));
	assert_true(finished_has(&f, 5 * FINISHED_GEN, 1000 + 5 * FINISHED_GEN));
	assert_true(f.n[0] <= FINISHED_GEN && f.n[1] <= FINISHED_GEN);
	finished_free(&f);
}

static void test_fork_exec_exit(void **state)
{
	struct agent *a = *state;
	struct unit *u = units_find(a, 1);
	uint64_t start = 100 * SEC + 12345;
	json_object *rows, *r;
	struct proc *p;
	char buf[256];

	fork_ev(a, 200, start, 1, 100, 50 * SEC);
	assert_int_equal(u->live, 1);
	p = proctable_find(&a->procs, 200, start);
	assert_non_null(p);
	assert_int_equal(p->ppid, 100);
	assert_int_equal(p->uid, 1000);
	assert_int_equal(p->unit, 1);

	EXEC(a, 200, start, 1, 100, "/usr/bin/curl", "curl\0--token=abc\0-u\0https://me:pw@x/y");
	assert_ptr_equal(proctable_find(&a->procs, 200, start), p); /* the same process */
	assert_int_equal(a->procs.count, 1);
	assert_int_equal(u->live, 1);
	assert_true(p->flags & PROC_EXECED);
	assert_string_equal(p->exe, "/usr/bin/curl");
	assert_string_equal(p->comm, "curl");
	/* never the secrets, not even in memory */
	assert_null(memmem(p->argv, p->argv_len, "abc", 3));
	assert_null(memmem(p->argv, p->argv_len, "pw", 2));

	exit_ev(a, 200, start, 1, 0);
	assert_null(proctable_find(&a->procs, 200, start));
	assert_int_equal(a->procs.count, 0);
	assert_int_equal(u->live, 0);
	assert_int_equal(u->finished, 1);
	assert_int_equal(a->stored, 1);
	assert_int_equal(a->events[STAT_FORK], 1);
	assert_int_equal(a->events[STAT_EXEC], 1);
	assert_int_equal(a->events[STAT_EXIT], 1);
	assert_int_equal(a->bad_events, 0);

	rows = processes(a, 1);
	assert_int_equal(json_object_array_length(rows), 1);
	r = json_object_array_get_idx(rows, 0);
	assert_int_equal(geti(r, "pid"), 200);
	assert_int_equal(geti(r, "ppid"), 100);
	assert_int_equal(geti(r, "uid"), 1000);
	assert_int_equal(geti(r, "start_ns"), OFFSET + (int64_t)start);
	assert_int_equal(geti(r, "exec_ns"), OFFSET + (int64_t)(start + SEC / 100));
	assert_int_equal(geti(r, "end_ns"), OFFSET + (int64_t)(start + 3 * SEC));
	assert_string_equal(json_object_get_string(key(r, "exe")), "/usr/bin/curl");
	assert_string_equal(json_object_get_string(key(r, "comm")), "curl");
	assert_string_equal(argv_str(r, buf, sizeof(buf)),
			    "curl|--token=***|-u|https://me:***@x/y");
	assert_int_equal(geti(r, "cpu_ns"), 2 * SEC);
	assert_int_equal(geti(r, "user_ns"), 3 * SEC / 2);
	assert_int_equal(geti(r, "maxrss_kb"), 1024);
	assert_int_equal(geti(r, "read_bytes"), 4096);
	assert_int_equal(geti(r, "write_bytes"), 8192);
	assert_int_equal(geti(r, "status"), 0);
	assert_int_equal(geti(r, "flags"), PROC_EXECED | PROC_FINISHED);
	json_object_put(rows);
}

static void test_exec_twice_and_flags(void **state)
{
	struct agent *a = *state;
	struct exec_event *e;
	uint64_t start = 7 * SEC;
	struct proc *p;
	char big[EXEC_ARGV_MAX];

	/* a shell execs a wrapper that execs the tool: the last one counts, no leak */
	EXEC(a, 300, start, 1, 1, "/bin/sh", "sh\0-c\0exec tool");
	memset(big, 'x', sizeof(big));
	e = mk_exec(300, start, 1, 1, "/opt/tool", big, sizeof(big));
	e->flags = EXEC_ARGV_TRUNCATED;
	deliver(a, e, sizeof(*e)); /* argv_len at the maximum */
	free(e);
	p = proctable_find(&a->procs, 300, start);
	assert_non_null(p);
	assert_string_equal(p->exe, "/opt/tool");
	assert_int_equal(p->argv_len, EXEC_ARGV_MAX);
	assert_true(p->flags & PROC_ARGV_TRUNCATED);
	/* a later complete argv clears the mark */
	EXEC(a, 300, start, 1, 1, "/opt/tool2", "tool2\0ok");
	assert_false(p->flags & PROC_ARGV_TRUNCATED);
	assert_int_equal(p->argv_len, 8);
	assert_int_equal(a->procs.count, 1);
	assert_int_equal(units_find(a, 1)->live, 1);

	/* comm and path without terminators from the kernel: cut, terminated */
	e = mk_exec(300, start, 1, 1, "/x", "", 0);
	memset(e->comm, 'c', sizeof(e->comm));
	memset(e->path, 'p', sizeof(e->path));
	deliver(a, e, offsetof(struct exec_event, argv));
	free(e);
	assert_int_equal(strlen(p->comm), TASK_COMM_LEN - 1);
	assert_int_equal(strlen(p->exe), EXEC_PATH_MAX);
	/* an empty argv is stored as none */
	assert_int_equal(p->argv_len, 0);
	exit_ev(a, 300, start, 1, 0);
	{
		json_object *rows = processes(a, 1);

		assert_int_equal(json_object_array_length(rows), 1);
		assert_false(has(json_object_array_get_idx(rows, 0), "argv"));
		json_object_put(rows);
	}
	assert_int_equal(a->bad_events, 0);
}

static void test_bad_events(void **state)
{
	struct agent *a = *state;
	size_t fixed = offsetof(struct exec_event, argv);
	struct exec_event *e;
	struct fork_event f;
	struct exit_event x;
	struct oom_event o;
	struct event_header h;
	uint64_t bad = 0;

	/* argv_len beyond the buffer */
	e = mk_exec(400, SEC, 1, 1, "/bin/evil", "a", 1);
	e->argv_len = EXEC_ARGV_MAX + 1;
	deliver(a, e, sizeof(*e));
	assert_int_equal(a->bad_events, ++bad);
	e->argv_len = UINT32_MAX;
	deliver(a, e, sizeof(*e));
	assert_int_equal(a->bad_events, ++bad);
	/* a record shorter than its argv_len says */
	e->argv_len = 100;
	deliver(a, e, fixed + 99);
	assert_int_equal(a->bad_events, ++bad);
	/* shorter than the fixed part */
	e->argv_len = 0;
	deliver(a, e, fixed - 1);
	assert_int_equal(a->bad_events, ++bad);
	deliver(a, e, sizeof(struct event_header));
	assert_int_equal(a->bad_events, ++bad);
	free(e);

	/* truncated fork, exit and OOM records */
	memset(&f, 0, sizeof(f));
	f.h = hdr(EVENT_FORK, 401, SEC, 1, SEC);
	deliver(a, &f, sizeof(f) - 1);
	assert_int_equal(a->bad_events, ++bad);
	x = mk_exit(402, SEC, 1, 0);
	deliver(a, &x, sizeof(x) - 1);
	assert_int_equal(a->bad_events, ++bad);
	memset(&o, 0, sizeof(o));
	o.h = hdr(EVENT_OOM, 0, 0, 1, SEC);
	deliver(a, &o, sizeof(o) - 1);
	assert_int_equal(a->bad_events, ++bad);

	/* shorter than a header, or nothing at all */
	h = hdr(EVENT_EXIT, 403, SEC, 1, SEC);
	deliver(a, &h, sizeof(h) - 1);
	assert_int_equal(a->bad_events, ++bad);
	deliver(a, &h, 0);
	assert_int_equal(a->bad_events, ++bad);

	/* unknown types, even with a plausible size */
	x = mk_exit(404, SEC, 1, 0);
	x.h.type = 0;
	deliver(a, &x, sizeof(x));
	x.h.type = EVENT_OOM + 1;
	deliver(a, &x, sizeof(x));
	x.h.type = UINT16_MAX;
	deliver(a, &x, sizeof(x));
	bad += 3;
	assert_int_equal(a->bad_events, bad);

	/* none of it left a trace */
	assert_int_equal(a->procs.count, 0);
	assert_int_equal(units_find(a, 1)->live, 0);
	assert_int_equal(units_find(a, 1)->finished, 0);
	assert_int_equal(a->stored, 0);
	assert_int_equal(a->events[STAT_FORK] + a->events[STAT_EXEC] + a->events[STAT_EXIT] +
				 a->events[STAT_OOM],
			 0);
	{
		json_object *rows = processes(a, 1);

		assert_int_equal(json_object_array_length(rows), 0);
		json_object_put(rows);
	}

	/* and the path still works afterwards */
	EXEC(a, 405, SEC, 1, 1, "/bin/true", "true");
	exit_ev(a, 405, SEC, 1, 0);
	assert_int_equal(a->stored, 1);
	assert_int_equal(a->bad_events, bad);
}

static void test_exit_of_unseen_process(void **state)
{
	struct agent *a = *state;
	struct exit_event x = mk_exit(500, 5 * SEC, 1, 1 << 8);
	json_object *rows, *r;

	/* its fork and exec were lost (or it started before tracking): its totals still count,
	 * under its unit's user (an exit carries no uid: not root's by default) */
	units_find(a, 1)->uid = 1001;
	units_find(a, 1)->gid = 1002;
	x.ppid = 499;
	deliver(a, &x, sizeof(x));
	assert_int_equal(a->stored, 1);
	assert_int_equal(a->procs.count, 0);
	assert_int_equal(units_find(a, 1)->live, 0);
	assert_int_equal(units_find(a, 1)->finished, 1);
	rows = processes(a, 1);
	assert_int_equal(json_object_array_length(rows), 1);
	r = json_object_array_get_idx(rows, 0);
	assert_int_equal(geti(r, "pid"), 500);
	assert_int_equal(geti(r, "ppid"), 499);
	assert_int_equal(geti(r, "status"), 256);
	assert_int_equal(geti(r, "uid"), 1001);
	assert_int_equal(geti(r, "cpu_ns"), 2 * SEC);
	assert_string_equal(json_object_get_string(key(r, "comm")), "exitcomm");
	assert_false(has(r, "exe"));
	assert_false(has(r, "argv"));
	assert_false(has(r, "exec_ns"));
	json_object_put(rows);
}

static void test_fork_without_exec_inherits(void **state)
{
	struct agent *a = *state;
	uint64_t ps = 10 * SEC, cs = 11 * SEC, gs = 12 * SEC;
	json_object *rows, *r;
	char buf[256];
	size_t i;

	/* a python parent with workers that never exec */
	EXEC(a, 600, ps, 1, 1, "/usr/bin/python3", "python3\0train.py\0--api-key\0K");
	fork_ev(a, 601, cs, 1, 600, ps);
	fork_ev(a, 602, gs, 1, 601, cs);
	exit_ev(a, 601, cs, 1, 0);
	/* the parent ends before its last worker: the worker still runs the parent's program */
	exit_ev(a, 600, ps, 1, 0);
	exit_ev(a, 602, gs, 1, 0);
	assert_int_equal(a->stored, 3);

	rows = processes(a, 1);
	assert_int_equal(json_object_array_length(rows), 3);
	for (i = 0; i < 3; i++) {
		r = json_object_array_get_idx(rows, i);
		assert_int_equal(geti(r, "pid"), 600 + i);
		assert_string_equal(json_object_get_string(key(r, "exe")), "/usr/bin/python3");
		assert_string_equal(argv_str(r, buf, sizeof(buf)),
				    "python3|train.py|--api-key|***");
		/* only the parent exec'd */
		assert_int_equal(geti(r, "flags") & PROC_EXECED, i == 0 ? PROC_EXECED : 0);
		assert_int_equal(has(r, "exec_ns"), i == 0);
	}
	json_object_put(rows);
}

static void test_child_execs_after_fork(void **state)
{
	struct agent *a = *state;
	json_object *rows, *r;
	char buf[256];

	/* bash forks, the child execs: the child's own command, not bash's */
	EXEC(a, 700, SEC, 1, 1, "/bin/bash", "bash\0job.sh");
	fork_ev(a, 701, 2 * SEC, 1, 700, SEC);
	EXEC(a, 701, 2 * SEC, 1, 700, "/usr/bin/bwa", "bwa\0mem\0ref.fa");
	exit_ev(a, 701, 2 * SEC, 1, 0);
	/* an exec seen before its fork (records from two CPUs): the fork does not undo it */
	EXEC(a, 702, 3 * SEC, 1, 700, "/usr/bin/gzip", "gzip\0-9");
	fork_ev(a, 702, 3 * SEC, 1, 700, SEC);
	exit_ev(a, 702, 3 * SEC, 1, 0);
	exit_ev(a, 700, SEC, 1, 0);

	rows = processes(a, 1);
	assert_int_equal(json_object_array_length(rows), 3);
	r = json_object_array_get_idx(rows, 0);
	assert_string_equal(argv_str(r, buf, sizeof(buf)), "bash|job.sh");
	r = json_object_array_get_idx(rows, 1);
	assert_string_equal(json_object_get_string(key(r, "exe")), "/usr/bin/bwa");
	assert_string_equal(argv_str(r, buf, sizeof(buf)), "bwa|mem|ref.fa");
	assert_int_equal(geti(r, "ppid"), 700);
	r = json_object_array_get_idx(rows, 2);
	assert_string_equal(json_object_get_string(key(r, "exe")), "/usr/bin/gzip");
	assert_string_equal(argv_str(r, buf, sizeof(buf)), "gzip|-9");
	assert_int_equal(geti(r, "ppid"), 700);
	json_object_put(rows);
	assert_int_equal(units_find(a, 1)->live, 0);
	assert_int_equal(units_find(a, 1)->finished, 3);
}

static void test_oom(void **state)
{
	struct agent *a = *state;
	json_object *rows, *t;

	EXEC(a, 800, SEC, 1, 1, "/usr/bin/hog",
	     "hog\0--gb\0"
	     "100");
	EXEC(a, 801, SEC, 1, 1, "/usr/bin/bystander", "bystander");
	oom_ev(a, 800, 1);
	assert_true(proctable_find(&a->procs, 800, SEC)->flags & PROC_OOM_KILLED);
	assert_false(proctable_find(&a->procs, 801, SEC)->flags & PROC_OOM_KILLED);
	/* a victim we never saw: logged, nothing created */
	oom_ev(a, 899, 1);
	assert_null(proctable_find_pid(&a->procs, 899));
	assert_int_equal(a->procs.count, 2);
	assert_int_equal(a->events[STAT_OOM], 2);
	exit_ev(a, 800, SEC, 1, SIGKILL);
	exit_ev(a, 801, SEC, 1, 0);

	rows = processes(a, 1);
	assert_int_equal(geti(json_object_array_get_idx(rows, 0), "flags") & PROC_OOM_KILLED,
			 PROC_OOM_KILLED);
	assert_int_equal(geti(json_object_array_get_idx(rows, 0), "status"), SIGKILL);
	assert_int_equal(geti(json_object_array_get_idx(rows, 1), "flags") & PROC_OOM_KILLED, 0);
	json_object_put(rows);
	assert_int_equal(store_unit_totals(a->store, 1, &t), 0);
	assert_int_equal(geti(t, "oom_kills"), 1);
	assert_int_equal(geti(t, "nprocs"), 2);
	json_object_put(t);
	same_totals(a, 1);
}

static void test_unit_counters(void **state)
{
	struct agent *a = *state;
	struct unit *u1 = units_find(a, 1), *u2 = add_unit(a, 2, UNIT_RUNNING);
	json_object *rows;
	uint32_t i;

	for (i = 0; i < 3; i++)
		fork_ev(a, 900 + i, SEC, 1, 1, 0);
	fork_ev(a, 950, SEC, 2, 1, 0);
	/* repeated records for the same process do not count it twice */
	fork_ev(a, 900, SEC, 1, 1, 0);
	EXEC(a, 900, SEC, 1, 1, "/bin/x", "x");
	assert_int_equal(u1->live, 3);
	assert_int_equal(u2->live, 1);
	exit_ev(a, 900, SEC, 1, 0);
	exit_ev(a, 901, SEC, 1, 0);
	assert_int_equal(u1->live, 1);
	assert_int_equal(u1->finished, 2);
	assert_int_equal(u2->live, 1);
	assert_int_equal(u2->finished, 0);

	/* a unit that ended while it still had processes leaves memory once its row with its
	 * last one is written (units_flush, on the next tick) */
	u2->state = UNIT_COMPLETED;
	exit_ev(a, 950, SEC, 2, 0);
	tick(a);
	assert_null(units_find(a, 2));
	assert_ptr_equal(units_find(a, 1), u1);
	u1->state = UNIT_FAILED;
	exit_ev(a, 902, SEC, 1, 0);
	tick(a);
	assert_null(units_find(a, 1));
	units_reap(a); /* freed by the loop, not under the event */
	assert_int_equal(units_running(a), 0);
	assert_null(a->units); /* freed, not only forgotten */

	/* processes of a unit not in memory are stored all the same */
	fork_ev(a, 960, SEC, 77, 1, 0);
	exit_ev(a, 960, SEC, 77, 0);
	assert_int_equal(a->stored, 5);
	rows = processes(a, 77);
	assert_int_equal(json_object_array_length(rows), 1);
	json_object_put(rows);
	rows = processes(a, 2);
	assert_int_equal(json_object_array_length(rows), 1);
	json_object_put(rows);
}

static void test_pid_reuse(void **state)
{
	struct agent *a = *state;
	uint64_t s1 = 20 * SEC, s2 = 40 * SEC;
	json_object *rows;
	char buf[256];

	EXEC(a, 1000, s1, 1, 1, "/bin/first", "first");
	/* the pid comes back as another process before the first one's exit was read */
	fork_ev(a, 1000, s2, 1, 1, 0);
	assert_int_equal(a->procs.count, 2);
	assert_int_equal(units_find(a, 1)->live, 2);
	exit_ev(a, 1000, s1, 1, 1 << 8);
	EXEC(a, 1000, s2, 1, 1, "/bin/second", "second");
	assert_string_equal(proctable_find_pid(&a->procs, 1000)->exe, "/bin/second");
	exit_ev(a, 1000, s2, 1, 2 << 8);
	assert_int_equal(a->procs.count, 0);

	rows = processes(a, 1);
	assert_int_equal(json_object_array_length(rows), 2);
	assert_int_equal(geti(json_object_array_get_idx(rows, 0), "start_ns"),
			 OFFSET + (int64_t)s1);
	assert_string_equal(argv_str(json_object_array_get_idx(rows, 0), buf, sizeof(buf)),
			    "first");
	assert_int_equal(geti(json_object_array_get_idx(rows, 0), "status"), 1 << 8);
	assert_int_equal(geti(json_object_array_get_idx(rows, 1), "start_ns"),
			 OFFSET + (int64_t)s2);
	assert_string_equal(argv_str(json_object_array_get_idx(rows, 1), buf, sizeof(buf)),
			    "second");
	assert_int_equal(geti(json_object_array_get_idx(rows, 1), "status"), 2 << 8);
	json_object_put(rows);
}

static void test_many_events(void **state)
{
	struct agent *a = *state;
	uint32_t i;
	json_object *t;

	/* a storm of short processes: the table follows the live count, all are stored */
	for (i = 0; i < 5000; i++) {
		fork_ev(a, 10000 + i, SEC + i, 1, 1, 0);
		EXEC(a, 10000 + i, SEC + i, 1, 1, "/bin/true", "true\0--password\0x");
		if (i >= 10)
			exit_ev(a, 10000 + i - 10, SEC + i - 10, 1, 0);
		assert_true(a->procs.count <= 11);
	}
	assert_int_equal(a->stored, 4990);
	assert_int_equal(units_find(a, 1)->live, 10);
	assert_int_equal(store_unit_totals(a->store, 1, &t), 0);
	assert_int_equal(geti(t, "nprocs"), 4990);
	json_object_put(t);
	same_totals(a, 1);
}

/* A unit past its cap (StoreUnitMaxSize, here a byte): its first process has a row, the rest
 * are counted in per-tool rows; the unit's record says how many, its totals count them all. */
static void test_unit_cap(void **state)
{
	struct agent *a = *state;
	struct unit *u = units_find(a, 1), stored;
	json_object *t, *rows;
	uint32_t i;

	a->cfg.store_unit_max_bytes = 1;
	for (i = 0; i < 50; i++) {
		fork_ev(a, 3000 + i, SEC + i, 1, 1, 0);
		EXEC(a, 3000 + i, SEC + i, 1, 1, "/usr/bin/bwa", "bwa\0mem");
		exit_ev(a, 3000 + i, SEC + i, 1, i % 2 ? 0 : 256);
	}
	assert_int_equal(u->procs_folded, 49);
	assert_int_equal(store_commit(a->store), 0); /* the rows made are said once written */
	assert_int_equal(u->fold_groups, 2);	     /* exit 0 and exit 1 */
	assert_true(u->stored_bytes > 0);
	tick(a);
	assert_int_equal(store_get_unit(a->store, 1, &stored), 0);
	assert_int_equal(stored.procs_folded, 49);
	assert_int_equal(stored.stored_bytes, u->stored_bytes);
	assert_int_equal(store_unit_totals(a->store, 1, &t), 0);
	assert_int_equal(geti(t, "nprocs"), 50);
	assert_int_equal(geti(t, "cpu_ns"), 50 * 2 * SEC);
	json_object_put(t);
	same_totals(a, 1); /* folded rows counted as their processes */
	assert_int_equal(store_unit_processes(a->store, 1, &rows), 0);
	assert_int_equal(json_object_array_length(rows), 1);
	json_object_put(rows);
}

/* A unit past its cap with as many folded rows as it may have: a tool that has a row keeps
 * adding into it, only a new one goes to "(other tools)"; a new row costs what it keeps, not
 * the process's command line. */
static void test_fold_groups(void **state)
{
	struct agent *a = *state;
	struct unit *u = units_find(a, 1);
	static char argv[4096];
	uint64_t before = 0;
	json_object *tools;
	uint32_t i;
	size_t n, other = 0;

	a->cfg.store_unit_max_bytes = 1;
	memcpy(argv, "bwa\0mem", 8);
	memset(argv + 8, 'x', sizeof(argv) - 9);
	for (i = 0; i <= 64; i++) { /* the first is listed, then a row per exit status */
		fork_ev(a, 3000 + i, SEC + i, 1, 1, 0);
		exec_ev(a, 3000 + i, SEC + i, 1, 1, "/usr/bin/bwa", argv, sizeof(argv));
		exit_ev(a, 3000 + i, SEC + i, 1, (int32_t)(i - 1) << 8);
		if (i == 0)
			before = u->stored_bytes;
	}
	assert_int_equal(store_commit(a->store), 0); /* the rows made are said once written */
	assert_int_equal(u->fold_groups, 64);
	/* each charged its numbers and names, not 4 KiB of arguments */
	assert_true(u->stored_bytes - before < 64 * 1024);
	/* bwa's exit 0 has its row: added into it, no new one */
	fork_ev(a, 3100, SEC, 1, 1, 0);
	EXEC(a, 3100, SEC, 1, 1, "/usr/bin/bwa", "bwa\0mem");
	exit_ev(a, 3100, SEC, 1, 0);
	assert_int_equal(store_commit(a->store), 0);
	assert_int_equal(u->fold_groups, 64);
	/* a new tool: one shared row, for it and the next */
	for (i = 0; i < 2; i++) {
		fork_ev(a, 3200 + i, SEC, 1, 1, 0);
		EXEC(a, 3200 + i, SEC, 1, 1, "/usr/bin/samtools", "samtools\0sort");
		exit_ev(a, 3200 + i, SEC, 1, 0);
	}
	assert_int_equal(store_commit(a->store), 0);
	assert_int_equal(u->fold_groups, 65);
	assert_int_equal(u->procs_folded, 64 + 1 + 2);
	assert_int_equal(store_unit_tools(a->store, 1, &tools), 0);
	n = json_object_array_length(tools);
	for (i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(tools, i), *v;

		if (json_object_object_get_ex(t, "tool", &v) &&
		    !strcmp(json_object_get_string(v), "(other tools)"))
			other += geti(t, "nprocs");
	}
	assert_int_equal(other, 2); /* the two samtools, no bwa */
	json_object_put(tools);
	same_totals(a, 1);
}

/* A unit with no process yet has the store's totals of none; one whose rows memory does not
 * all hold (a restart's, rows adopted, a row lost) is left to the store. */
static void test_totals_from_memory(void **state)
{
	struct agent *a = *state;
	struct unit *u = units_find(a, 1);
	json_object *t;

	struct exit_event e;
	uint32_t i;

	same_totals(a, 1);
	/* every figure of its own, some left unknown (waits and net without their tracepoints) */
	for (i = 0; i < 4; i++) {
		EXEC(a, 900 + i, SEC + i, 1, 1, "/usr/bin/false", "false");
		e = mk_exit(900 + i, SEC + i, 1, i << 8);
		e.rchar = 1000 * i;
		e.wchar = 7 + i;
		e.peak_rss_kb = 4096 - i;
		e.w = (struct proc_waits){ 11 * i, 13 * i, 17 * i, 19 * i, 23 * i, i, i };
		e.flags = i == 3 ? EXIT_NO_WAITS | EXIT_NO_NET : 0;
		deliver(a, &e, sizeof(e));
	}
	same_totals(a, 1);
	/* sampled: its rounds and peaks, saved in its record and kept in memory alike */
	u->sample_rounds = 3;
	u->sample_peak_mcores = 1500;
	u->sample_peak_rss_kb = 2048;
	same_totals(a, 1);
	u->unstored = 1;
	assert_int_equal(units_totals(u, &t), -ENODATA);
	u->unstored = 0;
	u->done_whole = 0;
	assert_int_equal(units_totals(u, &t), -ENODATA);
	u = add_unit(a, 2, UNIT_RUNNING);
	u->done_whole = 0;
	assert_int_equal(units_totals(u, &t), -ENODATA);
}

/* Traced runs under a user's subordinate uids count as that user's for MaxUnitsPerUser and
 * UnitRatePerUser: a user namespace does not multiply them. */
static void test_admit_by_owner(void **state)
{
	struct agent *a = *state;
	char err[160];
	int i;

	a->cfg.max_units_per_user = 2;
	a->cfg.unit_rate_per_user = 1;
	for (i = 0; i < 2; i++)
		add_unit(a, 10 + i, UNIT_RUNNING)->owner_uid = 1000;
	units_find(a, 10)->uid = 100001;
	units_find(a, 11)->uid = 100002;
	assert_int_equal(units_admit(a, 1000, err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "MaxUnitsPerUser"));
	/* the rate too is the owner's: two runs begun, the third refused */
	units_find(a, 10)->state = units_find(a, 11)->state = UNIT_COMPLETED;
	assert_int_equal(units_admit(a, 1000, err, sizeof(err)), 0);
	assert_int_equal(units_admit(a, 1000, err, sizeof(err)), 0);
	assert_int_equal(units_admit(a, 1000, err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "UnitRatePerUser"));
	assert_int_equal(units_admit(a, 1001, err, sizeof(err)), 0);
}

/* A process that ends after its unit did: the unit's row is written on the next tick with the
 * others (units_flush), not in a commit of its own; the unit stays in memory until then. */
static void test_late_exit(void **state)
{
	struct agent *a = *state;
	struct unit *u = units_find(a, 1), stored;
	uint64_t bytes;

	fork_ev(a, 4000, SEC, 1, 1, 0);
	EXEC(a, 4000, SEC, 1, 1, "/bin/sleep",
	     "sleep\0"
	     "9");
	u->state = UNIT_COMPLETED; /* as units_end leaves it, its row written */
	units_save(a, u);
	store_settle(a->store);
	assert_int_equal(store_pending(a->store), 0);
	exit_ev(a, 4000, SEC, 1, 0);
	assert_ptr_equal(units_find(a, 1), u); /* kept until its row is written */
	assert_true(u->dirty);
	assert_true(store_pending(a->store) > 0); /* not committed on its own */
	bytes = u->stored_bytes;
	assert_true(bytes > 0);
	tick(a);
	assert_int_equal(store_pending(a->store), 0);
	assert_null(units_find(a, 1));
	assert_int_equal(store_get_unit(a->store, 1, &stored), 0);
	assert_int_equal(stored.stored_bytes, bytes); /* with its last process's */
}

/* An exit the kernel side never sent: the process is closed from its last sample, its I/O
 * too; the timeline's query leaves that exit's I/O unknown, which its samples hold (an earlier
 * tracerd stored it as 0, which would have cut them down to nothing) */
static void test_lost_exit(void **state)
{
	struct agent *a = *state;
	uint64_t start = 100 * SEC;
	json_object *rows, *r;
	sqlite3_stmt *st;
	struct proc *p;
	int exits = 0;

	fork_ev(a, 300, start, 1, 100, 50 * SEC);
	p = proctable_find(&a->procs, 300, start);
	assert_non_null(p);
	p->sample_cpu_ns = SEC;
	p->sample_read_bytes = 1 << 20;
	p->sample_write_bytes = 8 << 20;
	agent_close_lost(a, p);
	tick(a);
	rows = processes(a, 1);
	assert_int_equal(json_object_array_length(rows), 1);
	r = json_object_array_get_idx(rows, 0);
	assert_int_equal(geti(r, "read_bytes"), 1 << 20);
	assert_int_equal(geti(r, "write_bytes"), 8 << 20);
	assert_int_equal(geti(r, "flags") & PROC_EXIT_LOST, PROC_EXIT_LOST);
	json_object_put(rows);

	assert_int_equal(store_query_samples(a->store, store_db(a->store), 1, 0, &st), 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 10) == SQLITE_NULL) /* a sample, not an exit */
			continue;
		exits++;
		assert_int_equal(sqlite3_column_int64(st, 0), 300);
		assert_int_equal(sqlite3_column_type(st, 6), SQLITE_NULL); /* read_bytes */
		assert_int_equal(sqlite3_column_type(st, 7), SQLITE_NULL); /* write_bytes */
	}
	sqlite3_finalize(st);
	assert_int_equal(exits, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork_exec_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_twice_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_of_unseen_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_without_exec_inherits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_execs_after_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unit_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unit_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admit_by_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fold_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals_from_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeated_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_exit, setup, teardown),
		cmocka_unit_test(test_finished_bounded),
	};

	/* malformed records and OOM kills are logged as warnings: keep the output to errors */
	log_open("test_agent_events", 1, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
