/* Unit tests for correlate/workflow.c, snakemake.c, nextflow.c on the fixtures of real runs
 * (tests/fixtures/README.md): every Snakemake job of a --slurm and a --cluster run of Debian's
 * snakemake 7.21.0 and every Nextflow task, at job level (job name, batch script, working
 * directory) and at process level (argv only), plus explicit values and malformed input.
 * Run from the repository root (make unit), or set TRACER_SRCDIR. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#include "workflow.h"

struct file {
	char *data;
	size_t len;
};

/* Read a fixture into an exact-size heap buffer (no NUL added: valgrind sees overreads). */
static struct file slurp(const char *fmt, ...)
{
	char rel[1024], path[2048];
	struct file f = { NULL, 0 };
	va_list ap;
	FILE *fp;
	long n;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", srcdir(), rel);
	fp = fopen(path, "rb");
	if (!fp)
		fail_msg("cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	f.data = malloc(n ? (size_t)n : 1);
	assert_non_null(f.data);
	f.len = fread(f.data, 1, (size_t)n, fp);
	assert_int_equal(f.len, (size_t)n);
	fclose(fp);
	return f;
}

/* "key=value" from a jobNNNN.job file (name=, comment=, work_dir=) into buf. */
static void job_field(const struct file *f, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key), i = 0, end;

	buf[0] = 0;
	while (i < f->len) {
		for (end = i; end < f->len && f->data[end] != '\n'; end++)
			;
		if (end - i > kl && !memcmp(f->data + i, key, kl) && f->data[i + kl] == '=') {
			snprintf(buf, size, "%.*s", (int)(end - i - kl - 1), f->data + i + kl + 1);
			return;
		}
		i = end + 1;
	}
}

/* The job numbers of a fixture directory (jobNNNN.job files). */
static int job_ids(const char *dir, int *ids, int max)
{
	char path[2048];
	struct dirent *e;
	DIR *d;
	int n = 0, id;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", srcdir(), dir);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) && n < max) {
		size_t l = strlen(e->d_name);

		if (l > 4 && !strcmp(e->d_name + l - 4, ".job") &&
		    sscanf(e->d_name, "job%d", &id) == 1)
			ids[n++] = id;
	}
	closedir(d);
	return n;
}

/* The text after marker up to the next quote, in a file (the independent reading of what a
 * fixture says: "--target-jobs '" -> "bwa_map:sample=B"). */
static int between(const struct file *f, const char *marker, char stop, char *buf, size_t size)
{
	const char *p = memmem(f->data, f->len, marker, strlen(marker)), *end;

	if (!p)
		return 0;
	p += strlen(marker);
	end = memchr(p, stop, f->len - (size_t)(p - f->data));
	if (!end)
		return 0;
	snprintf(buf, size, "%.*s", (int)(end - p), p);
	return 1;
}

static void identify_ok(const struct workflow_input *in, struct workflow_id *id)
{
	memset(id, 0x5a, sizeof(*id));
	assert_int_equal(workflow_identify(in, id), 0);
}

