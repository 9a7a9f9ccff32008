/* tracer-jobstat: naming what failed — the OOM victim and the first process that exited
 * non-zero or on a signal, in the notes and the Tool field. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

#include "aggregate.h"
#include "convert.h"
#include "effic.h"
#include "failures.h"
#include "procs.h"
#include "notes.h"

static void proc(struct proc_rec *p, int64_t pid, const char *tool, const char *cmd, int64_t status,
		 int64_t flags, int64_t end_ns)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->status = status;
	p->flags = flags;
	p->end_ns = end_ns;
	snprintf(p->tool, sizeof(p->tool), "%s", tool);
	p->cmd = (char *)cmd;
}

/* a finished job in state, of nunits units, with no failures read yet */
static void failed_job(struct job *j, const char *state, int nunits)
{
	memset(j, 0, sizeof(*j));
	row_init(&j->row, ROW_JOB);
	snprintf(j->row.state, sizeof(j->row.state), "%s", state);
	j->row.f.nunits = nunits;
}

static void test_first_failure(void **state)
{
	struct proc_rec p[4];
	struct failures f = {};

	(void)state;
	/* `ls /nonexistent | grep x; exit 3`: ls fails first (2), grep (1), the script last (3) */
	proc(&p[0], 100, "slurm_script", "/bin/sh script", 3 << 8, 0, 900);
	proc(&p[1], 101, "ls", "ls /nonexistent", 2 << 8, 0, 500);
	proc(&p[2], 102, "grep", "grep x", 1 << 8, 0, 510);
	proc(&p[3], 103, "true", "true", 0, 0, 400);
	failures_add(&f, "7.batch", p, 4);
	assert_true(f.checked);
	assert_int_equal(f.nfailed, 3);
	assert_int_equal(f.noom, 0);
	assert_int_equal(f.first.pid, 101);
	assert_string_equal(f.first.tool, "ls");
	assert_string_equal(f.first.step, "7.batch");
	assert_string_equal(f.first.cmd, "ls /nonexistent");
	/* grep may end first (ls closes its output before it exits): siblings failing together
	 * name the one upstream, started first; their parent, ending right after, is not it */
	memset(&f, 0, sizeof(f));
	proc(&p[0], 100, "slurm_script", "/bin/sh script", 3 << 8, 0, 30000000);
	proc(&p[1], 101, "ls", "ls /nonexistent", 2 << 8, 0, 20000000);
	proc(&p[2], 102, "grep", "grep x", 1 << 8, 0, 19000000);
	p[0].start_ns = 1000;
	p[1].start_ns = 2000;
	p[2].start_ns = 2100;
	p[1].ppid = p[2].ppid = 100;
	p[0].ppid = 1;
	failures_add(&f, "7.batch", p, 3);
	assert_int_equal(f.first.pid, 101);
	/* far apart, the first to end is first */
	p[0].end_ns = 300000000;
	p[1].end_ns = 250000000;
	p[2].end_ns = 1000;
	memset(&f, 0, sizeof(f));
	failures_add(&f, "7.batch", p, 3);
	assert_int_equal(f.first.pid, 102);
	memset(&f, 0, sizeof(f));
	proc(&p[1], 101, "ls", "ls /nonexistent", 2 << 8, 0, 500);
	proc(&p[2], 102, "grep", "grep x", 1 << 8, 0, 510);
	failures_add(&f, "7.batch", p + 1, 2);
	/* an unknown end comes last; unknown statuses are not failures */
	proc(&p[0], 200, "x", "x", 9, 0, JS_NONE);
	proc(&p[1], 201, "y", "y", JS_NONE, 0, 1);
	failures_add(&f, "7.0", p, 2);
	assert_int_equal(f.nfailed, 3);
	assert_int_equal(f.first.pid, 101);
}

