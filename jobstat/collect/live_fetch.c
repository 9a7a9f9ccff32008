/* Collect: one refresh of --live, the nodes asked in parallel. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "details.h"
#include "live_fetch.h"
#include "slower.h"

/* one unit to ask its node about */
struct want {
	struct job *j;
	size_t k;
};

struct fanout {
	struct daemons *d;
	struct want *w; /* sorted by node */
	size_t n;
	size_t *first; /* per node: its first want, n when none */
	atomic_size_t next_node;
	atomic_int nomem;
};

/* a worker: the next node not taken yet, all its units, until none is left. Each thread
 * touches only its node's entry of d and its units' details. */
static void *worker(void *arg)
{
	struct fanout *f = arg;
	size_t node;

	while ((node = atomic_fetch_add(&f->next_node, 1)) < f->d->n) {
		for (size_t i = f->first[node];
		     i < f->n && (size_t)f->w[i].j->units[f->w[i].k].node == node; i++)
			if (details_procs(f->w[i].j, f->w[i].k, f->d) < 0)
				atomic_store(&f->nomem, 1);
	}
	return NULL;
}

static int by_node(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	int nx = x->j->units[x->k].node, ny = y->j->units[y->k].node;

	return (nx > ny) - (nx < ny);
}

/* every unit's processes, the nodes asked LIVE_FANOUT at a time */
static int fetch_all(struct report *rep, struct daemons *d)
{
	struct fanout f = { .d = d };
	pthread_t th[LIVE_FANOUT];
	size_t cap = 0, nth = 0;
	int err = 0;

	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		if (!j->detail && !(j->detail = calloc(j->nunits + 1, sizeof(*j->detail))))
			goto nomem;
		for (size_t k = 0; k < j->nunits; k++) {
			if (f.n == cap) {
				struct want *nv =
					realloc(f.w, (cap = cap ? 2 * cap : 32) * sizeof(*nv));

				if (!nv)
					goto nomem;
				f.w = nv;
			}
			f.w[f.n++] = (struct want){ j, k };
		}
	}
	if (!f.n)
		goto out;
	qsort(f.w, f.n, sizeof(*f.w), by_node);
	if (!(f.first = malloc(d->n * sizeof(*f.first))))
		goto nomem;
	for (size_t i = 0; i < d->n; i++) {
		f.first[i] = f.n;
		daemons_resolve(d, (int)i); /* Slurm's NodeAddr, before the threads */
	}
	for (size_t i = f.n; i-- > 0;)
		f.first[f.w[i].j->units[f.w[i].k].node] = i;
	for (; nth < LIVE_FANOUT && nth < d->n; nth++)
		if (pthread_create(&th[nth], NULL, worker, &f) != 0)
			break;
	if (!nth)
		worker(&f);
	for (size_t i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	err = atomic_load(&f.nomem) ? -ENOMEM : 0;
	goto out;
nomem:
	err = -ENOMEM;
out:
	free(f.w);
	free(f.first);
	return err;
}

/* the earlier runs of each step's first task, asked once (a node that fails is asked again at
 * a later refresh) */
static int fetch_history(struct report *rep, struct daemons *d, struct live_history *h)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		for (size_t k = 0; k < j->nunits; k++) {
			const struct unit_rec *u = &j->units[k];
			const char *node = d->nodes[u->node].name;
			struct hist_entry *e = NULL;
			struct json_object *runs;

			if (!slower_compared(u->step_id, u->task_id) || d->nodes[u->node].failed)
				continue;
			for (size_t x = 0; x < h->n && !e; x++)
				if (h->v[x].unit == u->id && strcmp(h->v[x].node, node) == 0)
					e = &h->v[x];
			if (!e) {
				if (daemons_history(d, u->node, u->id, &runs) < 0)
					runs = NULL; /* an older tracerd: no comparison */
				if (d->nodes[u->node].failed)
					continue;
				if (h->n == h->cap) {
					struct hist_entry *nv =
						realloc(h->v, (h->cap = h->cap ? 2 * h->cap : 16) *
								      sizeof(*nv));

					if (!nv) {
						json_object_put(runs);
						return -ENOMEM;
					}
					h->v = nv;
				}
				e = &h->v[h->n++];
				snprintf(e->node, sizeof(e->node), "%s", node);
				e->unit = u->id;
				e->runs = runs;
			}
			j->detail[k].history = json_object_get(e->runs);
		}
	}
	return 0;
}

/* the nodes of each job that could not be asked for its processes, with those that could
 * not be asked for its units (j->missing) */
static void note_missing(struct report *rep, const struct daemons *d)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		for (size_t k = 0; k < j->nunits; k++) {
			const char *name = d->nodes[j->units[k].node].name;
			size_t at = strlen(j->missing);

			if (!d->nodes[j->units[k].node].failed || strstr(j->missing, name) ||
			    at + strlen(name) + 2 > sizeof(j->missing))
				continue;
			snprintf(j->missing + at, sizeof(j->missing) - at, "%s%s", at ? "," : "",
				 name);
		}
	}
}

int live_fetch(const struct opts *o, const struct ident *id, struct daemons *d,
	       struct live_history *h, struct report *rep)
{
	struct opts running = *o;
	struct collect_stats st;

	daemons_retry(d);
	if (!o->jobs && !o->state_mask) /* a listing: the jobs that run now */
		running.state_mask = 1 << conv_state_parse("RUNNING");
	if (collect(&running, id, d, rep, &st) < 0)
		return -1;
	if (fetch_all(rep, d) < 0 || fetch_history(rep, d, h) < 0) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		return -1;
	}
	note_missing(rep, d);
	return 0;
}

void live_history_free(struct live_history *h)
{
	for (size_t i = 0; i < h->n; i++)
		json_object_put(h->v[i].runs);
	free(h->v);
	memset(h, 0, sizeof(*h));
}
