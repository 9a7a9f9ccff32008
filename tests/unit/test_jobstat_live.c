/* tracer-jobstat --live's rows (live_tree.c) and frames (live_draw.c): a run's processes become
 * job > tool > process rows whose figures add up, with failures, OOM kills and stalls carried
 * up; rates come from the refresh before; siblings sort by the chosen figure; a folded row hides
 * its children and a filter keeps the ancestors of what it matches; a frame never draws wider
 * than the terminal and never writes a name's own escape bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

#include "live_draw.h"
#include "live_tree.h"
#include "procs.h"
#include "safetext.h"

#define NS 1000000000LL
#define T0 1795400000LL /* unix seconds */

static struct json_object *parse(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	return o;
}

/* a running traced run (unit 5, 2 CPUs) with four processes: two of tool "bwa" (one running
 * at 3 s of CPU and stalled, one ended by the OOM killer), a running "samtools" at 1 s, and an
 * ended "gzip" that exited 1; hostile names are the caller's to give */
static void make_report(struct report *rep, int64_t bwa_cpu_s, const char *gzip_argv0)
{
	char text[1024];
	struct json_object *u = parse("{\"id\":5,\"name\":\"align\",\"kind\":\"local\","
				      "\"state\":\"RUNNING\",\"start_ns\":1795400000000000000,"
				      "\"alloc_cpus\":2,\"alloc_mem_mb\":100}");
	const char *procs[4];
	struct unit_rec ur;
	struct job *j;

	memset(rep, 0, sizeof(*rep));
	assert_int_equal(unit_from_json(u, 0, &ur), 0);
	json_object_put(u);
	assert_int_equal(report_add_local(rep, &ur), 0);
	j = &rep->jobs[0];
	j->detail = calloc(2, sizeof(*j->detail));
	j->detail[0].procs = calloc(4, sizeof(struct proc_rec));
	assert_non_null(j->detail[0].procs);
	snprintf(text, sizeof(text),
		 "{\"pid\":10,\"start_ns\":1795400001000000000,\"tool\":\"bwa\",\"running\":true,"
		 "\"cpu_ns\":%lld,\"rss_kb\":20480,\"read_bytes\":1000,\"write_bytes\":0,"
		 "\"stalled_since_ns\":1795400020000000000,\"stalled_reason\":\"waiting on a "
		 "pipe or FIFO\",\"argv\":[\"bwa\",\"mem\"]}",
		 (long long)(bwa_cpu_s * NS));
	procs[0] = text;
	procs[1] = "{\"pid\":11,\"start_ns\":1795400002000000000,\"end_ns\":1795400005000000000,"
		   "\"tool\":\"bwa\",\"cpu_ns\":1000000000,\"status\":9,\"flags\":8,"
		   "\"argv\":[\"bwa\",\"index\"]}";
	procs[2] = "{\"pid\":12,\"start_ns\":1795400003000000000,\"tool\":\"samtools\","
		   "\"running\":true,\"cpu_ns\":1000000000,\"rss_kb\":10240,"
		   "\"argv\":[\"samtools\",\"sort\"]}";
	{
		static char gz[512];

		snprintf(gz, sizeof(gz),
			 "{\"pid\":13,\"start_ns\":1795400004000000000,\"end_ns\":"
			 "1795400006000000000,\"tool\":\"gzip\",\"cpu_ns\":0,\"status\":256,"
			 "\"argv\":[\"%s\"]}",
			 gzip_argv0);
		procs[3] = gz;
	}
	for (int i = 0; i < 4; i++) {
		struct json_object *o = parse(procs[i]);
		struct proc_rec *p = &j->detail[0].procs[i];

		assert_int_equal(proc_from_json(o, p), 0);
		snprintf(p->node, sizeof(p->node), "n1");
		json_object_put(o);
	}
	j->detail[0].nprocs = 4;
	j->detail[0].procs_fetched = 1;
}

static const struct live_row *row_named(const struct live_tree *t, enum live_level l,
					const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].level == l && strstr(t->rows[i].name, name))
			return &t->rows[i];
	fail_msg("no %s row %s", live_level_name(l), name);
	return NULL;
}

