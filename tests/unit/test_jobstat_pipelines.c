/* tracer-jobstat: workflow labels shared within a job, the --pipeline/--run filters and the
 * pipeline -> run -> step -> tool view (--workflow). */
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
#include "daemons.h"
#include "effic.h"
#include "jobids.h"
#include "output.h"
#include "pipelines.h"
#include "procs.h"
#include "report.h"
#include "listings.h"
#include "tooltable.h"

#define S 1000000000LL
#define T0 1795320000LL

/* a unit as tracerd's "units" reply has it: labels as JSON members ("" for none) */
static void unit(struct unit_rec *u, int64_t id, int64_t job, int64_t step, const char *labels,
		 int64_t start_s, int64_t end_s, int64_t nprocs, int64_t cpu_ms, int64_t maxrss_kb)
{
	char text[2048];
	struct json_object *o;

	snprintf(text, sizeof(text),
		 "{\"id\":%lld,\"name\":\"%lld.x\",\"kind\":\"slurm\",\"uid\":0,\"job_id\":%lld,"
		 "\"step_id\":%lld,\"task_id\":0,\"job_name\":\"j\",\"start_ns\":%lld,\"end_ns\":%"
		 "lld,"
		 "\"state\":\"COMPLETED\",\"exit_status\":0,\"lost_events\":1%s%s,"
		 "\"totals\":{\"nprocs\":%lld,\"cpu_ns\":%lld,\"user_ns\":%lld,\"sys_ns\":%lld,"
		 "\"maxrss_kb\":%lld,"
		 "\"read_bytes\":1000,\"write_bytes\":100,\"rchar\":2000,\"wchar\":300,"
		 "\"oom_kills\":0,\"cpu_wait_ns\":5,"
		 "\"iowait_ns\":6,\"offcpu_ns\":7,\"net_rx_bytes\":8,\"net_tx_bytes\":9,"
		 "\"first_start_ns\":%lld,"
		 "\"last_end_ns\":%lld}}",
		 (long long)id, (long long)job, (long long)job, (long long)step,
		 (long long)(start_s * S), (long long)(end_s * S), *labels ? "," : "", labels,
		 (long long)nprocs, (long long)(cpu_ms * 1000000),
		 (long long)(cpu_ms * 1000000 * 3 / 4), (long long)(cpu_ms * 1000000 / 4),
		 (long long)maxrss_kb, (long long)(start_s * S), (long long)(end_s * S));
	o = json_tokener_parse(text);
	assert_non_null(o);
	assert_int_equal(unit_from_json(o, 0, u), 0);
	json_object_put(o);
}

#define SMK(rule, wc)                                                                       \
	"\"engine\":\"snakemake\",\"pipeline\":\"vc\",\"run\":\"r1\",\"step_name\":\"" rule \
	"\",\"wildcards\":\"" wc "\""
#define SMK_NORUN(rule, wc)                                                  \
	"\"engine\":\"snakemake\",\"pipeline\":\"vc\",\"step_name\":\"" rule \
	"\",\"wildcards\":\"" wc "\""

/* a Snakemake --slurm job: allocation (no labels), batch (all), step 0 (no run, as tracerd
 * finds it from the srun'd command line) */
static void smk_job(struct unit_rec *u, int64_t job, const char *batch_labels,
		    const char *step_labels, int64_t start_s)
{
	unit(&u[0], job * 10, job, STEP_NONE, "", start_s, start_s + 4, 0, 0, 0);
	unit(&u[1], job * 10 + 1, job, STEP_BATCH, batch_labels, start_s, start_s + 4, 3, 800,
	     70000);
	unit(&u[2], job * 10 + 2, job, 0, step_labels, start_s + 1, start_s + 3, 4, 1000 + job,
	     60000);
}