static void test_oom_victim(void **state)
{
	struct proc_rec p[2];
	struct failures f = {};

	(void)state;
	proc(&p[0], 10, "slurm_script", "/bin/sh s", 0, 0, 900);
	proc(&p[1], 11, "hold", "hold 300 2", 9, PROC_FLAG_OOM, 800);
	failures_add(&f, "2.batch", p, 2);
	assert_int_equal(f.noom, 1);
	assert_int_equal(f.oom[0].pid, 11);
	assert_string_equal(f.oom[0].tool, "hold");
	assert_int_equal(f.first.pid, 11); /* the victim is the first failure too */
}

/* Snakemake's batch step holds the engine, its srun step the tool: at the job's limit the
 * kernel may kill the engine first, but the tool that grew is what to name */
static void test_oom_engine_last(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct proc_rec p[3];
	struct job j;
	size_t n;

	(void)state;
	failed_job(&j, "OUT_OF_MEMORY", 2);
	proc(&p[0], 50, "snakemake", "python3 -m snakemake --snakefile S", 9, PROC_FLAG_OOM, 700);
	p[0].maxrss_kb = 72 * 1024;
	proc(&p[1], 51, "python3", "python3 -c pass", 0, 0, 100);
	p[1].maxrss_kb = 9 * 1024;
	failures_add(&j.fail, "99.batch", p, 2);
	proc(&p[2], 60, "coverage_matrix.py", "coverage_matrix.py in.bam", 9, PROC_FLAG_OOM, 710);
	p[2].maxrss_kb = 58 * 1024;
	failures_add(&j.fail, "99.0", &p[2], 1);
	/* then, knowing the first victim, what grew: tools alive when it struck */
	failures_add_grown(&j.fail, "99.batch", p, 2);
	failures_add_grown(&j.fail, "99.0", &p[2], 1);
	assert_int_equal(j.fail.noom, 2);
	assert_int_equal(j.fail.oom[0].pid, 60); /* the tool, though it ended after the engine */
	assert_int_equal(j.fail.oom[1].pid, 50);
	assert_int_equal(j.fail.first.pid, 60);
	assert_int_equal(j.fail.grew.pid, 60); /* the engine is larger, but not a tool */
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(
		has_line(lines, n,
			 "the OOM killer stopped process 60 (coverage_matrix.py, step 99.0) and "
			 "process 50 (snakemake, step 99.batch): coverage_matrix.py in.bam"));
	assert_true(has_line(lines, n, "coverage_matrix.py had grown to 58M when it was killed"));
	assert_false(has_line(lines, n, "more"));
	/* more victims than are named: counted, none lost from the count */
	for (int i = 0; i < 5; i++) {
		proc(&p[0], 70 + i, "bwa", "bwa mem", 9, PROC_FLAG_OOM, 800 + i);
		failures_add(&j.fail, "99.1", p, 1);
	}
	assert_int_equal(j.fail.noom, 7);
	assert_int_equal(j.fail.oom[0].pid, 60);
	assert_string_not_equal(j.fail.oom[FAIL_OOM_NAMED - 1].tool, "snakemake");
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "(bwa, step 99.1) and 3 more"));
	/* long names: the line names whole ones and counts the rest, never cut */
	memset(&j.fail, 0, sizeof(j.fail));
	for (int i = 0; i < 5; i++) {
		proc(&p[0], 80 + i, "a-tool-with-a-name-of-32-chars--", "t", 9, PROC_FLAG_OOM,
		     900 + i);
		failures_add(&j.fail, "99.000000000000000000000000002", p, 1);
	}
	n = notes_build(&j, -1, lines, NOTES_MAX);
	for (size_t i = 0; i < n; i++)
		if (strstr(lines[i], "OOM killer stopped")) {
			assert_true(strlen(lines[i]) < NOTE_LEN - 1);
			assert_non_null(strstr(lines[i], " more"));
			assert_non_null(strstr(lines[i], "--, step"));
		}
}

/* the first failure by time, though an OOM kill came later; the tool that grew is one alive
 * when the OOM killer struck, not the largest of the job */
