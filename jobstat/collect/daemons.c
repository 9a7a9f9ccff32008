/* Collect: requests to the nodes' tracerds. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client.h"
#include "daemons.h"
#include "rows_parse.h"
#include "jobstat.h"
#include "protocol.h"

#define UNITS_TIMEOUT_MS 15000
#define PROCS_TIMEOUT_MS 120000

int daemons_init(struct daemons *d, const char *config_path, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	return config_load_client(config_path, &d->cfg, err, errlen);
}

void daemons_fini(struct daemons *d)
{
	for (size_t i = 0; i < d->n; i++)
		json_object_put(d->nodes[i].status);
	free(d->nodes);
	d->nodes = NULL;
	d->n = d->cap = 0;
}

int daemons_node(struct daemons *d, const char *name)
{
	struct node_conn *c;
	struct stat st;

	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->nodes[i].name, name) == 0)
			return (int)i;
	if (d->n == d->cap) {
		struct node_conn *nv =
			realloc(d->nodes, (d->cap = d->cap ? 2 * d->cap : 8) * sizeof(*nv));

		if (!nv)
			return -1;
		d->nodes = nv;
	}
	c = &d->nodes[d->n];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (config_socket_path(&d->cfg, name, c->sock, sizeof(c->sock)) == 0)
		c->local = stat(c->sock, &st) == 0 && S_ISSOCK(st.st_mode);
	return (int)d->n++;
}

int daemons_local_nodes(struct daemons *d)
{
	DIR *dir = opendir(d->cfg.socket_dir);
	struct dirent *e;
	int n = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		char name[64];

		if (config_socket_node(e->d_name, name, sizeof(name)) < 0)
			continue;
		if (daemons_node(d, name) >= 0 && d->nodes[daemons_node(d, name)].local)
			n++;
	}
	closedir(dir);
	return n;
}

int daemons_default_node(struct daemons *d, const char *node_opt)
{
	char node[64];

	if (config_node(&d->cfg, node_opt, node, sizeof(node)) < 0)
		return -1;
	return daemons_node(d, node);
}

void daemons_resolve(struct daemons *d, int node)
{
	struct node_conn *c = &d->nodes[node];

	if (!c->local && !c->addr[0] && config_listen_port(&d->cfg, c->name) &&
	    (!d->node_addr || d->node_addr(c->name, c->addr, sizeof(c->addr)) < 0))
		snprintf(c->addr, sizeof(c->addr), "%s", c->name); /* a node name that resolves */
}

void daemons_retry(struct daemons *d)
{
	for (size_t i = 0; i < d->n; i++) {
		d->nodes[i].failed = 0;
		d->nodes[i].error[0] = 0;
	}
}

struct fanout {
	struct daemons *d;
	const int *nodes;
	size_t n;
	daemons_node_fn fn;
	void *ctx;
	atomic_size_t next;
	atomic_int err;
};

/* a worker: the next node not taken yet, until none is left */
static void *fanout_worker(void *arg)
{
	struct fanout *f = arg;
	size_t i;

	while ((i = atomic_fetch_add(&f->next, 1)) < f->n) {
		int r = f->fn(f->d, f->nodes[i], f->ctx), none = 0;

		if (r < 0)
			atomic_compare_exchange_strong(&f->err, &none, r);
	}
	return NULL;
}

