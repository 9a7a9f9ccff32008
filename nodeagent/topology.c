/* hwloc topology summary. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <hwloc.h>
#include <json-c/json.h>

#include "topology.h"

int topology_load(struct topology *out)
{
	struct topology t = {};
	hwloc_topology_t topo;
	hwloc_obj_t obj;
	int i, n;

	if (hwloc_topology_init(&topo) < 0)
		return -errno ? -errno : -ENOMEM;
	if (hwloc_topology_load(topo) < 0) {
		hwloc_topology_destroy(topo);
		return -EIO;
	}
	t.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	t.numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	t.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	t.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	n = t.numa_nodes < TOPOLOGY_NUMA_MAX ? t.numa_nodes : TOPOLOGY_NUMA_MAX;
	for (i = 0; i < n; i++) {
		obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
		t.numa_memory_kb[i] = obj->attr ? obj->attr->numanode.local_memory / 1024 : 0;
		hwloc_bitmap_list_snprintf(t.numa_cpus[i], sizeof(t.numa_cpus[i]), obj->cpuset);
	}
	t.memory_kb = hwloc_get_root_obj(topo)->total_memory / 1024;
	hwloc_topology_destroy(topo);
	*out = t;
	return 0;
}

struct json_object *topology_to_json(const struct topology *t)
{
	struct json_object *o = json_object_new_object(), *numa = json_object_new_array();
	int i;

	json_object_object_add(o, "packages", json_object_new_int(t->packages));
	json_object_object_add(o, "numa_nodes", json_object_new_int(t->numa_nodes));
	json_object_object_add(o, "cores", json_object_new_int(t->cores));
	json_object_object_add(o, "pus", json_object_new_int(t->pus));
	json_object_object_add(o, "memory_kb", json_object_new_int64(t->memory_kb));
	for (i = 0; i < t->numa_nodes && i < TOPOLOGY_NUMA_MAX; i++) {
		struct json_object *n = json_object_new_object();

		json_object_object_add(n, "cpus", json_object_new_string(t->numa_cpus[i]));
		json_object_object_add(n, "memory_kb", json_object_new_int64(t->numa_memory_kb[i]));
		json_object_array_add(numa, n);
	}
	json_object_object_add(o, "numa", numa);
	return o;
}
