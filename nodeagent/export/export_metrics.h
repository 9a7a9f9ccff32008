/* A snapshot of the running units' figures (metrics_snapshot.h) as one OTLP metrics request:
 * what the export thread posts to /v1/metrics. */
#ifndef TRACER_EXPORT_METRICS_H
#define TRACER_EXPORT_METRICS_H

#include "metrics_snapshot.h"
#include "otlp.h"

/* Each figure of metrics_unit_figs and metrics_tool_figs as a metric, with a point per running
 * unit (or tool) of s: a counter as a cumulative, monotonic sum since its unit's start, the rest
 * as gauges; no pid among the attributes, only the unit's (slurm.job_id, slurm.step_id,
 * slurm.task_id, slurm.user and slurm.job_name; or a traced run's tracer.unit.name and
 * user.name; and tracerd's tracer.unit.id) and the tool's name. A figure with no point is
 * left out. Appended to out; 0, or -ENOMEM/-EINVAL with out's length as it was. */
int export_metrics_encode(const struct metrics_snapshot *s, enum otlp_format f,
			  const struct otlp_resource *res, struct otlp_buf *out);

#endif
