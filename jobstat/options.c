/* Options as sacct spells them. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_values.h"
#include "convert.h"
#include "jobstat.h"
#include "options.h"
#include "safetext.h"

void opts_error(const char *fmt, ...)
{
	va_list ap;

	fputs(JS_PROG ": ", stderr);
	va_start(ap, fmt);
	safe_text_vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tracer-jobstat [OPTIONS]\n"
		"Reports of what tracer recorded for Slurm jobs and traced runs, in sacct's "
		"manner, with\n"
		"efficiency as seff computes it and what to ask for next time.\n"
		"  -j, --jobs=JOB[,...]     job ids (123, 123_4, 123_[1-3], 123.batch) or names of "
		"traced runs\n"
		"  -u, --user=USER[,...]    jobs of these users (root and SlurmUser: anyone's)\n"
		"  -a, --allusers           jobs of all users (others' only for root and "
		"SlurmUser)\n"
		"  -S, --starttime=TIME     jobs running after TIME (default: midnight, without "
		"-j)\n"
		"  -E, --endtime=TIME       jobs running before TIME (default: now)\n"
		"  -s, --state=STATE[,...]  only jobs in these states (CD, F, CA, TO, OOM, R, ... "
		"or names)\n"
		"  -X, --allocations        only the job rows, no steps\n"
		"  -o, --format=F[%%W],...   fields and widths (see --helpformat; env "
		"TRACER_JOBSTAT_FORMAT)\n"
		"  -p, --parsable           fields separated by '|', one at the end of each line\n"
		"  -P, --parsable2          fields separated by '|', none at the end\n"
		"      --delimiter=STR      separator for -p/-P instead of '|'\n"
		"  -n, --noheader           no header\n"
		"      --units=K|M|G|T      sizes in this unit\n"
		"      --json               JSON: every field, raw numbers, notes\n"
		"      --helpformat         list the fields\n"
		"      --tools              one row per tool per step\n"
		"      --signals            the tools of each step with where their time went: "
		"CPU, waiting\n"
		"                           for a CPU, I/O wait, other off-CPU time, network\n"
		"      --processes          one row per process\n"
		"      --tree               the process tree, totals per subtree\n"
		"      --array-summary      one row per job array: min/median/max of each figure\n"
		"      --workflow           grouped by pipeline, run, step and tool\n"
		"      --timeline           the samples over time: per step and interval, CPU,\n"
		"                           memory, I/O and waits\n"
		"      --interval=DURATION  the timeline's interval (30s, 5m, 1h; default: the "
		"job\n"
		"                           in about 30 rows, never finer than SampleInterval)\n"
		"      --html=FILE          the report as one self-contained HTML page in FILE:\n"
		"                           summary, notes, a Gantt chart of steps, tools and\n"
		"                           processes, the samples over time, the tools\n"
		"      --live               the running jobs (or those of -j) as a tree refreshed\n"
		"                           in the terminal: pipeline, run, job, step, tool, "
		"process\n"
		"                           (one snapshot when stdout is no terminal)\n"
		"      --refresh=DURATION   --live's period (default 2s)\n"
		"      --pipeline=P[,...]   only jobs of these workflow pipelines\n"
		"      --run=R[,...]        only jobs of these workflow runs\n"
		"  -c FILE                  tracer configuration (default $" TRACER_CONF_ENV
		", " TRACER_CONF_DEFAULT ")\n"
		"  -N NODE                  the node whose tracerd holds traced runs (default: "
		"this one)\n"
		"  -h, --help               this help\n");
}

enum {
	O_DELIM = 256,
	O_UNITS,
	O_JSON,
	O_HELPFORMAT,
	O_TOOLS,
	O_PROCS,
	O_TREE,
	O_ARRAY,
	O_WORKFLOW,
	O_PIPELINE,
	O_RUN,
	O_SIGNALS,
	O_TIMELINE,
	O_INTERVAL,
	O_HTML,
	O_LIVE,
	O_REFRESH
};

#define REFRESH_DEFAULT_NS (2 * 1000000000LL)
#define REFRESH_MIN_MS 200
#define REFRESH_MAX_MS (3600 * 1000)

/* --refresh: how often --live asks the nodes */
static int parse_refresh(struct opts *o, const char *arg)
{
	uint64_t ms;
	const char *why = conf_parse_duration(arg, &ms);

	if (!why && (ms < REFRESH_MIN_MS || ms > REFRESH_MAX_MS))
		why = "between 200ms and 1h";
	if (why) {
		opts_error("invalid --refresh '%s': %s", arg, why);
		return -1;
	}
	o->refresh_ns = (int64_t)ms * 1000000;
	return 0;
}

#define INTERVAL_MAX_S (366LL * 24 * 3600)

