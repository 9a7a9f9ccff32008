/* tracer-jobstat: -o parsing with sacct's widths, aligned cells, -p/-P and the delimiter. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aggregate.h"
#include "arrays.h"
#include "fields.h"
#include "convert.h"
#include "effic.h"
#include "output.h"
#include "safetext.h"

static void test_parse_widths(void **state)
{
	struct col *c;
	char err[256];
	int n;

	(void)state;
	n = fields_parse("JobID,JobName%30,State%-5,elapsed", V_JOBS, &c, err, sizeof(err));
	assert_int_equal(n, 4);
	assert_int_equal(c[0].field, F_JOBID);
	assert_int_equal(c[0].width, -12); /* sacct's default: left-aligned 12 */
	assert_int_equal(c[1].field, F_JOBNAME);
	assert_int_equal(c[1].width, 30);
	assert_int_equal(c[2].field, F_STATE);
	assert_int_equal(c[2].width, -5);
	assert_int_equal(c[3].field, F_ELAPSED); /* names are case-insensitive */
	assert_int_equal(c[3].width, 10);
	free(c);
	/* a unique prefix is enough, as in sacct; empty items and blanks are skipped */
	n = fields_parse(" jobn ,,totalc%0,", V_JOBS, &c, err, sizeof(err));
	assert_int_equal(n, 2);
	assert_int_equal(c[0].field, F_JOBNAME);
	assert_int_equal(c[1].field, F_TOTALCPU);
	assert_int_equal(c[1].width, 10);
	free(c);
	/* the array view's numeric columns hold min/median/max */
	n = fields_parse("Elapsed,NJobs", V_ARRAY, &c, err, sizeof(err));
	assert_int_equal(n, 2);
	assert_int_equal(c[0].width, 32);
	assert_int_equal(c[1].width, 6);
	free(c);
}

