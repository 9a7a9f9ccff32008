/* Snakemake on Slurm, as Debian 12's snakemake 7.21.0 submits jobs (fixtures and how they were
 * made: tests/fixtures/snakemake/). Where each field comes from:
 *
 * --slurm (snakemake/executors/slurm/slurm_submit.py):
 *   sbatch -J snakejob_<rule>_<jobid> -o .snakemake/slurm_logs/rule_<rule>/%j.log --export=ALL
 *          [-A ACCOUNT] [-p PARTITION] [-t MIN] [--mem MB] --cpus-per-task=N -D <workdir>
 *          --wrap='<python3> -m snakemake --snakefile '<abs Snakefile>' --target-jobs
 *          '<rule>:<k>=<v>,...' ... --wait-for-files '<workdir>/.snakemake/tmp.XXXXXXXX' ...
 *          --slurm-jobstep --jobs 1 --mode 2'
 *   so the batch script is sbatch's "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n"
 *   + that command line, and inside the job `srun -n1 --cpu-bind=q <python3> -m snakemake ...`
 *   runs the rule (slurm_jobstep.py).
 * --cluster 'sbatch ...' (executors/__init__.py, jobscript.sh): the job script
 *   <workdir>/.snakemake/tmp.XXXXXXXX/snakejob.<rule>.<jobid>.sh is
 *   "#!/bin/sh\n# properties = <JSON with rule, jobid, wildcards>\n<cd workdir &&> <python3> -m
 *   snakemake ... --target-jobs ... --wait-for-files '<tmpdir>' ...", and Slurm names the job
 *   after the script file unless -J is given.
 * snakemake >= 8 with snakemake-executor-plugin-slurm (not in Debian 12; its documented shape):
 *   --job-name <run uuid> --comment rule_<rule>[_wildcards_<values joined by _>].
 *
 * step = the rule (or the group id of a group job); job = Snakemake's job id; wildcards as
 * --target-jobs writes them; run = the invocation: the random part of its .snakemake/tmp.XXXX
 * directory, as the job script shows it (or the run uuid of the plugin); pipeline = the name of the
 * directory holding the Snakefile, or of its parent when that directory is "workflow" (the layout
 * Snakemake recommends), else of the working directory. */
#include <stdio.h>
#include <string.h>

#include "engine_input.h"
#include "engines.h"
#include "json.h"

#define PATH_BUF 1024

struct smk {
	const struct workflow_input *in;
	struct workflow_id *id;
	int seen;
	char run[64]; /* a .snakemake/tmp.XXXX seen on the command line */
	char snakefile[PATH_BUF];
	char workdir[PATH_BUF];
};

/* The value of option word i (--name=value or the next word) when it is long or short. */
static int opt_value(const struct words *ws, size_t *i, const char *lng, const char *shrt,
		     struct word *val)
{
	struct word w = ws->w[*i];
	size_t l = strlen(lng);

	if (w.len > l && memcmp(w.s, lng, l) == 0 && w.s[l] == '=') {
		val->s = w.s + l + 1;
		val->len = w.len - l - 1;
		return 1;
	}
	if (!word_eq(w, lng) && !(shrt && word_eq(w, shrt)))
		return 0;
	if (*i + 1 >= ws->n)
		return 0;
	*val = ws->w[++*i];
	return 1;
}

static void note_tmpdir(struct smk *s, struct word w)
{
	static const char mark[] = "/.snakemake/tmp.";
	size_t i, l = sizeof(mark) - 1, end;

	for (i = 0; i + l <= w.len; i++)
		if (memcmp(w.s + i, mark, l) == 0) {
			for (end = i + l; end < w.len && w.s[end] != '/'; end++)
				;
			if (end > i + l)
				SET_ONCE(s->run, w.s + i + l, end - i - l);
			return;
		}
}

/* "rule:k=v,k2=v2" */
static void set_target(struct smk *s, struct word t)
{
	const char *colon = memchr(t.s, ':', t.len);

	if (!colon || colon == t.s)
		return;
	SET_ONCE(s->id->step, t.s, (size_t)(colon - t.s));
	SET_ONCE(s->id->wildcards, colon + 1, t.len - (size_t)(colon + 1 - t.s));
}

static void copy_path(char *dst, struct word v)
{
	if (!dst[0] && v.len && v.len < PATH_BUF) {
		memcpy(dst, v.s, v.len);
		dst[v.len] = 0;
	}
}

