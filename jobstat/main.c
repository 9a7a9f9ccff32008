/* tracer-jobstat: what tracer recorded for Slurm jobs and traced runs, as sacct and seff
 * show jobs, with what to ask for next time. See tracer-jobstat(1). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "collect.h"
#include "details.h"
#include "html.h"
#include "procs.h"
#include "live.h"
#include "safetext.h"
#include "slurmacct.h"
#include "views.h"

static int is_admin(const struct daemons *d, uid_t uid)
{
	struct passwd *pw;

	if (uid == 0)
		return 1;
	pw = d->cfg.slurm_user[0] ? getpwnam(d->cfg.slurm_user) : NULL;
	return pw && pw->pw_uid == uid;
}

#define FORMAT_ENV "TRACER_JOBSTAT_FORMAT"

/* the format asked for; *from names where it came from when an error must say so */
static const char *format_of(const struct opts *o, const char **from)
{
	const char *env = getenv(FORMAT_ENV);

	*from = "";
	if (o->format)
		return o->format;
	if (o->view == V_JOBS && env && *env) {
		*from = FORMAT_ENV ": ";
		return env;
	}
	return view_default_format(o->view);
}

/* a job on several nodes: process and tree rows by default say their node and task (from
 * the nodes tracer recorded it on: Slurm's node count of a job just started may lag) */
static int on_several_nodes(const struct report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct job *j = &rep->jobs[i];

		if (j->row.nnodes > 1)
			return 1;
		for (size_t k = 1; k < j->nunits; k++)
			if (j->units[k].node != j->units[0].node)
				return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct daemons d = {};
	struct report rep = {};
	struct collect_stats st = {};
	struct ident id;
	struct viewctx v = {};
	struct details_wanted wanted;
	struct col *cols = NULL, *jcols = NULL;
	struct json_object *top = NULL;
	char err[512];
	const char *from;
	int ncols, njcols, ret = 1;
	size_t shown;

	switch (opts_parse(argc, argv, &o)) {
	case 1:
		opts_free(&o);
		return 0;
	case -1:
		opts_free(&o);
		return 2;
	default:
		break;
	}
	ncols = fields_parse(format_of(&o, &from), o.view, &cols, err, sizeof(err));
	njcols = fields_parse(view_json_format(o.view), o.view, &jcols, err + 256,
			      sizeof(err) - 256);
	if (ncols < 0 || njcols < 0) {
		opts_error("%s%s", ncols < 0 ? from : "", ncols < 0 ? err : err + 256);
		ret = 2;
		goto cleanup;
	}
	if (daemons_init(&d, o.config, err, sizeof(err)) < 0) {
		fprintf(stderr, JS_PROG ": %s\n", err);
		goto cleanup;
	}
	d.node_addr = sacct_node_addr;
	id.uid = getuid();
	id.admin = is_admin(&d, id.uid);
	if (o.live) {
		ret = live_run(&o, &id, &d);
		goto cleanup;
	}

	if (collect(&o, &id, &d, &rep, &st) < 0)
		goto cleanup;
	if (!o.format && (o.view == V_PROCS || o.view == V_TREE) && on_several_nodes(&rep)) {
		free(cols);
		cols = NULL;
		ncols = fields_parse(view_default_format_nodes(o.view), o.view, &cols, err,
				     sizeof(err));
		if (ncols < 0) {
			fprintf(stderr, JS_PROG ": %s\n", err);
			goto cleanup;
		}
	}

	v.o = &o;
	v.out = (struct out){ .f = stdout,
			      .cols = cols,
			      .ncols = (size_t)ncols,
			      .parsable = o.parsable,
			      .delim = o.delim,
			      .noheader = o.noheader,
			      .fit = !o.parsable,
			      .colour = out_want_colour(STDOUT_FILENO, o.parsable, o.json),
			      .cc = { .units = o.units } };
	v.e = (struct emit){
		.o = &v.out, .json = o.json, .jcols = jcols, .njcols = (size_t)njcols
	};
	if (o.json) {
		json_c_set_serialization_double_format("%.10g", JSON_C_OPTION_GLOBAL);
		top = json_object_new_object();
		v.e.jarr = json_object_new_array();
		v.warnings = json_object_new_array();
		if (!top || !v.e.jarr || !v.warnings) {
			fprintf(stderr, JS_PROG ": out of memory\n");
			goto cleanup;
		}
		if (o.view == V_ARRAY)
			v.e.jcols = cols, v.e.njcols = (size_t)ncols;
	}
	/* collect what the view reads, then compute and print from the model alone */
	view_wanted(&v, &wanted);
	if (o.html) /* the page reads these of each process, whatever its size */
		d.proc_fields = procs_report_fields;
	if (details_collect(&rep, &d, &wanted) < 0) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		goto cleanup;
	}
	if (o.html) {
		long n = html_report(&v, &rep, o.html);

		if (n < 0) {
			view_warnings(&v, &rep);
			goto cleanup;
		}
		shown = (size_t)n;
	} else {
		shown = view_print(&v, &rep);
	}
	view_warnings(&v, &rep);
	if (st.hidden)
		fprintf(stderr,
			JS_PROG
			": %zu job(s) of other users not shown: you may see only your own jobs\n",
			st.hidden);
	if (top) {
		json_object_object_add(top, "v", json_object_new_int(1));
		json_object_object_add(top,
				       o.view == V_JOBS	      ? "jobs"
				       : o.view == V_ARRAY    ? "arrays"
				       : o.view == V_WORKFLOW ? "pipelines"
							      : "rows",
				       v.e.jarr);
		json_object_object_add(top, "warnings", v.warnings);
		v.e.jarr = v.warnings = NULL;
		/* every string, however it got in: valid UTF-8 with nothing a terminal acts on */
		if (safe_text_json(top) < 0) {
			fprintf(stderr, JS_PROG ": out of memory\n");
			goto cleanup;
		}
		printf("%s\n",
		       json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	/* nothing shown is an answer scripts must see: exit 1 (tracer-jobstat(1)), said once */
	if (!shown && !rep.n && !st.refused && !st.not_found && !st.filtered && !st.hidden)
		fprintf(stderr, JS_PROG ": no job or run matches%s\n",
			o.jobs		   ? ""
			: o.start || o.end ? " in the -S/-E window"
					   : " since midnight (-S for earlier ones)");
	ret = shown ? 0 : 1;
	if (fflush(stdout) != 0)
		ret = 1;
cleanup:
	json_object_put(top);
	json_object_put(v.e.jarr);
	json_object_put(v.warnings);
	free(cols);
	free(jcols);
	report_free(&rep);
	daemons_fini(&d);
	sacct_fini();
	opts_free(&o);
	return ret;
}