static void test_fill_labels(void **state)
{
	struct unit_rec u[5];

	(void)state;
	smk_job(u, 7, SMK("bwa_map", "sample=A"), SMK_NORUN("bwa_map", "sample=A"), T0);
	unit(&u[3], 74, 7, 1, "\"engine\":\"snakemake\",\"pipeline\":\"other\"", T0, T0 + 1, 1, 1,
	     1);
	unit(&u[4], 75, 7, 2, "\"engine\":\"custom\",\"step_name\":\"s9\"", T0, T0 + 1, 1, 1, 1);
	units_fill_labels(u, 5);
	/* the allocation takes everything of the batch step */
	assert_string_equal(u[0].pipeline, "vc");
	assert_string_equal(u[0].run, "r1");
	assert_string_equal(u[0].step_name, "bwa_map");
	assert_string_equal(u[0].wildcards, "sample=A");
	assert_string_equal(u[0].engine, "snakemake");
	/* step 0 of the same pipeline: the run */
	assert_string_equal(u[2].run, "r1");
	/* another pipeline: not */
	assert_string_equal(u[3].run, "");
	assert_string_equal(u[3].pipeline, "other");
	/* a step named explicitly, with no pipeline: the job's pipeline and run, its own step */
	assert_string_equal(u[4].pipeline, "vc");
	assert_string_equal(u[4].run, "r1");
	assert_string_equal(u[4].step_name, "s9");

	/* nothing labelled: nothing changes */
	unit(&u[0], 1, 8, STEP_NONE, "", T0, T0 + 1, 0, 0, 0);
	unit(&u[1], 2, 8, STEP_BATCH, "", T0, T0 + 1, 1, 1, 1);
	units_fill_labels(u, 2);
	assert_string_equal(u[0].pipeline, "");
	assert_string_equal(u[1].step_name, "");
}

static void test_listed(void **state)
{
	(void)state;
	assert_true(pipelines_listed(NULL, "a"));
	assert_true(pipelines_listed("", "a"));
	assert_true(pipelines_listed("a", "a"));
	assert_true(pipelines_listed("x,a", "a"));
	assert_true(pipelines_listed("a,x", "a"));
	assert_false(pipelines_listed("ab,x", "a"));
	assert_false(pipelines_listed("x,b", "a"));
	assert_false(pipelines_listed("a", "ab"));
	assert_false(pipelines_listed("x", ""));
}

/* jobs 1 (bwa_index), 2 and 3 (bwa_map for A and B) of run r1 of vc; 4: a plain job */
static void make_report(struct report *rep)
{
	struct unit_rec u[3];

	memset(rep, 0, sizeof(*rep));
	smk_job(u, 1, SMK("bwa_index", ""), SMK_NORUN("bwa_index", ""), T0);
	assert_int_equal(report_add_traced_job(rep, u, 3), 0);
	smk_job(u, 2, SMK("bwa_map", "sample=A"), SMK_NORUN("bwa_map", "sample=A"), T0 + 10);
	assert_int_equal(report_add_traced_job(rep, u, 3), 0);
	smk_job(u, 3, SMK("bwa_map", "sample=B"), SMK_NORUN("bwa_map", "sample=B"), T0 + 12);
	assert_int_equal(report_add_traced_job(rep, u, 3), 0);
	smk_job(u, 4, "", "", T0 + 5);
	assert_int_equal(report_add_traced_job(rep, u, 3), 0);
}

/* a job without Slurm's accounting shows the account and partition its units had */
static void test_traced_account(void **state)
{
	struct report rep;
	struct unit_rec u[3];

	(void)state;
	memset(&rep, 0, sizeof(rep));
	smk_job(u, 5, "", "", T0);
	snprintf(u[0].account, sizeof(u[0].account), "physics");
	snprintf(u[1].partition, sizeof(u[1].partition), "gpu");
	assert_int_equal(report_add_traced_job(&rep, u, 3), 0);
	assert_string_equal(rep.jobs[0].row.account, "physics");
	assert_string_equal(rep.jobs[0].row.partition, "gpu");
	report_free(&rep);
}

static void test_job_rows(void **state)
{
	struct report rep;
	const struct job *j;

	(void)state;
	make_report(&rep);
	j = &rep.jobs[1];
	/* the job row takes what its steps agree on; step 0 has the batch step's run */
	assert_string_equal(j->row.pipeline, "vc");
	assert_string_equal(j->row.run, "r1");
	assert_string_equal(j->row.step, "bwa_map");
	assert_string_equal(j->row.wildcards, "sample=A");
	for (size_t i = 0; i < j->nsteps; i++) {
		assert_string_equal(j->steps[i].run, "r1");
		assert_string_equal(j->steps[i].step, "bwa_map");
	}
	assert_string_equal(rep.jobs[3].row.pipeline, "");
	assert_string_equal(rep.jobs[3].row.step, "");
	report_free(&rep);
}

