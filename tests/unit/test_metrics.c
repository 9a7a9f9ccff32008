/* Unit tests for nodeagent/metrics.c: what a scrape says of running units (a traced run with a
 * hostile name, a job step's tasks taken together), that ended units have no series, and that
 * every family has its HELP and TYPE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testagent.h"

#include "agent_internal.h"
#include "metrics.h"
#include "units.h"

static void set_cpu(struct unit *u, int64_t cpu_ns, int64_t nprocs)
{
	u->done.cpu_ns = cpu_ns;
	u->done.nprocs = nprocs;
	memset(u->done.set, 1, sizeof(u->done.set));
}

static struct unit *slurm_task(struct agent *a, uint64_t job, uint32_t step, int32_t task,
			       int64_t cpu_ns)
{
	struct unit *u = units_new(a, UNIT_KIND_SLURM, "task", 0, 0);

	assert_non_null(u);
	u->job_id = job;
	u->step_id = step;
	u->task_id = task;
	snprintf(u->job_name, sizeof(u->job_name), "align");
	snprintf(u->account, sizeof(u->account), "bio\"lab");
	snprintf(u->partition, sizeof(u->partition), "short");
	set_cpu(u, cpu_ns, 2);
	return u;
}

static char *scrape(struct agent *a)
{
	struct metrics_serving sv = { .clients = 3, .client_refusals = 7 };
	struct prom_buf b;

	prom_init(&b, METRICS_REPLY_MAX);
	assert_int_equal(metrics_render(a, &sv, &b), 0);
	assert_non_null(b.data);
	return b.data;
}

static void test_units(void **state)
{
	char dir[64], *text, *line;
	struct agent *a = ta_agent_new("test_metrics", "boot-m", dir);
	struct unit *run, *ended;
	unsigned helps = 0, types = 0;
	double started;

	(void)state;
	assert_non_null(a);
	run = units_new(a, UNIT_KIND_LOCAL, "evil\"} 1\nfake{a=\"\x1b[2J\xff", 0, 0);
	assert_non_null(run);
	set_cpu(run, 1500000000, 4);
	slurm_task(a, 42, 0, 0, 1000000000);
	slurm_task(a, 42, 0, 1, 2000000000); /* the same step's second task */
	ended = slurm_task(a, 43, 0, 0, 5000000000);
	ended->state = UNIT_COMPLETED;

	text = scrape(a);
	/* a step's tasks: a unit each, their sum PromQL's */
	assert_non_null(strstr(text,
			       "tracer_job_cpu_seconds_total{node=\"node\",slurm_job=\"42\","
			       "step=\"0\",task=\"0\",user=\"root\",slurm_account=\"bio\\\"lab\","
			       "slurm_partition=\"short\",unit=\"align\","
			       "unit_id=\"1\"} 1\n"));
	assert_non_null(strstr(text,
			       "tracer_job_cpu_seconds_total{node=\"node\",slurm_job=\"42\","
			       "step=\"0\",task=\"1\",user=\"root\",slurm_account=\"bio\\\"lab\","
			       "slurm_partition=\"short\",unit=\"align\","
			       "unit_id=\"2\"} 2\n"));
	assert_non_null(strstr(text,
			       "tracer_job_processes_started_total{node=\"node\",slurm_job=\"42\","
			       "step=\"0\",task=\"1\",user=\"root\",slurm_account=\"bio\\\"lab\","
			       "slurm_partition=\"short\",unit=\"align\","
			       "unit_id=\"2\"} 2\n"));
	assert_non_null(strstr(text, "unit=\"evil\\\"} 1\\\\x0afake{a=\\\"\\\\x1b[2J\\\\xff\","
				     "unit_id=\"0\"} 1.5\n"));
	assert_null(strstr(text, "slurm_job=\"43\"")); /* ended: its series are gone */
	assert_non_null(strstr(text, "tracer_clients_connected{node=\"node\"} 3\n"));
	assert_non_null(strstr(text, "tracer_units_running{node=\"node\"} 2\n") ||
			strstr(text, "tracer_units_running{node=\"node\"} 3\n"));
	/* tracerd's start to the millisecond, not to 9 digits (seconds off) */
	line = strstr(text, "\ntracer_start_time_seconds{node=\"node\"} ");
	assert_non_null(line);
	started = strtod(strchr(line, '}') + 2, NULL);
	assert_true(started > a->started_ns / 1e9 - 0.001 && started < a->started_ns / 1e9 + 0.001);
	/* no label named as those Prometheus gives each target: a scrape would rename ours */
	assert_null(strstr(text, "{job=") ?: strstr(text, ",job="));
	assert_null(strstr(text, "{instance=") ?: strstr(text, ",instance="));
	/* every line a comment or one series: no name broke one */
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		helps += !strncmp(line, "# HELP ", 7);
		types += !strncmp(line, "# TYPE ", 7);
		assert_true(line[0] == '#' || !strncmp(line, "tracer_", 7));
	}
	assert_true(helps > 10);
	assert_int_equal(helps, types);
	free(text);
	/* a counter never goes back while its unit runs */
	run->done.cpu_ns = 500000000;
	text = scrape(a);
	assert_non_null(strstr(text, "unit_id=\"0\"} 1.5\n"));
	free(text);
	assert_int_equal(ta_agent_free(a, dir), 0);
}

