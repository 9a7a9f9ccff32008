/* Render: aligned, parsable and JSON rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "effic.h"
#include "jobstat.h"
#include "output.h"
#include "safetext.h"

#define RED "\033[31m"
#define GREEN "\033[32m"
#define RESET "\033[0m"
/* A cell: its value (at most 1023 bytes), padding to the widest width (1023) and colours */
#define CELL_BYTES 2112

/* Widths count terminal columns, not bytes (the values are escaped text: valid UTF-8), and a
 * value is cut between two characters; a wide character that does not fit whole leaves its
 * column as padding. */
void out_cell(char *buf, size_t len, const char *v, int width, int colour)
{
	size_t w = (size_t)(width < 0 ? -(long)width : width), cols = safe_text_width(v);
	size_t keep = strlen(v), pad;
	int cut;

	if (w > 1023) /* before cols is compared with it: pad never wraps */
		w = 1023;
	cut = cols > w;
	if (cut) {
		keep = safe_text_prefix(v, w ? w - 1 : 0, &cols);
		cols += w ? 1 : 0; /* the "+" */
	}
	pad = w - cols;
	snprintf(buf, len, "%s%*s%.*s%s%*s%s ",
		 colour < 0   ? RED
		 : colour > 0 ? GREEN
			      : "",
		 width < 0 ? 0 : (int)pad, "", (int)keep, v, cut && w ? "+" : "",
		 width < 0 ? (int)pad : 0, "", colour ? RESET : "");
}

static void put_value(struct out *o, const char *v, int last)
{
	if (!o->delim_warned && strstr(v, o->delim)) {
		safe_text_fprintf(stderr,
				  "tracer-jobstat: warning: a value contains the delimiter '%s' "
				  "(as sacct, it is not escaped); choose another with --delimiter",
				  o->delim);
		o->delim_warned = 1;
	}
	fputs(v, o->f);
	if (!last || o->parsable == P_TRAILING)
		fputs(o->delim, o->f);
}

void out_header(struct out *o)
{
	size_t i;

	if (o->noheader)
		return;
	if (o->fit && !o->parsable) {
		o->header_held = 1;
		return;
	}
	for (i = 0; i < o->ncols; i++) {
		const char *name = field_defs[o->cols[i].field].name;

		if (o->parsable) {
			put_value(o, name, i + 1 == o->ncols);
		} else { /* sacct cuts a long name without a '+' */
			int w = o->cols[i].width < 0 ? -o->cols[i].width : o->cols[i].width;

			fprintf(o->f, "%*.*s ", o->cols[i].width < 0 ? -w : w, w, name);
		}
	}
	fputc('\n', o->f);
	if (o->parsable)
		return;
	for (i = 0; i < o->ncols; i++) {
		int w = o->cols[i].width < 0 ? -o->cols[i].width : o->cols[i].width;

		for (int k = 0; k < w; k++)
			fputc('-', o->f);
		fputc(' ', o->f);
	}
	fputc('\n', o->f);
}

/* Colours follow the state, not only the percentage: a job stopped at its memory or time
 * limit is red there, and a job that did not complete is never green. */
int out_colour(int f, const struct row *r)
{
	int c = eff_colour(cell_eff(f, r));

	if (r->kind != ROW_JOB && r->kind != ROW_STEP && r->kind != ROW_LOCAL)
		return c;
	if ((f == F_MEMEFF && row_oom(r)) || (f == F_TIMEEFF && row_timeout(r)))
		return -1;
	if (c > 0 && r->state[0] && strncmp(r->state, "COMPLETED", 9) != 0)
		return 0;
	return c;
}

