/* Render: the default formats of each view, -o parsing and --helpformat (the field table is
 * in fields.h, its instance in values.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fields.h"
#include "protocol.h"

const char *view_default_format_nodes(enum view v)
{
	switch (v) {
	case V_PROCS:
		return "JobID,Node,Task,PID,PPID,Start,Elapsed,TotalCPU,MaxRSS,ReadBytes,"
		       "WriteBytes,ExitCode,Tool,"
		       "Command";
	case V_TREE:
		return "JobID,Node,Task,PID,Tree,NProcs,TotalCPU,MaxRSS,ReadBytes,WriteBytes,"
		       "ExitCode";
	default:
		return view_default_format(v);
	}
}

const char *view_default_format(enum view v)
{
	switch (v) {
	case V_TOOLS:
		return "JobID,Tool,NProcs,TotalCPU,MaxRSS,ReadBytes,WriteBytes,Start,End,ExitCodes,"
		       "OOMKills";
	case V_PROCS:
		return "JobID,PID,PPID,Start,Elapsed,TotalCPU,MaxRSS,ReadBytes,WriteBytes,ExitCode,"
		       "Tool,Command";
	case V_TREE:
		return "JobID,PID,Tree,NProcs,TotalCPU,MaxRSS,ReadBytes,WriteBytes,ExitCode";
	case V_ARRAY:
		return "JobID,NJobs,State,Elapsed,TotalCPU,CPUEff,PeakMem,MemEff,NProcs";
	case V_WORKFLOW:
		return "Pipeline%-24,Run%-10,Step%-30,Tool%-18,NJobs,State,NProcs,Elapsed,"
		       "TotalCPU,MaxRSS,ReadBytes,WriteBytes";
	case V_TIMELINE:
		return "JobID,Since,Time,NNodes,NProcs,Cores,CPUUtil,RSS,MemUtil,ReadBytes,"
		       "WriteBytes,CPUWait,IOWait,Note";
	case V_JOBS:
	default:
		return "JobID,JobName,State,Elapsed,AllocCPUS,TotalCPU,CPUEff,PeakMem,ReqMem,"
		       "MemEff,TimeEff,NProcs";
	}
}

const char *view_signals_format(void)
{
	return "JobID,Tool%-18,NProcs,TotalCPU,CPUWait,IOWait,OffCPU,NetRx,NetTx,MaxRSS,OOMKills,"
	       "ExitCodes";
}

static int find_field(const char *name, size_t len)
{
	int i, hit = -1;

	for (i = 0; i < F_COUNT; i++)
		if (strlen(field_defs[i].name) == len &&
		    strncasecmp(field_defs[i].name, name, len) == 0)
			return i;
	for (i = 0; i < F_COUNT; i++)
		if (strncasecmp(field_defs[i].name, name, len) == 0) {
			if (hit >= 0)
				return -2; /* ambiguous */
			hit = i;
		}
	return hit;
}

static const char *view_rows(enum view v)
{
	switch (v) {
	case V_TOOLS:
		return "tool rows (--tools)";
	case V_PROCS:
		return "process rows (--processes)";
	case V_TREE:
		return "tree rows (--tree)";
	case V_ARRAY:
		return "array rows (--array-summary)";
	case V_WORKFLOW:
		return "workflow rows (--workflow)";
	case V_TIMELINE:
		return "timeline rows (--timeline)";
	default:
		return "job and step rows";
	}
}

/* The fields of an interval of --timeline: its own, and those a step's row has that an
 * interval has too (what its processes did in it) */
static int timeline_field(int f)
{
	switch (f) {
	case F_JOBID:
	case F_NNODES:
	case F_NPROCS:
	case F_ALLOCCPUS:
	case F_TOTALCPU:
	case F_READBYTES:
	case F_WRITEBYTES:
	case F_CPUWAIT:
	case F_IOWAIT:
		return 1;
	default:
		return f >= F_SINCE && f <= F_NOTE;
	}
}

