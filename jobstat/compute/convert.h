/* Values as sacct writes and reads them: time limits, dates, states, host and CPU lists, and
 * the -S/-E time formats. Pure. */
#ifndef JOBSTAT_CONVERT_H
#define JOBSTAT_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "format.h"

/* Elapsed, CPU times and sizes: fmt_elapsed, fmt_cputime and fmt_size (format.h). */
/* Timelimit in minutes: "UNLIMITED", "Partition_Limit", "HH:MM:SS", "D-HH:MM:SS"; blank
 * for JS_NONE (a step has none). */
void conv_timelimit(char *out, size_t len, int64_t minutes);
/* Local time "YYYY-MM-DDTHH:MM:SS"; "Unknown" for 0, as sacct prints it. */
void conv_datetime(char *out, size_t len, int64_t unix_s);
/* --units=K|M|G|T (also P, case-insensitive): the unit, or -1. */
int conv_units_opt(const char *arg);
/* A wait status as sacct's ExitCode "code:signal"; JS_UNKNOWN for JS_NONE. */
void conv_exitcode(char *out, size_t len, int64_t status);
/* "45.7%", or JS_UNKNOWN for a negative value. */
void conv_percent(char *out, size_t len, double pct);

/* sacct's -S/-E time formats, in local time: YYYY-MM-DD[THH:MM[:SS]], MMDD[YY],
 * MM/DD[/YY], MM.DD[.YY] (each optionally followed by -HH:MM[:SS]), HH:MM[:SS][AM|PM],
 * now[{+|-}N[seconds|minutes|hours|days|weeks]], today, midnight, noon, elevenses, fika,
 * teatime, tomorrow, or plain seconds since the epoch (10 digits or more). Returns 0 and *out,
 * or -EINVAL. */
int conv_parse_time(const char *s, time_t now, time_t *out);

/* The midnight that began now's day, local time: sacct's default start. */
time_t conv_midnight(time_t now);

/* Slurm job states: the name of a base state (0..11), and a state name or sacct's short
 * code (CD, CA, F, R, PD, TO, NF, PR, BF, DL, OOM, S) to its number, -1 if none. */
const char *conv_state_name(unsigned state);
int conv_state_parse(const char *s);

/* A job or step state as sacct writes it: the base state, "CANCELLED by UID" when Slurm
 * knows who cancelled, REQUEUED and RESIZING from the flags. */
void conv_job_state(char *out, size_t len, uint32_t state, uint32_t requid);
/* The count of TRES id in a TRES string ("1=2,2=4000,4=1": 1 cpu, 2 mem MB, 4 node), or
 * JS_NONE. */
int64_t conv_tres(const char *tres, int id);
/* Lists of Slurm's kind ("n[1-3,5],m", "12_[1,3],14"): the length of the item at s, up to
 * the first comma outside brackets. */
size_t conv_item_len(const char *s);
/* Expand a Slurm host list ("n[1-3,07],gpu[01-02]-ib,login") into names; at most max.
 * Returns the count (*out: an array of malloc'd strings, free with conv_strv_free) or
 * -EINVAL/-ENOMEM. */
int conv_hostlist(const char *list, char ***out, size_t max);
void conv_strv_free(char **v, size_t n);

/* CPU lists ("0-3,8,10-11"): set bits in mask (nbits wide). Returns the number of CPUs,
 * or -EINVAL (malformed, or a CPU >= nbits). */
int conv_cpulist(const char *s, unsigned char *mask, size_t nbits);
/* How many of the NUMA nodes (their CPU lists) the allocated CPU list touches; -EINVAL when
 * a list cannot be read. */
int conv_numa_span(const char *alloc, const char *const *numa_cpus, size_t nnuma);

/* Rounding without libm (values well inside int64): up, to nearest (whole: fmt_whole). */
int64_t conv_ceil(double v);
int64_t conv_round(double v);

#endif