static void test_tree_sums_and_flags(void **state)
{
	struct report rep;
	struct live_tree t;
	const struct live_row *job, *bwa, *gzip, *p;

	(void)state;
	make_report(&rep, 3, "gzip");
	assert_int_equal(live_tree_build(&rep, (T0 + 30) * NS, &t), 0);
	assert_int_equal(t.n, 1 + 3 + 4); /* the run, its three tools, four processes */
	job = &t.rows[0];
	assert_int_equal(job->level, LV_JOB);
	assert_int_equal(job->nprocs, 4);
	assert_int_equal(job->nrunning, 2);
	assert_int_equal(job->noom, 1);
	assert_int_equal(job->nfailed, 2); /* the OOM kill and gzip's exit 1 */
	assert_int_equal(job->c.cpu_ns, 5 * NS);
	assert_int_equal(job->rss_kb, 30720); /* of the running ones */
	assert_int_equal(job->mem_kb, 100 * 1024);
	assert_true(job->running);
	assert_int_equal(job->stalled_since_ns, (T0 + 20) * NS);
	assert_string_equal(job->stall_reason, "waiting on a pipe or FIFO");
	bwa = row_named(&t, LV_TOOL, "bwa");
	assert_int_equal(bwa->nprocs, 2);
	assert_int_equal(bwa->depth, 1);
	assert_true(bwa->alloc_cpus == 2); /* the run's allocation, down to its tools */
	gzip = row_named(&t, LV_TOOL, "gzip");
	assert_false(gzip->running);
	assert_int_equal(gzip->end_ns, (T0 + 6) * NS);
	p = row_named(&t, LV_PROC, "gzip");
	assert_int_equal(p->exit_status, 256);
	assert_int_equal(p->depth, 2);
	p = row_named(&t, LV_PROC, "bwa index");
	assert_int_equal(p->noom, 1);
	live_tree_free(&t);
	report_free(&rep);
}

static void test_rates_from_the_refresh_before(void **state)
{
	struct report a, b;
	struct live_tree ta, tb;
	const struct live_row *bwa;

	(void)state;
	make_report(&a, 3, "gzip");
	make_report(&b, 5, "gzip"); /* 2 s more CPU of bwa mem in the 2 s between */
	assert_int_equal(live_tree_build(&a, (T0 + 30) * NS, &ta), 0);
	assert_int_equal(live_tree_build(&b, (T0 + 32) * NS, &tb), 0);
	live_tree_rates(&tb, &ta);
	bwa = row_named(&tb, LV_PROC, "bwa mem");
	assert_true(bwa->cpu_share > 0.49 && bwa->cpu_share < 0.51); /* 1 core of 2 */
	assert_true(bwa->read_rate == 0);
	assert_true(row_named(&tb, LV_PROC, "samtools")->cpu_share == 0);
	/* an ended process moves no more */
	assert_true(row_named(&tb, LV_PROC, "gzip")->cpu_share == 0);
	/* without a refresh before: over the time since its start (1 s of 27 s on 2 CPUs) */
	live_tree_rates(&ta, NULL);
	bwa = row_named(&ta, LV_PROC, "samtools");
	assert_true(bwa->cpu_share > 0.0185 && bwa->cpu_share < 0.0186);
	live_tree_free(&ta);
	live_tree_free(&tb);
	report_free(&a);
	report_free(&b);
}

/* a tool of more than LIVE_TOOL_OPEN_MAX processes starts folded on the screen; a snapshot (not
 * a terminal: what a script reads) opens every row */