int field_applies(int f, enum view v)
{
	int per_job = v == V_JOBS || v == V_ARRAY;

	if (v == V_TIMELINE || (f >= F_SINCE && f <= F_NOTE))
		return v == V_TIMELINE && timeline_field(f);
	switch (f) {
	/* a job's request, limit and advice: no process, tool or workflow row has them */
	case F_REQMEM:
	case F_TIMELIMIT:
	case F_TIMEEFF:
	case F_SUGGEST:
	case F_ACCOUNT:
	case F_QOS:
	case F_SUBMIT:
	case F_RESERVED:
		return per_job;
	/* a process's */
	case F_PID:
	case F_PPID:
	case F_COMMAND:
	case F_NODE:
	case F_TASK:
		return v == V_PROCS || v == V_TREE;
	case F_TREE:
		return v == V_TREE;
	/* a job's, its allocation's or a process's own: no workflow row has one (they sum jobs) */
	case F_JOBNAME:
	case F_USER:
	case F_NODELIST:
	case F_NNODES:
	case F_NTASKS:
	case F_PARTITION:
	case F_EXITCODE:
	case F_ALLOCCPUS:
	case F_ALLOCCORES:
	case F_CPUEFF:
	case F_PEAKMEM:
	case F_MEMEFF:
	case F_PEAKCORES:
	case F_MAXRSSNODE:
		return v != V_WORKFLOW;
	/* a group's */
	case F_EXITCODES:
		return v == V_TOOLS || v == V_WORKFLOW;
	case F_NJOBS:
		return v == V_ARRAY || v == V_WORKFLOW;
	default:
		return 1;
	}
}

int fields_parse(const char *spec, enum view v, struct col **out, char *err, size_t errlen)
{
	struct col *cols;
	size_t n = 0, cap = 1, nrefused = 0;
	char refused[256] = "";
	const char *p;

	if (!spec) {
		proto_errf(err, errlen, "no format");
		return -EINVAL;
	}
	for (p = spec; *p; p++)
		cap += *p == ',';
	cols = calloc(cap, sizeof(*cols));
	if (!cols)
		return -ENOMEM;
	for (p = spec; *p;) {
		size_t len = strcspn(p, ",");
		const char *pct = memchr(p, '%', len), *name = p;
		size_t nlen = pct ? (size_t)(pct - p) : len;
		int f, width = 0;

		while (nlen && isspace((unsigned char)*name)) {
			name++;
			nlen--;
		}
		while (nlen && isspace((unsigned char)name[nlen - 1]))
			nlen--;
		if (nlen) {
			f = find_field(name, nlen);
			if (f < 0) {
				proto_errf(err, errlen,
					   "%s field requested: \"%.*s\" (see --helpformat)",
					   f == -2 ? "Ambiguous" : "Invalid", (int)nlen, name);
				free(cols);
				return -EINVAL;
			}
			if (!field_applies(f, v)) { /* named with the others that do not */
				size_t at = strlen(refused);

				snprintf(refused + at, sizeof(refused) - at, "%s%s", at ? ", " : "",
					 field_defs[f].name);
				nrefused++;
			}
			if (pct) { /* "%W" */
				char *end;
				long w = strtol(pct + 1, &end, 10);

				while (end < p + len && isspace((unsigned char)*end))
					end++;
				if (end == pct + 1 || end != p + len || w < -1000 || w > 1000) {
					proto_errf(err, errlen, "invalid width in \"%.*s\"",
						   (int)len, p);
					free(cols);
					return -EINVAL;
				}
				width = (int)w;
			}
			if (!width) {
				width = field_defs[f].width;
				if (v == V_ARRAY && field_defs[f].numeric && f != F_NJOBS)
					width = width < 0 ? 3 * width - 2 : 3 * width + 2;
				if ((v == V_ARRAY || v == V_WORKFLOW) && f == F_STATE)
					width = 24; /* "FAILED:1,COMPLETED:9" */
			}
			cols[n].field = f;
			cols[n].fixed = pct != NULL;
			cols[n].width = width;
			n++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (nrefused) {
		proto_errf(err, errlen, "field%s %s do%s not apply to %s", nrefused > 1 ? "s" : "",
			   refused, nrefused > 1 ? "" : "es", view_rows(v));
		free(cols);
		return -EINVAL;
	}
	if (!n) {
		proto_errf(err, errlen, "no field in format \"%s\"", spec);
		free(cols);
		return -EINVAL;
	}
	*out = cols;
	return (int)n;
}

void fields_help(FILE *f)
{
	for (int i = 0; i < F_COUNT; i++)
		fprintf(f, "%-20s%s", field_defs[i].name,
			i % 4 == 3 || i == F_COUNT - 1 ? "\n" : "");
}
