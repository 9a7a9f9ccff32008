/* Collect: one refresh of --live, the nodes asked in parallel. */
#include <errno.h>
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

struct wants {
	struct want *w; /* sorted by node */
	size_t n;
	size_t *first; /* per node (d->n): its first want */
};

static int want_node(const struct want *w)
{
	return w->j->units[w->k].node;
}

/* the processes of each unit of one node (in a thread of its own: daemons_each_node) */
static int node_procs(struct daemons *d, int node, void *ctx)
{
	const struct wants *ws = ctx;

	for (size_t i = ws->first[node]; i < ws->n && want_node(&ws->w[i]) == node; i++)
		if (details_procs(ws->w[i].j, ws->w[i].k, d) < 0)
			return -ENOMEM;
	return 0;
}

static int by_node(const void *a, const void *b)
{
	int x = want_node(a), y = want_node(b);

	return (x > y) - (x < y);
}

/* every unit's processes, the nodes asked at once */
static int fetch_all(struct report *rep, struct daemons *d)
{
	struct wants ws = { 0 };
	int *nodes = NULL, err = -ENOMEM;
	size_t cap = 0, nn = 0;

	for (size_t i = 0; i < rep->n; i++) {
		struct job *j = &rep->jobs[i];

		if (!j->detail && !(j->detail = calloc(j->nunits + 1, sizeof(*j->detail))))
			goto out;
		for (size_t k = 0; k < j->nunits; k++) {
			if (ws.n == cap) {
				struct want *nv =
					realloc(ws.w, (cap = cap ? 2 * cap : 32) * sizeof(*nv));

				if (!nv)
					goto out;
				ws.w = nv;
			}
			ws.w[ws.n++] = (struct want){ j, k };
		}
	}
	err = 0;
	if (!ws.n)
		goto out;
	err = -ENOMEM;
	qsort(ws.w, ws.n, sizeof(*ws.w), by_node);
	if (!(ws.first = malloc(d->n * sizeof(*ws.first))) ||
	    !(nodes = malloc(d->n * sizeof(*nodes))))
		goto out;
	for (size_t i = ws.n; i-- > 0;)
		ws.first[want_node(&ws.w[i])] = i;
	for (size_t i = 0; i < ws.n; i++)
		if (!i || want_node(&ws.w[i]) != want_node(&ws.w[i - 1]))
			nodes[nn++] = want_node(&ws.w[i]);
	err = daemons_each_node(d, nodes, nn, node_procs, &ws);
out:
	free(ws.w);
	free(ws.first);
	free(nodes);
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