/* a reply at its bound: whole series only, and what was left out counted */
static void test_cut(void **state)
{
	char dir[64], name[UNIT_NAME_MAX], *cut, *line;
	struct agent *a = ta_agent_new("test_metrics", "boot-m", dir);
	struct metrics_serving sv = { 0 };
	struct prom_buf b;

	(void)state;
	assert_non_null(a);
	memset(name, '"', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	for (int i = 0; i < 50; i++)
		assert_non_null(units_new(a, UNIT_KIND_LOCAL, name, 0, 0));
	prom_init(&b, 16384);
	assert_int_equal(metrics_render(a, &sv, &b), 0);
	assert_true(b.len <= 16384);
	assert_int_equal(b.data[b.len - 1], '\n');
	cut = strstr(b.data, "tracer_metrics_series_cut{node=\"node\"} ");
	assert_non_null(cut);
	/* 8 figures of 50 runs: those that did not fit are counted */
	assert_true(atoi(cut + strlen("tracer_metrics_series_cut{node=\"node\"} ")) > 300);
	for (line = strtok(b.data, "\n"); line; line = strtok(NULL, "\n"))
		assert_true(line[0] == '#' || !strncmp(line, "tracer_", 7));
	prom_free(&b);
	assert_int_equal(ta_agent_free(a, dir), 0);
}

static size_t two_signals(void *ctx, struct metrics_export *out, size_t max)
{
	(void)ctx;
	assert_true(max >= 2);
	out[0] = (struct metrics_export){ "traces", 12, 0, 1700000000000000000ll, 1 };
	out[1] = (struct metrics_export){ "logs", 0, 0, 0, 0 };
	return 2;
}

static void test_export_hook(void **state)
{
	char dir[64], *text;
	struct agent *a = ta_agent_new("test_metrics", "boot-m", dir);

	(void)state;
	assert_non_null(a);
	text = scrape(a);
	assert_null(strstr(text, "tracer_export_")); /* no exporter: nothing said */
	free(text);
	metrics_set_export(two_signals, NULL);
	text = scrape(a);
	assert_non_null(
		strstr(text, "tracer_export_backlog{node=\"node\",signal=\"traces\"} 12\n"));
	assert_non_null(strstr(text, "tracer_export_last_success_time_seconds{node=\"node\","
				     "signal=\"traces\"} 1700000000\n"));
	metrics_set_export(NULL, NULL);
	free(text);
	assert_int_equal(ta_agent_free(a, dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_export_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