static void test_parse_errors(void **state)
{
	struct col *c = NULL;
	char err[256];

	(void)state;
	assert_int_equal(fields_parse("JobID,Bogus", V_JOBS, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Invalid field requested: \"Bogus\""));
	assert_int_equal(fields_parse("M", V_JOBS, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Ambiguous"));
	assert_int_equal(fields_parse("JobID%x", V_JOBS, &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(fields_parse("JobID%12x", V_JOBS, &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(fields_parse(",,", V_JOBS, &c, err, sizeof(err)), -EINVAL);
	/* fields that would print a blank column in a view are refused, saying so */
	assert_int_equal(fields_parse("JobID,Suggest", V_PROCS, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "field Suggest does not apply to process rows (--processes)");
	assert_int_equal(fields_parse("JobID,PID", V_JOBS, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "field PID does not apply to job and step rows");
	assert_int_equal(fields_parse("Tree", V_PROCS, &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(fields_parse("ReqMem", V_TOOLS, &c, err, sizeof(err)), -EINVAL);
	/* every view's defaults and JSON fields apply to it */
	for (enum view v = V_JOBS; v <= V_WORKFLOW; v++) {
		assert_true(fields_parse(view_default_format(v), v, &c, err, sizeof(err)) > 0);
		free(c);
		assert_true(fields_parse(view_json_format(v), v, &c, err, sizeof(err)) > 0);
		free(c);
	}
	/* every view's default and JSON format parses */
	for (int v = V_JOBS; v <= V_ARRAY; v++) {
		assert_true(fields_parse(view_default_format(v), v, &c, err, sizeof(err)) > 0);
		free(c);
		assert_true(fields_parse(view_json_format(v), v, &c, err, sizeof(err)) > 0);
		free(c);
	}
}

static void test_cell(void **state)
{
	char b[128];

	(void)state;
	out_cell(b, sizeof(b), "COMPLETED", 10, 0);
	assert_string_equal(b, " COMPLETED ");
	out_cell(b, sizeof(b), "123.batch", -12, 0);
	assert_string_equal(b, "123.batch    ");
	/* too long: cut, the last character a '+' */
	out_cell(b, sizeof(b), "two-steps.sh", 10, 0);
	assert_string_equal(b, "two-steps+ ");
	out_cell(b, sizeof(b), "two-steps.sh", -5, 0);
	assert_string_equal(b, "two-+ ");
	out_cell(b, sizeof(b), "95.0%", 6, 1);
	assert_string_equal(b, "\033[32m 95.0%\033[0m ");
	out_cell(b, sizeof(b), "5.0%", -6, -1);
	assert_string_equal(b, "\033[31m5.0%  \033[0m ");
	/* widths in characters, cut between two of them: never half of one */
	out_cell(b, sizeof(b), "r\xc3\xa9sum\xc3\xa9s", 6, 0);
	assert_string_equal(b, "r\xc3\xa9sum+ ");
	out_cell(b, sizeof(b), "\xc3\xa9t\xc3\xa9", -5, 0);
	assert_string_equal(b, "\xc3\xa9t\xc3\xa9   ");
	out_cell(b, sizeof(b), "\xe6\x97\xa5\xe6\x97\xa5", 1, 0);
	assert_string_equal(b, "+ ");
	/* widths in terminal columns: a wide character takes 2, a combining mark none */
	out_cell(b, sizeof(b), "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", -6, 0);
	assert_string_equal(b, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e ");
	out_cell(b, sizeof(b), "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", -5, 0);
	assert_string_equal(b, "\xe6\x97\xa5\xe6\x9c\xac+ ");
	out_cell(b, sizeof(b), "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 4, 0);
	assert_string_equal(b, " \xe6\x97\xa5+ "); /* the second one does not fit whole */
	out_cell(b, sizeof(b), "e\xcc\x81x", -4, 0);
	assert_string_equal(b, "e\xcc\x81x   ");
}

/* a width beyond the widest cell is the widest: a longer value is cut, never padded by a
 * wrapped count */
static void test_cell_widest(void **state)
{
	char v[1101], b[2112];
	size_t n;

	(void)state;
	memset(v, 'a', sizeof(v) - 1);
	v[sizeof(v) - 1] = 0;
	out_cell(b, sizeof(b), v, 2000, 0);
	n = strlen(b);
	assert_int_equal(n, 1024);
	assert_string_equal(b + n - 2, "+ ");
}

/* a job row whose name holds the delimiter */
static void job_row(struct row *r)
{
	row_init(r, ROW_JOB);
	snprintf(r->jobid, sizeof(r->jobid), "42");
	snprintf(r->jobname, sizeof(r->jobname), "a|b");
	snprintf(r->state, sizeof(r->state), "COMPLETED");
	r->elapsed = 65;
	r->alloc_cpus = 2;
	r->req_mem_mb = 4096;
	r->f.nunits = 1;
	r->f.nprocs = 3;
	r->cpu_ns = 60 * 1000000000LL;
}

static char *render(enum parsable p, const char *delim, int noheader, const char *fmt, int *warned)
{
	struct row r;
	struct col *c;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int n = fields_parse(fmt, V_JOBS, &c, err, sizeof(err));
	struct out o = { .f = f,
			 .cols = c,
			 .ncols = (size_t)n,
			 .parsable = p,
			 .delim = delim,
			 .noheader = noheader,
			 .cc = { .units = -1 } };

	job_row(&r);
	out_header(&o);
	out_row(&o, &r);
	fclose(f);
	free(c);
	*warned = o.delim_warned;
	return text;
}

static int count_fields(const char *line, const char *delim)
{
	int n = 1;

	for (const char *p = line; (p = strstr(p, delim)); p += strlen(delim))
		n++;
	return n;
}

static void test_parsable(void **state)
{
	int warned;
	char *t;

	(void)state;
	/* -P: no trailing delimiter; -p: one */
	t = render(P_PLAIN, "|", 0, "JobID,State,Elapsed,AllocCPUS,ReqMem,TotalCPU,CPUEff",
		   &warned);
	assert_string_equal(t, "JobID|State|Elapsed|AllocCPUS|ReqMem|TotalCPU|CPUEff\n"
			       "42|COMPLETED|00:01:05|2|4G|00:01:00|46.2%\n");
	assert_false(warned);
	free(t);
	t = render(P_TRAILING, "|", 1, "JobID,State", &warned);
	assert_string_equal(t, "42|COMPLETED|\n");
	free(t);
	/* sacct's rule: values are not escaped, so a '|' in a name breaks -P's columns ... */
	t = render(P_PLAIN, "|", 1, "JobID,JobName,State", &warned);
	assert_string_equal(t, "42|a|b|COMPLETED\n");
	assert_int_equal(count_fields(t, "|"), 4);
	assert_true(warned); /* ... which is said on stderr */
	free(t);
	/* ... and --delimiter makes it safe */
	t = render(P_PLAIN, ";;", 1, "JobID,JobName,State", &warned);
	assert_string_equal(t, "42;;a|b;;COMPLETED\n");
	assert_int_equal(count_fields(t, ";;"), 3);
	assert_false(warned);
	free(t);
}

static void test_aligned(void **state)
{
	int warned;
	char *t;

	(void)state;
	t = render(P_NONE, "|", 0, "JobID,State%-9,NProcs%4", &warned);
	assert_string_equal(t, "JobID        State     NPro \n" /* sacct cuts names without '+' */
			       "------------ --------- ---- \n"
			       "42           COMPLETED    3 \n");
	free(t);
}

static void test_fit_widths(void **state)
{
	struct row r;
	struct col *c;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int n = fields_parse("JobID,State,Tool,JobName%5", V_JOBS, &c, err, sizeof(err));
	struct out o = { .f = f, .cols = c, .ncols = (size_t)n, .fit = 1, .cc = { .units = -1 } };

	(void)state;
	job_row(&r);
	snprintf(r.state, sizeof(r.state), "OUT_OF_MEMORY");
	snprintf(r.tool, sizeof(r.tool), "pyenv-version-file-read-and-more-than-forty-characters");
	out_header(&o);
	out_row(&o, &r);
	assert_int_equal(len, 0); /* held until the widths are known */
	out_flush(&o);
	fclose(f);
	/* State widens to its value instead of "OUT_OF_ME+"; Tool up to FIT_MAX (40); a width
	 * given with %W cuts as sacct does */
	assert_string_equal(
		text,
		"JobID                State Tool                                     JobNa \n"
		"------------ ------------- ---------------------------------------- ----- \n"
		"42           OUT_OF_MEMORY pyenv-version-file-read-and-more-than-f+   a|b \n");
	free(text);
	free(c);
}

static void test_sacct_fields(void **state)
{
	struct cellctx cc = { .units = -1 };
	struct json_object *o;
	struct row r;
	char b[64];

	(void)state;
	job_row(&r);
	snprintf(r.account, sizeof(r.account), "physics");
	snprintf(r.qos, sizeof(r.qos), "normal");
	snprintf(r.maxrss_node, sizeof(r.maxrss_node), "n2");
	r.submit = 1795320000;
	r.start = 1795320044;
	r.reserved = 44;
	cell_text(F_ACCOUNT, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "physics");
	cell_text(F_QOS, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "normal");
	cell_text(F_RESERVED, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "00:00:44");
	cell_text(F_MAXRSSNODE, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "n2");
	o = cell_json(F_SUBMIT, &r, &cc);
	assert_int_equal(json_object_get_int64(o), 1795320000);
	json_object_put(o);
	o = cell_json(F_RESERVED, &r, &cc);
	assert_int_equal(json_object_get_int64(o), 44);
	json_object_put(o);
	/* a step: Submit is its start, Reserved blank, as sacct prints them */
	r.kind = ROW_STEP;
	cell_text(F_RESERVED, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "");
	cell_text(F_SUBMIT, &r, &cc, b, sizeof(b));
	conv_datetime(b + 32, 32, 1795320044);
	assert_string_equal(b, b + 32);
	/* tracer's figures without a node peak: unknown */
	r.maxrss_node[0] = 0;
	cell_text(F_MAXRSSNODE, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "---");
}

static void test_state_colours(void **state)
{
	struct row r;

	(void)state;
	job_row(&r);
	r.peak_mem_kb = 4000 * 1024;
	r.req_mem_share_mb = 4096;
	r.elapsed = 60;
	r.timelimit = 1;
	assert_int_equal(out_colour(F_MEMEFF, &r), 1);
	/* killed by the OOM killer at 97.7 %: not well sized, red */
	snprintf(r.state, sizeof(r.state), "OUT_OF_MEMORY");
	assert_int_equal(out_colour(F_MEMEFF, &r), -1);
	snprintf(r.state, sizeof(r.state), "FAILED");
	r.f.oom_kills = 1;
	assert_int_equal(out_colour(F_MEMEFF, &r), -1);
	/* failed without the OOM killer: no green either */
	r.f.oom_kills = 0;
	assert_int_equal(out_colour(F_MEMEFF, &r), 0);
	/* TIMEOUT: TimeEff 100 % is red */
	snprintf(r.state, sizeof(r.state), "TIMEOUT");
	assert_int_equal(out_colour(F_TIMEEFF, &r), -1);
}

static void test_unknown_and_blank(void **state)
{
	struct cellctx cc = { .units = -1 };
	struct row r;
	char b[128];

	(void)state;
	row_init(&r, ROW_STEP);
	snprintf(r.jobid, sizeof(r.jobid), "42.extern");
	/* tracer knows nothing of this step: its fields print "---"; sacct's blanks stay blank */
	cell_text(F_NPROCS, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "---");
	cell_text(F_MAXRSS, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "---");
	cell_text(F_REQMEM, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "");
	cell_text(F_TIMELIMIT, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "");
	cell_text(F_USER, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "");
	cell_text(F_NETRX, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "---");
	cell_text(F_IOWAIT, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "---");
	assert_null(cell_json(F_NPROCS, &r, &cc));
	/* a job name with a newline stays on its line, and one with terminal controls, C1
	 * controls, bidi overrides or invalid UTF-8 shows them escaped (safetext.h) */
	snprintf(r.jobname, sizeof(r.jobname), "bad\nname");
	cell_text(F_JOBNAME, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "bad\\x0aname");
	snprintf(r.jobname, sizeof(r.jobname), "\x1b]0;T\x07\xc2\x9b\xe2\x80\xae\xff");
	cell_text(F_JOBNAME, &r, &cc, b, sizeof(b));
	assert_string_equal(b, "\\x1b]0;T\\x07\\u009b\\u202e\\xff");
}

static void test_json_cells(void **state)
{
	struct cellctx cc = { .units = -1 };
	struct json_object *o;
	struct row r;

	(void)state;
	job_row(&r);
	o = cell_json(F_TOTALCPU, &r, &cc);
	assert_true(json_object_get_double(o) == 60.0);
	json_object_put(o);
	o = cell_json(F_REQMEM, &r, &cc);
	assert_int_equal(json_object_get_int64(o), 4096LL * 1024 * 1024);
	json_object_put(o);
	o = cell_json(F_JOBNAME, &r, &cc);
	assert_string_equal(json_object_get_string(o), "a|b");
	json_object_put(o);
	/* text is left as it is: the whole document is escaped once, before it is written */
	snprintf(r.jobname, sizeof(r.jobname), "x\x1b[2J\xc2\x9b");
	o = cell_json(F_JOBNAME, &r, &cc);
	assert_string_equal(json_object_get_string(o), "x\x1b[2J\xc2\x9b");
	assert_int_equal(safe_text_json(o), 0);
	assert_string_equal(json_object_get_string(o), "x\\x1b[2J\\u009b");
	json_object_put(o);
}

static void test_colour_choice(void **state)
{
	(void)state;
	/* never for parsable or JSON output, nor when stdout is not a terminal */
	assert_false(out_want_colour(-1, 0, 0));
	assert_false(out_want_colour(0, 1, 0));
	assert_false(out_want_colour(0, 0, 1));
	assert_int_equal(eff_colour(10), -1);
	assert_int_equal(eff_colour(50), 0);
	assert_int_equal(eff_colour(90), 1);
	assert_int_equal(eff_colour(-1), 0);
}

static void test_helpformat(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	fields_help(f);
	fclose(f);
	assert_non_null(strstr(text, "JobID               JobName             User                "
				     "State               \n"));
	assert_non_null(strstr(text, "Suggest"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_widths),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_cell),
		cmocka_unit_test(test_cell_widest),
		cmocka_unit_test(test_parsable),
		cmocka_unit_test(test_aligned),
		cmocka_unit_test(test_unknown_and_blank),
		cmocka_unit_test(test_json_cells),
		cmocka_unit_test(test_colour_choice),
		cmocka_unit_test(test_helpformat),
		cmocka_unit_test(test_fit_widths),
		cmocka_unit_test(test_state_colours),
		cmocka_unit_test(test_sacct_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