/* ---- Snakemake --slurm: job name snakejob_<rule>_<jobid>, --wrap script, srun step */
static void test_snakemake_slurm(void **state)
{
	char name[256], wd[1024], target[256], rule[128], run[64], want_rule[128], want_job[32];
	struct file job, script, srun;
	struct workflow_input in;
	struct workflow_id id;
	int ids[64], n, i;
	char *colon;

	(void)state;
	n = job_ids("snakemake/slurm", ids, 64);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++) {
		job = slurp("snakemake/slurm/job%d.job", ids[i]);
		script = slurp("snakemake/slurm/job%d.script", ids[i]);
		srun = slurp("snakemake/slurm/srun.%d.argv", ids[i]);
		job_field(&job, "name", name, sizeof(name));
		job_field(&job, "work_dir", wd, sizeof(wd));
		/* what the job name and the script say, read independently */
		assert_int_equal(sscanf(name, "snakejob_%127[a-z_]", want_rule), 1);
		*strrchr(want_rule, '_') = 0;
		snprintf(want_job, sizeof(want_job), "%s", strrchr(name, '_') + 1);
		assert_true(between(&script, "--target-jobs '", '\'', target, sizeof(target)));
		assert_true(between(&script, "/.snakemake/tmp.", '\'', run, sizeof(run)));
		colon = strchr(target, ':');
		assert_non_null(colon);
		snprintf(rule, sizeof(rule), "%.*s", (int)(colon - target), target);
		assert_string_equal(rule, want_rule);

		/* job level: name + script + working directory */
		memset(&in, 0, sizeof(in));
		in.job_name = name;
		in.script = script.data;
		in.script_len = script.len;
		in.cwd = wd;
		identify_ok(&in, &id);
		assert_string_equal(id.engine, "snakemake");
		assert_string_equal(id.pipeline, "variant-calling");
		assert_string_equal(id.run, run);
		assert_string_equal(id.step, rule);
		assert_string_equal(id.job, want_job);
		assert_string_equal(id.wildcards, colon + 1);
		assert_string_equal(id.tag, "");
		assert_string_equal(id.task_hash, "");

		/* the job and a process of it: the snakemake that srun starts in step 0 */
		in.argv = srun.data;
		in.argv_len = srun.len;
		identify_ok(&in, &id);
		assert_string_equal(id.run, run);
		assert_string_equal(id.step, rule);
		assert_string_equal(id.job, want_job);

		/* process level alone: that argv (srun's options first), no job name or script.
		 * It made its own .snakemake/tmp dir: the run is not known from it */
		memset(&in, 0, sizeof(in));
		in.argv = srun.data;
		in.argv_len = srun.len;
		identify_ok(&in, &id);
		assert_string_equal(id.engine, "snakemake");
		assert_string_equal(id.pipeline, "variant-calling");
		assert_string_equal(id.step, rule);
		assert_string_equal(id.wildcards, colon + 1);
		assert_string_equal(id.run, "");
		assert_string_equal(id.job, "");
		assert_true(!memmem(srun.data, srun.len, run, strlen(run)));

		/* the job name alone */
		memset(&in, 0, sizeof(in));
		in.job_name = name;
		identify_ok(&in, &id);
		assert_string_equal(id.engine, "snakemake");
		assert_string_equal(id.step, rule);
		assert_string_equal(id.job, want_job);
		assert_string_equal(id.pipeline, "");
		free(job.data);
		free(script.data);
		free(srun.data);
	}
}

/* One job spelled out, as committed (snakejob_bwa_map_6 mapped sample B). */
static void test_snakemake_slurm_one(void **state)
{
	struct file script = slurp("snakemake/slurm/job1003.script");
	struct workflow_input in = { .job_name = "snakejob_bwa_map_6",
				     .script = script.data,
				     .script_len = script.len,
				     .cwd = "/tmp/tracer-fixtures/variant-calling" };
	struct workflow_id id;

	(void)state;
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "snakemake");
	assert_string_equal(id.pipeline, "variant-calling");
	assert_string_equal(id.step, "bwa_map");
	assert_string_equal(id.job, "6");
	assert_string_equal(id.wildcards, "sample=B");
	assert_int_equal(strlen(id.run), 8);
	free(script.data);
}

/* ---- Snakemake --cluster 'sbatch ...': job named after snakejob.<rule>.<jobid>.sh, properties */
static void test_snakemake_cluster(void **state)
{
	char name[256], wd[1024], rule[128], jobid[32], wc[256], run[64], *p;
	struct file job, script;
	struct workflow_input in;
	struct workflow_id id;
	int ids[64], n, i;

	(void)state;
	n = job_ids("snakemake/cluster", ids, 64);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++) {
		job = slurp("snakemake/cluster/job%d.job", ids[i]);
		script = slurp("snakemake/cluster/job%d.script", ids[i]);
		job_field(&job, "name", name, sizeof(name));
		job_field(&job, "work_dir", wd, sizeof(wd));
		assert_true(between(&script, "\"rule\": \"", '"', rule, sizeof(rule)));
		assert_true(between(&script, "\"jobid\": ", ',', jobid, sizeof(jobid)));
		assert_true(between(&script, "/.snakemake/tmp.", '\'', run, sizeof(run)));
		assert_true(between(&script, "--target-jobs '", '\'', wc, sizeof(wc)));
		p = strchr(wc, ':');
		assert_non_null(p);
		memset(&in, 0, sizeof(in));
		in.job_name = name;
		in.script = script.data;
		in.script_len = script.len;
		in.cwd = wd;
		identify_ok(&in, &id);
		assert_string_equal(id.engine, "snakemake");
		assert_string_equal(id.pipeline, "variant-calling");
		assert_string_equal(id.step, rule);
		assert_string_equal(id.job, jobid);
		assert_string_equal(id.wildcards, p + 1);
		assert_string_equal(id.run, run);
		/* the name Slurm gave the job agrees */
		memset(&in, 0, sizeof(in));
		in.job_name = name;
		identify_ok(&in, &id);
		assert_string_equal(id.step, rule);
		assert_string_equal(id.job, jobid);
		free(job.data);
		free(script.data);
	}
}

