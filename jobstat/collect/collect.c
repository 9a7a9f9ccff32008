/* Collect: the jobs and runs to report, from Slurm's accounting and the tracerds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect.h"
#include "convert.h"
#include "jobids.h"
#include "jobunits.h"
#include "pipelines.h"
#include "safetext.h"
#include "slurmacct.h"

static int sel_matches(const struct jobsel *s, const struct sjob *j)
{
	if (!s->numeric)
		return 0;
	if (s->has_tasks)
		return j->array_job_id == s->job && j->array_task_id != SJ_NO_TASK &&
		       jobsel_has_task(s, j->array_task_id);
	return j->job_id == s->job || (j->array_job_id && j->array_job_id == s->job);
}

/* "-j J.S" of a job without step S: said, as nothing else would be shown for it */
static void no_such_step(const struct jobsel *s, const struct sjob *j, struct collect_stats *st)
{
	const char *step = strchr(s->text, '.');
	char jid[96];

	if (!s->has_step || !step)
		return;
	for (size_t i = 0; i < j->nsteps; i++)
		if (j->steps[i].step_id == s->step)
			return;
	sjob_id(j, jid, sizeof(jid));
	fprintf(stderr, JS_PROG ": job %s has no step %s in Slurm's accounting\n", jid, step + 1);
	st->not_found++;
}

static int state_ok(const struct opts *o, int state)
{
	return !o->state_mask || (state >= 0 && (o->state_mask & (1 << state)));
}

/* Slurm's accounting; returns 1 when it answered, 0 when it cannot be asked (said) */
static int from_slurm(const struct opts *o, const struct ident *id, struct daemons *d,
		      struct report *rep, struct collect_stats *st, const struct jobsel *sel,
		      size_t nsel, int *found)
{
	struct sacct_query q = { .start = o->t_start, .end = o->t_end };
	struct jobsel *num = calloc(nsel + 1, sizeof(*num));
	uid_t self = id->uid;
	struct sjob *jobs = NULL;
	const struct sjob **keep = NULL;
	struct jobunits *got = NULL;
	size_t n = 0, k = 0, nkeep = 0;
	char err[256];
	int r;

	if (!num)
		return 0;
	for (size_t i = 0; i < nsel; i++)
		if (sel[i].numeric)
			num[k++] = sel[i];
	q.sel = num;
	q.nsel = k;
	if (o->uids) {
		q.uids = o->uids;
		q.nuids = o->nuids;
	} else if (!id->admin && !o->all_users && !o->jobs) {
		q.uids = &self;
		q.nuids = 1;
	}
	if (!o->jobs && !q.start)
		q.start = conv_midnight(time(NULL));
	if (!o->jobs && !q.end)
		q.end = time(NULL);
	r = sacct_jobs(&q, &jobs, &n, err, sizeof(err));
	free(num);
	if (r < 0) {
		safe_text_fprintf(
			stderr,
			JS_PROG
			": warning: Slurm accounting unavailable (%s): tracer's records only",
			err);
		return 0;
	}
	if (!(keep = calloc(n + 1, sizeof(*keep))) || !(got = calloc(n + 1, sizeof(*got)))) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sjob *j = &jobs[i];
		char jid[96];

		for (size_t s = 0; s < nsel; s++)
			if (sel_matches(&sel[s], j)) {
				found[s] = 1;
				no_such_step(&sel[s], j, st);
			}
		if (!id->admin && j->uid != id->uid) {
			sjob_id(j, jid, sizeof(jid));
			if (o->jobs) {
				safe_text_fprintf(stderr,
						  JS_PROG
						  ": job %s belongs to user %s: you may see "
						  "only your own jobs",
						  jid, j->user);
				st->refused++;
			} else {
				st->hidden++;
			}
			continue;
		}
		if (state_ok(o, (int)(j->state & 0xff)))
			keep[nkeep++] = j;
	}
	/* their units, every node asked at once */
	if (jobunits_fetch(d, keep, nkeep, got) < 0) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < nkeep; i++) {
		/* it takes the units, also on error */
		if (report_add_slurm(rep, keep[i], got[i].units, got[i].nunits, got[i].missing) <
		    0) {
			for (size_t k = i + 1; k < nkeep; k++)
				free(got[k].units);
			fprintf(stderr, JS_PROG ": out of memory\n");
			break;
		}
	}
out:
	free(keep);
	free(got);
	sacct_free(jobs, n);
	return 1;
}

/* the tracerds to ask about names: -N's, else this host's own, else every local socket */
static int local_nodes(const struct opts *o, struct daemons *d, int *nodes, int max)
{
	int def = daemons_default_node(d, o->node), n = 0;

	if (def >= 0 && (o->node || d->nodes[def].local))
		nodes[n++] = def;
	if (n)
		return n;
	daemons_local_nodes(d);
	for (size_t i = 0; i < d->n && n < max; i++)
		if (d->nodes[i].local)
			nodes[n++] = (int)i;
	if (!n && def >= 0)
		nodes[n++] = def; /* to say why it cannot be reached */
	return n;
}