/* --interval: a duration in whole seconds (intervals are shown to the second) */
static int parse_interval(struct opts *o, const char *arg)
{
	uint64_t ms;
	const char *why = conf_parse_duration(arg, &ms);

	if (!why && (ms < 1000 || ms % 1000))
		why = "whole seconds, at least 1s";
	if (!why && ms / 1000 > (uint64_t)INTERVAL_MAX_S)
		why = "at most 366d";
	if (why) {
		opts_error("invalid --interval '%s': %s", arg, why);
		return -1;
	}
	o->interval_ns = (int64_t)ms * 1000000;
	return 0;
}

/* the option that chose o's view, as the user gave it */
static const char *view_option(const struct opts *o)
{
	switch (o->view) {
	case V_TOOLS:
		return o->signals ? "signals" : "tools";
	case V_PROCS:
		return "processes";
	case V_TREE:
		return "tree";
	case V_ARRAY:
		return "array-summary";
	case V_WORKFLOW:
		return "workflow";
	case V_TIMELINE:
		return "timeline";
	default:
		return "jobs";
	}
}

static int parse_states(struct opts *o)
{
	char buf[256], *save = NULL, *t;

	snprintf(buf, sizeof(buf), "%s", o->states);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int s = conv_state_parse(t);

		if (s < 0) {
			opts_error("invalid state '%s'", t);
			return -1;
		}
		o->state_mask |= 1 << s;
	}
	return 0;
}

static int parse_jobs(struct opts *o)
{
	char err[256];
	int n = jobsel_list(o->jobs, &o->sel, err, sizeof(err));

	if (n < 0) {
		opts_error("%s", n == -ENOMEM ? "out of memory" : err);
		return -1;
	}
	o->nsel = (size_t)n;
	return 0;
}

static int parse_users(struct opts *o)
{
	char buf[1024], *save = NULL, *t;
	size_t cap = 8;

	if (strlen(o->users) >= sizeof(buf)) {
		fprintf(stderr, JS_PROG ": user list too long\n");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", o->users);
	o->uids = calloc(cap, sizeof(*o->uids));
	for (t = strtok_r(buf, ",", &save); t && o->uids; t = strtok_r(NULL, ",", &save)) {
		struct passwd *pw = getpwnam(t);
		char *end;
		unsigned long v;

		if (pw) {
			v = pw->pw_uid;
		} else {
			v = strtoul(t, &end, 10);
			if (!isdigit((unsigned char)*t) || *end) {
				opts_error("unknown user '%s'", t);
				return -1;
			}
		}
		if (o->nuids == cap && !(o->uids = realloc(o->uids, (cap *= 2) * sizeof(*o->uids))))
			break;
		o->uids[o->nuids++] = (uid_t)v;
	}
	if (!o->uids) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		return -1;
	}
	return 0;
}

