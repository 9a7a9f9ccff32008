/* Units into figures. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "aggregate.h"
#include "flatrow.h"

void figures_init(struct figures *f)
{
	memset(f, 0, sizeof(*f));
	f->first_start_ns = f->last_end_ns = JS_NONE;
	f->unit_start_ns = f->unit_end_ns = JS_NONE;
	f->maxrss_kb = f->task_peak_rss_kb = JS_NONE;
	f->cgroup_mem_peak_kb = f->node_mem_peak_kb = f->cgroup_cpu_ns = JS_NONE;
	f->peak_cores = f->task_peak_cores = -1;
	f->node_mem_peak_node = -1;
	f->down_start_ns = f->down_end_ns = JS_NONE;
	f->cpu_wait_ns = f->iowait_ns = f->offcpu_ns = f->net_rx_bytes = f->net_tx_bytes = JS_NONE;
}

void figures_add_waits(struct figures *f, int64_t cpu_wait, int64_t iowait, int64_t offcpu,
		       int64_t net_rx, int64_t net_tx)
{
	fig_sum(&f->cpu_wait_ns, cpu_wait);
	fig_sum(&f->iowait_ns, iowait);
	fig_sum(&f->offcpu_ns, offcpu);
	fig_sum(&f->net_rx_bytes, net_rx);
	fig_sum(&f->net_tx_bytes, net_tx);
}

void figures_add_totals(struct figures *f, const struct unit_totals *t)
{
	fig_sum(&f->nprocs, t->nprocs);
	fig_max(&f->maxrss_kb, t->maxrss_kb);
	fig_sum(&f->read_bytes, t->read_bytes);
	fig_sum(&f->write_bytes, t->write_bytes);
	fig_sum(&f->rchar, t->rchar);
	fig_sum(&f->wchar, t->wchar);
	fig_sum(&f->oom_kills, t->oom_kills);
	figures_add_waits(f, t->cpu_wait_ns, t->iowait_ns, t->offcpu_ns, t->net_rx_bytes,
			  t->net_tx_bytes);
}

void row_init(struct row *r, enum row_kind kind)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->nnodes = r->ntasks = r->step_id = JS_NONE;
	r->elapsed = r->timelimit = r->alloc_cpus = r->req_mem_mb = JS_NONE;
	r->req_mem_node_mb = r->req_mem_per_cpu_mb = r->tasks_per_node = r->node_peak_mem_kb =
		JS_NONE;
	r->reserved = JS_NONE;
	r->exit_status = JS_NONE;
	r->slurm_cpu_us = r->slurm_user_us = r->slurm_sys_us = JS_NONE;
	r->cpu_ns = r->user_ns = r->sys_ns = r->peak_mem_kb = r->req_mem_share_mb = JS_NONE;
	r->own_peak_kb = r->wall_ns = JS_NONE;
	r->peak_cores = r->cores_per_task = -1;
	r->pid = r->ppid = r->task = JS_NONE;
	figures_init(&r->f);
}

int64_t json_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return JS_NONE;
	return json_object_get_int64(v);
}

const char *json_text(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : "";
}

void json_to_rec(struct json_object *o, const struct rec_slot *slots, size_t n, void *dst)
{
	struct flat_row r;

	flat_row_init(&r);
	if (flat_from_json(o, &r) < 0)
		flat_row_reset(&r); /* every slot unknown */
	flat_to_rec(&r, slots, n, dst);
	flat_row_free(&r);
}

#define UNIT_SLOT(name, kind, sql, len, flags) REC_SLOT_MEMBER_##kind(struct unit_rec, name, kind)
#define TOTALS_SLOT(name, kind, sql, len, flags) \
	REC_SLOT_MEMBER_##kind(struct unit_totals, name, kind)
static const struct rec_slot unit_slots[] = { UNIT_RECORD(UNIT_SLOT) };
static const struct rec_slot totals_slots[] = { TOTALS_RECORD(TOTALS_SLOT) SAMPLE_TOTALS_RECORD(
	TOTALS_SLOT) LIVE_TOTALS_RECORD(TOTALS_SLOT) };

