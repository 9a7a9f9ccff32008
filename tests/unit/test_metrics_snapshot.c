/* Unit tests for metrics_snapshot_take (nodeagent/metrics.c) and its OTLP request
 * (nodeagent/export/export_metrics.c): running units only, hostile names copied as they are
 * (the encoders clean them), a snapshot that outlives the agent, the caps, a live process's
 * tool, and the request: no pid, a counter as a cumulative sum since its unit's start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "testagent.h"
#include "testlib.h"

#include "agent_internal.h"
#include "export_metrics.h"
#include "metrics.h"
#include "procfs.h"
#include "units.h"
#include "../fuzz/otlp_wire.h"

#define EVIL "evil\"} 1\nfake{a=\"\x1b[2J\xff"

static struct unit *slurm_task(struct agent *a, uint64_t job, uint32_t step, int32_t task)
{
	struct unit *u = units_new(a, UNIT_KIND_SLURM, "task", 0, 0);

	assert_non_null(u);
	u->job_id = job;
	u->step_id = step;
	u->task_id = task;
	snprintf(u->job_name, sizeof(u->job_name), "align");
	return u;
}

static struct metrics_snapshot *take(struct agent *a)
{
	struct metrics_snapshot *s = NULL;

	assert_int_equal(metrics_snapshot_take(a, &s), 0);
	assert_non_null(s);
	return s;
}

static const struct metrics_unit_series *find(const struct metrics_snapshot *s, uint64_t id)
{
	for (size_t i = 0; i < s->nunits; i++)
		if (s->units[i].unit_id == id)
			return &s->units[i];
	return NULL;
}

/* Running units only; names copied as they were; the snapshot is its own */
static void test_units(void **state)
{
	char dir[64];
	struct agent *a = ta_agent_new("test_metrics_snapshot", "boot-s", dir);
	struct unit *run, *task, *ended;
	const struct metrics_unit_series *u;
	struct metrics_snapshot *s;
	uint64_t id;

	(void)state;
	assert_non_null(a);
	run = units_new(a, UNIT_KIND_LOCAL, EVIL, 0, 0);
	assert_non_null(run);
	run->done.cpu_ns = 1500000000;
	run->done.nprocs = 4;
	run->done.read_bytes = 4096;
	task = slurm_task(a, 42, 0, 1);
	task->done.cpu_ns = 2000000000;
	ended = slurm_task(a, 43, STEP_NONE, -1);
	ended->state = UNIT_COMPLETED;

	s = take(a);
	assert_int_equal(s->nunits, 2);
	assert_int_equal(s->ntools, 0);
	assert_int_equal(s->cut, 0);
	assert_true(s->time_unix_ns >= run->start_ns);
	assert_null(find(s, ended->id)); /* ended: no series */
	u = find(s, run->id);
	assert_non_null(u);
	assert_false(u->slurm);
	assert_string_equal(u->name, EVIL);
	assert_string_equal(u->user, "root");
	assert_int_equal(u->start_unix_ns, run->start_ns);
	assert_true(u->v[MF_CPU] == 1.5);
	assert_true(u->v[MF_STARTED] == 4);
	assert_true(u->v[MF_READ] == 4096);
	assert_true(u->v[MF_RUNNING] == 0);
	u = find(s, task->id);
	assert_non_null(u);
	assert_true(u->slurm);
	assert_int_equal(u->job_id, 42);
	assert_int_equal(u->step_id, 0);
	assert_int_equal(u->task_id, 1);
	assert_string_equal(u->name, "align");
	assert_true(u->v[MF_CPU] == 2);

	/* a unit found running by a later tracerd: its counters start with that tracerd */
	a->started_ns = run->start_ns + 5000000000;
	{
		struct metrics_snapshot *later = take(a);

		assert_int_equal(find(later, run->id)->start_unix_ns, a->started_ns);
		metrics_snapshot_free(later);
	}
	/* a counter never goes back while its unit runs; the snapshot taken keeps its figure */
	run->done.cpu_ns = 500000000;
	metrics_snapshot_free(take(a));
	id = run->id;
	assert_int_equal(ta_agent_free(a, dir), 0);
	u = find(s, id); /* the agent is gone: the snapshot holds its own copies */
	assert_string_equal(u->name, EVIL);
	assert_true(u->v[MF_CPU] == 1.5);
	metrics_snapshot_free(s);
}