static int hold(struct out *o, size_t col, const char *v, int colour)
{
	struct out_cellbuf *c;

	if (col == 0 && o->nheld == o->capheld) {
		size_t cap = o->capheld ? 2 * o->capheld : 64;
		struct out_cellbuf *nv = realloc(o->held, cap * o->ncols * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		o->held = nv;
		o->capheld = cap;
	}
	c = &o->held[o->nheld * o->ncols + col];
	c->colour = colour;
	if (!(c->text = strdup(v)))
		return -ENOMEM;
	if (col + 1 == o->ncols)
		o->nheld++;
	return 0;
}

void out_row(struct out *o, const struct row *r)
{
	char v[1024], cell[CELL_BYTES];
	size_t i;

	for (i = 0; i < o->ncols; i++) {
		int f = o->cols[i].field, colour = 0;

		cell_text(f, r, &o->cc, v, sizeof(v));
		if (o->parsable) {
			put_value(o, v, i + 1 == o->ncols);
			continue;
		}
		if (o->colour && strcmp(v, JS_UNKNOWN) != 0)
			colour = out_colour(f, r);
		if (o->fit) {
			if (hold(o, i, v, colour) < 0) {
				/* the row's cells so far are dropped with it */
				for (size_t k = 0; k < i; k++)
					free(o->held[o->nheld * o->ncols + k].text);
				fprintf(stderr,
					JS_PROG ": out of memory: a row of %s is not shown\n",
					r->jobid);
				return;
			}
			continue;
		}
		out_cell(cell, sizeof(cell), v, o->cols[i].width, colour);
		fputs(cell, o->f);
	}
	if (!o->fit || o->parsable)
		fputc('\n', o->f);
}

int out_flush(struct out *o)
{
	char cell[CELL_BYTES];

	if (!o->fit || o->parsable)
		return 0;
	for (size_t i = 0; i < o->ncols; i++) {
		struct col *c = &o->cols[i];
		int w = c->width < 0 ? -c->width : c->width,
		    cap = 2 * w > FIT_MAX ? 2 * w : FIT_MAX;

		for (size_t r = 0; !c->fixed && r < o->nheld; r++) {
			int l = (int)safe_text_width(o->held[r * o->ncols + i].text);

			if (l > w)
				w = l < cap ? l : cap;
		}
		c->width = c->width < 0 ? -w : w;
	}
	if (o->header_held) {
		o->fit = 0;
		out_header(o);
		o->fit = 1;
		o->header_held = 0;
	}
	for (size_t r = 0; r < o->nheld; r++) {
		for (size_t i = 0; i < o->ncols; i++) {
			struct out_cellbuf *c = &o->held[r * o->ncols + i];

			out_cell(cell, sizeof(cell), c->text, o->cols[i].width, c->colour);
			fputs(cell, o->f);
			free(c->text);
		}
		fputc('\n', o->f);
	}
	free(o->held);
	o->held = NULL;
	o->nheld = o->capheld = 0;
	return 0;
}

const char *view_json_format(enum view v)
{
	switch (v) {
	case V_TOOLS:
		return "JobID,Tool,NProcs,TotalCPU,UserCPU,SystemCPU,MaxRSS,ReadBytes,WriteBytes,"
		       "ReadChars,WriteChars,CPUWait,IOWait,OffCPU,NetRx,NetTx,Start,End,ExitCodes,"
		       "OOMKills,"
		       "Pipeline,Run,Step";
	case V_PROCS:
		return "JobID,Node,Task,PID,PPID,State,Start,End,Elapsed,TotalCPU,UserCPU,"
		       "SystemCPU,MaxRSS,"
		       "ReadBytes,WriteBytes,ReadChars,WriteChars,CPUWait,IOWait,OffCPU,NetRx,"
		       "NetTx,ExitCode,OOMKills,Tool,Command,Pipeline,Run,Step";
	case V_TREE:
		return "JobID,Node,Task,PID,PPID,Tree,NProcs,TotalCPU,MaxRSS,ReadBytes,WriteBytes,"
		       "ExitCode,OOMKills,"
		       "Command";
	case V_WORKFLOW:
		return "Pipeline,Run,Step,Tool,Wildcards,Tag,JobID,NJobs,State,NProcs,Start,End,"
		       "Elapsed,TotalCPU,"
		       "UserCPU,SystemCPU,MaxRSS,ReadBytes,WriteBytes,CPUWait,IOWait,OffCPU,NetRx,"
		       "NetTx,ExitCodes,OOMKills";
	case V_TIMELINE:
		return "JobID,Since,Time,NNodes,NProcs,AllocCPUS,TotalCPU,Cores,CPUUtil,RSS,"
		       "MemUtil,"
		       "ReadBytes,WriteBytes,ReadRate,WriteRate,CPUWait,IOWait,Note";
	case V_ARRAY:
	case V_JOBS:
	default:
		return "JobID,JobName,User,State,NodeList,NNodes,NTasks,Partition,Start,End,"
		       "Elapsed,"
		       "Timelimit,ExitCode,AllocCPUS,AllocCores,ReqMem,TotalCPU,UserCPU,SystemCPU,"
		       "CPUEff,"
		       "MaxRSS,PeakMem,MemEff,TimeEff,PeakCores,ReadBytes,WriteBytes,ReadChars,"
		       "WriteChars,"
		       "CPUWait,IOWait,OffCPU,NetRx,NetTx,NProcs,OOMKills,Lost,Pipeline,Run,Step,"
		       "Wildcards,Tag,Suggest,"
		       "Account,QOS,Submit,Reserved,MaxRSSNode";
	}
}

struct json_object *out_row_json(const struct row *r, const struct col *cols, size_t n,
				 const struct cellctx *c)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < n; i++)
		json_object_object_add(o, field_defs[cols[i].field].name,
				       cell_json(cols[i].field, r, c));
	return o;
}

void emit_header(struct emit *e)
{
	if (!e->header_done && !e->json)
		out_header(e->o);
	e->header_done = 1;
}

struct json_object *emit_row(struct emit *e, const struct row *r)
{
	struct json_object *o;

	if (!e->json) {
		out_row(e->o, r);
		return NULL;
	}
	o = out_row_json(r, e->jcols, e->njcols, &e->o->cc);
	if (o)
		json_object_array_add(e->jarr, o);
	return o;
}

int out_want_colour(int fd, int parsable, int json)
{
	const char *nc = getenv("NO_COLOR");

	return !parsable && !json && isatty(fd) && !(nc && *nc);
}