static void test_job_step_disagree(void **state)
{
	struct report rep = {};
	struct unit_rec u[3];

	(void)state;
	unit(&u[0], 1, 9, STEP_BATCH, "\"pipeline\":\"p\",\"run\":\"r\",\"step_name\":\"a\"", T0,
	     T0 + 5, 1, 1, 1);
	unit(&u[1], 2, 9, 0, "\"pipeline\":\"p\",\"run\":\"r\",\"step_name\":\"b\"", T0, T0 + 5, 1,
	     1, 1);
	unit(&u[2], 3, 9, 1, "\"pipeline\":\"p\",\"run\":\"r\",\"step_name\":\"c\"", T0, T0 + 5, 1,
	     1, 1);
	assert_int_equal(report_add_traced_job(&rep, u, 3), 0);
	assert_string_equal(rep.jobs[0].row.pipeline, "p");
	assert_string_equal(rep.jobs[0].row.step, ""); /* steps a, b, c: no one step */
	report_free(&rep);
}

static void test_filter(void **state)
{
	struct report rep;

	(void)state;
	make_report(&rep);
	assert_int_equal(pipelines_filter(&rep, NULL, NULL), 0);
	assert_int_equal(rep.n, 4);
	assert_int_equal(pipelines_filter(&rep, "vc", NULL), 1);
	assert_int_equal(rep.n, 3);
	assert_string_equal(rep.jobs[2].row.jobid, "3");
	assert_int_equal(pipelines_filter(&rep, "vc", "r1,r2"), 0);
	assert_int_equal(pipelines_filter(&rep, NULL, "r2"), 3);
	assert_int_equal(rep.n, 0);
	report_free(&rep);

	make_report(&rep);
	assert_int_equal(pipelines_filter(&rep, "other", NULL), 4);
	report_free(&rep);
}

/* tool rows of a unit: step 0 units of job J run bwa mem (J s of CPU) and samtools view;
 * batch units run snakemake */
static int fake_tools(void *ctx, const struct unit_rec *u, struct json_object **tools)
{
	char text[1024];
	int64_t job = u->job_id;

	(*(int *)ctx)++;
	if (u->step_id == (int64_t)STEP_BATCH)
		snprintf(
			text, sizeof(text),
			"[{\"tool\":\"snakemake\",\"nprocs\":3,\"cpu_ns\":%lld,\"maxrss_kb\":70000,"
			"\"first_start_ns\":%lld,\"last_end_ns\":%lld,\"status_counts\":\"0:1\"}]",
			800LL * 1000000, (long long)u->start_ns, (long long)u->end_ns);
	else
		snprintf(text, sizeof(text),
			 "[{\"tool\":\"bwa\",\"subcommand\":\"mem\",\"nprocs\":1,\"cpu_ns\":%lld,"
			 "\"user_ns\":%lld,"
			 "\"sys_ns\":0,\"maxrss_kb\":%lld,\"read_bytes\":10,\"write_bytes\":0,"
			 "\"first_start_ns\":%lld,\"last_end_ns\":%lld,\"status_counts\":\"0:1,256:"
			 "1\",\"oom_kills\":0},"
			 "{\"tool\":\"samtools\",\"subcommand\":\"view\",\"nprocs\":1,\"cpu_ns\":"
			 "1000000,"
			 "\"maxrss_kb\":3000,\"first_start_ns\":%lld,\"last_end_ns\":%lld,\"status_"
			 "counts\":\"0:1\"},"
			 "{\"nprocs\":1},\"junk\"]",
			 (long long)(job * S), (long long)(job * S), (long long)(30000 + job),
			 (long long)u->start_ns, (long long)(u->start_ns + 2 * S),
			 (long long)u->start_ns, (long long)(u->start_ns + S));
	*tools = json_tokener_parse(text);
	return *tools ? 0 : -EINVAL;
}