/* At most METRICS_UNITS_MAX units; the rest counted as cut */
static void test_caps(void **state)
{
	char dir[64], name[UNIT_NAME_MAX];
	struct agent *a = ta_agent_new("test_metrics_snapshot", "boot-s", dir);
	struct metrics_snapshot *s;

	(void)state;
	assert_non_null(a);
	memset(name, '"', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	for (int i = 0; i < METRICS_UNITS_MAX + 100; i++)
		assert_non_null(units_new(a, UNIT_KIND_LOCAL, name, 0, 0));
	s = take(a);
	assert_int_equal(s->nunits, METRICS_UNITS_MAX);
	assert_int_equal(s->cut, 100);
	assert_string_equal(s->units[0].name, name);
	metrics_snapshot_free(s);
	assert_int_equal(ta_agent_free(a, dir), 0);
}

/* A live process (this test's own) of a unit: the unit's running figures and its tool's */
static struct metrics_snapshot *with_live_tool(struct agent *a, struct unit **out)
{
	static const char argv[] = "samtools\0sort\0-o\0x.bam";
	struct unit *u = slurm_task(a, 42, 3, 0);
	struct procfs_stat st;
	struct proc *p;
	int created;

	assert_int_equal(procfs_read_stat(getpid(), &st), 0);
	assert_int_equal(
		proctable_get(&a->procs, getpid(), st.start_ticks * a->tick_ns, &p, &created), 0);
	p->unit = u->id;
	p->flags = PROC_EXECED;
	snprintf(p->comm, sizeof(p->comm), "samtools");
	p->argv = malloc(sizeof(argv));
	assert_non_null(p->argv);
	memcpy(p->argv, argv, sizeof(argv));
	p->argv_len = sizeof(argv) - 1;
	u->live = 1;
	u->done.cpu_ns = 3000000000;
	memset(u->done.set, 1, sizeof(u->done.set)); /* its ended processes' sums are known */
	*out = u;
	return take(a);
}

static void test_tools(void **state)
{
	char dir[64];
	struct agent *a = ta_agent_new("test_metrics_snapshot", "boot-s", dir);
	const struct metrics_unit_series *us;
	struct metrics_snapshot *s;
	struct unit *u;

	(void)state;
	assert_non_null(a);
	s = with_live_tool(a, &u);
	us = find(s, u->id);
	assert_non_null(us);
	assert_true(us->v[MF_RUNNING] == 1);
	assert_true(us->v[MF_RSS] > 0);
	assert_true(us->v[MF_STARTED] >= 1);
	assert_true(us->v[MF_CPU] >= 3); /* its ended processes' and this one's */
	assert_int_equal(s->ntools, 1);
	assert_string_equal(s->tools[0].name, "samtools");
	assert_ptr_equal(&s->units[s->tools[0].unit], us);
	assert_true(s->tools[0].v[MF_TOOL_RUNNING] == 1);
	assert_true(s->tools[0].v[MF_TOOL_RSS] == us->v[MF_RSS]);
	metrics_snapshot_free(s);
	assert_int_equal(ta_agent_free(a, dir), 0);
}

/* The metric named name in a JSON request */
static struct json_object *json_metric(struct json_object *doc, const char *name)
{
	struct json_object *rm = json_object_array_get_idx(key(doc, "resourceMetrics"), 0);
	struct json_object *sm = json_object_array_get_idx(key(rm, "scopeMetrics"), 0);
	struct json_object *ms = key(sm, "metrics");

	for (size_t i = 0; i < json_object_array_length(ms); i++)
		if (!strcmp(gets_(json_object_array_get_idx(ms, i), "name"), name))
			return json_object_array_get_idx(ms, i);
	fail_msg("no metric %s", name);
	return NULL;
}

/* The point of a metric, its attributes as "key=value;" text */
static struct json_object *json_point(struct json_object *m, const char *kind, char *attrs,
				      size_t len)
{
	struct json_object *pt = json_object_array_get_idx(key(key(m, kind), "dataPoints"), 0);
	struct json_object *as = key(pt, "attributes");
	size_t at = 0;

	attrs[0] = 0;
	for (size_t i = 0; i < json_object_array_length(as); i++) {
		struct json_object *kv = json_object_array_get_idx(as, i), *v = key(kv, "value");
		const char *val =
			has(v, "stringValue") ? gets_(v, "stringValue") : gets_(v, "intValue");

		at += (size_t)snprintf(attrs + at, len - at, "%s=%s;", gets_(kv, "key"), val);
	}
	return pt;
}

static void test_encode(void **state)
{
	static const struct otlp_attr host = { .key = "host.name", .type = OTLP_STR, .s = "n1" };
	const struct otlp_resource res = { &host, 1 };
	char dir[64], attrs[1024], start[32];
	struct agent *a = ta_agent_new("test_metrics_snapshot", "boot-s", dir);
	struct json_object *doc, *m, *pt;
	struct metrics_snapshot *s;
	struct ow_counts c = { 0 };
	struct otlp_buf b = { 0 };
	struct unit *u;

	(void)state;
	assert_non_null(a);
	s = with_live_tool(a, &u);
	assert_int_equal(export_metrics_encode(s, OTLP_PROTOBUF, &res, &b), 0);
	assert_int_equal(ow_check(OW_METRICS_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_int_equal(c.metrics, MF_UNIT_FIGS + MF_TOOL_FIGS);
	assert_int_equal(c.points, MF_UNIT_FIGS + MF_TOOL_FIGS);
	assert_null(memmem(b.data, b.len, "pid", 3)); /* no pid attribute, whatever its name */
	b.len = 0;
	assert_int_equal(export_metrics_encode(s, OTLP_JSON, &res, &b), 0);
	assert_null(memmem(b.data, b.len, "pid", 3));
	doc = json_tokener_parse(strndupa(b.data, b.len));
	assert_non_null(doc);

	m = json_metric(doc, "tracer.job.cpu.time");
	assert_string_equal(gets_(m, "unit"), "s");
	assert_int_equal(geti(key(m, "sum"), "aggregationTemporality"), 2);
	assert_true(json_object_get_boolean(key(key(m, "sum"), "isMonotonic")));
	pt = json_point(m, "sum", attrs, sizeof(attrs));
	snprintf(start, sizeof(start), "%lld", (long long)u->start_ns);
	assert_string_equal(gets_(pt, "startTimeUnixNano"), start); /* the unit's start */
	assert_true(json_object_get_double(key(pt, "asDouble")) >= 3);
	assert_string_equal(attrs, "slurm.job_id=42;slurm.step_id=3;slurm.task_id=0;"
				   "slurm.user=root;slurm.job_name=align;tracer.unit.id=0;");

	m = json_metric(doc, "tracer.job.memory.rss");
	assert_string_equal(gets_(m, "unit"), "By");
	pt = json_point(m, "gauge", attrs, sizeof(attrs));
	assert_false(has(pt, "startTimeUnixNano")); /* a gauge has no start */
	assert_true(atoll(gets_(pt, "asInt")) > 0);

	m = json_metric(doc, "tracer.tool.processes.running");
	pt = json_point(m, "gauge", attrs, sizeof(attrs));
	assert_string_equal(gets_(pt, "asInt"), "1");
	assert_string_equal(attrs, "slurm.job_id=42;slurm.step_id=3;slurm.task_id=0;"
				   "slurm.user=root;slurm.job_name=align;tracer.unit.id=0;"
				   "tracer.tool=samtools;");
	json_object_put(doc);
	metrics_snapshot_free(s);

	/* nothing running: a request with no metric */
	u->state = UNIT_COMPLETED;
	s = take(a);
	b.len = 0;
	assert_int_equal(export_metrics_encode(s, OTLP_PROTOBUF, &res, &b), 0);
	c = (struct ow_counts){ 0 };
	assert_int_equal(ow_check(OW_METRICS_REQ, (uint8_t *)b.data, b.len, &c, 0), 0);
	assert_int_equal(c.metrics, 0);
	metrics_snapshot_free(s);
	free(b.data);
	assert_int_equal(ta_agent_free(a, dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
