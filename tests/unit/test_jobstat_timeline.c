/* tracer-jobstat --timeline: intervals chosen for a job, processes' points into intervals (one
 * node, then several), and an interval as a row. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fields.h"
#include "output.h"
#include "timeline.h"
#include "timeline_rows.h"

#define S 1000000000LL
#define MS 1000000LL
#define T0 1795320000LL * S

static void assert_near(double got, double want)
{
	if (got < want - 1e-6 || got > want + 1e-6)
		fail_msg("%.9f is not %.9f", got, want);
}

static struct tl_point pt(int64_t pid, int64_t t, int64_t cpu, int64_t rss)
{
	return (struct tl_point){ .pid = pid,
				  .start_boot_ns = pid * 100,
				  .start_ns = JS_NONE,
				  .time_ns = t,
				  .cpu_ns = cpu,
				  .rss_kb = rss,
				  .read_bytes = 0,
				  .write_bytes = 0,
				  .cpu_wait_ns = 0,
				  .iowait_ns = 0 };
}

static struct tl_point exit_pt(int64_t pid, int64_t t, int64_t cpu)
{
	struct tl_point p = pt(pid, t, cpu, JS_NONE);

	p.exit = 1;
	return p;
}

static void test_grid(void **state)
{
	struct tl_grid g;

	(void)state;
	/* 10 s sampled every 500 ms: 1 s, the finest round width, 10 intervals */
	assert_int_equal(tl_grid_choose(T0, T0 + 10 * S, 500 * MS, 0, TL_ROWS, &g), 0);
	assert_true(g.origin_ns == T0 && g.width_ns == S && g.n == 10);
	/* an hour in about 30 rows: 2 min */
	assert_int_equal(tl_grid_choose(T0, T0 + 3600 * S, 10 * S, 0, TL_ROWS, &g), 0);
	assert_true(g.width_ns == 120 * S && g.n == 30);
	/* ... but never finer than the sampling: every 10 min, 10 min (rounded up) */
	assert_int_equal(tl_grid_choose(T0, T0 + 3600 * S, 600 * S, 0, TL_ROWS, &g), 0);
	assert_true(g.width_ns == 600 * S && g.n == 6);
	/* ten days: 12 h; a part interval at the end counts as one */
	assert_int_equal(tl_grid_choose(T0, T0 + 10 * 86400 * S + 1, 10 * S, 0, TL_ROWS, &g), 0);
	assert_true(g.width_ns == 43200 * S && g.n == 21);
	/* weeks: whole days */
	assert_int_equal(tl_grid_choose(T0, T0 + 100 * 86400 * S, 10 * S, 0, TL_ROWS, &g), 0);
	assert_true(g.width_ns == 4 * 86400 * S && g.n == 25);
	/* asked for: as asked */
	assert_int_equal(tl_grid_choose(T0, T0 + 3600 * S, 5 * S, 7 * S, TL_ROWS, &g), 0);
	assert_true(g.width_ns == 7 * S && g.n == 515);
	/* finer than the sampling, or more than TL_MAX_CELLS: widened, and said */
	assert_int_equal(tl_grid_choose(T0, T0 + 3600 * S, 10 * S, 1 * S, TL_ROWS, &g), 1);
	assert_true(g.width_ns == 10 * S && g.n == 360);
	assert_int_equal(tl_grid_choose(T0, T0 + 86400 * S, 1 * S, 1 * S, TL_ROWS, &g), 1);
	assert_true(g.width_ns == 60 * S && g.n <= TL_MAX_CELLS);
	/* nothing to divide */
	assert_int_equal(tl_grid_choose(T0, T0, 1 * S, 0, TL_ROWS, &g), -EINVAL);
	assert_int_equal(tl_grid_choose(T0, T0 - S, 1 * S, 0, TL_ROWS, &g), -EINVAL);
	g = (struct tl_grid){ T0, S, 3 };
	assert_int_equal(tl_cell_of(&g, T0 - 1), -1);
	assert_int_equal(tl_cell_of(&g, T0), 0);
	assert_int_equal(tl_cell_of(&g, T0 + 3 * S - 1), 2);
	assert_int_equal(tl_cell_of(&g, T0 + 3 * S), -1);
}

