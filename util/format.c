/* Durations and sizes as sacct prints them, and durations in words. */
#include <inttypes.h>
#include <stdio.h>

#include "format.h"

int fmt_whole(double v)
{
	return v > -9e18 && v < 9e18 && (double)(int64_t)v == v;
}

void fmt_elapsed(char *out, size_t len, int64_t s)
{
	if (s < 0)
		snprintf(out, len, FMT_UNKNOWN);
	else if (s >= 86400)
		snprintf(out, len, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, s / 86400,
			 s / 3600 % 24, s / 60 % 60, s % 60);
	else
		snprintf(out, len, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, s / 3600, s / 60 % 60,
			 s % 60);
}

void fmt_duration(char *out, size_t len, int64_t secs)
{
	if (secs < 60)
		snprintf(out, len, "%" PRId64 " s", secs);
	else if (secs < 3600)
		snprintf(out, len, "%" PRId64 " min %" PRId64 " s", secs / 60, secs % 60);
	else
		snprintf(out, len, "%" PRId64 " h %" PRId64 " min", secs / 3600, secs % 3600 / 60);
}

void fmt_cputime(char *out, size_t len, int64_t us)
{
	int64_t s, ms;

	if (us < 0) {
		snprintf(out, len, FMT_UNKNOWN);
		return;
	}
	s = us / 1000000;
	ms = us % 1000000 / 1000;
	if (s >= 3600) {
		fmt_elapsed(out, len, s);
		return;
	}
	if (ms)
		snprintf(out, len, "%02" PRId64 ":%02" PRId64 ".%03" PRId64, s / 60, s % 60, ms);
	else
		snprintf(out, len, "00:%02" PRId64 ":%02" PRId64, s / 60, s % 60);
}

void fmt_size(char *out, size_t len, double v, enum fmt_unit orig, int spec, int exact)
{
	static const char letters[] = "\0KMGTP";
	int u = orig;

	if ((int64_t)v == 0 && v < 1) {
		snprintf(out, len, "0");
		return;
	}
	if (spec >= U_NONE && spec <= U_P) {
		for (; u < spec; u++)
			v /= 1024;
		for (; u > spec; u--)
			v *= 1024;
	} else if (exact) {
		while (v >= 1024 && u < U_P && fmt_whole(v) && (int64_t)v % 512 == 0) {
			v /= 1024;
			u++;
		}
	} else {
		while (v >= 1024 && u < U_P) {
			v /= 1024;
			u++;
		}
	}
	if (fmt_whole(v))
		snprintf(out, len, "%.0f%.1s", v, &letters[u]);
	else
		snprintf(out, len, "%.2f%.1s", v, &letters[u]);
}
