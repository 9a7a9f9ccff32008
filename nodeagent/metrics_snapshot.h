/* The running units' figures at one moment (metrics.c takes it; the Prometheus endpoint and the
 * OTLP exporter say it): each running unit (a Slurm task or allocation, a traced run) and its
 * tools running now, bounded. Plain and self-contained: numbers and copied strings, no pointer
 * into tracerd's memory, so that another thread may read it and free it with
 * metrics_snapshot_free. Series carry no pid and end with their unit. */
#ifndef TRACER_METRICS_SNAPSHOT_H
#define TRACER_METRICS_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

/* Series of running units and tools per snapshot at most; what is past them is counted as cut */
#define METRICS_SERIES_MAX 2000
#define METRICS_UNITS_MAX (METRICS_SERIES_MAX / 4)
#define METRICS_TOOLS_MAX (METRICS_SERIES_MAX - METRICS_UNITS_MAX)
#define METRICS_NAME_MAX 128 /* a unit's name (UNIT_NAME_MAX) */
#define METRICS_TOOL_MAX 64  /* a tool's name (struct tool_id) */
#define METRICS_USER_MAX 33
#define METRICS_SLURM_NAME_MAX 64 /* an account's or a partition's (struct unit) */

/* A unit's figures, and a tool's */
enum metrics_unit_fig {
	MF_CPU,
	MF_RSS,
	MF_READ,
	MF_WRITE,
	MF_CPU_WAIT,
	MF_IO_WAIT,
	MF_STARTED,
	MF_RUNNING,
	MF_UNIT_FIGS
};
enum metrics_tool_fig { MF_TOOL_RUNNING, MF_TOOL_RSS, MF_TOOL_FIGS };

/* What a figure is, for each way of saying it */
struct metrics_figure {
	const char *prom; /* its Prometheus family */
	const char *otlp; /* its OTLP metric */
	const char *unit; /* its OTLP unit (UCUM): "s", "By", "{process}" */
	const char *help;
	int counter; /* never goes back while its unit runs (a cumulative, monotonic sum) */
	int integer; /* a whole number (an OTLP as_int) */
};
extern const struct metrics_figure metrics_unit_figs[MF_UNIT_FIGS];
extern const struct metrics_figure metrics_tool_figs[MF_TOOL_FIGS];

struct metrics_unit_series {
	int slurm;		     /* a Slurm task or allocation; else a traced run */
	uint64_t job_id;	     /* slurm */
	uint32_t step_id;	     /* slurm: STEP_NONE for an allocation */
	int32_t task_id;	     /* slurm: -1 none */
	uint64_t unit_id;	     /* tracerd's id of the unit */
	char name[METRICS_NAME_MAX]; /* the run's, or the job's */
	char user[METRICS_USER_MAX]; /* the owner's name, or the uid in decimal */
	/* slurm: the job's account and partition, "" unknown (never its nodes: a label that
	 * long and that varied is no label) */
	char account[METRICS_SLURM_NAME_MAX], partition[METRICS_SLURM_NAME_MAX];
	int64_t start_unix_ns; /* its counters' start: the unit's, or tracerd's if that is later */
	double v[MF_UNIT_FIGS];
};

struct metrics_tool_series {
	size_t unit; /* its unit: an index into units */
	char name[METRICS_TOOL_MAX];
	double v[MF_TOOL_FIGS];
};

struct metrics_snapshot {
	int64_t time_unix_ns;
	struct metrics_unit_series *units;
	size_t nunits;
	struct metrics_tool_series *tools;
	size_t ntools;
	uint64_t cut; /* series left out past the caps */
};

void metrics_snapshot_free(struct metrics_snapshot *s);

#endif