/* one process from its start: sampled at 1 s and 2 s, ended at 2.5 s, busy all along */
static void test_one_process(void **state)
{
	struct tl_grid g = { T0, S, 3 };
	struct tl_cell c[3] = {};
	struct tl_point p[3] = { exit_pt(7, T0 + 2500 * MS, 2500 * MS),
				 pt(7, T0 + 2 * S, 2 * S, 900),
				 pt(7, T0 + S, S, 1000) }; /* any order */

	(void)state;
	for (int i = 0; i < 3; i++)
		p[i].start_ns = T0;
	assert_int_equal(tl_add_node(&g, p, 3, c), 0);
	assert_near(c[0].c[TL_CPU], 1e9);
	assert_near(c[1].c[TL_CPU], 1e9);
	assert_near(c[2].c[TL_CPU], 0.5e9);
	/* the sample at 1 s is in the second interval, at 2 s in the third; none in the first */
	assert_int_equal(c[0].rounds, 0);
	assert_true(c[0].filled);
	assert_int_equal(c[1].rss_kb, 1000);
	assert_int_equal(c[2].rss_kb, 900);
	assert_int_equal(c[1].nprocs, 1);
	assert_int_equal(c[1].nnodes, 1);
	assert_true(c[1].waits);
}

/* two processes in the same rounds add up; a first point without a start counts from itself;
 * a growth across a gap is spread over it; a counter that shrank or is unknown adds nothing */
static void test_rounds_and_gaps(void **state)
{
	struct tl_grid g = { T0, S, 6 };
	struct tl_cell c[6] = {};
	struct tl_point p[] = {
		pt(1, T0 + 500 * MS, 5 * S, 100),
		pt(2, T0 + 500 * MS, 0, 200),
		pt(1, T0 + 1500 * MS, 6 * S, 100),
		pt(2, T0 + 1500 * MS, 0, 300),
		/* process 2 again 4 s later: tracerd away; 4 s of CPU and 4 MB written */
		pt(2, T0 + 5500 * MS, 4 * S, 50),
		/* process 1's exit: its counter from another clock, a little lower; the exit counts
		 * everything, so the sample is held to it */
		exit_pt(1, T0 + 1600 * MS, 6 * S - 1000),
	};

	(void)state;
	p[4].write_bytes = 4 << 20;
	p[4].iowait_ns = JS_NONE;
	assert_int_equal(tl_add_node(&g, p, sizeof(p) / sizeof(*p), c), 0);
	/* process 1's 5 s before its first point are not the timeline's: its start is unknown */
	assert_near(c[0].c[TL_CPU], 0.5e9 - 500);
	assert_near(c[1].c[TL_CPU], 0.5e9 - 500 + 0.5e9);
	for (int i = 2; i <= 4; i++) {
		assert_near(c[i].c[TL_CPU], 1e9);
		assert_near(c[i].c[TL_WRITE], 1 << 20);
		assert_int_equal(c[i].rounds, 0);
		assert_false(c[i].waits); /* I/O wait unknown at the far end of the gap */
	}
	assert_int_equal(c[0].rss_kb, 300);
	assert_int_equal(c[0].nprocs, 2);
	assert_int_equal(c[1].rss_kb, 400);
	assert_int_equal(c[5].rss_kb, 50);
	assert_int_equal(c[5].nprocs, 1);
	/* the same pid started again is another process */
	memset(c, 0, sizeof(c));
	struct tl_point q[] = { pt(3, T0 + 500 * MS, 2 * S, 10),
				pt(3, T0 + 1500 * MS, 100 * MS, 10) };
	q[1].start_boot_ns += 10000000; /* a clock tick later */
	q[1].start_ns = T0 + 1000 * MS;
	assert_int_equal(tl_add_node(&g, q, 2, c), 0);
	assert_near(c[0].c[TL_CPU], 0);
	assert_near(c[1].c[TL_CPU], 100e6);
	assert_int_equal(c[0].nprocs, 1);
	/* one found again after a restart, its start known to a tick: the same process, its
	 * growth across the restart spread over the gap */
	memset(c, 0, sizeof(c));
	struct tl_point f[] = { pt(5, T0 + 500 * MS, S, 10), pt(5, T0 + 4500 * MS, 5 * S, 10) };
	f[0].start_boot_ns = 1234567891;
	f[1].start_boot_ns = 1230000000;
	f[0].start_ns = f[1].start_ns = T0;
	assert_int_equal(tl_add_node(&g, f, 2, c), 0);
	assert_near(c[0].c[TL_CPU], 1e9 + 0.5e9);
	assert_near(c[1].c[TL_CPU] + c[2].c[TL_CPU] + c[3].c[TL_CPU] + c[4].c[TL_CPU], 3.5e9);
	/* points outside the grid are left out, spreads cut at its ends */
	memset(c, 0, sizeof(c));
	struct tl_point r[] = { pt(4, T0 - 2 * S, 0, 1), pt(4, T0 + S, 3 * S, 1),
				pt(4, T0 + 8 * S, 10 * S, 1) };
	assert_int_equal(tl_add_node(&g, r, 3, c), 0);
	assert_near(c[0].c[TL_CPU], 1e9);
	assert_near(c[5].c[TL_CPU], 1e9);
	assert_int_equal(c[0].rounds + c[1].rounds + c[5].rounds, 1);
}

