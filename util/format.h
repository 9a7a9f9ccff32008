/* Durations and sizes as sacct prints them, and durations in words for notes: the one set of
 * formatters tracer's clients use (tracer-jobstat's columns and notes, tracerctl's run summary),
 * so that a figure reads the same wherever it is shown. */
#ifndef TRACER_FORMAT_H
#define TRACER_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_UNKNOWN "---" /* a value that is not known, as reportseff prints it */

enum fmt_unit { U_NONE, U_K, U_M, U_G, U_T, U_P };

/* Elapsed: "HH:MM:SS" or "D-HH:MM:SS"; FMT_UNKNOWN when secs is negative (INT64_MIN: unknown). */
void fmt_elapsed(char *out, size_t len, int64_t secs);
/* A duration in words, as notes say it: "45 s", "12 min 5 s", "2 h 0 min". */
void fmt_duration(char *out, size_t len, int64_t secs);
/* CPU time (microseconds): "MM:SS.mmm" below an hour (whole seconds as "00:MM:SS"), then as
 * fmt_elapsed; below a millisecond is dropped, as sacct does. */
void fmt_cputime(char *out, size_t len, int64_t usecs);
/* A size of value orig units: with spec (U_K..U_P) converted to that unit, else divided by
 * 1024 while it stays >= 1024 — always (exact = 0) or only while the value stays a whole
 * multiple of 512 (exact = 1, sacct's ReqMem). Whole numbers print as "400M", others with
 * two decimals "300.50M"; bytes without a letter; 0 as "0". */
void fmt_size(char *out, size_t len, double value, enum fmt_unit orig, int spec, int exact);
/* Is v a whole number (fmt_size writes it without decimals)? Without libm; |v| < 9e18. */
int fmt_whole(double v);

#endif