/* A Snakemake job's Tool is its rule's tool, not the engine whose CPU in the batch step (and
 * around the tool in the srun step) is larger; a step where only the engine ran names it. */
static void test_job_tool_not_engine(void **state)
{
	static const char engine_only[] =
		"[{\"tool\":\"snakemake\",\"nprocs\":2,\"cpu_ns\":5000000000}]";
	static const char with_tool[] =
		"[{\"tool\":\"snakemake\",\"nprocs\":2,\"cpu_ns\":3000000000},"
		"{\"tool\":\"bwa\",\"subcommand\":\"mem\",\"nprocs\":1,\"cpu_ns\":400000000},"
		"{\"tool\":\"samtools\",\"subcommand\":\"view\",\"nprocs\":1,\"cpu_ns\":100000000}"
		"]";
	struct report rep;
	struct job *j;

	(void)state;
	make_report(&rep);
	j = &rep.jobs[0];
	j->detail = calloc(j->nunits, sizeof(*j->detail));
	assert_non_null(j->detail);
	for (size_t i = 0; i < j->nunits; i++)
		if (j->units[i].step_id == (int64_t)STEP_BATCH)
			j->detail[i].tools = json_tokener_parse(engine_only);
		else if (j->units[i].step_id == 0)
			j->detail[i].tools = json_tokener_parse(with_tool);
	tooltable_job_tools(j);
	assert_string_equal(j->row.tool, "bwa mem");
	for (size_t i = 0; i < j->nsteps; i++)
		if (j->steps[i].step_id == 0)
			assert_string_equal(j->steps[i].tool, "bwa mem");
		else if (j->steps[i].step_id == (int64_t)STEP_BATCH)
			assert_string_equal(j->steps[i].tool, "snakemake");
	report_free(&rep);
}

/* a tool record: its name, figures and exit codes; a malformed status list keeps what it read */
static void test_tool_record(void **state)
{
	struct json_object *rec =
		json_tokener_parse("{\"tool\":\"samtools\",\"subcommand\":\"sort\",\"nprocs\":14,"
				   "\"cpu_ns\":7,\"maxrss_kb\":900,"
				   "\"rchar\":5,\"status_counts\":\"0:12,256:1,:1,9:x\"}");
	struct exit_counts ec = {};
	struct row r;
	char name[64], codes[64];

	(void)state;
	row_init(&r, ROW_TOOL);
	r.cpu_ns = 0;
	assert_int_equal(tooltable_record_name(rec, name, sizeof(name)), 0);
	assert_string_equal(name, "samtools sort");
	tooltable_record_add(&r, &ec, rec);
	tooltable_record_add(&r, &ec, rec);
	assert_int_equal(r.f.nprocs, 28);
	assert_int_equal(r.cpu_ns, 14);
	assert_int_equal(r.f.maxrss_kb, 900);
	assert_int_equal(r.f.rchar, 10);
	exit_counts_format(&ec, 1, codes, sizeof(codes));
	assert_string_equal(codes, "0:0(24),1:0(2),---(2)");
	exit_counts_format(&ec, 0, codes, sizeof(codes));
	assert_string_equal(codes, "0:0,1:0,---");
	json_object_put(rec);
	rec = json_tokener_parse("{\"nprocs\":1}");
	assert_int_equal(tooltable_record_name(rec, name, sizeof(name)), -ENOENT);
	json_object_put(rec);
	rec = json_object_new_string("junk");
	assert_int_equal(tooltable_record_name(rec, name, sizeof(name)), -ENOENT);
	json_object_put(rec);
}

static const struct row *find_row(const struct row *rows, long n, int level, const char *step,
				  const char *tool)
{
	for (long i = 0; i < n; i++)
		if (rows[i].wf_level == level && (!step || !strcmp(rows[i].step, step)) &&
		    (!tool || !strcmp(rows[i].tool, tool)))
			return &rows[i];
	return NULL;
}