/* ---- Nextflow: every task of the fixture, job level and process level */
static void test_nextflow(void **state)
{
	static const struct {
		const char *step, *tag, *hash, *jobname_step;
	} want[] = {
		{ "VARIANT_CALLING:BWA_MEM", "sampleA", "3f/0a4e8b9c1d2e3f405162738495a6b7",
		  "VARIANT_CALLING_BWA_MEM" },
		{ "VARIANT_CALLING:SAMTOOLS_SORT", "sampleA", "a7/c21d09e5f64b3a8d7e6f5041322b1c",
		  "VARIANT_CALLING_SAMTOOLS_SORT" },
		{ "BCFTOOLS_CALL", "1", "e9/4b0f7d2a6c4e1b9f8a7d6c5b4a3928", "BCFTOOLS_CALL" },
	};
	char name[256], wd[1024], argv[2048];
	struct workflow_input in;
	struct workflow_id id;
	struct file job, script;
	size_t i;
	int len;

	(void)state;
	for (i = 0; i < 3; i++) {
		job = slurp("nextflow/slurm/job%zu.job", 1001 + i);
		script = slurp("nextflow/slurm/job%zu.script", 1001 + i);
		job_field(&job, "name", name, sizeof(name));
		job_field(&job, "work_dir", wd, sizeof(wd));
		memset(&in, 0, sizeof(in));
		in.job_name = name;
		in.script = script.data;
		in.script_len = script.len;
		in.cwd = wd;
		identify_ok(&in, &id);
		assert_string_equal(id.engine, "nextflow");
		assert_string_equal(id.pipeline, "variant-calling");
		assert_string_equal(id.step, want[i].step);
		assert_string_equal(id.tag, want[i].tag);
		assert_string_equal(id.task_hash, want[i].hash);
		assert_string_equal(id.run, "");
		assert_string_equal(id.job, "");
		assert_string_equal(id.wildcards, "");
		/* the script alone (a job name changed by clusterOptions: -J) */
		in.job_name = "something-else";
		in.cwd = NULL;
		identify_ok(&in, &id);
		assert_string_equal(id.step, want[i].step);
		assert_string_equal(id.task_hash, want[i].hash);
		/* the job name alone: the sanitised process name */
		memset(&in, 0, sizeof(in));
		in.job_name = name;
		identify_ok(&in, &id);
		assert_string_equal(id.engine, "nextflow");
		assert_string_equal(id.step, want[i].jobname_step);
		assert_string_equal(id.tag, want[i].tag);
		/* a process of the task: bash -ue <workdir>/.command.sh */
		len = snprintf(argv, sizeof(argv), "/bin/bash%c-ue%c%s/.command.sh", 0, 0, wd);
		memset(&in, 0, sizeof(in));
		in.argv = argv;
		in.argv_len = (size_t)len;
		identify_ok(&in, &id);
		assert_string_equal(id.engine, "nextflow");
		assert_string_equal(id.task_hash, want[i].hash);
		assert_string_equal(id.pipeline, "variant-calling");
		assert_string_equal(id.step, "");
		/* with task stats on: bash .command.run nxf_trace, relative, in the work dir */
		len = snprintf(argv, sizeof(argv), "/bin/bash%c.command.run%cnxf_trace", 0, 0);
		in.argv_len = (size_t)len;
		in.cwd = wd;
		identify_ok(&in, &id);
		assert_string_equal(id.task_hash, want[i].hash);
		free(job.data);
		free(script.data);
	}
}

/* ---- explicit values win; explicit alone is a "custom" workflow */
static void test_explicit(void **state)
{
	struct workflow_input in = { .job_name = "snakejob_bwa_map_6",
				     .pipeline = "exome",
				     .run = "2024-06-batch3",
				     .step = "" };
	struct workflow_id id;

	(void)state;
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "snakemake");
	assert_string_equal(id.pipeline, "exome");
	assert_string_equal(id.run, "2024-06-batch3");
	assert_string_equal(id.step, "bwa_map"); /* "" is not a value */
	assert_string_equal(id.job, "6");
	memset(&in, 0, sizeof(in));
	in.job_name = "my-analysis";
	in.step = "align";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "custom");
	assert_string_equal(id.step, "align");
	assert_string_equal(id.pipeline, "");
	memset(&in, 0, sizeof(in));
	in.job_name = "interactive";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	assert_string_equal(id.step, "");
	/* explicit values are cut to the field and cleaned of control characters */
	in.pipeline = "a\nb\tc";
	identify_ok(&in, &id);
	assert_string_equal(id.pipeline, "a?b?c");
}

