/* Collect: Slurm jobs' units from their nodes, the nodes asked at once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "jobunits.h"

/* one job's nodes and their replies */
struct asked {
	const struct sjob *j;
	char **names;
	int nn;			    /* < 0: its node list not understood */
	int *node;		    /* the names' entries in d, -1 on ENOMEM */
	struct json_object **lists; /* each node's "units" reply, NULL: failed */
};

struct asking {
	struct asked *v;
	size_t n;
};

/* every job's request to one node (in a thread of its own, asking only that node) */
static int ask_node(struct daemons *d, int node, void *ctx)
{
	struct asking *a = ctx;
	char sel[32];

	for (size_t i = 0; i < a->n; i++)
		for (int k = 0; k < a->v[i].nn; k++) {
			if (a->v[i].node[k] != node)
				continue;
			snprintf(sel, sizeof(sel), "%u", a->v[i].j->job_id);
			if (daemons_units(d, node, sel, &a->v[i].lists[k]) < 0)
				a->v[i].lists[k] = NULL;
		}
	return 0;
}

static void add_missing(char *missing, size_t mlen, const char *name)
{
	size_t at = strlen(missing);

	if (at + strlen(name) + 3 < mlen)
		snprintf(missing + at, mlen - at, "%s%s", at ? "," : "", name);
}

/* the job's units from its nodes' replies, as collect reads them */
static int units_of(const struct asked *a, struct jobunits *out)
{
	size_t cap = 0;

	for (int k = 0; k < a->nn; k++) {
		struct json_object *list = a->lists[k];

		if (!list) {
			add_missing(out->missing, sizeof(out->missing), a->names[k]);
			continue;
		}
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			struct unit_rec u;

			if (unit_from_json(json_object_array_get_idx(list, i), a->node[k], &u) <
				    0 ||
			    u.job_id != (int64_t)a->j->job_id || strcmp(u.kind, "slurm") != 0)
				continue;
			if (out->nunits == cap) {
				struct unit_rec *nv = realloc(
					out->units, (cap = cap ? 2 * cap : 8) * sizeof(*nv));

				if (!nv)
					return -ENOMEM;
				out->units = nv;
			}
			out->units[out->nunits++] = u;
		}
	}
	return 0;
}

/* the job's nodes: none before it started, its list expanded, each node's entry in d */
static int nodes_of(struct daemons *d, const struct sjob *j, struct asked *a, char *missing,
		    size_t mlen)
{
	a->j = j;
	if (!j->nodes[0] || j->start <= 0 || strcmp(j->nodes, "None assigned") == 0)
		return 0;
	a->nn = conv_hostlist(j->nodes, &a->names, 65536);
	if (a->nn == -ENOMEM)
		return -ENOMEM;
	if (a->nn < 0) {
		a->nn = 0;
		snprintf(missing, mlen, "%.200s (node list not understood)", j->nodes);
		return 0;
	}
	a->node = calloc((size_t)a->nn + 1, sizeof(*a->node));
	a->lists = calloc((size_t)a->nn + 1, sizeof(*a->lists));
	if (!a->node || !a->lists)
		return -ENOMEM;
	for (int k = 0; k < a->nn; k++)
		if ((a->node[k] = daemons_node(d, a->names[k])) < 0)
			return -ENOMEM;
	return 0;
}

static void asked_free(struct asked *a)
{
	for (int k = 0; a->lists && k < a->nn; k++)
		json_object_put(a->lists[k]);
	if (a->names)
		conv_strv_free(a->names, (size_t)a->nn);
	free(a->node);
	free(a->lists);
}

int jobunits_fetch(struct daemons *d, const struct sjob *const *jobs, size_t n,
		   struct jobunits *out)
{
	struct asking a = { calloc(n + 1, sizeof(*a.v)), n };
	int *nodes = NULL, err = -ENOMEM;
	size_t nn = 0;

	memset(out, 0, n * sizeof(*out));
	if (!a.v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (nodes_of(d, jobs[i], &a.v[i], out[i].missing, sizeof(out[i].missing)) < 0)
			goto out;
	/* the distinct nodes, once the table of nodes has stopped growing */
	if (!(nodes = malloc((d->n + 1) * sizeof(*nodes))))
		goto out;
	for (size_t x = 0; x < d->n; x++)
		for (size_t i = 0; i < n; i++) {
			int k;

			for (k = 0; k < a.v[i].nn && a.v[i].node[k] != (int)x; k++)
				;
			if (k < a.v[i].nn) {
				nodes[nn++] = (int)x;
				break;
			}
		}
	if ((err = daemons_each_node(d, nodes, nn, ask_node, &a)) < 0)
		goto out;
	for (size_t i = 0; i < n && !err; i++)
		err = units_of(&a.v[i], &out[i]);
out:
	for (size_t i = 0; i < n; i++) {
		asked_free(&a.v[i]);
		if (err) {
			free(out[i].units);
			out[i].units = NULL;
			out[i].nunits = 0;
		}
	}
	free(a.v);
	free(nodes);
	return err;
}
