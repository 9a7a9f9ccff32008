/* Render: what each field shows in a row, as text and as JSON, from its number (values.c)
 * or its text; and the cells of array rows. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arrays.h"
#include "convert.h"
#include "effic.h"
#include "fields.h"
#include "safetext.h"
#include "timeline.h"

static int known(int64_t v)
{
	return v != JS_NONE;
}

/* ---- array rows: min/median/max of each numeric field (arrays.h) */

int array_cell(int field, const struct row *r, const struct cellctx *c, char *out, size_t len)
{
	const struct array_stats *s = r->arr;
	char a[64], b[64], d[64];

	if (!s)
		return 0;
	switch (field) {
	case F_NJOBS:
		snprintf(out, len, "%" PRId64, s->njobs);
		return 1;
	case F_STATE:
		snprintf(out, len, "%s", s->states);
		return 1;
	case F_SUGGEST:
		snprintf(out, len, "%s", s->suggest);
		return 1;
	case F_JOBID:
	case F_JOBNAME:
	case F_USER:
		return 0;
	default:
		break;
	}
	if (!field_defs[field].numeric) {
		out[0] = 0;
		return 1;
	}
	if (!s->v[field].n) {
		snprintf(out, len, "%s", s->njobs ? JS_UNKNOWN : "");
		return 1;
	}
	cell_format_number(field, s->v[field].min, c, a, sizeof(a));
	cell_format_number(field, s->v[field].median, c, b, sizeof(b));
	cell_format_number(field, s->v[field].max, c, d, sizeof(d));
	snprintf(out, len, "%s/%s/%s", a, b, d);
	return 1;
}

/* ---- one row */

void cell_format_number(int field, double v, const struct cellctx *c, char *out, size_t len)
{
	switch (field_defs[field].kind) {
	case FK_ELAPSED:
		fmt_elapsed(out, len, conv_round(v));
		break;
	case FK_CPUTIME:
		fmt_cputime(out, len, conv_round(v / 1000));
		break;
	case FK_PERCENT:
		conv_percent(out, len, v);
		break;
	case FK_CORES:
		snprintf(out, len, "%.2f", v);
		break;
	case FK_MB:
		fmt_size(out, len, v, U_M, c->units, 1);
		break;
	case FK_KB:
		fmt_size(out, len, v, U_K, c->units, 0);
		break;
	case FK_BYTES:
		fmt_size(out, len, v, U_NONE, c->units, 0);
		break;
	case FK_RATE: {
		size_t at;

		fmt_size(out, len, v, U_NONE, c->units, 0);
		at = strlen(out);
		snprintf(out + at, len - at, "/s");
		break;
	}
	default:
		snprintf(out, len, "%.0f", v);
		break;
	}
}

/* Fields that sacct leaves blank where they do not apply (a step's user, time limit,
 * requested memory); tracer's fields print JS_UNKNOWN when tracer knows nothing. */
static int blank_when_unknown(int field, const struct row *r)
{
	switch (field) {
	case F_NNODES:
	case F_NTASKS:
	case F_PID:
	case F_PPID:
	case F_TASK:
		return 1;
	case F_REQMEM:
		return r->kind == ROW_STEP || r->kind == ROW_PROC || r->kind == ROW_TOOL ||
		       r->kind == ROW_TREE || r->kind == ROW_WF;
	case F_TIMEEFF:
		return r->kind != ROW_JOB && r->kind != ROW_LOCAL && r->kind != ROW_ARRAY;
	case F_ALLOCCPUS:
		return r->kind == ROW_TOOL || r->kind == ROW_TREE || r->kind == ROW_WF;
	case F_ELAPSED:
		return r->kind == ROW_TOOL || r->kind == ROW_TREE;
	case F_RESERVED: /* sacct's: of jobs only */
		return r->kind != ROW_JOB && r->kind != ROW_ARRAY;
	default:
		return 0;
	}
}

