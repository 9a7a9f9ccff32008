/* Command line: sacct's options and tracer's own. */
#ifndef JOBSTAT_OPTIONS_H
#define JOBSTAT_OPTIONS_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "fields.h"
#include "jobids.h"
#include "output.h"

struct opts {
	const char *config, *node;
	const char *jobs;	      /* -j */
	const char *users;	      /* -u */
	int all_users;		      /* -a */
	const char *start, *end;      /* -S, -E as given */
	const char *states;	      /* -s */
	const char *format;	      /* -o */
	const char *pipelines, *runs; /* --pipeline, --run: NULL for any */
	enum parsable parsable;
	const char *delim;
	int noheader, json, allocations, helpformat;
	int signals;	     /* --signals: the tools view with the wait fields */
	int units;	     /* --units, or -1 */
	int64_t interval_ns; /* --interval: the timeline's width; 0 chosen to fit */
	const char *html;    /* --html FILE: the report as one HTML page there, NULL none */
	int live;	     /* --live: refreshed in the terminal (live.h) */
	int64_t refresh_ns;  /* --refresh: its period */
	enum view view;
	/* derived */
	time_t t_start, t_end; /* 0: none */
	int state_mask;	       /* bit per base state; 0: any */
	uid_t *uids;	       /* -u resolved */
	size_t nuids;
	struct jobsel *sel; /* -j parsed: a malformed id is a usage error */
	size_t nsel;
};

/* Parse argv into o. Returns 0 to go on, 1 when a message said all (--help, --helpformat:
 * exit 0), -1 on a usage error (already reported: exit 2). */
int opts_parse(int argc, char **argv, struct opts *o);
void opts_free(struct opts *o);
/* A usage error on stderr after the program's name, escaped (safetext.h) whole: it may quote
 * what the user gave (argv, SACCT_FORMAT), and a line ends it. */
void opts_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