/* ---- other Snakemake shapes: the plugin of snakemake 8, group jobs, layouts, odd JSON */
static void test_snakemake_shapes(void **state)
{
	static const char group[] =
		"#!/bin/sh\n# properties = {\"type\": \"group\", \"groupid\": \"mapping\", "
		"\"local\": false, \"input\": [], \"output\": [], \"threads\": 1, \"resources\": "
		"{}, "
		"\"jobid\": \"3e0c0d6c-7a70-5b8c-9a57-7d5bc0f9e4f1\"}\n"
		"cd /home/u/proj && python3 -m snakemake --snakefile /home/u/proj/Snakefile "
		"--target-jobs 'bwa_map:sample=A' 'samtools_sort:sample=A'\n";
	static const char props[] =
		"#!/bin/sh\n# properties = {\"type\": \"single\", \"rule\": \"call\", "
		"\"wildcards\": {\"sample\": \"A \\\"x\\\"\", \"n\": 3, \"u\": \"\\u0041\"}, "
		"\"jobid\": 12, \"nested\": {\"a\": [1, {\"b\": [true, null, -1.5e3]}]}}\n";
	static const char broken[] = "#!/bin/sh\n# properties = {\"rule\": \"x\", \"jobid\": [1,\n";
	struct workflow_input in;
	struct workflow_id id;
	char argv[512];
	int len;

	(void)state;
	/* snakemake-executor-plugin-slurm: --job-name <run uuid> --comment
	 * rule_<rule>_wildcards_<v> */
	memset(&in, 0, sizeof(in));
	in.job_name = "5f1c7b2e-8d3a-4c6f-9b0e-2a7d4e6f8a1c";
	in.job_comment = "rule_bwa_map_wildcards_A";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "snakemake");
	assert_string_equal(id.step, "bwa_map");
	assert_string_equal(id.wildcards, "A");
	assert_string_equal(id.run, "5f1c7b2e-8d3a-4c6f-9b0e-2a7d4e6f8a1c");
	in.job_comment = "rule_all";
	identify_ok(&in, &id);
	assert_string_equal(id.step, "all");
	assert_string_equal(id.wildcards, "");
	/* a group job: the group is the step */
	memset(&in, 0, sizeof(in));
	in.script = group;
	in.script_len = sizeof(group) - 1;
	identify_ok(&in, &id);
	assert_string_equal(id.step, "mapping");
	assert_string_equal(id.job, "3e0c0d6c-7a70-5b8c-9a57-7d5bc0f9e4f1");
	assert_string_equal(id.pipeline, "proj");
	/* JSON escapes, non-string wildcards, nested values skipped */
	in.script = props;
	in.script_len = sizeof(props) - 1;
	identify_ok(&in, &id);
	assert_string_equal(id.step, "call");
	assert_string_equal(id.job, "12");
	assert_string_equal(id.wildcards, "sample=A \"x\",n=3,u=A");
	/* malformed JSON: what could be read, nothing made up */
	in.script = broken;
	in.script_len = sizeof(broken) - 1;
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "snakemake");
	assert_string_equal(id.step, "x");
	assert_string_equal(id.job, "");
	/* pipeline naming: a relative Snakefile in the working directory, --directory, none */
	len = snprintf(argv, sizeof(argv),
		       "snakemake%c-s%cworkflow/Snakefile%c--target-jobs%cqc:", 0, 0, 0, 0);
	memset(&in, 0, sizeof(in));
	in.argv = argv;
	in.argv_len = (size_t)len;
	in.cwd = "/data/projects/rnaseq";
	identify_ok(&in, &id);
	assert_string_equal(id.pipeline, "rnaseq");
	assert_string_equal(id.step, "qc");
	assert_string_equal(id.wildcards, "");
	len = snprintf(argv, sizeof(argv),
		       "snakemake%c--directory=/scratch/run7%c--snakefile=./Snakefile", 0, 0);
	in.argv_len = (size_t)len;
	identify_ok(&in, &id);
	assert_string_equal(id.pipeline, "run7");
	len = snprintf(argv, sizeof(argv), "/usr/bin/snakemake%c--slurm%c-j%c4", 0, 0, 0);
	in.argv_len = (size_t)len;
	in.cwd = "/home/u/chipseq/workflow";
	identify_ok(&in, &id);
	assert_string_equal(id.pipeline, "chipseq");
	assert_string_equal(id.step, "");
	/* --wait-for-files-file names the invocation too (in the command --slurm wraps) */
	len = snprintf(argv, sizeof(argv),
		       "python%c-m%csnakemake%c--wait-for-files-file%c"
		       "/p/.snakemake/tmp.abc123xy/snakejob.a.1.sh.waitforfilesfile.txt%c"
		       "--slurm-jobstep",
		       0, 0, 0, 0, 0);
	in.argv_len = (size_t)len;
	identify_ok(&in, &id);
	assert_string_equal(id.run, "abc123xy");
	/* not Snakemake */
	memset(&in, 0, sizeof(in));
	in.job_name = "snakejob_";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	in.job_name = "snakejob.x.sh";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	in.job_name = "snakejob_rule_notanumber";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
}

