/* Compute: advice per Snakemake rule and Nextflow process, from their jobs' advice. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wfadvice.h"

/* the engine that ran a job's step: its units say */
static const char *job_engine(const struct job *j)
{
	for (size_t i = 0; i < j->nunits; i++)
		if (j->units[i].engine[0])
			return j->units[i].engine;
	return "";
}

/* A name the engine's own options take back as it is: a Snakemake rule is an identifier; a
 * Nextflow process name may hold a workflow's path ("MAIN:ALIGN"). Nothing else is put in a
 * command line or a config to paste. */
static int name_ok(const char *engine, const char *s)
{
	int nf = strcmp(engine, "nextflow") == 0;

	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (nf && (*s == ':' || *s == '.'))))
			return 0;
	return 1;
}

long wfadvice_build(const struct report *rep, struct wf_advice **out)
{
	struct wf_advice *w = NULL;
	size_t n = 0;

	for (size_t i = 0; i < rep->n; i++) {
		const struct job *j = &rep->jobs[i];
		const char *engine = job_engine(j);
		struct advice a;
		size_t k;

		if (!j->slurm || j->row.kind != ROW_JOB || j->row.running || !j->row.f.nunits ||
		    (strcmp(engine, "snakemake") && strcmp(engine, "nextflow")) ||
		    !name_ok(engine, j->row.step))
			continue;
		row_advice(&j->row, &a);
		if (a.cpus <= 0 && a.node_mem_mb <= 0 && a.time_min <= 0)
			continue;
		for (k = 0; k < n; k++)
			if (!strcmp(w[k].engine, engine) &&
			    !strcmp(w[k].pipeline, j->row.pipeline) && w[k].uid == j->uid &&
			    !strcmp(w[k].step, j->row.step))
				break;
		if (k == n) {
			struct wf_advice *nw = realloc(w, (n + 1) * sizeof(*w));

			if (!nw) {
				free(w);
				return -ENOMEM;
			}
			w = nw;
			memset(&w[n], 0, sizeof(w[n]));
			snprintf(w[n].engine, sizeof(w[n].engine), "%s", engine);
			snprintf(w[n].pipeline, sizeof(w[n].pipeline), "%s", j->row.pipeline);
			snprintf(w[n].step, sizeof(w[n].step), "%s", j->row.step);
			snprintf(w[n].user, sizeof(w[n].user), "%s", j->row.user);
			w[n].uid = j->uid;
			w[n].a = a;
			n++;
		} else {
			advice_merge(&w[k].a, &a);
		}
		w[k].njobs++;
	}
	*out = w;
	return (long)n;
}

int wfadvice_same_group(const struct wf_advice *a, const struct wf_advice *g)
{
	return !strcmp(a->engine, g->engine) && !strcmp(a->pipeline, g->pipeline) &&
	       a->uid == g->uid;
}

/* append to out[len] as snprintf does: at counts the whole text, what fits is written */
#define PUT(...)                                                                       \
	do {                                                                           \
		int w_ = snprintf(at < len ? out + at : NULL, at < len ? len - at : 0, \
				  __VA_ARGS__);                                        \
		at += w_ > 0 ? (size_t)w_ : 0;                                         \
	} while (0)

static size_t snakemake_text(const struct wf_advice *w, size_t n, const struct wf_advice *g,
			     char *out, size_t len)
{
	size_t at = 0;
	int nt = 0, nr = 0;

	PUT("snakemake");
	for (size_t i = 0; i < n; i++)
		if (wfadvice_same_group(&w[i], g) && w[i].a.cpus > 0)
			PUT("%s %s=%d", nt++ ? "" : " --set-threads", w[i].step, w[i].a.cpus);
#define RESOURCE(name, v) \
	PUT("%s %s:" name "=%" PRId64, nr++ ? "" : " --set-resources", w[i].step, (int64_t)(v))
	for (size_t i = 0; i < n; i++) {
		const struct advice *a = &w[i].a;

		if (!wfadvice_same_group(&w[i], g))
			continue;
		if (a->mem_mb > 0)
			RESOURCE("mem_mb", a->mem_mb);
		if (a->mem_per_cpu_mb > 0)
			RESOURCE("mem_mb_per_cpu", a->mem_per_cpu_mb);
		if (a->time_min > 0)
			RESOURCE("runtime", a->time_min);
	}
#undef RESOURCE
	return nt || nr ? at : 0;
}

static size_t nextflow_text(const struct wf_advice *w, size_t n, const struct wf_advice *g,
			    char *out, size_t len)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		const struct advice *a = &w[i].a;
		const char *sep = "";

		if (!wfadvice_same_group(&w[i], g))
			continue;
		PUT("%swithName: '%s' {", at ? "\n" : "process {\n", w[i].step);
		if (a->cpus > 0) {
			PUT(" cpus = %d", a->cpus);
			sep = ";";
		}
		if (a->node_mem_mb > 0) { /* Nextflow's memory is the task's: the node's need */
			PUT("%s memory = '%" PRId64 " MB'", sep, a->node_mem_mb);
			sep = ";";
		}
		if (a->time_min > 0)
			PUT("%s time = '%" PRId64 "m'", sep, a->time_min);
		PUT(" }");
	}
	if (at)
		PUT("\n}");
	return at;
}

size_t wfadvice_text(const struct wf_advice *w, size_t n, const struct wf_advice *g, char *out,
		     size_t len)
{
	size_t at;

	if (len)
		out[0] = 0;
	at = !strcmp(g->engine, "snakemake")  ? snakemake_text(w, n, g, out, len)
	     : !strcmp(g->engine, "nextflow") ? nextflow_text(w, n, g, out, len)
					      : 0;
	if (!at && len)
		out[0] = 0; /* nothing to advise: not even the command's name */
	return at;
}
