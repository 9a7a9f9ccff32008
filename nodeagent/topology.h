/* The node's hardware topology (hwloc), loaded once at start: what rightsizing compares a job's
 * allocation and use against. */
#ifndef TRACER_TOPOLOGY_H
#define TRACER_TOPOLOGY_H

#include <stdint.h>

struct json_object;

#define TOPOLOGY_NUMA_MAX 64

struct topology {
	int packages, numa_nodes, cores, pus;
	uint64_t memory_kb;
	uint64_t numa_memory_kb[TOPOLOGY_NUMA_MAX];
	char numa_cpus[TOPOLOGY_NUMA_MAX][64]; /* each NUMA node's PUs, as a list "0-3,8-11" */
};

/* Fill *t from hwloc; -errno (and *t untouched) when hwloc cannot read the machine. */
int topology_load(struct topology *t);
struct json_object *topology_to_json(const struct topology *t);

#endif
