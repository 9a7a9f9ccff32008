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

void arrays_count_state(char *states, size_t len, const char *state)
{
	char name[32], buf[256];
	char *p = states;
	size_t l;
	long c;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(state, " "),
		 state); /* "CANCELLED by 0" */
	l = strlen(name);
	if (!l)
		return;
	while (p && *p) {
		if (strncmp(p, name, l) == 0 && p[l] == ':') {
			c = strtol(p + l + 1, NULL, 10) + 1;
			snprintf(buf, sizeof(buf), "%.*s%s:%ld%s", (int)(p - states), states, name,
				 c, strchr(p, ',') ? strchr(p, ',') : "");
			snprintf(states, len, "%s", buf);
			return;
		}
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	l = strlen(states);
	if (l + strlen(name) + 4 < len)
		snprintf(states + l, len - l, "%s%s:1", l ? "," : "", name);
}

/* failures first, the worst first; then the unfinished; COMPLETED last */
static int state_rank(const char *s)
{
	static const char *const order[] = {
		"OUT_OF_MEMORY", "FAILED",    "TIMEOUT", "NODE_FAIL", "BOOT_FAIL", "DEADLINE",
		"PREEMPTED",	 "CANCELLED", "RUNNING", "SUSPENDED", "PENDING",   "REQUEUED"
	};
	size_t l = strcspn(s, ":");

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (strlen(order[i]) == l && strncmp(s, order[i], l) == 0)
			return (int)i;
	return strncmp(s, "COMPLETED", l) == 0 ? 100 : 50;
}

static int by_rank(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int d = state_rank(x) - state_rank(y);

	return d ? d : strcmp(x, y);
}

void arrays_order_states(char *states, size_t len)
{
	char buf[256], *part[32], *save = NULL, *t;
	size_t n = 0, at = 0;

	snprintf(buf, sizeof(buf), "%s", states);
	for (t = strtok_r(buf, ",", &save); t && n < 32; t = strtok_r(NULL, ",", &save))
		part[n++] = t;
	qsort(part, n, sizeof(*part), by_rank);
	states[0] = 0;
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(states + at, len - at, "%s%s", i ? "," : "", part[i]);
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
			arrays_count_state(s->states, sizeof(s->states), rep->jobs[j].row.state);
			if (rep->jobs[j].array_last)
				snprintf(s->suggest, sizeof(s->suggest), "%s",
					 rep->jobs[j].array_suggest);
			if (lo < 0 || rep->jobs[j].array_task_id < lo)
				lo = rep->jobs[j].array_task_id;
			if (rep->jobs[j].array_task_id > hi)
				hi = rep->jobs[j].array_task_id;
		}
		arrays_order_states(s->states, sizeof(s->states));
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