int opts_parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "user", required_argument, NULL, 'u' },
		{ "uid", required_argument, NULL, 'u' },
		{ "allusers", no_argument, NULL, 'a' },
		{ "starttime", required_argument, NULL, 'S' },
		{ "endtime", required_argument, NULL, 'E' },
		{ "state", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'o' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "noheader", no_argument, NULL, 'n' },
		{ "allocations", no_argument, NULL, 'X' },
		{ "delimiter", required_argument, NULL, O_DELIM },
		{ "units", required_argument, NULL, O_UNITS },
		{ "json", no_argument, NULL, O_JSON },
		{ "helpformat", no_argument, NULL, O_HELPFORMAT },
		{ "tools", no_argument, NULL, O_TOOLS },
		{ "processes", no_argument, NULL, O_PROCS },
		{ "tree", no_argument, NULL, O_TREE },
		{ "array-summary", no_argument, NULL, O_ARRAY },
		{ "workflow", no_argument, NULL, O_WORKFLOW },
		{ "pipeline", required_argument, NULL, O_PIPELINE },
		{ "run", required_argument, NULL, O_RUN },
		{ "signals", no_argument, NULL, O_SIGNALS },
		{ "timeline", no_argument, NULL, O_TIMELINE },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "html", required_argument, NULL, O_HTML },
		{ "live", no_argument, NULL, O_LIVE },
		{ "refresh", required_argument, NULL, O_REFRESH },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	time_t now = time(NULL), t;
	int c, views = 0;

	memset(o, 0, sizeof(*o));
	o->delim = "|";
	o->units = -1;
	o->view = V_JOBS;
	while ((c = getopt_long(argc, argv, "c:N:j:u:aS:E:s:o:pPnXh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'N':
			o->node = optarg;
			break;
		case 'j':
			o->jobs = optarg;
			break;
		case 'u':
			o->users = optarg;
			break;
		case 'a':
			o->all_users = 1;
			break;
		case 'S':
			o->start = optarg;
			break;
		case 'E':
			o->end = optarg;
			break;
		case 's':
			o->states = optarg;
			break;
		case 'o':
			o->format = optarg;
			break;
		case 'p':
			o->parsable = P_TRAILING;
			break;
		case 'P':
			o->parsable = P_PLAIN;
			break;
		case 'n':
			o->noheader = 1;
			break;
		case 'X':
			o->allocations = 1;
			break;
		case O_DELIM:
			o->delim = optarg;
			break;
		case O_UNITS:
			if ((o->units = conv_units_opt(optarg)) < 0) {
				fprintf(stderr, JS_PROG ": --units takes K, M, G or T\n");
				return -1;
			}
			break;
		case O_JSON:
			o->json = 1;
			break;
		case O_HELPFORMAT:
			o->helpformat = 1;
			break;
		case O_TOOLS:
			o->view = V_TOOLS;
			views++;
			break;
		case O_SIGNALS:
			o->view = V_TOOLS;
			o->signals = 1;
			views++;
			break;
		case O_PROCS:
			o->view = V_PROCS;
			views++;
			break;
		case O_TREE:
			o->view = V_TREE;
			views++;
			break;
		case O_ARRAY:
			o->view = V_ARRAY;
			views++;
			break;
		case O_WORKFLOW:
			o->view = V_WORKFLOW;
			views++;
			break;
		case O_TIMELINE:
			o->view = V_TIMELINE;
			views++;
			break;
		case O_INTERVAL:
			if (parse_interval(o, optarg) < 0)
				return -1;
			break;
		case O_HTML:
			o->html = optarg;
			break;
		case O_LIVE:
			o->live = 1;
			views++;
			break;
		case O_REFRESH:
			if (parse_refresh(o, optarg) < 0)
				return -1;
			break;
		case O_PIPELINE:
			o->pipelines = optarg;
			break;
		case O_RUN:
			o->runs = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		opts_error("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return -1;
	}
	if (o->signals && !o->format)
		o->format = view_signals_format();
	if (o->helpformat) {
		fields_help(stdout);
		return 1;
	}
	if (views > 1) {
		fprintf(stderr, JS_PROG ": --tools, --signals, --processes, --tree, "
					"--array-summary, --workflow, "
					"--timeline and --live exclude each other\n");
		return -1;
	}
	if (o->html && (views || o->json || o->parsable || o->interval_ns)) {
		fprintf(stderr, JS_PROG ": --html writes its own report: not with --json, -p/-P, "
					"--interval or another view\n");
		return -1;
	}
	if (o->html && !*o->html) {
		fprintf(stderr, JS_PROG ": empty --html\n");
		return -1;
	}
	if (o->refresh_ns && !o->live) {
		fprintf(stderr, JS_PROG ": --refresh applies to --live only\n");
		return -1;
	}
	if (o->live && (o->format || o->allocations)) {
		fprintf(stderr, JS_PROG ": --live shows its own columns: no -o or -X\n");
		return -1;
	}
	if (!o->refresh_ns)
		o->refresh_ns = REFRESH_DEFAULT_NS;
	if (o->interval_ns && o->view != V_TIMELINE) {
		fprintf(stderr, JS_PROG ": --interval applies to --timeline only\n");
		return -1;
	}
	if ((o->pipelines && !*o->pipelines) || (o->runs && !*o->runs)) {
		fprintf(stderr, JS_PROG ": empty --%s\n",
			o->pipelines && !*o->pipelines ? "pipeline" : "run");
		return -1;
	}
	if (!*o->delim) {
		fprintf(stderr, JS_PROG ": empty --delimiter\n");
		return -1;
	}
	if (o->start) {
		if (conv_parse_time(o->start, now, &t) < 0) {
			opts_error("invalid start time '%s'", o->start);
			return -1;
		}
		o->t_start = t;
	}
	if (o->end) {
		if (conv_parse_time(o->end, now, &t) < 0) {
			opts_error("invalid end time '%s'", o->end);
			return -1;
		}
		o->t_end = t;
	}
	/* as sacct: the start is midnight when a listing does not give one */
	t = o->t_start ? o->t_start : o->jobs ? 0 : conv_midnight(now);
	if (t && o->t_end && o->t_end < t) {
		char a[32], b[32];

		conv_datetime(a, sizeof(a), t);
		conv_datetime(b, sizeof(b), o->t_end);
		if (o->start)
			opts_error("end time -E %s (%s) is before start time -S %s (%s)", o->end, b,
				   o->start, a);
		else
			opts_error("end time -E %s (%s) is before the start time, midnight (%s) "
				   "without -S",
				   o->end, b, a);
		return -1;
	}
	if (o->allocations && o->view != V_JOBS && o->view != V_ARRAY) {
		fprintf(stderr,
			JS_PROG
			": -X (--allocations) does not apply to --%s: its rows are per %s\n",
			view_option(o),
			o->view == V_PROCS || o->view == V_TREE ? "process"
			: o->view == V_TIMELINE			? "step and interval"
								: "step and tool");
		return -1;
	}
	if (o->jobs && parse_jobs(o) < 0)
		return -1;
	if (o->states && parse_states(o) < 0)
		return -1;
	if (o->users && parse_users(o) < 0)
		return -1;
	return 0;
}

void opts_free(struct opts *o)
{
	free(o->uids);
	o->uids = NULL;
	free(o->sel);
	o->sel = NULL;
}
