/* --live's rows: the report as a tree, pipeline > run > job > step > tool > process, each
 * row with its figures summed from its processes and its rates from the refresh before (CPU
 * as a share of the allocation, I/O per second, waits as a share of the time between the
 * two). Which rows show, in what order, folded or open: the view's state, kept by key across
 * refreshes. Pure. */
#ifndef JOBSTAT_LIVE_TREE_H
#define JOBSTAT_LIVE_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

enum live_level { LV_PIPELINE, LV_RUN, LV_JOB, LV_STEP, LV_TOOL, LV_PROC };
enum live_sort { LS_START, LS_CPU, LS_RSS, LS_IO, LS_NAME, LS_COUNT };

#define LIVE_KEY_LEN 384
#define LIVE_NONE ((size_t)-1)
/* a tool with more processes than this starts folded */
#define LIVE_TOOL_OPEN_MAX 16

/* what grows while a row runs: its rates are their change between two refreshes */
struct live_counts {
	int64_t cpu_ns, read_bytes, write_bytes, cpu_wait_ns, iowait_ns; /* JS_NONE unknown */
};

struct live_row {
	enum live_level level;
	int depth;
	size_t parent; /* index, LIVE_NONE at the top */
	char key[LIVE_KEY_LEN];
	char name[256]; /* as tracerd or Slurm gave it: escaped where shown */
	char node[64];	/* of a process */
	int64_t pid;
	int running;		  /* it, or one of its processes, runs */
	int64_t nprocs, nrunning; /* processes under it */
	int64_t nfailed, noom;	  /* ended with a non-zero status or a signal; OOM-killed */
	int64_t exit_status;	  /* of an ended process: a wait status, JS_NONE */
	int64_t stalled_since_ns; /* the oldest stall under way below it, JS_NONE */
	int64_t idle_since_ns;	  /* a job's, step's or run's: its units all idle since, JS_NONE */
	char stall_reason[48];
	char missing[256]; /* a job's nodes that did not answer */
	struct live_counts c;
	int64_t rss_kb;		  /* resident now, of its running processes */
	int64_t mem_kb;		  /* what it may use (--mem), its own or its ancestor's; JS_NONE */
	double alloc_cpus;	  /* its allocation's CPUs (its own or its ancestor's); 0 unknown */
	int64_t start_ns, end_ns; /* unix ns; end JS_NONE while it runs */
	int64_t usual_ns;	  /* a step's median time of its earlier runs, JS_NONE */
	int slower;		  /* ...and its time so far is slower than that (slower.h) */
	/* rates (live_tree_rates): < 0 unknown */
	double cpu_share, read_rate, write_rate, cpu_wait_share, iowait_share;
	/* the view (live_tree_visible) */
	int open;    /* its children show */
	int matches; /* the filter matches it or a row below it */
};

struct live_tree {
	struct live_row *rows; /* parents before their children */
	size_t n, cap;
	int64_t now_ns; /* when its figures were read (unix ns) */
	int multinode;	/* its processes ran on more than one node */
	size_t *by_key; /* row indexes sorted by key (live_tree_rates) */
};

/* The view's state, kept across refreshes by row key. */
struct live_view {
	enum live_sort sort;
	char filter[128];
	char **toggled; /* keys whose folding differs from the default */
	size_t ntoggled;
	char cursor[LIVE_KEY_LEN]; /* the selected row's key */
	int all_open;		   /* every row open, a large tool's too (a snapshot) */
};

/* The tree of rep's jobs at now_ns (their processes and histories as collect fetched them).
 * 0 or -ENOMEM (tree then empty). */
int live_tree_build(const struct report *rep, int64_t now_ns, struct live_tree *t);
void live_tree_free(struct live_tree *t);
/* The rates of t's rows from prev's of the same keys (NULL, or a row new since: since its
 * start). */
void live_tree_rates(struct live_tree *t, const struct live_tree *prev);

/* The rows shown, in order: each parent followed by its children sorted by v->sort (start,
 * then by figure, larger first, or by name), folded rows' children left out, and with a
 * filter only rows it matches (name, node or pid, any case) and their ancestors. idx: t->n
 * entries. Returns the count. */
size_t live_tree_visible(struct live_tree *t, const struct live_view *v, size_t *idx);
/* Fold an open row, open a folded one (key). 0 or -ENOMEM. */
int live_view_toggle(struct live_view *v, const char *key);
void live_view_free(struct live_view *v);
/* The sort's name as the status line says it. */
const char *live_sort_name(enum live_sort s);
/* The level's name ("pipeline", ... "process"). */
const char *live_level_name(enum live_level l);

#endif