int unit_from_json(struct json_object *o, int node, struct unit_rec *u)
{
	struct json_object *t;

	memset(u, 0, sizeof(*u));
	if (!o || !json_object_is_type(o, json_type_object))
		return -EINVAL;
	json_to_rec(o, unit_slots, sizeof(unit_slots) / sizeof(*unit_slots), u);
	u->node = node;
	if (u->id == JS_NONE)
		return -EINVAL;
	if (u->array_task_id != JS_NONE && (u->array_task_id < 0 || u->array_task_id >= 0xfffffff0))
		u->array_task_id = -1; /* Slurm's NO_VAL: not an array task */
	if (u->cgroup_mem_peak_kb == 0)
		u->cgroup_mem_peak_kb = JS_NONE; /* never read: the counters were not there */
	if (u->cgroup_cpu_ns == 0)
		u->cgroup_cpu_ns = JS_NONE;
	u->t.peak_cores = -1;
	if (json_object_object_get_ex(o, "totals", &t) &&
	    json_object_is_type(t, json_type_object)) {
		u->have_totals = 1;
		json_to_rec(t, totals_slots, sizeof(totals_slots) / sizeof(*totals_slots), &u->t);
	}
	return 0;
}

int unit_labelled(const struct unit_rec *u)
{
	return u->engine[0] || u->pipeline[0] || u->run[0] || u->step_name[0];
}

void units_fill_labels(struct unit_rec *units, size_t n)
{
	const struct unit_rec *ref = NULL;

	for (size_t i = 0; i < n && !ref; i++)
		if (units[i].step_id == (int64_t)STEP_BATCH && unit_labelled(&units[i]))
			ref = &units[i];
	for (size_t i = 0; i < n && !ref; i++)
		if (unit_labelled(&units[i]))
			ref = &units[i];
	if (!ref)
		return;
	for (size_t i = 0; i < n; i++) {
		struct unit_rec *u = &units[i];

		if (u == ref || (u->job_id != ref->job_id && u->job_id != JS_NONE))
			continue;
		if (!unit_labelled(u)) {
#define COPY(f) memcpy(u->f, ref->f, sizeof(u->f))
			COPY(engine);
			COPY(pipeline);
			COPY(run);
			COPY(step_name);
			COPY(wf_job);
			COPY(wildcards);
			COPY(tag);
			COPY(task_hash);
#undef COPY
		} else if (!u->pipeline[0] || strcmp(u->pipeline, ref->pipeline) == 0) {
			/* a step of the same workflow that names its own step only, or whose
			 * command line does not show the run */
			if (!u->pipeline[0])
				memcpy(u->pipeline, ref->pipeline, sizeof(u->pipeline));
			if (!u->run[0])
				memcpy(u->run, ref->run, sizeof(u->run));
		}
	}
}

int unit_running(const struct unit_rec *u)
{
	return strcmp(u->state, "RUNNING") == 0 || u->end_ns == JS_NONE || u->end_ns == 0;
}

void fig_max(int64_t *m, int64_t v)
{
	if (v != JS_NONE && (*m == JS_NONE || v > *m))
		*m = v;
}

void fig_min(int64_t *m, int64_t v)
{
	if (v != JS_NONE && (*m == JS_NONE || v < *m))
		*m = v;
}

void fig_sum(int64_t *s, int64_t v)
{
	if (v != JS_NONE)
		*s = (*s == JS_NONE ? 0 : *s) + v;
}

