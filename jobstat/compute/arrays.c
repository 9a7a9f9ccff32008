/* Compute: job array summaries. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void arrays_stats(double *v, size_t n, double *min, double *median, double *max)
{
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	*min = v[0];
	*max = v[n - 1];
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void arrays_count_state(struct state_counts *c, const char *state)
{
	size_t l = strcspn(state, " "), k; /* "CANCELLED by 0" counts as CANCELLED */

	if (!l)
		return;
	if (l >= sizeof(c->k[0].name))
		l = sizeof(c->k[0].name) - 1;
	for (k = 0; k < c->n; k++)
		if (strlen(c->k[k].name) == l && !strncmp(c->k[k].name, state, l))
			break;
	if (k == c->n) {
		if (c->n == STATE_KINDS) {
			c->other++;
			return;
		}
		snprintf(c->k[k].name, sizeof(c->k[k].name), "%.*s", (int)l, state);
		c->n++;
	}
	c->k[k].n++;
}

/* failures first, the worst first; then the unfinished; COMPLETED last */
static int state_rank(const char *s)
{
	static const char *const order[] = {
		"OUT_OF_MEMORY", "FAILED",    "TIMEOUT", "NODE_FAIL", "BOOT_FAIL", "DEADLINE",
		"PREEMPTED",	 "CANCELLED", "RUNNING", "SUSPENDED", "PENDING",   "REQUEUED"
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(s, order[i]))
			return (int)i;
	return strcmp(s, "COMPLETED") == 0 ? 100 : 50;
}

static int by_rank(const void *a, const void *b)
{
	const struct state_count *x = a, *y = b;
	int d = state_rank(x->name) - state_rank(y->name);

	return d ? d : strcmp(x->name, y->name);
}

void arrays_states_text(const struct state_counts *c, char *out, size_t len)
{
	struct state_count k[STATE_KINDS + 1];
	size_t n = c->n, at = 0;
	char part[48];

	if (!len)
		return;
	out[0] = 0;
	memcpy(k, c->k, n * sizeof(*k));
	qsort(k, n, sizeof(*k), by_rank);
	if (c->other) /* the states past STATE_KINDS, last */
		k[n++] = (struct state_count){ .name = "other", .n = c->other };
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(part, sizeof(part), "%s%s:%" PRId64, at ? "," : "", k[i].name,
				 k[i].n);

		/* whole entries only: a cut count would read as another number */
		if (at + (size_t)w + 4 >= len) {
			if (at + 4 < len)
				snprintf(out + at, len - at, "%s...", at ? "," : "");
			break;
		}
		memcpy(out + at, part, (size_t)w + 1);
		at += (size_t)w;
	}
}

int arrays_build(const struct report *rep, struct row **rows_out, struct array_stats **stats_out)
{
	struct row *rows = NULL;
	struct array_stats *st = NULL;
	double *vals = malloc((rep->n + 1) * sizeof(double));
	size_t n = 0;

	if (!vals)
		return -ENOMEM;
	for (size_t i = 0; i < rep->n; i++) {
		int64_t a = rep->jobs[i].array_job_id, lo = -1, hi = -1;
		size_t k;
		struct row *r;
		struct array_stats *s;
		struct state_counts sc = { 0 };

		if (a <= 0 || rep->jobs[i].array_task_id < 0)
			continue;
		for (k = 0; k < n && strtoll(rows[k].jobid, NULL, 10) != a; k++)
			;
		if (k < n)
			continue; /* done with the first task of the array */
		rows = realloc(rows, (n + 1) * sizeof(*rows));
		st = realloc(st, (n + 1) * sizeof(*st));
		if (!rows || !st) {
			free(rows);
			free(st);
			free(vals);
			return -ENOMEM;
		}
		r = &rows[n];
		s = &st[n];
		row_init(r, ROW_ARRAY);
		memset(s, 0, sizeof(*s));
		snprintf(r->jobname, sizeof(r->jobname), "%s", rep->jobs[i].row.jobname);
		snprintf(r->user, sizeof(r->user), "%s", rep->jobs[i].row.user);
		for (size_t j = i; j < rep->n; j++) {
			if (rep->jobs[j].array_job_id != a || rep->jobs[j].array_task_id < 0)
				continue;
			s->njobs++;
			arrays_count_state(&sc, rep->jobs[j].row.state);
			if (rep->jobs[j].array_last)
				snprintf(s->suggest, sizeof(s->suggest), "%s",
					 rep->jobs[j].array_suggest);
			if (lo < 0 || rep->jobs[j].array_task_id < lo)
				lo = rep->jobs[j].array_task_id;
			if (rep->jobs[j].array_task_id > hi)
				hi = rep->jobs[j].array_task_id;
		}
		arrays_states_text(&sc, s->states, sizeof(s->states));
		snprintf(r->jobid, sizeof(r->jobid),
			 lo == hi ? "%" PRId64 "_%" PRId64
				  : "%" PRId64 "_[%" PRId64 "-%" PRId64 "]",
			 a, lo, hi);
		for (int f = 0; f < F_COUNT; f++) {
			size_t m = 0;
			double v;

			if (!field_defs[f].numeric)
				continue;
			for (size_t j = i; j < rep->n; j++)
				if (rep->jobs[j].array_job_id == a &&
				    rep->jobs[j].array_task_id >= 0 &&
				    cell_number(f, &rep->jobs[j].row, &v) == 1)
					vals[m++] = v;
			s->v[f].n = m;
			arrays_stats(vals, m, &s->v[f].min, &s->v[f].median, &s->v[f].max);
		}
		n++;
	}
	free(vals);
	for (size_t k = 0; k < n; k++)
		rows[k].arr = &st[k];
	*rows_out = rows;
	*stats_out = st;
	return (int)n;
}