static void test_oom_after_a_failure(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct proc_rec p[3];
	struct job j;
	size_t n;

	(void)state;
	failed_job(&j, "OUT_OF_MEMORY", 2);
	proc(&p[0], 10, "bwa", "bwa index ref.fa", 0, 0, 1000);
	p[0].maxrss_kb = 3000 * 1024; /* large, but over an hour before */
	proc(&p[1], 11, "cp", "cp a b", 1 << 8, 0, 200 * 1000000000LL);
	proc(&p[2], 12, "samtools", "samtools sort x", 9, PROC_FLAG_OOM, 3600 * 1000000000LL);
	p[2].start_ns = 3000 * 1000000000LL;
	p[2].maxrss_kb = 900 * 1024;
	failures_add(&j.fail, "5.0", p, 3);
	failures_add_grown(&j.fail, "5.0", p, 3);
	assert_int_equal(j.fail.first.pid, 11);
	assert_int_equal(j.fail.grew.pid, 12);
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n, "first to fail: process 11 (cp, step 5.0) exited with 1"));
	assert_true(has_line(lines, n, "samtools had grown to 900M when it was killed"));
	assert_false(has_line(lines, n, "bwa"));
}

/* a job Slurm failed before its batch script ran: its batch step has no unit (nothing to
 * read processes from), its wait status is slurmd's error */
static void test_not_started(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct row steps[2];
	struct job j;
	size_t n;

	(void)state;
	failed_job(&j, "FAILED", 0);
	snprintf(j.row.jobid, sizeof(j.row.jobid), "77");
	j.row.exit_status = 4021; /* ESLURMD_IO_ERROR, shown as 0:53 */
	j.slurm = 1;
	row_init(&steps[0], ROW_STEP);
	snprintf(steps[0].jobid, sizeof(steps[0].jobid), "77.batch");
	steps[0].step_id = STEP_BATCH;
	steps[0].exit_status = 4021;
	row_init(&steps[1], ROW_STEP);
	snprintf(steps[1].jobid, sizeof(steps[1].jobid), "77.extern");
	steps[1].step_id = STEP_EXTERN;
	steps[1].f.nunits = 1; /* the extern step was traced, and ran nothing */
	steps[1].f.nprocs = 0;
	j.steps = steps;
	j.nsteps = 2;
	j.row.f.nunits = 1;
	failures_of_job(&j); /* a step without units: no process set to free */
	assert_int_equal(j.fail.nfailed, 0);
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n,
			     "77.batch never started: Slurm failed it before it ran anything "
			     "(ExitCode 0:53 is slurmd's error 4021, \"Slurmd could not connect "
			     "IO\"): its output or error file (-o/-e) could not be opened"));
	/* nothing recorded at all: the same cause, and no word of a missing tracerd */
	j.row.f.nunits = 0;
	steps[1].f.nunits = 0;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_false(has_line(lines, n, "tracer recorded nothing for it"));
	assert_true(has_line(lines, n, "77.batch never started"));
	/* an exit status of 16 and more (4096 on) is no slurmd error */
	j.row.exit_status = steps[0].exit_status = 16 << 8;
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_false(has_line(lines, n, "never started"));
	assert_true(has_line(lines, n, "tracer recorded nothing for it"));
}

/* the whole job: each step's processes from its units, the tool that grew found in another
 * step than the victim's, the records left as they were */