void figures_add_units(struct figures *f, const struct unit_rec *const *units, size_t n)
{
	int seen_nodes[256], nseen = 0;
	int64_t node_mem[256], node_cpu[256];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct unit_rec *u = units[i];
		int k;

		f->nunits++;
		if (u->step_id != (int64_t)STEP_NONE)
			f->ntasks++;
		if (unit_running(u)) {
			f->running = 1;
			f->unit_end_ns = JS_NONE;
		} else if (!f->running) {
			fig_max(&f->unit_end_ns, u->end_ns);
		}
		fig_min(&f->unit_start_ns, u->start_ns > 0 ? u->start_ns : JS_NONE);
		for (k = 0; k < nseen && seen_nodes[k] != u->node; k++)
			;
		if (k == nseen && nseen < 256) {
			seen_nodes[nseen] = u->node;
			node_mem[nseen] = node_cpu[nseen] = JS_NONE;
			nseen++;
		}
		if (k < 256) {
			fig_max(&node_mem[k], u->cgroup_mem_peak_kb);
			fig_max(&node_cpu[k], u->cgroup_cpu_ns);
		}
		fig_sum(&f->lost, u->lost_events); /* each unit counts its own losses */
		fig_sum(&f->unlisted, u->procs_folded);
		if (u->down_start_ns > 0) {
			fig_min(&f->down_start_ns, u->down_start_ns);
			fig_max(&f->down_end_ns, u->down_end_ns);
		}
		if (!u->have_totals)
			continue;
		figures_add_totals(f, &u->t);
		fig_sum(&f->cpu_ns, u->t.cpu_ns);
		fig_sum(&f->user_ns, u->t.user_ns);
		fig_sum(&f->sys_ns, u->t.sys_ns);
		fig_min(&f->first_start_ns, u->t.first_start_ns);
		fig_max(&f->last_end_ns, u->t.last_end_ns);
		fig_max(&f->task_peak_rss_kb, u->t.peak_sampled_rss_kb);
		if (u->t.peak_cores >= 0) {
			f->peak_cores = (f->peak_cores < 0 ? 0 : f->peak_cores) + u->t.peak_cores;
			if (u->t.peak_cores > f->task_peak_cores)
				f->task_peak_cores = u->t.peak_cores;
		}
	}
	f->nnodes += nseen;
	for (int k = 0; k < nseen; k++) {
		fig_sum(&f->cgroup_mem_peak_kb, node_mem[k]);
		if (node_mem[k] != JS_NONE &&
		    (f->node_mem_peak_kb == JS_NONE || node_mem[k] > f->node_mem_peak_kb)) {
			f->node_mem_peak_kb = node_mem[k];
			f->node_mem_peak_node = seen_nodes[k];
		}
		if (node_cpu[k] != JS_NONE)
			f->cgroup_cpu_ns =
				(f->cgroup_cpu_ns == JS_NONE ? 0 : f->cgroup_cpu_ns) + node_cpu[k];
	}
}

void figures_merge(struct figures *j, const struct figures *s)
{
	if (!s->nunits)
		return;
	j->nunits += s->nunits;
	j->ntasks += s->ntasks;
	if (s->nnodes > j->nnodes)
		j->nnodes = s->nnodes;
	if (s->running) {
		j->running = 1;
		j->unit_end_ns = JS_NONE;
	} else if (!j->running) {
		fig_max(&j->unit_end_ns, s->unit_end_ns);
	}
	fig_min(&j->unit_start_ns, s->unit_start_ns);
	j->nprocs += s->nprocs;
	j->cpu_ns += s->cpu_ns;
	j->user_ns += s->user_ns;
	j->sys_ns += s->sys_ns;
	fig_max(&j->maxrss_kb, s->maxrss_kb);
	j->read_bytes += s->read_bytes;
	j->write_bytes += s->write_bytes;
	j->rchar += s->rchar;
	j->wchar += s->wchar;
	j->oom_kills += s->oom_kills;
	figures_add_waits(j, s->cpu_wait_ns, s->iowait_ns, s->offcpu_ns, s->net_rx_bytes,
			  s->net_tx_bytes);
	fig_sum(&j->lost, s->lost);
	fig_sum(&j->unlisted, s->unlisted);
	fig_min(&j->down_start_ns, s->down_start_ns);
	fig_max(&j->down_end_ns, s->down_end_ns);
	fig_min(&j->first_start_ns, s->first_start_ns);
	fig_max(&j->last_end_ns, s->last_end_ns);
	fig_max(&j->task_peak_rss_kb, s->task_peak_rss_kb);
	if (s->node_mem_peak_kb != JS_NONE &&
	    (j->node_mem_peak_kb == JS_NONE || s->node_mem_peak_kb > j->node_mem_peak_kb)) {
		j->node_mem_peak_kb = s->node_mem_peak_kb;
		j->node_mem_peak_node = s->node_mem_peak_node;
	}
	if (s->peak_cores > j->peak_cores)
		j->peak_cores = s->peak_cores;
	if (s->task_peak_cores > j->task_peak_cores)
		j->task_peak_cores = s->task_peak_cores;
}