/* A snakemake command line among ws: read its options. Its --wait-for-files names the
 * invocation's .snakemake/tmp.XXXX in a job script (both executors) and in the command that
 * --slurm wraps (--slurm-jobstep); the snakemake that srun then starts inside the job made a
 * tmp dir of its own, so a bare process argv without --slurm-jobstep does not say the run. */
static int parse_cmdline(struct smk *s, const struct words *ws, int from_script)
{
	struct word v;
	size_t i, k;
	int jobstep = 0;

	for (k = 0; k < ws->n; k++)
		if (word_eq(word_basename(ws->w[k]), "snakemake"))
			break;
	if (k == ws->n)
		return 0;
	s->seen = 1;
	for (i = k + 1; i < ws->n; i++) {
		if (opt_value(ws, &i, "--snakefile", "-s", &v)) {
			copy_path(s->snakefile, v);
		} else if (opt_value(ws, &i, "--directory", "-d", &v)) {
			copy_path(s->workdir, v);
		} else if (opt_value(ws, &i, "--wait-for-files-file", NULL, &v)) {
			note_tmpdir(s, v);
		} else if (word_eq(ws->w[i], "--slurm-jobstep")) {
			jobstep = 1;
		} else if (word_eq(ws->w[i], "--target-jobs")) {
			if (i + 1 < ws->n && ws->w[i + 1].len && ws->w[i + 1].s[0] != '-')
				set_target(s, ws->w[++i]);
		} else if (word_eq(ws->w[i], "--wait-for-files")) {
			for (; i + 1 < ws->n && !word_has_prefix(ws->w[i + 1], "--"); i++)
				note_tmpdir(s, ws->w[i + 1]);
		}
	}
	if (s->run[0] && (from_script || jobstep))
		SET_ONCE(s->id->run, s->run, strlen(s->run));
	s->run[0] = 0;
	return 1;
}

/* "# properties = {...}" of a --cluster job script. */
static void parse_properties(struct smk *s, struct word json)
{
	struct word v, k, wv, obj;
	char buf[256], key[128], val[128];
	size_t pos = 0, n = 0;

	s->seen = 1;
	if (json_get(json, "type", &v) == 0 && json_string(v, buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "group") == 0) {
		if (json_get(json, "groupid", &v) == 0 && json_string(v, buf, sizeof(buf)) == 0)
			SET_ONCE(s->id->step, buf, strlen(buf));
	} else if (json_get(json, "rule", &v) == 0 && json_string(v, buf, sizeof(buf)) == 0) {
		SET_ONCE(s->id->step, buf, strlen(buf));
	}
	if (json_get(json, "jobid", &v) == 0) {
		if (json_string(v, buf, sizeof(buf)) == 0)
			SET_ONCE(s->id->job, buf, strlen(buf));
		else
			SET_ONCE(s->id->job, v.s, v.len);
	}
	if (s->id->wildcards[0] || json_get(json, "wildcards", &obj) < 0)
		return;
	buf[0] = 0;
	/* once buf is full, stop: buf + n would point past it */
	while (n < sizeof(buf) && json_next_member(obj, &pos, &k, &wv) == 1) {
		if (json_string(k, key, sizeof(key)) < 0)
			break;
		if (json_string(wv, val, sizeof(val)) < 0)
			field_set(val, sizeof(val), wv.s, wv.len);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s=%s", n ? "," : "", key, val);
	}
	SET_ONCE(s->id->wildcards, buf, strlen(buf) < sizeof(buf) ? strlen(buf) : sizeof(buf) - 1);
}

static int script_line(struct word line, void *ctx)
{
	static const char props[] = "# properties = ";
	struct smk *s = ctx;
	struct words ws;
	char buf[8192];

	if (word_has_prefix(line, props)) {
		line.s += sizeof(props) - 1;
		line.len -= sizeof(props) - 1;
		parse_properties(s, line);
		return 0;
	}
	if (!line.len || line.s[0] == '#')
		return 0;
	if (!memmem(line.s, line.len, "snakemake", 9))
		return 0;
	words_from_shell(&ws, line.s, line.len, buf, sizeof(buf));
	return parse_cmdline(s, &ws, 1);
}

static int all_digits(struct word w, const char *extra)
{
	size_t i;

	for (i = 0; i < w.len; i++)
		if (!(w.s[i] >= '0' && w.s[i] <= '9') && !(extra && strchr(extra, w.s[i])))
			return 0;
	return w.len > 0;
}