/* The text of a field as it is: what users wrote is escaped by the caller, once */
static void cell_raw(int field, const struct row *r, const struct cellctx *c, char *out, size_t len)
{
	double v;
	int k;

	out[0] = 0;
	if (r->kind == ROW_ARRAY && array_cell(field, r, c, out, len))
		return;
	k = cell_number(field, r, &v);
	if (k == 1) {
		cell_format_number(field, v, c, out, len);
		return;
	}
	if (k == 0) {
		snprintf(out, len, "%s", blank_when_unknown(field, r) ? "" : JS_UNKNOWN);
		return;
	}
	switch (field) {
	case F_JOBID:
		snprintf(out, len, "%s", r->jobid);
		break;
	case F_JOBNAME:
		snprintf(out, len, "%s", r->jobname);
		break;
	case F_USER:
		snprintf(out, len, "%s", r->user);
		break;
	case F_STATE:
		snprintf(out, len, "%s", r->state);
		break;
	case F_NODELIST:
		snprintf(out, len, "%s", r->nodelist);
		break;
	case F_PARTITION:
		snprintf(out, len, "%s", r->partition);
		break;
	case F_START:
		if (r->kind == ROW_TOOL || r->kind == ROW_PROC || r->kind == ROW_TREE ||
		    r->kind == ROW_WF)
			conv_datetime(out, len,
				      r->f.first_start_ns == JS_NONE
					      ? 0
					      : r->f.first_start_ns / 1000000000);
		else
			conv_datetime(out, len, r->start);
		break;
	case F_END:
		if (r->kind == ROW_TOOL || r->kind == ROW_PROC || r->kind == ROW_TREE ||
		    r->kind == ROW_WF)
			conv_datetime(out, len,
				      r->f.last_end_ns == JS_NONE ? 0
								  : r->f.last_end_ns / 1000000000);
		else
			conv_datetime(out, len, r->end);
		break;
	case F_TIMELIMIT:
		conv_timelimit(out, len, r->timelimit);
		break;
	case F_ACCOUNT:
		snprintf(out, len, "%s", r->account);
		break;
	case F_QOS:
		snprintf(out, len, "%s", r->qos);
		break;
	case F_SUBMIT: /* a step's is its start, as sacct shows it */
		if (r->kind == ROW_JOB || r->kind == ROW_STEP)
			conv_datetime(out, len, r->kind == ROW_JOB ? r->submit : r->start);
		break;
	case F_MAXRSSNODE:
		snprintf(out, len, "%s",
			 r->maxrss_node[0] || !r->f.nunits ? r->maxrss_node : JS_UNKNOWN);
		break;
	case F_EXITCODE:
		if (r->kind == ROW_TOOL || r->kind == ROW_WF)
			break;
		conv_exitcode(out, len, r->exit_status);
		break;
	case F_ALLOCCORES:
		snprintf(out, len, "%s", r->alloc_cores);
		break;
	case F_TOOL:
		snprintf(out, len, "%s", r->tool[0] || r->kind == ROW_WF ? r->tool : JS_UNKNOWN);
		break;
	case F_PIPELINE:
		snprintf(out, len, "%s", r->pipeline);
		break;
	case F_RUN:
		snprintf(out, len, "%s", r->run);
		break;
	case F_STEP:
		snprintf(out, len, "%s", r->step);
		break;
	case F_WILDCARDS:
		snprintf(out, len, "%s", r->wildcards);
		break;
	case F_TAG:
		snprintf(out, len, "%s", r->tag);
		break;
	case F_SUGGEST:
		row_suggest(r, out, len);
		break;
	case F_PID:
		if (known(r->pid))
			snprintf(out, len, "%" PRId64, r->pid);
		break;
	case F_PPID:
		if (known(r->ppid))
			snprintf(out, len, "%" PRId64, r->ppid);
		break;
	case F_COMMAND:
		snprintf(out, len, "%s", r->command ? r->command : "");
		break;
	case F_NODE:
		snprintf(out, len, "%s", r->nodelist[0] ? r->nodelist : JS_UNKNOWN);
		break;
	case F_TASK:
		if (known(r->task))
			snprintf(out, len, "%" PRId64, r->task);
		break;
	case F_TREE:
		if (r->kind == ROW_TREE) {
			size_t at = 0;

			for (int d = 0; d < r->depth && at + 3 < len && d < 64; d++)
				at += snprintf(out + at, len - at, "%s",
					       d == r->depth - 1 ? " \\_ " : "    ");
			snprintf(out + (at < len ? at : len - 1), len - (at < len ? at : len - 1),
				 "%s", r->tool);
		}
		break;
	case F_EXITCODES:
		snprintf(out, len, "%s", r->exit_codes);
		break;
	case F_TIME:
		if (r->tl)
			conv_datetime(out, len, r->tl->begin_ns / 1000000000);
		break;
	case F_NOTE:
		if (r->tl)
			snprintf(out, len, "%s", r->tl->note);
		break;
	default:
		break;
	}
}

