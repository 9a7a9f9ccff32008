/* The number behind each numeric field of a row (fields.h): what the columns, the JSON and
 * the array summaries show of it. Pure. */
#include "effic.h"
#include "fields.h"
#include "timeline.h"

/* the field table of fields.h: compute (array summaries) and render read it */
const struct field_def field_defs[F_COUNT] = {
#define FIELD_DEF(id, name, width, numeric, kind) [F_##id] = { name, width, numeric, kind },
	JOBSTAT_FIELDS(FIELD_DEF)
#undef FIELD_DEF
};

static int tracer_known(const struct row *r)
{
	return r->f.nunits > 0;
}

int cell_number(int field, const struct row *r, double *v)
{
	int64_t x = JS_NONE;
	double d = -1;

	switch (field) {
	case F_NNODES:
		x = r->nnodes;
		break;
	case F_NTASKS:
		x = r->ntasks;
		break;
	case F_ELAPSED:
		x = r->elapsed;
		break;
	case F_ALLOCCPUS:
		x = r->alloc_cpus;
		break;
	case F_REQMEM:
		x = r->req_mem_mb;
		break;
	case F_TOTALCPU:
		x = r->cpu_ns;
		break;
	case F_USERCPU:
		x = r->user_ns;
		break;
	case F_SYSTEMCPU:
		x = r->sys_ns;
		break;
	case F_CPUEFF:
		d = row_cpu_eff(r);
		goto dbl;
	case F_MEMEFF:
		d = row_mem_eff(r);
		goto dbl;
	case F_TIMEEFF:
		d = row_time_eff(r);
		goto dbl;
	case F_PEAKCORES:
		d = r->peak_cores;
		goto dbl;
	case F_MAXRSS:
		x = tracer_known(r) ? r->f.maxrss_kb : JS_NONE;
		break;
	case F_PEAKMEM:
		x = r->peak_mem_kb;
		break;
	case F_READBYTES:
		x = tracer_known(r) ? r->f.read_bytes : JS_NONE;
		break;
	case F_WRITEBYTES:
		x = tracer_known(r) ? r->f.write_bytes : JS_NONE;
		break;
	case F_READCHARS:
		x = tracer_known(r) ? r->f.rchar : JS_NONE;
		break;
	case F_WRITECHARS:
		x = tracer_known(r) ? r->f.wchar : JS_NONE;
		break;
	case F_NPROCS:
		x = tracer_known(r) ? r->f.nprocs : JS_NONE;
		break;
	case F_OOMKILLS:
		x = tracer_known(r) ? r->f.oom_kills : JS_NONE;
		break;
	case F_LOST:
		x = tracer_known(r) ? r->f.lost : JS_NONE;
		break;
	case F_CPUWAIT:
		x = tracer_known(r) ? r->f.cpu_wait_ns : JS_NONE;
		break;
	case F_IOWAIT:
		x = tracer_known(r) ? r->f.iowait_ns : JS_NONE;
		break;
	case F_OFFCPU:
		x = tracer_known(r) ? r->f.offcpu_ns : JS_NONE;
		break;
	case F_NETRX:
		x = tracer_known(r) ? r->f.net_rx_bytes : JS_NONE;
		break;
	case F_NETTX:
		x = tracer_known(r) ? r->f.net_tx_bytes : JS_NONE;
		break;
	case F_RESERVED:
		x = r->kind == ROW_JOB ? r->reserved : JS_NONE;
		break;
	case F_NJOBS:
		if (r->kind != ROW_WF)
			return -1;
		x = r->njobs;
		break;
	case F_SINCE: /* whole seconds: intervals are */
		x = r->tl ? r->tl->since_ns / 1000000000 : JS_NONE;
		break;
	case F_CORES:
		d = r->tl ? r->tl->cores : -1;
		goto dbl;
	case F_CPUUTIL:
		d = r->tl ? r->tl->cpu_util : -1;
		goto dbl;
	case F_RSS:
		x = r->tl ? r->tl->rss_kb : JS_NONE;
		break;
	case F_MEMUTIL:
		d = r->tl ? r->tl->mem_util : -1;
		goto dbl;
	case F_READRATE:
		d = r->tl ? r->tl->read_rate : -1;
		goto dbl;
	case F_WRITERATE:
		d = r->tl ? r->tl->write_rate : -1;
		goto dbl;
	default:
		return -1;
	}
	if (x == JS_NONE)
		return 0;
	*v = (double)x;
	return 1;
dbl:
	if (!(d >= 0))
		return 0;
	*v = d;
	return 1;
}

double cell_eff(int field, const struct row *r)
{
	switch (field) {
	case F_CPUEFF:
		return row_cpu_eff(r);
	case F_MEMEFF:
		return row_mem_eff(r);
	case F_TIMEEFF:
		return row_time_eff(r);
	default:
		return -1;
	}
}
