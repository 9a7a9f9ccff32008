/* Nextflow on Slurm, as its Slurm executor lays out a task (Nextflow 24.04; the fixtures under
 * tests/fixtures/nextflow/ say how each line arises). Nextflow writes <work>/<2 hex>/<30 hex>/
 * .command.run and .command.sh, and runs `sbatch .command.run` in that directory, so:
 *
 *   #!/bin/bash
 *   #SBATCH -J nf-<task name, ' ' '/' ':' '@' '*' '?' made '_'>    e.g. nf-ALIGN_WF_BWA_(s1)
 *   #SBATCH -o <workdir>/.command.log
 *   #SBATCH --no-requeue / --signal B:USR2@30 / -c N / -t T / --mem NM / -p Q ...
 *   # NEXTFLOW TASK: <task name>                                 e.g. ALIGN_WF:BWA (s1)
 *   ...
 *   nxf_launch() {
 *       /bin/bash -ue <workdir>/.command.sh        (or /bin/bash <workdir>/.command.run nxf_trace
 *   }                                               when task stats are on)
 *
 * The task name is "<process> (<tag>)", or "<process> (<index>)" without a tag; the process
 * is fully qualified (WORKFLOW:SUBWORKFLOW:PROCESS) and has no blanks.
 *
 * step = the process; tag = the tag (or index); task_hash = "<2 hex>/<30 hex>" from the work
 * directory; pipeline = the launch directory (the one holding "work/"; with another -w, the
 * work directory's own name); run = not shown by anything a task carries: "" unless given. */
#include <string.h>

#include "engine_input.h"
#include "engines.h"

struct nf {
	const struct workflow_input *in;
	struct workflow_id *id;
	int seen;
};

static int is_hex(struct word w, size_t len)
{
	size_t i;

	if (w.len != len)
		return 0;
	for (i = 0; i < len; i++)
		if (!strchr("0123456789abcdef", w.s[i]))
			return 0;
	return 1;
}

/* A task work directory .../<2 hex>/<30 hex>: the hash and the pipeline. */
static int set_workdir(struct nf *n, struct word dir)
{
	struct word h2, h1, root, rootdir, up;
	char hash[40];

	h2 = path_last(dir, &up);
	h1 = path_last(up, &up);
	if (!is_hex(h1, 2) || !is_hex(h2, 30))
		return 0;
	memcpy(hash, h1.s, 2);
	hash[2] = '/';
	memcpy(hash + 3, h2.s, 30);
	SET_ONCE(n->id->task_hash, hash, 33);
	root = path_last(up, &rootdir);
	if (word_eq(root, "work") && rootdir.len)
		root = path_last(rootdir, NULL);
	if (root.len && !word_eq(root, "/"))
		SET_ONCE(n->id->pipeline, root.s, root.len);
	return 1;
}

/* A path naming .command.sh/.command.run: its directory is the work directory. */
static int set_from_path(struct nf *n, struct word w)
{
	struct word dir, last = path_last(w, &dir);

	if (!word_eq(last, ".command.sh") && !word_eq(last, ".command.run") &&
	    !word_eq(last, ".command.log"))
		return 0;
	if (!dir.len && n->in->cwd) { /* relative: the process's working directory */
		dir.s = n->in->cwd;
		dir.len = strlen(n->in->cwd);
	}
	return set_workdir(n, dir);
}

/* "PROC (tag)" from the script, or "PROC_(tag)" from the job name (after "nf-"). */
static void set_task_name(struct nf *n, struct word t, const char *sep)
{
	const char *p = memmem(t.s, t.len, sep, strlen(sep));
	size_t l;

	if (p && t.s[t.len - 1] == ')') {
		l = (size_t)(p - t.s);
		SET_ONCE(n->id->step, t.s, l);
		l += strlen(sep);
		SET_ONCE(n->id->tag, t.s + l, t.len - l - 1);
	} else {
		SET_ONCE(n->id->step, t.s, t.len);
	}
}

static int script_line(struct word line, void *ctx)
{
	static const char task[] = "# NEXTFLOW TASK: ";
	struct nf *n = ctx;
	struct words ws;
	char buf[4096];
	size_t i;

	while (line.len && (line.s[0] == ' ' || line.s[0] == '\t')) {
		line.s++;
		line.len--;
	}
	if (word_has_prefix(line, task)) {
		line.s += sizeof(task) - 1;
		line.len -= sizeof(task) - 1;
		if (line.len) {
			n->seen = 1;
			set_task_name(n, line, " (");
		}
		return 0;
	}
	if (word_has_prefix(line, "#SBATCH ")) {
		words_from_shell(&ws, line.s + 8, line.len - 8, buf, sizeof(buf));
		for (i = 0; i + 1 < ws.n; i++)
			if (word_eq(ws.w[i], "-o") || word_eq(ws.w[i], "--output"))
				set_from_path(n, ws.w[i + 1]);
		return 0;
	}
	if (line.len && line.s[0] != '#' && memmem(line.s, line.len, ".command.", 9)) {
		words_from_shell(&ws, line.s, line.len, buf, sizeof(buf));
		for (i = 0; i < ws.n; i++)
			set_from_path(n, ws.w[i]);
	}
	return 0;
}

int nextflow_detect(const struct workflow_input *in, struct workflow_id *id)
{
	struct workflow_id saved = *id;
	struct nf n = { in, id, 0 };
	struct words ws;
	struct word name;
	size_t i;

	script_lines(in, script_line, &n);
	if (in->argv && in->argv_len) {
		words_from_argv(&ws, in->argv, in->argv_len);
		for (i = 0; i < ws.n && i < 4;
		     i++) /* bash -ue .../.command.sh, bash .command.run */
			if (set_from_path(&n, ws.w[i]))
				n.seen = 1;
	}
	if (in->job_name && !strncmp(in->job_name, "nf-", 3) && in->job_name[3]) {
		name.s = in->job_name + 3;
		name.len = strlen(name.s);
		set_task_name(&n, name, "_(");
		n.seen = 1;
	}
	if (!n.seen) {
		*id = saved;
		return 0;
	}
	if (in->cwd) { /* the job runs in the task's work directory */
		name.s = in->cwd;
		name.len = strlen(in->cwd);
		set_workdir(&n, name);
	}
	field_set(id->engine, sizeof(id->engine), "nextflow", 8);
	return 1;
}