static void test_build(void **state)
{
	struct report rep;
	struct row *rows;
	const struct row *r;
	int calls = 0;
	long n;
	char buf[64];
	static const char *const order[][3] = {
		{ "vc", "", "" },
		{ "vc", "r1", "" },
		{ "vc", "r1", "bwa_index" },
		{ "vc", "r1", "bwa_index" },
		{ "vc", "r1", "bwa_index" },
		{ "vc", "r1", "bwa_index" },
		{ "vc", "r1", "bwa_map" },
		{ "vc", "r1", "bwa_map" },
		{ "vc", "r1", "bwa_map" },
		{ "vc", "r1", "bwa_map" },
	};
	static const char *const tools[] = {
		"", "",	       "",	    "bwa mem",	    "snakemake", "samtools view",
		"", "bwa mem", "snakemake", "samtools view"
	};

	(void)state;
	make_report(&rep);
	n = pipelines_build(&rep, fake_tools, &calls, (T0 + 100) * S, &rows);
	assert_int_equal(n, 10);
	assert_int_equal(calls, 6); /* batch and step 0 of three jobs; not the empty allocations */
	for (long i = 0; i < n; i++) {
		assert_string_equal(rows[i].pipeline, order[i][0]);
		assert_string_equal(rows[i].run, order[i][1]);
		assert_string_equal(rows[i].step, order[i][2]);
		assert_string_equal(rows[i].tool, tools[i]);
		assert_int_equal(rows[i].kind, ROW_WF);
	}
	/* the pipeline: every unit's totals of the three workflow jobs (not job 4) */
	r = &rows[0];
	assert_int_equal(r->wf_level, WF_PIPELINE);
	assert_int_equal(r->njobs, 3);
	assert_int_equal(r->f.nprocs, 3 * 7);
	assert_int_equal(r->cpu_ns, (3 * 800 + 1001 + 1002 + 1003) * 1000000LL);
	assert_int_equal(r->f.maxrss_kb, 70000);
	assert_int_equal(r->f.read_bytes, 9 * 1000); /* three units of each job */
	assert_int_equal(r->f.first_start_ns, T0 * S);
	assert_int_equal(r->f.last_end_ns, (T0 + 16) * S);
	assert_int_equal(r->elapsed, 16);
	assert_string_equal(r->jobid, "1,2,3");
	/* the step bwa_map: two jobs, their wildcards */
	r = find_row(rows, n, WF_STEP, "bwa_map", "");
	assert_non_null(r);
	assert_int_equal(r->njobs, 2);
	assert_string_equal(r->wildcards, "sample=A;sample=B");
	assert_string_equal(r->jobid, "2,3");
	assert_int_equal(r->elapsed, 6);
	/* its tool bwa mem: both jobs' records summed, the largest RSS, the exit codes */
	r = find_row(rows, n, WF_TOOL, "bwa_map", "bwa mem");
	assert_non_null(r);
	assert_int_equal(r->njobs, 2);
	assert_int_equal(r->f.nprocs, 2);
	assert_int_equal(r->cpu_ns, 5 * S);
	assert_int_equal(r->user_ns, 5 * S);
	assert_int_equal(r->f.maxrss_kb, 30003);
	assert_int_equal(r->f.read_bytes, 20);
	assert_string_equal(r->exit_codes, "0:0,1:0");
	assert_int_equal(r->f.first_start_ns, (T0 + 11) * S);
	assert_int_equal(r->f.last_end_ns, (T0 + 15) * S);
	assert_int_equal(r->elapsed, 4);
	/* as the columns print them */
	cell_text(F_TOTALCPU, r, &(struct cellctx){ .units = -1 }, buf, sizeof(buf));
	assert_string_equal(buf, "00:00:05"); /* sacct: whole seconds without milliseconds */
	cell_text(F_NJOBS, r, &(struct cellctx){ .units = -1 }, buf, sizeof(buf));
	assert_string_equal(buf, "2");
	cell_text(F_EXITCODE, r, &(struct cellctx){ .units = -1 }, buf, sizeof(buf));
	assert_string_equal(buf, "");
	cell_text(F_TOOL, &rows[0], &(struct cellctx){ .units = -1 }, buf, sizeof(buf));
	assert_string_equal(buf, "");
	cell_text(F_REQMEM, &rows[0], &(struct cellctx){ .units = -1 }, buf, sizeof(buf));
	assert_string_equal(buf, "");
	free(rows);

	/* without a source of tools: the three upper levels only */
	n = pipelines_build(&rep, NULL, NULL, (T0 + 100) * S, &rows);
	assert_int_equal(n, 4);
	free(rows);
	report_free(&rep);

	/* nothing of a workflow: no rows */
	memset(&rep, 0, sizeof(rep));
	n = pipelines_build(&rep, fake_tools, &calls, 0, &rows);
	assert_int_equal(n, 0);
	assert_null(rows);
}

