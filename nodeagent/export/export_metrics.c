/* A metrics snapshot as an OTLP request (export_metrics.h). The attribute keys are those the
 * spans carry (items.c), so that a unit's metrics and its span meet on the same values. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "export_metrics.h"
#include "slurm_ids.h"
#include "version.h"

/* slurm.job_id, slurm.step_id, slurm.task_id, slurm.user, slurm.job_name, slurm.account,
 * slurm.partition, tracer.unit.id */
#define UNIT_ATTRS 8

/* The attributes of a unit's points, and of its tools' (the unit's, then tracer.tool); a step's
 * name stays in the unit's own, which its tools' point to */
struct series_attrs {
	struct otlp_attr a[UNIT_ATTRS + 1];
	size_t n;
	char step[16];
};

static void unit_attrs(const struct metrics_unit_series *u, struct series_attrs *sa)
{
	struct otlp_attr *a = sa->a;
	size_t n = 0;

	if (u->slurm) {
		a[n++] = (struct otlp_attr){ .key = "slurm.job_id",
					     .type = OTLP_INT,
					     .i = (int64_t)u->job_id };
		if (u->step_id != STEP_NONE)
			a[n++] = (struct otlp_attr){ .key = "slurm.step_id",
						     .type = OTLP_STR,
						     .s = slurm_step_name(u->step_id, sa->step,
									  sizeof(sa->step)) };
		if (u->task_id >= 0)
			a[n++] = (struct otlp_attr){ .key = "slurm.task_id",
						     .type = OTLP_INT,
						     .i = u->task_id };
		a[n++] = (struct otlp_attr){ .key = "slurm.user", .type = OTLP_STR, .s = u->user };
		a[n++] = (struct otlp_attr){ .key = "slurm.job_name",
					     .type = OTLP_STR,
					     .s = u->name };
		if (u->account[0])
			a[n++] = (struct otlp_attr){ .key = "slurm.account",
						     .type = OTLP_STR,
						     .s = u->account };
		if (u->partition[0])
			a[n++] = (struct otlp_attr){ .key = "slurm.partition",
						     .type = OTLP_STR,
						     .s = u->partition };
	} else {
		a[n++] = (struct otlp_attr){ .key = "tracer.unit.name",
					     .type = OTLP_STR,
					     .s = u->name };
		a[n++] = (struct otlp_attr){ .key = "user.name", .type = OTLP_STR, .s = u->user };
	}
	a[n++] = (struct otlp_attr){ .key = "tracer.unit.id",
				     .type = OTLP_INT,
				     .i = (int64_t)u->unit_id };
	sa->n = n;
}

static struct otlp_point point(const struct series_attrs *sa, const struct metrics_figure *f,
			       int64_t start, int64_t now, double v)
{
	struct otlp_point p = { .attrs = sa->a,
				.nattrs = sa->n,
				.start_unix_ns = f->counter && start > 0 ? (uint64_t)start : 0,
				.time_unix_ns = (uint64_t)now };

	if (f->integer) {
		p.type = OTLP_AS_INT;
		p.i = (int64_t)v;
	} else {
		p.type = OTLP_AS_DOUBLE;
		p.d = v;
	}
	return p;
}

static struct otlp_metric metric(const struct metrics_figure *f, struct otlp_point *p, size_t n)
{
	return (struct otlp_metric){ .name = f->otlp,
				     .description = f->help,
				     .unit = f->unit,
				     .kind = f->counter ? OTLP_SUM : OTLP_GAUGE,
				     .monotonic = f->counter,
				     .points = p,
				     .npoints = n };
}

int export_metrics_encode(const struct metrics_snapshot *s, enum otlp_format f,
			  const struct otlp_resource *res, struct otlp_buf *out)
{
	static const struct otlp_scope scope = { "tracer", TRACER_VERSION };
	size_t nu = s->nunits, nt = s->ntools, nm = 0;
	struct otlp_metric m[MF_UNIT_FIGS + MF_TOOL_FIGS];
	struct series_attrs *ua = calloc(nu + nt + 1, sizeof(*ua)), *ta = ua + nu;
	struct otlp_point *p = calloc(nu * MF_UNIT_FIGS + nt * MF_TOOL_FIGS + 1, sizeof(*p)), *at;
	int r = -ENOMEM;

	if (!ua || !p)
		goto out;
	for (size_t i = 0; i < nu; i++)
		unit_attrs(&s->units[i], &ua[i]);
	for (size_t i = 0; i < nt; i++) {
		ta[i] = ua[s->tools[i].unit];
		ta[i].a[ta[i].n++] = (struct otlp_attr){ .key = "tracer.tool",
							 .type = OTLP_STR,
							 .s = s->tools[i].name };
	}
	at = p;
	for (unsigned k = 0; nu && k < MF_UNIT_FIGS; k++) {
		for (size_t i = 0; i < nu; i++)
			at[i] = point(&ua[i], &metrics_unit_figs[k], s->units[i].start_unix_ns,
				      s->time_unix_ns, s->units[i].v[k]);
		m[nm++] = metric(&metrics_unit_figs[k], at, nu);
		at += nu;
	}
	for (unsigned k = 0; nt && k < MF_TOOL_FIGS; k++) {
		for (size_t i = 0; i < nt; i++)
			at[i] = point(&ta[i], &metrics_tool_figs[k],
				      s->units[s->tools[i].unit].start_unix_ns, s->time_unix_ns,
				      s->tools[i].v[k]);
		m[nm++] = metric(&metrics_tool_figs[k], at, nt);
		at += nt;
	}
	r = otlp_encode_metrics(f, res, &scope, m, nm, out);
out:
	free(ua);
	free(p);
	return r;
}