static void test_large_tool_folds_but_not_in_a_snapshot(void **state)
{
	enum { N = LIVE_TOOL_OPEN_MAX + 4 };
	struct json_object *u = parse("{\"id\":6,\"name\":\"many\",\"kind\":\"local\","
				      "\"state\":\"RUNNING\",\"start_ns\":1795400000000000000}");
	struct report rep = { 0 };
	struct live_tree t;
	struct live_view v = { 0 };
	struct unit_rec ur;
	struct job *j;
	size_t idx[N + 2];

	(void)state;
	assert_int_equal(unit_from_json(u, 0, &ur), 0);
	json_object_put(u);
	assert_int_equal(report_add_local(&rep, &ur), 0);
	j = &rep.jobs[0];
	j->detail = calloc(1, sizeof(*j->detail));
	j->detail[0].procs = calloc(N, sizeof(struct proc_rec));
	assert_non_null(j->detail[0].procs);
	for (int i = 0; i < N; i++) {
		char text[256];
		struct json_object *o;

		snprintf(text, sizeof(text),
			 "{\"pid\":%d,\"start_ns\":%lld,\"tool\":\"cat\",\"running\":true,"
			 "\"argv\":[\"cat\"]}",
			 100 + i, (long long)((T0 + 1 + i) * NS));
		o = parse(text);
		assert_int_equal(proc_from_json(o, &j->detail[0].procs[i]), 0);
		json_object_put(o);
	}
	j->detail[0].nprocs = N;
	j->detail[0].procs_fetched = 1;
	assert_int_equal(live_tree_build(&rep, (T0 + 60) * NS, &t), 0);
	live_tree_rates(&t, NULL);
	assert_int_equal(live_tree_visible(&t, &v, idx), 2); /* the run and its folded tool */
	v.all_open = 1;
	assert_int_equal(live_tree_visible(&t, &v, idx), 2 + N);
	live_view_free(&v);
	live_tree_free(&t);
	report_free(&rep);
}

static void test_sort_fold_filter(void **state)
{
	struct report rep;
	struct live_tree t;
	struct live_view v = { 0 };
	size_t idx[16], n;

	(void)state;
	make_report(&rep, 3, "gzip");
	assert_int_equal(live_tree_build(&rep, (T0 + 30) * NS, &t), 0);
	live_tree_rates(&t, NULL);
	/* by start: bwa (1 s), samtools (3 s), gzip (4 s) */
	n = live_tree_visible(&t, &v, idx);
	assert_int_equal(n, 8);
	assert_string_equal(t.rows[idx[1]].name, "bwa");
	assert_string_equal(t.rows[idx[2]].name, "bwa mem");
	assert_string_equal(t.rows[idx[3]].name, "bwa index");
	assert_string_equal(t.rows[idx[4]].name, "samtools");
	assert_string_equal(t.rows[idx[6]].name, "gzip");
	/* by name: bwa, gzip, samtools */
	v.sort = LS_NAME;
	n = live_tree_visible(&t, &v, idx);
	assert_string_equal(t.rows[idx[4]].name, "gzip");
	/* by CPU: bwa (4 s over 29 s) before samtools, gzip (1 s over 2 s, ended: 0.25) */
	v.sort = LS_CPU;
	n = live_tree_visible(&t, &v, idx);
	assert_string_equal(t.rows[idx[1]].name, "bwa");
	assert_string_equal(t.rows[idx[4]].name, "samtools");
	/* folding bwa hides its two processes; again opens them */
	assert_int_equal(live_view_toggle(&v, row_named(&t, LV_TOOL, "bwa")->key), 0);
	assert_int_equal(live_tree_visible(&t, &v, idx), 6);
	assert_int_equal(live_view_toggle(&v, row_named(&t, LV_TOOL, "bwa")->key), 0);
	assert_int_equal(live_tree_visible(&t, &v, idx), 8);
	/* a filter keeps the rows it matches and their ancestors, any case */
	snprintf(v.filter, sizeof(v.filter), "SORT");
	n = live_tree_visible(&t, &v, idx);
	assert_int_equal(n, 3);
	assert_int_equal(t.rows[idx[0]].level, LV_JOB);
	assert_string_equal(t.rows[idx[2]].name, "samtools sort");
	snprintf(v.filter, sizeof(v.filter), "12"); /* a pid */
	assert_int_equal(live_tree_visible(&t, &v, idx), 3);
	live_view_free(&v);
	live_tree_free(&t);
	report_free(&rep);
}