int daemons_each_node(struct daemons *d, const int *nodes, size_t n, daemons_node_fn fn, void *ctx)
{
	struct fanout f = { .d = d, .nodes = nodes, .n = n, .fn = fn, .ctx = ctx };
	pthread_t th[DAEMONS_FANOUT];
	size_t nth = 0;

	for (size_t i = 0; i < n; i++)
		daemons_resolve(d, nodes[i]); /* Slurm's NodeAddr: libslurm, not in threads */
	for (; n > 1 && nth < DAEMONS_FANOUT && nth < n; nth++)
		if (pthread_create(&th[nth], NULL, fanout_worker, &f) != 0)
			break;
	fanout_worker(&f); /* this thread too: the only one for one node, or when none started */
	for (size_t i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	return atomic_load(&f.err);
}

/* one request to a node, by its socket or over TCP */
static int ask(struct daemons *d, int node, struct json_object *req, int timeout_ms,
	       const struct proto_rows *rows, struct json_object **reply)
{
	struct node_conn *c = &d->nodes[node];
	uint32_t port = config_listen_port(&d->cfg, c->name);
	int r;

	if (c->failed)
		return -EHOSTUNREACH;
	daemons_resolve(d, node);
	if (d->timeout_ms > 0 && d->timeout_ms < timeout_ms)
		timeout_ms = d->timeout_ms;
	if (c->local)
		r = client_request_rows(NULL, c->sock, req, timeout_ms, rows, reply);
	else if (port)
		r = client_request_tcp_rows(NULL, c->addr, port, c->name, d->cfg.munge_socket, req,
					    timeout_ms, rows, reply);
	else
		r = -ENOENT;
	if (r == -EREMOTEIO)
		return r; /* the daemon answered: a refusal, not an unreachable node */
	if (r < 0) {
		c->failed = 1;
		if (!c->local && !port)
			snprintf(c->error, sizeof(c->error),
				 "no tracerd socket %.300s on this host and no ListenPort "
				 "(or NodePorts entry) to reach it over TCP",
				 c->sock);
		else if (c->local)
			snprintf(c->error, sizeof(c->error), "cannot reach tracerd at %.300s: %s",
				 c->sock, strerror(-r));
		else
			snprintf(c->error, sizeof(c->error),
				 "cannot reach tracerd of node %s at %.200s port %u: %s", c->name,
				 c->addr, port, strerror(-r));
	}
	return r;
}

static int take_array(struct json_object *reply, const char *key, struct json_object **out)
{
	struct json_object *a;

	if (!json_object_object_get_ex(reply, key, &a) ||
	    !json_object_is_type(a, json_type_array)) {
		json_object_put(reply);
		return -EPROTO;
	}
	*out = json_object_get(a);
	json_object_put(reply);
	return 0;
}

int daemons_units(struct daemons *d, int node, const char *sel, struct json_object **units)
{
	struct json_object *req = proto_request(OP_UNITS), *reply;
	int r;

	json_object_object_add(req, "select", json_object_new_string(sel));
	r = ask(d, node, req, UNITS_TIMEOUT_MS, NULL, &reply);
	json_object_put(req);
	return r < 0 ? r : take_array(reply, proto_ops[OP_UNITS].reply, units);
}

/* a per-unit query of op, for the unit id: the reply's array (ops.h) (caller puts) */
static int unit_query(struct daemons *d, int node, enum tracer_op op, int64_t unit, int timeout_ms,
		      struct json_object **out)
{
	struct json_object *req = proto_request(op), *reply;
	int r;

	json_object_object_add(req, "unit", json_object_new_int64(unit));
	if (op == OP_TOOLS) /* a tools listing ends with the unit's totals: the units' have them */
		json_object_object_add(req, "totals", json_object_new_boolean(0));
	r = ask(d, node, req, timeout_ms, NULL, &reply);
	json_object_put(req);
	return r < 0 ? r : take_array(reply, proto_ops[op].reply, out);
}

struct rows_to {
	daemons_row_fn fn;
	void *ctx;
};

static int parse_rows(void *ctx, const char *text, size_t len, char *err, size_t errlen)
{
	const struct rows_to *to = ctx;
	char why[160] = "";
	int r = rows_parse(text, len, to->fn, to->ctx, why, sizeof(why));

	if (r == -EPROTO)
		proto_errf(err, errlen, "invalid rows: %s", why);
	return r;
}

/* a per-unit query whose reply's array comes a row at a time */
static int ask_rows(struct daemons *d, int node, struct json_object *req, int timeout_ms,
		    enum tracer_op op, daemons_row_fn fn, void *ctx)
{
	struct rows_to to = { fn, ctx };
	const struct proto_rows rows = { .key = proto_ops[op].reply,
					 .rows = parse_rows,
					 .ctx = &to };
	struct json_object *reply;
	int r = ask(d, node, req, timeout_ms, &rows, &reply);

	if (r >= 0)
		json_object_put(reply); /* what is left: the reply around its rows */
	return r;
}

int daemons_processes(struct daemons *d, int node, int64_t unit, daemons_row_fn fn, void *ctx)
{
	struct json_object *req = proto_request(OP_PROCESSES), *fields;
	int r;

	json_object_object_add(req, "unit", json_object_new_int64(unit));
	json_object_object_add(req, "totals",
			       json_object_new_boolean(0)); /* the units' have them */
	if (d->proc_fields) { /* a tracerd that does not know fields sends every column */
		fields = json_object_new_array();
		for (size_t i = 0; fields && d->proc_fields[i]; i++)
			json_object_array_add(fields, json_object_new_string(d->proc_fields[i]));
		json_object_object_add(req, "fields", fields);
	}
	r = ask_rows(d, node, req, PROCS_TIMEOUT_MS, OP_PROCESSES, fn, ctx);
	json_object_put(req);
	return r;
}

int daemons_tools(struct daemons *d, int node, int64_t unit, struct json_object **tools)
{
	return unit_query(d, node, OP_TOOLS, unit, UNITS_TIMEOUT_MS, tools);
}

int daemons_history(struct daemons *d, int node, int64_t unit, struct json_object **runs)
{
	return unit_query(d, node, OP_HISTORY, unit, UNITS_TIMEOUT_MS, runs);
}

int daemons_samples(struct daemons *d, int node, int64_t unit, daemons_row_fn fn, void *ctx)
{
	struct json_object *req = proto_request(OP_SAMPLES);
	int r;

	json_object_object_add(req, "unit", json_object_new_int64(unit));
	r = ask_rows(d, node, req, PROCS_TIMEOUT_MS, OP_SAMPLES, fn, ctx);
	json_object_put(req);
	return r;
}

struct json_object *daemons_topology(struct daemons *d, int node)
{
	struct node_conn *c = &d->nodes[node];
	struct json_object *req, *topo;

	if (!c->status_tried) {
		c->status_tried = 1;
		req = proto_request(OP_STATUS);
		if (ask(d, node, req, UNITS_TIMEOUT_MS, NULL, &c->status) < 0)
			c->status = NULL;
		json_object_put(req);
	}
	return c->status && json_object_object_get_ex(c->status, "topology", &topo) ? topo : NULL;
}