static void test_build_unknown_and_running(void **state)
{
	struct report rep = {};
	struct unit_rec u[2];
	struct row *rows;
	long n;

	(void)state;
	/* a Nextflow task: no run; still running */
	unit(&u[0], 1, 20, STEP_BATCH,
	     "\"engine\":\"nextflow\",\"pipeline\":\"nf\",\"step_name\":\"WF:ALIGN\",\"tag\":"
	     "\"s1\"",
	     T0, 0, 2, 10, 5);
	unit(&u[1], 2, 21, STEP_BATCH,
	     "\"engine\":\"nextflow\",\"pipeline\":\"nf\",\"step_name\":\"WF:ALIGN\",\"tag\":"
	     "\"s2\"",
	     T0 + 1, T0 + 3, 2, 10, 5);
	assert_int_equal(report_add_traced_job(&rep, &u[0], 1), 0);
	assert_int_equal(report_add_traced_job(&rep, &u[1], 1), 0);
	n = pipelines_build(&rep, NULL, NULL, (T0 + 60) * S, &rows);
	assert_int_equal(n, 3);
	assert_string_equal(rows[1].run, JS_UNKNOWN);
	assert_string_equal(rows[2].run, JS_UNKNOWN);
	assert_string_equal(rows[2].step, "WF:ALIGN");
	assert_string_equal(rows[2].tag, "s1;s2");
	assert_int_equal(rows[2].elapsed, 60); /* up to now */
	assert_int_equal(rows[2].f.last_end_ns, JS_NONE);
	free(rows);
	report_free(&rep);
}

static void test_emit_json(void **state)
{
	struct report rep;
	struct row *rows;
	struct col *cols;
	struct out o = { .cc = { .units = -1 } };
	struct emit e = { .o = &o, .json = 1 };
	struct json_object *p, *runs, *steps, *tools, *v;
	char err[128];
	int calls = 0, nc;
	long n;

	(void)state;
	make_report(&rep);
	n = pipelines_build(&rep, fake_tools, &calls, (T0 + 100) * S, &rows);
	nc = fields_parse(view_json_format(V_WORKFLOW), V_WORKFLOW, &cols, err, sizeof(err));
	assert_true(nc > 0);
	e.jcols = cols;
	e.njcols = (size_t)nc;
	e.jarr = json_object_new_array();
	assert_int_equal(pipelines_emit(rows, (size_t)n, &e), (size_t)n);
	assert_int_equal(json_object_array_length(e.jarr), 1);
	p = json_object_array_get_idx(e.jarr, 0);
	assert_true(json_object_object_get_ex(p, "Pipeline", &v));
	assert_string_equal(json_object_get_string(v), "vc");
	assert_true(json_object_object_get_ex(p, "Tool", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(p, "runs", &runs));
	assert_int_equal(json_object_array_length(runs), 1);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(runs, 0), "steps", &steps));
	assert_int_equal(json_object_array_length(steps), 2);
	assert_true(
		json_object_object_get_ex(json_object_array_get_idx(steps, 1), "tools", &tools));
	assert_int_equal(json_object_array_length(tools), 3);
	v = json_object_array_get_idx(tools, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(v, "Tool")), "bwa mem");
	assert_string_equal(json_object_get_string(json_object_object_get(v, "Step")), "bwa_map");
	assert_int_equal(json_object_get_int(json_object_object_get(v, "NJobs")), 2);
	assert_true(json_object_get_double(json_object_object_get(v, "TotalCPU")) == 5.0);
	assert_int_equal(json_object_get_int64(json_object_object_get(v, "MaxRSS")), 30003 * 1024);
	json_object_put(e.jarr);
	free(cols);
	free(rows);
	report_free(&rep);
}

/* Every field --workflow accepts has a value in its rows (a field none of them fills is
 * refused by -o, not printed blank), State among them: the jobs' states, failures first. */