/* A process's work counted once: a parent whose samples read its reaped child's 64 MiB (an
 * older tracerd read /proc/PID/io, which adds them) and whose exit does not; a sum that fell (a
 * thread ended) and rose again; an exit whose I/O is unknown leaves the samples' */
static void test_counted_once(void **state)
{
	struct tl_grid g = { T0, S, 4 };
	struct tl_cell c[4] = {};
	struct tl_point p[] = {
		pt(1, T0 + 500 * MS, S, 10),   pt(1, T0 + 1500 * MS, S, 10),
		pt(1, T0 + 2500 * MS, S, 10),  exit_pt(1, T0 + 3500 * MS, S),
		pt(2, T0 + 1000 * MS, 0, 10), /* the child: writes 64 MiB, exits at 1.2 s */
		exit_pt(2, T0 + 1200 * MS, 0),
	};
	double written = 0, cpu = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(p) / sizeof(*p); i++)
		p[i].start_ns = T0 + (p[i].pid == 2 ? 900 * MS : 0);
	p[2].write_bytes = 64 << 20; /* the parent's sample after the reap */
	p[3].write_bytes = 4096;     /* its own, at its exit */
	p[5].write_bytes = 64 << 20;
	assert_int_equal(tl_add_node(&g, p, sizeof(p) / sizeof(*p), c), 0);
	for (int i = 0; i < 4; i++)
		written += c[i].c[TL_WRITE];
	assert_near(written, (64 << 20) + 4096);
	assert_near(c[1].c[TL_WRITE],
		    (64 << 20) + 2048); /* the parent's 4 KiB from 1.5 s to 2.5 s */

	/* threads' sums: 10 MiB, 4 MiB (a thread with 8 ended), 12 MiB, exit 20 MiB */
	memset(c, 0, sizeof(c));
	struct tl_point q[] = { pt(3, T0 + 500 * MS, S, 10), pt(3, T0 + 1500 * MS, 2 * S, 10),
				pt(3, T0 + 2500 * MS, 3 * S, 10),
				exit_pt(3, T0 + 3500 * MS, 4 * S) };
	q[0].write_bytes = 10 << 20;
	q[1].write_bytes = 4 << 20;
	q[2].write_bytes = 12 << 20;
	q[3].write_bytes = 20 << 20;
	for (int i = 0; i < 4; i++)
		q[i].start_ns = T0;
	assert_int_equal(tl_add_node(&g, q, 4, c), 0);
	written = 0;
	for (int i = 0; i < 4; i++) {
		written += c[i].c[TL_WRITE];
		cpu += c[i].c[TL_CPU];
	}
	assert_near(written, 20 << 20);
	assert_near(cpu, 4e9);
	assert_near(c[1].c[TL_WRITE], 1 << 20); /* the dip adds nothing; half the 2 MiB to 2.5 s */

	/* an exit never sent: its I/O unknown, the samples' stands */
	memset(c, 0, sizeof(c));
	struct tl_point l[] = { pt(4, T0 + 500 * MS, S, 10), pt(4, T0 + 1500 * MS, S, 10),
				exit_pt(4, T0 + 2500 * MS, S) };
	l[0].write_bytes = 8 << 20;
	l[1].write_bytes = 16 << 20;
	l[2].write_bytes = JS_NONE;
	for (int i = 0; i < 3; i++)
		l[i].start_ns = T0;
	assert_int_equal(tl_add_node(&g, l, 3, c), 0);
	written = 0;
	for (int i = 0; i < 4; i++)
		written += c[i].c[TL_WRITE];
	assert_near(written, 16 << 20);
}