/* ---- bad and odd input: nothing crashes, nothing is made up */
static void test_odd_input(void **state)
{
	static const char not_hex[] = "bash\0/x/work/zz/0a4e8b9c1d2e3f405162738495a6b7/.command.sh";
	static const char relative[] = "bash\0.command.sh";
	struct workflow_input in;
	struct workflow_id id, before;
	char *big;
	size_t i;

	(void)state;
	memset(&before, 0x5a, sizeof(before));
	id = before;
	assert_int_equal(workflow_identify(NULL, &id), -EINVAL);
	assert_memory_equal(&id, &before, sizeof(id));
	memset(&in, 0, sizeof(in));
	assert_int_equal(workflow_identify(&in, NULL), -EINVAL);
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	/* a script of NULs, a script with a NUL inside, a 1 MiB script of one line */
	big = malloc(1 << 20);
	assert_non_null(big);
	memset(big, 0, 4096);
	in.script = big;
	in.script_len = 4096;
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	memcpy(big, "#!/bin/bash\n\0# NEXTFLOW TASK: HIDDEN (x)\n", 41);
	in.script_len = 41;
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	for (i = 0; i < (1 << 20); i++)
		big[i] = "snakemake --target-jobs 'a:b' "[i % 30];
	in.script_len = 1 << 20;
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "snakemake");
	free(big);
	/* Nextflow look-alikes */
	memset(&in, 0, sizeof(in));
	in.job_name = "nf-";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	in.job_name = "nf-PROC_(unclosed";
	identify_ok(&in, &id);
	assert_string_equal(id.step, "PROC_(unclosed");
	assert_string_equal(id.tag, "");
	in.job_name = NULL;
	in.argv = not_hex;
	in.argv_len = sizeof(not_hex) - 1;
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	in.argv = relative;
	in.argv_len = sizeof(relative) - 1;
	in.cwd = "/x/work/3f/short";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "");
	/* a work directory not under "work": its own name is the pipeline */
	in.cwd = "/scratch/nfwork/3f/0a4e8b9c1d2e3f405162738495a6b7";
	identify_ok(&in, &id);
	assert_string_equal(id.engine, "nextflow");
	assert_string_equal(id.pipeline, "nfwork");
	/* wildcards longer than their buffer: cut, and nothing written or pointed at past it */
	big = malloc(2048);
	assert_non_null(big);
	i = (size_t)snprintf(big, 2048, "# properties = {\"rule\": \"r\", \"wildcards\": {");
	for (int w = 0; w < 6; w++)
		i += (size_t)snprintf(big + i, 2048 - i, "%s\"k%d%0100d\": \"%0100d\"",
				      w ? ", " : "", w, 0, w);
	i += (size_t)snprintf(big + i, 2048 - i, "}}\n");
	memset(&in, 0, sizeof(in));
	in.script = big;
	in.script_len = i;
	identify_ok(&in, &id);
	assert_string_equal(id.step, "r");
	assert_int_equal(strlen(id.wildcards), sizeof(id.wildcards) - 1);
	assert_memory_equal(id.wildcards, "k0000", 5);
	free(big);
	/* a task name longer than the field is cut, not overrun */
	big = malloc(600);
	assert_non_null(big);
	memcpy(big, "# NEXTFLOW TASK: ", 17);
	memset(big + 17, 'P', 500);
	memcpy(big + 517, " (t)\n", 5);
	memset(&in, 0, sizeof(in));
	in.script = big;
	in.script_len = 522;
	identify_ok(&in, &id);
	assert_int_equal(strlen(id.step), sizeof(id.step) - 1);
	assert_string_equal(id.tag, "t");
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snakemake_slurm),
		cmocka_unit_test(test_snakemake_slurm_one),
		cmocka_unit_test(test_snakemake_cluster),
		cmocka_unit_test(test_nextflow),
		cmocka_unit_test(test_explicit),
		cmocka_unit_test(test_snakemake_shapes),
		cmocka_unit_test(test_odd_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