static void test_fields_filled(void **state)
{
	struct unit_rec nf;
	struct report rep;
	struct row *rows;
	char buf[256];
	int calls = 0, blank = 0;
	long n;

	(void)state;
	make_report(&rep);
	snprintf(rep.jobs[2].row.state, sizeof(rep.jobs[2].row.state), "OUT_OF_MEMORY");
	unit(&nf, 90, 90, STEP_BATCH,
	     "\"engine\":\"nextflow\",\"pipeline\":\"nf\",\"step_name\":\"WF:A\",\"tag\":\"s1\"",
	     T0, T0 + 3, 2, 10, 5);
	assert_int_equal(report_add_traced_job(&rep, &nf, 1), 0);
	n = pipelines_build(&rep, fake_tools, &calls, (T0 + 100) * S, &rows);
	assert_true(n > 0);
	for (int f = 0; f < F_COUNT; f++) {
		int filled = 0;

		if (!field_applies(f, V_WORKFLOW))
			continue;
		for (long i = 0; i < n && !filled; i++) {
			cell_text(f, &rows[i], &(struct cellctx){ .units = -1 }, buf, sizeof(buf));
			filled = buf[0] && strcmp(buf, JS_UNKNOWN);
		}
		if (!filled)
			fprintf(stderr, "--workflow accepts %s but fills none of its rows\n",
				field_defs[f].name);
		blank += !filled;
	}
	assert_int_equal(blank, 0);
	assert_string_equal(find_row(rows, n, WF_STEP, "bwa_map", "")->state,
			    "OUT_OF_MEMORY:1,COMPLETED:1");
	assert_string_equal(find_row(rows, n, WF_STEP, "bwa_index", "")->state, "COMPLETED:1");
	for (long i = 0; i < n; i++)
		if (rows[i].wf_level == WF_PIPELINE && !strcmp(rows[i].pipeline, "vc")) {
			assert_string_equal(rows[i].state, "OUT_OF_MEMORY:1,COMPLETED:2");
			/* sums of every figure the row offers, not a 0 for those it skipped */
			assert_int_equal(rows[i].f.rchar % 2000, 0);
			assert_true(rows[i].f.rchar > 0);
			assert_int_equal(rows[i].f.wchar, rows[i].f.rchar / 2000 * 300);
			assert_true(rows[i].f.lost > 0);
		}
	free(rows);
	report_free(&rep);
}

static void test_options_and_fields(void **state)
{
	struct col *cols;
	char err[128];
	int n;

	(void)state;
	n = fields_parse(view_default_format(V_WORKFLOW), V_WORKFLOW, &cols, err, sizeof(err));
	assert_int_equal(n, 12);
	assert_int_equal(cols[0].field, F_PIPELINE);
	assert_int_equal(cols[3].field, F_TOOL);
	assert_int_equal(cols[5].field, F_STATE);
	free(cols);
	/* fields its rows do not fill are refused, all of them named */
	n = fields_parse("Step,State,CPUEff,TotalCPU,PeakMem", V_WORKFLOW, &cols, err, sizeof(err));
	assert_int_equal(n, -EINVAL);
	assert_string_equal(err,
			    "fields CPUEff, PeakMem do not apply to workflow rows (--workflow)");
	n = fields_parse("MemEff", V_WORKFLOW, &cols, err, sizeof(err));
	assert_int_equal(n, -EINVAL);
	assert_string_equal(err, "field MemEff does not apply to workflow rows (--workflow)");
	n = fields_parse("Wildcards,Tag", V_JOBS, &cols, err, sizeof(err));
	assert_int_equal(n, 2);
	assert_int_equal(cols[0].field, F_WILDCARDS);
	assert_int_equal(cols[1].field, F_TAG);
	free(cols);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_labels),
		cmocka_unit_test(test_listed),
		cmocka_unit_test(test_traced_account),
		cmocka_unit_test(test_job_rows),
		cmocka_unit_test(test_job_step_disagree),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_tool_record),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_build_unknown_and_running),
		cmocka_unit_test(test_emit_json),
		cmocka_unit_test(test_fields_filled),
		cmocka_unit_test(test_job_tool_not_engine),
		cmocka_unit_test(test_options_and_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
