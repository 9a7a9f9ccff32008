/* Asking each node's tracerd: its local socket when this host has one, else over TCP with
 * a MUNGE credential, at the node's address from Slurm (NodeAddr, else its name) and its port
 * (NodePorts, else ListenPort). A node that cannot be reached is remembered and named in a
 * warning, never skipped silently. */
#ifndef JOBSTAT_DAEMONS_H
#define JOBSTAT_DAEMONS_H

#include <stddef.h>
#include <json-c/json.h>

#include "config.h"

struct node_conn {
	char name[64];
	char sock[PATH_MAX];
	char addr[256]; /* where to reach it over TCP: Slurm's NodeAddr, else its name */
	int local;	/* the socket exists on this host */
	int failed;	/* a request failed: its figures are missing */
	char error[512];
	struct json_object *status; /* the "status" reply, fetched once */
	int status_tried;
};

struct daemons {
	struct tracer_config cfg;
	struct node_conn *nodes;
	size_t n, cap;
	int quiet;	/* no per-request messages (failures still recorded) */
	int timeout_ms; /* > 0: no request waits longer (a live view's per-node bound) */
	/* the columns a processes request asks for (NULL-ended; NULL: all): a report that reads a
	 * few of a large unit's takes a fraction of the bytes */
	const char *const *proc_fields;
	/* a node's address from Slurm (NodeAddr); NULL or failing: its name is the address */
	int (*node_addr)(const char *node, char *addr, size_t len);
};

/* Read the configuration (-c, else as every client finds it: config_load_client). */
int daemons_init(struct daemons *d, const char *config_path, char *err, size_t errlen);
void daemons_fini(struct daemons *d);
/* The node by name (added on first use); -1 on ENOMEM. */
int daemons_node(struct daemons *d, const char *name);
/* The nodes this host has a tracerd socket for (SocketDir/tracerd-*.sock), added; returns
 * how many. */
int daemons_local_nodes(struct daemons *d);
/* The default node: -N, else NodeName, else the short host name. */
int daemons_default_node(struct daemons *d, const char *node_opt);

/* The node's TCP address, from Slurm (node_addr) once: done before requests to several
 * nodes run in threads, each of which then touches only its own node's entry. */
void daemons_resolve(struct daemons *d, int node);
/* Forget which nodes failed, to ask them again (a live view's next refresh). */
void daemons_retry(struct daemons *d);

/* fn(d, node, ctx) for each of the n nodes, DAEMONS_FANOUT of them at once: each node's call
 * in a thread of its own that may ask only that node (its addresses resolved first). Returns
 * the first negative return of fn, else 0. */
#define DAEMONS_FANOUT 16
typedef int (*daemons_node_fn)(struct daemons *d, int node, void *ctx);
int daemons_each_node(struct daemons *d, const int *nodes, size_t n, daemons_node_fn fn, void *ctx);

/* "units" {"select": sel} on a node: 0 and *units (an array, caller puts), -errno on failure
 * (the node is then marked failed with the reason). */
int daemons_units(struct daemons *d, int node, const char *sel, struct json_object **units);
/* A record of a reply that comes a row at a time, as a flat row (flatrow.h): 0, or < 0 to stop
 * (the query returns it). The row is reused after the call. */
struct flat_row;
typedef int (*daemons_row_fn)(void *ctx, struct flat_row *row);
/* "processes" {"unit": id}: each of the reply's "processes" to fn, as it is parsed: a
 * 100 000-process unit never stands whole in memory as JSON. */
int daemons_processes(struct daemons *d, int node, int64_t unit, daemons_row_fn fn, void *ctx);
/* "tools" {"unit": id}: the unit's processes grouped by tool and subcommand, shell plumbing
 * left out, computed in the store: the reply's "tools" array (caller puts). -EREMOTEIO when
 * the daemon refused (an older tracerd without the op). */
int daemons_tools(struct daemons *d, int node, int64_t unit, struct json_object **tools);
/* "history" {"unit": id}: the earlier successful runs of the same step by the same user,
 * newest first, with their totals (caller puts). */
int daemons_history(struct daemons *d, int node, int64_t unit, struct json_object **runs);
/* "samples" {"unit": id}: the points of the unit's timeline, its processes' samples and exits,
 * each to fn as the processes are. -EREMOTEIO when the daemon refused (an older tracerd
 * without the op). */
int daemons_samples(struct daemons *d, int node, int64_t unit, daemons_row_fn fn, void *ctx);
/* The node's topology ("status" reply), NULL when it has none or cannot be asked. */
struct json_object *daemons_topology(struct daemons *d, int node);

#endif