static int is_uuid(const char *s)
{
	size_t i;

	if (strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!strchr("0123456789abcdef", s[i])) {
			return 0;
		}
	}
	return 1;
}

static void parse_job_name(struct smk *s, const char *name)
{
	struct word n = { name, strlen(name) }, rule, jobid;
	const char *sep;

	if (word_has_prefix(n, "snakejob_")) { /* --slurm: snakejob_<rule>_<jobid> */
		if (!(sep = memrchr(n.s, '_', n.len)) || sep < n.s + 9)
			return;
		rule.s = n.s + 9;
		rule.len = (size_t)(sep - rule.s);
	} else if (word_has_prefix(n, "snakejob.") && n.len > 12 &&
		   !memcmp(n.s + n.len - 3, ".sh", 3)) { /* --cluster: snakejob.<rule>.<jobid>.sh */
		n.len -= 3;
		if (!(sep = memrchr(n.s, '.', n.len)) || sep < n.s + 9)
			return;
		rule.s = n.s + 9;
		rule.len = (size_t)(sep - rule.s);
	} else {
		return;
	}
	jobid.s = sep + 1;
	jobid.len = (size_t)(n.s + n.len - jobid.s);
	if (!rule.len || !all_digits(jobid, "abcdef-"))
		return;
	s->seen = 1;
	SET_ONCE(s->id->step, rule.s, rule.len);
	SET_ONCE(s->id->job, jobid.s, jobid.len);
}

/* snakemake-executor-plugin-slurm: --comment rule_<rule>[_wildcards_<values>] */
static void parse_comment(struct smk *s, const char *comment, const char *job_name)
{
	struct word c = { comment, strlen(comment) };
	const char *wc;

	if (!word_has_prefix(c, "rule_") || c.len == 5)
		return;
	s->seen = 1;
	c.s += 5;
	c.len -= 5;
	if ((wc = memmem(c.s, c.len, "_wildcards_", 11))) {
		SET_ONCE(s->id->wildcards, wc + 11, c.len - (size_t)(wc + 11 - c.s));
		c.len = (size_t)(wc - c.s);
	}
	SET_ONCE(s->id->step, c.s, c.len);
	if (job_name && is_uuid(job_name))
		SET_ONCE(s->id->run, job_name, 36);
}

/* The pipeline: the directory of the Snakefile ("workflow" stands for its parent). */
static void set_pipeline(struct smk *s)
{
	char path[2 * PATH_BUF + 2];
	const char *cwd = s->in->cwd && s->in->cwd[0] == '/' ? s->in->cwd : "";
	struct word p, dir, last;
	int drop_file = 1;

	if (s->workdir[0] && s->workdir[0] != '/' && cwd[0])
		snprintf(path, sizeof(path), "%s/%s", cwd, s->workdir);
	else
		snprintf(path, sizeof(path), "%s", s->workdir[0] ? s->workdir : cwd);
	if (s->snakefile[0] == '/')
		snprintf(path, sizeof(path), "%s", s->snakefile);
	else if (s->snakefile[0] && strlen(path) + strlen(s->snakefile) + 2 <= sizeof(path))
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s",
			 path[0] ? "/" : "", s->snakefile);
	else
		drop_file = 0;
	p.s = path;
	p.len = strlen(path);
	if (drop_file)
		path_last(p, &p);
	for (;;) {
		last = path_last(p, &dir);
		if (word_eq(last, ".") && dir.len) {
			p = dir;
			continue;
		}
		break;
	}
	if (word_eq(last, "workflow") && dir.len)
		last = path_last(dir, NULL);
	if (last.len && !word_eq(last, "/") && !word_eq(last, "."))
		SET_ONCE(s->id->pipeline, last.s, last.len);
}

int snakemake_detect(const struct workflow_input *in, struct workflow_id *id)
{
	struct smk s;
	struct words ws;
	struct workflow_id saved = *id;

	memset(&s, 0, sizeof(s));
	s.in = in;
	s.id = id;
	script_lines(in, script_line, &s); /* the job's own script first */
	if (in->argv && in->argv_len) {
		words_from_argv(&ws, in->argv, in->argv_len);
		parse_cmdline(&s, &ws, 0);
	}
	if (in->job_comment)
		parse_comment(&s, in->job_comment, in->job_name);
	if (in->job_name)
		parse_job_name(&s, in->job_name);
	if (!s.seen) {
		*id = saved;
		return 0;
	}
	set_pipeline(&s);
	field_set(id->engine, sizeof(id->engine), "snakemake", 9);
	return 1;
}