void cell_text(int field, const struct row *r, const struct cellctx *c, char *out, size_t len)
{
	cell_raw(field, r, c, out, len);
	safe_text_inplace(out, len); /* every value shown: text of users' making */
}

struct json_object *cell_json_number(int field, double v)
{
	switch (field_defs[field].kind) {
	case FK_CPUTIME:
		return json_object_new_double((double)conv_round(v / 1e6) / 1e3);
	case FK_KB:
		return json_object_new_int64((int64_t)v * 1024);
	case FK_MB:
		return json_object_new_int64((int64_t)v * 1024 * 1024);
	case FK_PERCENT:
	case FK_CORES:
		return json_object_new_double((double)conv_round(v * 100) / 100);
	default:
		return json_object_new_int64(conv_round(v));
	}
}

struct json_object *cell_json(int field, const struct row *r, const struct cellctx *c)
{
	char buf[1024];
	double v;
	int k = r->kind == ROW_ARRAY ? -1 : cell_number(field, r, &v);

	if (k == 0)
		return NULL;
	if (k == 1)
		return cell_json_number(field, v);
	switch (field) {
	case F_SUBMIT:
		if (r->kind != ROW_JOB && r->kind != ROW_STEP)
			return NULL;
		return (r->kind == ROW_JOB ? r->submit : r->start) > 0
			       ? json_object_new_int64(r->kind == ROW_JOB ? r->submit : r->start)
			       : NULL;
	case F_START:
	case F_END: {
		int64_t t = field == F_START ? r->start : r->end;

		if (r->kind == ROW_TOOL || r->kind == ROW_PROC || r->kind == ROW_TREE ||
		    r->kind == ROW_WF) {
			int64_t ns = field == F_START ? r->f.first_start_ns : r->f.last_end_ns;

			t = ns == JS_NONE ? 0 : ns / 1000000000;
		}
		return t > 0 ? json_object_new_int64(t) : NULL;
	}
	case F_TIMELIMIT:
		if (r->timelimit == JS_NONE)
			return NULL;
		if (r->timelimit < 0)
			return json_object_new_string(
				r->timelimit == TL_UNLIMITED ? "UNLIMITED" : "Partition_Limit");
		return json_object_new_int64(r->timelimit * 60);
	case F_EXITCODE:
		if (r->exit_status == JS_NONE || r->kind == ROW_TOOL || r->kind == ROW_WF)
			return NULL;
		break;
	case F_TIME: /* unix seconds, as Start */
		return r->tl ? json_object_new_int64(r->tl->begin_ns / 1000000000) : NULL;
	case F_PID:
	case F_PPID:
	case F_TASK: {
		int64_t x = field == F_PID ? r->pid : field == F_PPID ? r->ppid : r->task;

		return x == JS_NONE ? NULL : json_object_new_int64(x);
	}
	default:
		break;
	}
	/* escaped with the whole document (safe_text_json), not here too */
	cell_raw(field, r, c, buf, sizeof(buf));
	if (!buf[0] || strcmp(buf, JS_UNKNOWN) == 0)
		return NULL;
	return json_object_new_string(buf);
}

struct json_object *array_json(const struct row *r, const struct col *cols, size_t n,
			       const struct cellctx *c)
{
	struct json_object *o = json_object_new_object();
	char buf[256];

	for (size_t i = 0; o && i < n; i++) {
		int f = cols[i].field;
		const struct array_stats *s = r->arr;
		struct json_object *v = NULL;

		if (f == F_NJOBS) {
			v = json_object_new_int64(s->njobs);
		} else if (field_defs[f].numeric) {
			if (s->v[f].n) {
				v = json_object_new_object();
				json_object_object_add(v, "min", cell_json_number(f, s->v[f].min));
				json_object_object_add(v, "median",
						       cell_json_number(f, s->v[f].median));
				json_object_object_add(v, "max", cell_json_number(f, s->v[f].max));
			}
		} else {
			cell_raw(f, r, c, buf, sizeof(buf));
			if (buf[0])
				v = json_object_new_string(buf);
		}
		json_object_object_add(o, field_defs[f].name, v);
	}
	return o;
}
