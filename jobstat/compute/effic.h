/* Efficiency as seff and reportseff compute it, and what to ask Slurm for next time. Pure;
 * every formula is written down in tracer-jobstat(1). */
#ifndef JOBSTAT_EFFIC_H
#define JOBSTAT_EFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "jobstat.h"

/* Sampling jitter: busy cores within this much of a whole number count as that number. */
#define CORE_SLACK 0.05
/* Headroom on the peak memory for --mem, as Princeton's jobstats suggests it. */
#define MEM_HEADROOM 1.2
#define TIME_HEADROOM 1.2
/* The smallest memory limit Slurm enforces (cgroup.conf MinRAMSpace, 30 MB by default): less
 * is never worth asking for. */
#define SLURM_MIN_MEM_MB 30
/* After an OOM kill or a TIMEOUT the need is above the limit by an unknown amount: at least
 * this many times the limit. */
#define LIMIT_RAISE 2

/* Percentages; -1 when an input is unknown or zero. */
double eff_cpu(int64_t cpu_ns, int64_t elapsed_s,
	       int64_t alloc_cpus);			   /* TotalCPU/(Elapsed*AllocCPUS) */
double eff_mem(int64_t peak_kb, int64_t req_mb);	   /* peak/requested */
double eff_time(int64_t elapsed_s, int64_t timelimit_min); /* Elapsed/Timelimit */

/* The peak memory of a step from its figures: the step cgroup's peak when known, else the
 * largest sum of RSS of one task unit in a sampling round, else the largest process RSS;
 * the last two are per task, scaled by ntasks (reportseff's way with sacct's per-task
 * MaxRSS). Never below the largest process's MaxRSS (samples miss a short peak). *src names
 * the source. JS_NONE when none is known. */
int64_t eff_peak_memory(const struct figures *f, int64_t ntasks, const char **src);

/* The processes' own peak, without page cache: the largest process's, or a task's sampled
 * processes at once times the tasks, whichever is higher; JS_NONE unknown. */
int64_t eff_own_peak(const struct figures *f, int64_t ntasks);

/* The peak memory of the highest node, what --mem sizes: the step cgroup's peak there when
 * known, else the per-task figure times the tasks per node; never below one process's peak
 * RSS. JS_NONE when unknown. */
int64_t eff_node_peak_memory(const struct figures *f, int64_t ntasks, int64_t nnodes);

/* The processes' own peak (row.own_peak_kb; a job's: its steps' added where they ran at
 * once) where the row's peak is a step's or the job's cgroup's that is mostly page cache
 * (the files its tools read and wrote, which the kernel reclaims at the limit): when under
 * half of the cgroup's and its processes read and wrote at least the rest; JS_NONE
 * otherwise (the row's peak is what the job holds). */
int64_t eff_peak_without_cache(const struct row *r);

/* Cores per task: the most busy at once (from samples) when known, else CPU time / wall. */
double eff_cores(const struct figures *f, int64_t cpu_ns, int64_t wall_ns, int64_t ntasks,
		 const char **src);

/* --cpus-per-task: cores rounded up (less CORE_SLACK), at least 1; -1 unknown. */
int suggest_cpus(double cores);
/* --mem in MiB: ceil(MEM_HEADROOM * peak); -1 unknown. */
int64_t suggest_mem_mb(int64_t peak_kb);
/* "360M", or whole GiB rounded up ("12G") from 10 GiB on. */
void suggest_mem_text(char *out, size_t len, int64_t mb);
/* --time in minutes: TIME_HEADROOM * elapsed rounded up to a whole minute below an hour, a
 * quarter hour below a day, a whole hour beyond; -1 unknown. */
int64_t suggest_time_min(int64_t elapsed_s);
/* Minutes rounded up as suggest_time_min rounds them. */
int64_t time_round_min(int64_t minutes);

/* Why the memory advice is what it is. */
enum mem_why { MEM_PEAK, MEM_OOM, MEM_FLOOR, MEM_NO_CACHE };

/* What to ask Slurm for next time; -1 where nothing is known. */
struct advice {
	int cpus;		/* --cpus-per-task */
	int64_t mem_mb;		/* --mem (per node), when the job asked --mem */
	int64_t mem_per_cpu_mb; /* --mem-per-cpu, when the job asked for it */
	int64_t node_mem_mb;	/* what a node needs, whichever of the two was asked */
	int64_t time_min;	/* --time */
	enum mem_why mem_why;
	int oom, timeout; /* the job hit its memory / time limit */
	int64_t limit_mb; /* the per-node memory limit it had, -1 unknown */
};

/* Did the row's job hit its memory limit (a process killed by the OOM killer, or Slurm's
 * OUT_OF_MEMORY), or its time limit (TIMEOUT)? */
int row_oom(const struct row *r);
int row_timeout(const struct row *r);
/* The advice for a job or run row (nothing for others, or while it runs). Memory: per node,
 * MEM_HEADROOM above the highest node's peak; after an OOM kill at least LIMIT_RAISE times
 * the limit (the peak is the limit, not the need); never below SLURM_MIN_MEM_MB, nor below
 * the largest process plus MEM_HEADROOM (the node's peak holds it); per CPU
 * of the advised CPUs when the job asked --mem-per-cpu. Time: TIME_HEADROOM above Elapsed
 * for a completed job, LIMIT_RAISE times the limit after a TIMEOUT, none otherwise. */
void row_advice(const struct row *r, struct advice *a);
/* One advice for several jobs (an array's tasks): the largest of each. */
void advice_merge(struct advice *into, const struct advice *a);
/* "--cpus-per-task=1 --mem=360M --time=00:05:00": the parts that are known. */
void advice_text(const struct advice *a, char *out, size_t len);

/* Colour of an efficiency: -1 red (< 20 %), 1 green (> 80 %), 0 none. */
int eff_colour(double pct);

/* The row's efficiencies, -1 when running or unknown. */
double row_cpu_eff(const struct row *r);
double row_mem_eff(const struct row *r);
double row_time_eff(const struct row *r);
/* The Suggest field of a job or run row: "--cpus-per-task=1 --mem=360M --time=00:05:00" (the
 * parts that are known); empty for other rows and running jobs. */
void row_suggest(const struct row *r, char *out, size_t len);

#endif