static void test_of_job(void **state)
{
	struct proc_rec b[2], t[1];
	struct unit_rec units[2];
	struct unit_detail detail[2];
	struct row steps[2];
	struct job j;

	(void)state;
	failed_job(&j, "OUT_OF_MEMORY", 2);
	memset(units, 0, sizeof(units));
	memset(detail, 0, sizeof(detail));
	row_init(&steps[0], ROW_STEP);
	snprintf(steps[0].jobid, sizeof(steps[0].jobid), "9.batch");
	steps[0].step_id = units[0].step_id = STEP_BATCH;
	steps[0].f.nunits = 1;
	row_init(&steps[1], ROW_STEP);
	snprintf(steps[1].jobid, sizeof(steps[1].jobid), "9.0");
	steps[1].step_id = units[1].step_id = 0;
	steps[1].f.nunits = 1;
	/* the OOM killer stopped the engine only; the tool of step 0 was alive then */
	proc(&b[0], 50, "snakemake", "snakemake -s S", 9, PROC_FLAG_OOM, 700);
	b[0].maxrss_kb = 80 * 1024;
	proc(&b[1], 51, "python3", "python3 -c pass", 1 << 8, 0, 100);
	proc(&t[0], 60, "samtools", "samtools sort x", 0, 0, JS_NONE);
	t[0].start_ns = 10;
	t[0].maxrss_kb = 60 * 1024;
	detail[0] = (struct unit_detail){ .procs = b, .nprocs = 2 };
	detail[1] = (struct unit_detail){ .procs = t, .nprocs = 1 };
	j.steps = steps;
	j.nsteps = 2;
	j.units = units;
	j.nunits = 2;
	j.detail = detail;
	failures_of_job(&j);
	assert_true(j.fail.checked);
	assert_int_equal(j.fail.noom, 1);
	assert_int_equal(j.fail.oom[0].pid, 50);
	assert_int_equal(j.fail.nfailed, 2);
	assert_int_equal(j.fail.first.pid, 51);
	assert_int_equal(j.fail.grew.pid, 60);
	assert_string_equal(j.fail.grew.step, "9.0");
	assert_int_equal(detail[1].procs[0].pid, 60);
	/* a job that completed is not read */
	snprintf(j.row.state, sizeof(j.row.state), "COMPLETED");
	failures_of_job(&j);
	assert_false(j.fail.checked);
}

static void test_status_text(void **state)
{
	char b[64];

	(void)state;
	failures_status_text(b, sizeof(b), 2 << 8);
	assert_string_equal(b, "exited with 2");
	failures_status_text(b, sizeof(b), 9);
	assert_string_equal(b, "was killed by signal 9 (KILL)");
	failures_status_text(b, sizeof(b), 15);
	assert_string_equal(b, "was killed by signal 15 (TERM)");
	failures_status_text(b, sizeof(b), JS_NONE);
	assert_string_equal(b, "ended");
}

static void test_notes_name_them(void **state)
{
	char lines[NOTES_MAX][NOTE_LEN];
	struct proc_rec p[3];
	struct job j;
	size_t n;

	(void)state;
	failed_job(&j, "FAILED", 1);
	proc(&p[0], 101, "ls", "ls /nonexistent", 2 << 8, 0, 500);
	proc(&p[1], 102, "grep", "grep x", 1 << 8, 0, 510);
	failures_add(&j.fail, "7.batch", p, 2);
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(
		lines, n,
		"first to fail: process 101 (ls, step 7.batch) exited with 2 (2 processes failed): "
		"ls /nonexistent"));
	assert_false(has_line(lines, n, "OOM killer stopped"));
	/* an OOM victim is named once, as the victim */
	memset(&j.fail, 0, sizeof(j.fail));
	proc(&p[2], 11, "hold", "hold 300 2", 9, PROC_FLAG_OOM, 800);
	failures_add(&j.fail, "2.batch", &p[2], 1);
	n = notes_build(&j, -1, lines, NOTES_MAX);
	assert_true(has_line(lines, n,
			     "the OOM killer stopped process 11 (hold, step 2.batch): hold 300 2"));
	assert_false(has_line(lines, n, "first to fail"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_failure),	cmocka_unit_test(test_oom_victim),
		cmocka_unit_test(test_oom_engine_last), cmocka_unit_test(test_oom_after_a_failure),
		cmocka_unit_test(test_not_started),	cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_notes_name_them), cmocka_unit_test(test_of_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