static int cmp_job(const void *a, const void *b)
{
	const struct unit_rec *x = a, *y = b;

	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* one selector from the local tracerds: runs, and Slurm jobs tracer alone knows */
static int from_tracer(const struct opts *o, struct daemons *d, struct report *rep,
		       const struct jobsel *s, int slurm_answered)
{
	int nodes[64], nn = local_nodes(o, d, nodes, 64), found = 0;
	struct unit_rec *slurm = NULL;
	size_t ns = 0, cap = 0;

	for (int i = 0; i < nn; i++) {
		struct json_object *units;

		if (daemons_units(d, nodes[i], s->text, &units) < 0)
			continue;
		for (size_t k = 0; k < json_object_array_length(units); k++) {
			struct unit_rec u;

			if (unit_from_json(json_object_array_get_idx(units, k), nodes[i], &u) < 0)
				continue;
			if (strcmp(u.kind, "slurm") == 0 && u.job_id > 0) {
				if (ns == cap) {
					struct unit_rec *nv = realloc(
						slurm, (cap = cap ? 2 * cap : 16) * sizeof(*nv));

					if (!nv)
						break;
					slurm = nv;
				}
				slurm[ns++] = u;
			} else if (state_ok(o, conv_state_parse(u.state))) {
				if (report_add_local(rep, &u) == 0) {
					/* runs of one name are told apart by id, node and start */
					struct row *r = &rep->jobs[rep->n - 1].row;

					snprintf(r->nodelist, sizeof(r->nodelist), "%s",
						 d->nodes[nodes[i]].name);
					r->nnodes = 1;
					found++;
				}
			} else {
				found++;
			}
		}
		json_object_put(units);
	}
	if (ns)
		qsort(slurm, ns, sizeof(*slurm), cmp_job);
	for (size_t a = 0; a < ns;) {
		size_t b = a;

		while (b < ns && slurm[b].job_id == slurm[a].job_id)
			b++;
		if (report_add_traced_job(rep, &slurm[a], b - a) == 0 && slurm_answered)
			fprintf(stderr,
				JS_PROG
				": warning: job %s is not in Slurm's accounting%s: shown from "
				"tracerd's records alone (Slurm's State, Elapsed and limits are "
				"then "
				"tracer's or blank)\n",
				rep->jobs[rep->n - 1].row.jobid,
				o->start || o->end ? " for this -S/-E window" : " (yet)");
		found++;
		a = b;
	}
	free(slurm);
	return found;
}

int collect(const struct opts *o, const struct ident *id, struct daemons *d, struct report *rep,
	    struct collect_stats *st)
{
	const struct jobsel *sel = o->sel;
	size_t nsel = o->nsel;
	int *found = NULL, need_slurm = !o->jobs, slurm_answered = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < nsel; i++)
		need_slurm |= sel[i].numeric;
	if (o->uids && !id->admin)
		for (size_t i = 0; i < o->nuids; i++)
			if (o->uids[i] != id->uid) {
				fprintf(stderr, JS_PROG ": -u: you may see only your own jobs\n");
				return -1;
			}
	found = calloc(nsel + 1, sizeof(*found));
	if (!found)
		return -1;
	if (need_slurm) {
		if (sacct_available())
			slurm_answered = from_slurm(o, id, d, rep, st, sel, nsel, found);
		else if (!o->jobs)
			fprintf(stderr,
				JS_PROG ": no Slurm configuration (SLURM_CONF) to list jobs from: "
					"name them with -j\n");
		else
			fprintf(stderr, JS_PROG ": warning: no Slurm configuration (SLURM_CONF): "
						"tracer's records only\n");
	}
	for (size_t i = 0; i < nsel; i++) {
		if (found[i])
			continue;
		if (!from_tracer(o, d, rep, &sel[i], slurm_answered)) {
			char shown[sizeof(sel[i].text) * 4];

			safe_text(shown, sizeof(shown), sel[i].text, strlen(sel[i].text));
			fprintf(stderr, JS_PROG ": no job or run '%s' recorded (or not yours)\n",
				shown);
			st->not_found++;
		}
	}
	free(found);
	st->filtered = pipelines_filter(rep, o->pipelines, o->runs);
	if (st->filtered && !rep->n)
		fprintf(stderr, JS_PROG ": none of the %zu job(s) selected belongs to %s%s%s%s%s\n",
			st->filtered, o->pipelines ? "pipeline " : "",
			o->pipelines ? o->pipelines : "", o->pipelines && o->runs ? " and " : "",
			o->runs ? "run " : "", o->runs ? o->runs : "");
	return 0;
}