/* the frame's lines without its own control sequences (CSI ... final byte) */
static void check_frame(const char *frame, int cols)
{
	const char *s = frame;
	char line[4096];
	size_t n = 0;

	while (*s) {
		if (s[0] == '\033' && s[1] == '[') {
			for (s += 2; *s && (*s < 0x40 || *s > 0x7e); s++)
				;
			if (*s)
				s++;
			continue;
		}
		assert_int_not_equal(s[0], '\033'); /* only CSI of its own: no OSC, no other */
		if (*s == '\r') {
			s++;
			continue;
		}
		if (*s == '\n') {
			line[n] = 0;
			assert_true(safe_text_width(line) <= (size_t)cols);
			n = 0;
			s++;
			continue;
		}
		assert_true(n + 1 < sizeof(line));
		line[n++] = *s++;
	}
}

static void test_frame_cut_to_the_width_and_escaped(void **state)
{
	struct report rep;
	struct live_tree t;
	struct live_view v = { 0 };
	size_t idx[16];
	char *out;
	size_t len;
	struct live_frame f = { .v = &v, .rows = 20, .colour = 1, .status = "" };
	const int widths[] = { 20, 60, 80, 161 };

	(void)state;
	make_report(&rep, 3,
		    "\\u001b]0;OWNED\\u0007\\u001b[2J\\u202egzip-\\u00e9\\u4e2d\\u6587-very-long-"
		    "name-that-goes-on-and-on-and-on-and-on-and-on");
	assert_int_equal(live_tree_build(&rep, (T0 + 30) * NS, &t), 0);
	live_tree_rates(&t, NULL);
	f.t = &t;
	f.idx = idx;
	f.n = live_tree_visible(&t, &v, idx);
	for (size_t w = 0; w < sizeof(widths) / sizeof(*widths); w++) {
		f.cols = widths[w];
		assert_int_equal(live_draw(&f, &out, &len), 0);
		check_frame(out, f.cols);
		if (f.cols > 100) /* the name shows, escaped */
			assert_non_null(strstr(out, "\\x1b]0;OWNED\\x07\\x1b[2J\\u202egzip-"));
		free(out);
	}
	live_tree_free(&t);
	report_free(&rep);
}

/* a step running for 20 s whose earlier runs took 8, 10 and 12 s: its Usual is their median,
 * and it is slower than usual by the note's rule; at 11 s it is not */
static void test_step_against_its_history(void **state)
{
	struct json_object *u = parse("{\"id\":3,\"name\":\"t\",\"kind\":\"slurm\","
				      "\"job_id\":42,\"step_id\":0,\"task_id\":0,"
				      "\"state\":\"RUNNING\",\"start_ns\":1795400000000000000}");
	struct report rep = { 0 };
	struct live_tree t;
	struct unit_rec ur;
	const struct live_row *step;

	(void)state;
	assert_int_equal(unit_from_json(u, 0, &ur), 0);
	json_object_put(u);
	assert_int_equal(report_add_traced_job(&rep, &ur, 1), 0);
	rep.jobs[0].detail = calloc(2, sizeof(struct unit_detail));
	rep.jobs[0].detail[0].history =
		parse("[{\"start_ns\":0,\"end_ns\":8000000000},{\"start_ns\":0,\"end_ns\":"
		      "12000000000},{\"start_ns\":0,\"end_ns\":10000000000}]");
	assert_int_equal(live_tree_build(&rep, (T0 + 20) * NS, &t), 0);
	step = row_named(&t, LV_STEP, "42.0");
	assert_int_equal(step->usual_ns, 10 * NS);
	assert_true(step->slower);
	live_tree_free(&t);
	assert_int_equal(live_tree_build(&rep, (T0 + 11) * NS, &t), 0);
	assert_false(row_named(&t, LV_STEP, "42.0")->slower);
	live_tree_free(&t);
	report_free(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_sums_and_flags),
		cmocka_unit_test(test_rates_from_the_refresh_before),
		cmocka_unit_test(test_sort_fold_filter),
		cmocka_unit_test(test_large_tool_folds_but_not_in_a_snapshot),
		cmocka_unit_test(test_frame_cut_to_the_width_and_escaped),
		cmocka_unit_test(test_step_against_its_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