/* a step on two nodes: counters and resident sets add up, the nodes are counted */
static void test_nodes_and_steps(void **state)
{
	struct tl_grid g = { T0, S, 2 };
	struct tl_cell step[2] = {}, job[2] = {};
	struct tl_point a[] = { pt(1, T0 + 200 * MS, 0, 1000), pt(1, T0 + 1200 * MS, S, 1000) };
	struct tl_point b[] = { pt(1, T0 + 700 * MS, 0, 3000), pt(1, T0 + 1700 * MS, S, 3000),
				pt(2, T0 + 1700 * MS, S, 500) };

	(void)state;
	assert_int_equal(tl_add_node(&g, a, 2, step), 0);
	assert_int_equal(tl_add_node(&g, b, 3, step), 0);
	assert_int_equal(step[0].nnodes, 2);
	assert_int_equal(step[0].rss_kb, 4000);
	assert_int_equal(step[1].rss_kb, 4500);
	assert_int_equal(step[1].nprocs, 3);
	assert_near(step[0].c[TL_CPU] + step[1].c[TL_CPU], 2e9);
	tl_sum(job, step, 2);
	tl_sum(job, step, 2);
	assert_int_equal(job[1].rss_kb, 9000);
	assert_int_equal(job[1].nnodes, 2); /* the same two nodes */
	assert_near(job[0].c[TL_CPU] + job[1].c[TL_CPU], 4e9);
}

/* an interval as a row: cores over the part the step ran, shares of its allocation */
static void test_rows(void **state)
{
	struct tl_grid g = { T0, 10 * S, 3 };
	struct tl_cell c[3] = {};
	struct tl_span sp = { .start_ns = T0 + 2 * S, .end_ns = T0 + 25 * S, .nnodes = 2 };
	struct row s, r;
	struct tl_line l;

	(void)state;
	row_init(&s, ROW_STEP);
	snprintf(s.jobid, sizeof(s.jobid), "77.0");
	s.alloc_cpus = 4;
	s.req_mem_share_mb = 1000;
	c[0] = (struct tl_cell){ .c = { 16e9, 8e6, 0, 0, 0 },
				 .rss_kb = 512000,
				 .nprocs = 3,
				 .rounds = 8,
				 .nnodes = 2,
				 .filled = 1,
				 .waits = 1 };
	c[2] = (struct tl_cell){ .c = { 5e9 }, .filled = 1 };
	/* 8 s of the first 10 ran: 2 cores, half the 4 allocated; 500 MB of 1000 */
	assert_int_equal(tl_row_of(&g, 0, c, &sp, &s, &r, &l), 1);
	assert_ptr_equal(r.tl, &l);
	assert_string_equal(r.jobid, "77.0");
	assert_true(l.since_ns == 0 && l.begin_ns == T0 && l.span_ns == 8 * S);
	assert_near(l.cores, 2.0);
	assert_int_equal(r.cpu_ns, 16000000000LL); /* TotalCPU: the interval's */
	assert_near(l.cpu_util, 50.0);
	assert_near(l.mem_util, 50.0);
	assert_near(l.read_rate, 1e6);
	assert_int_equal(r.f.read_bytes, 8000000);
	assert_int_equal(r.f.nprocs, 3);
	assert_int_equal(r.nnodes, 2);
	assert_int_equal(r.f.cpu_wait_ns, 0);
	assert_string_equal(l.note, "");
	/* nothing in it: every figure unknown, and said */
	assert_int_equal(tl_row_of(&g, 1, c, &sp, &s, &r, &l), 1);
	assert_int_equal(r.f.nunits, 0);
	assert_true(l.cores < 0 && l.rss_kb == JS_NONE);
	assert_string_equal(l.note, "no samples");
	/* the last, 5 of its 10 s: CPU known, no round (no RSS, no processes), waits unknown */
	sp.down[0].start_ns = T0 + 22 * S;
	sp.down[0].end_ns = T0 + 40 * S;
	sp.ndown = 1;
	sp.nmissing = 1;
	assert_int_equal(tl_row_of(&g, 2, c, &sp, &s, &r, &l), 1);
	assert_near(l.cores, 1.0);
	assert_true(l.rss_kb == JS_NONE && r.f.nprocs == JS_NONE && r.f.cpu_wait_ns == JS_NONE);
	assert_true(l.since_ns == 20 * S && l.span_ns == 5 * S);
	assert_string_equal(l.note,
			    "tracerd away: spread over the gap; 1 of 2 nodes' samples missing");
	/* a step that had not started yet: no row */
	sp.start_ns = T0 + 12 * S;
	assert_int_equal(tl_row_of(&g, 0, c, &sp, &s, &r, &l), 0);
	sp.start_ns = JS_NONE;
	assert_int_equal(tl_row_of(&g, 2, c, &sp, &s, &r, &l), 0);
}

static void test_point_json(void **state)
{
	struct tl_point p;
	struct json_object *o;

	(void)state;
	o = json_tokener_parse("{\"pid\":5,\"start_boot_ns\":9,\"time_ns\":100,\"cpu_ns\":\"x\","
			       "\"rss_kb\":7,\"exit\":1}");
	assert_int_equal(tl_point_from_json(o, &p), 0);
	assert_true(p.pid == 5 && p.start_boot_ns == 9 && p.time_ns == 100 && p.exit);
	assert_true(p.cpu_ns == JS_NONE && p.rss_kb == 7 && p.start_ns == JS_NONE);
	json_object_put(o);
	o = json_tokener_parse("{\"pid\":5,\"start_boot_ns\":9}"); /* no time */
	assert_int_equal(tl_point_from_json(o, &p), -EINVAL);
	json_object_put(o);
	o = json_tokener_parse("[1,2]");
	assert_int_equal(tl_point_from_json(o, &p), -EINVAL);
	json_object_put(o);
	assert_int_equal(tl_point_from_json(NULL, &p), -EINVAL);
}

/* the timeline's fields are its own, and it takes no field its rows have no value for */
static void test_fields(void **state)
{
	struct col *cols = NULL;
	char err[256];

	(void)state;
	assert_int_equal(
		fields_parse(view_default_format(V_TIMELINE), V_TIMELINE, &cols, err, sizeof(err)),
		14);
	free(cols);
	assert_int_equal(
		fields_parse(view_json_format(V_TIMELINE), V_TIMELINE, &cols, err, sizeof(err)),
		18);
	free(cols);
	assert_int_equal(fields_parse("JobID,State", V_TIMELINE, &cols, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "timeline rows"));
	assert_int_equal(fields_parse("JobID,Cores", V_JOBS, &cols, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid),
		cmocka_unit_test(test_one_process),
		cmocka_unit_test(test_rounds_and_gaps),
		cmocka_unit_test(test_counted_once),
		cmocka_unit_test(test_nodes_and_steps),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_point_json),
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
