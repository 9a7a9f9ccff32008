/* Values as sacct writes and reads them. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "convert.h"
#include "jobstat.h"

void conv_timelimit(char *out, size_t len, int64_t m)
{
	if (m == JS_NONE)
		snprintf(out, len, "%s", "");
	else if (m == TL_UNLIMITED)
		snprintf(out, len, "UNLIMITED");
	else if (m == TL_PARTITION)
		snprintf(out, len, "Partition_Limit");
	else
		fmt_elapsed(out, len, m * 60);
}

void conv_datetime(char *out, size_t len, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&tt, &tm) || !strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(out, len, "Unknown");
}

int conv_units_opt(const char *a)
{
	static const char letters[] = "KMGTP";
	const char *p;

	if (!a || !a[0] || a[1] || !(p = strchr(letters, toupper((unsigned char)a[0]))))
		return -1;
	return (int)(p - letters) + U_K;
}

void conv_exitcode(char *out, size_t len, int64_t st)
{
	if (st == JS_NONE || st < 0)
		snprintf(out, len, JS_UNKNOWN);
	else if (WIFSIGNALED((int)st))
		snprintf(out, len, "0:%d", WTERMSIG((int)st));
	else
		snprintf(out, len, "%d:0", WEXITSTATUS((int)st));
}

void conv_percent(char *out, size_t len, double pct)
{
	if (!(pct >= 0))
		snprintf(out, len, JS_UNKNOWN);
	else
		snprintf(out, len, "%.1f%%", pct);
}

/* ---- -S/-E */

static int digits(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int num(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++)
		v = v * 10 + s[i] - '0';
	return v;
}

/* "HH:MM[:SS][AM|PM]" into tm (the hour of one digit too: "3:18PM", as Slurm reads it);
 * returns chars consumed, 0 if none */
static int parse_clock(const char *s, struct tm *tm)
{
	int h, m, sec = 0, at, hl = digits(s, 2) ? 2 : digits(s, 1) ? 1 : 0;

	if (!hl || s[hl] != ':' || !digits(s + hl + 1, 2))
		return 0;
	h = num(s, hl);
	m = num(s + hl + 1, 2);
	at = hl + 3;
	if (s[at] == ':' && digits(s + at + 1, 2)) {
		sec = num(s + at + 1, 2);
		at += 3;
	}
	if (strncasecmp(s + at, "AM", 2) == 0 || strncasecmp(s + at, "PM", 2) == 0) {
		if (h < 1 || h > 12)
			return 0;
		h = h % 12 + (toupper((unsigned char)s[at]) == 'P' ? 12 : 0);
		at += 2;
	}
	if (h > 23 || m > 59 || sec > 60)
		return 0;
	tm->tm_hour = h;
	tm->tm_min = m;
	tm->tm_sec = sec;
	return at;
}

static int year2(int yy)
{
	return yy < 70 ? 2000 + yy : 1900 + yy;
}

/* a date in one of sacct's forms; chars consumed or 0 */
static int parse_date(const char *s, struct tm *tm)
{
	int y = tm->tm_year + 1900, mo, d, at;

	if (digits(s, 4) && s[4] == '-' && digits(s + 5, 2) && s[7] == '-' && digits(s + 8, 2)) {
		y = num(s, 4);
		mo = num(s + 5, 2);
		d = num(s + 8, 2);
		at = 10;
	} else if (digits(s, 2) && (s[2] == '/' || s[2] == '.') && digits(s + 3, 2)) {
		mo = num(s, 2);
		d = num(s + 3, 2);
		at = 5;
		if (s[5] == s[2] && digits(s + 6, 2)) {
			y = digits(s + 8, 2) ? num(s + 6, 4) : year2(num(s + 6, 2));
			at = digits(s + 8, 2) ? 10 : 8;
		}
	} else if (digits(s, 4) && !isdigit((unsigned char)s[4]) && s[4] != ':') {
		mo = num(s, 2);
		d = num(s + 2, 2);
		at = 4;
	} else if (digits(s, 6) && !isdigit((unsigned char)s[6])) {
		mo = num(s, 2);
		d = num(s + 2, 2);
		y = year2(num(s + 4, 2));
		at = 6;
	} else {
		return 0;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return 0;
	tm->tm_year = y - 1900;
	tm->tm_mon = mo - 1;
	tm->tm_mday = d;
	tm->tm_hour = tm->tm_min = tm->tm_sec = 0;
	return at;
}

static int parse_now(const char *s, time_t now, time_t *out)
{
	static const struct {
		const char *name;
		long secs;
	} units[] = {
		{ "seconds", 1 },  { "minutes", 60 },	{ "hours", 3600 },
		{ "days", 86400 }, { "weeks", 604800 },
	};
	long long n;
	char *end;
	long mult = 1;

	s += 3;
	if (!*s) {
		*out = now;
		return 0;
	}
	if (*s != '+' && *s != '-')
		return -EINVAL;
	errno = 0;
	n = strtoll(s + 1, &end, 10);
	if (errno || end == s + 1 || n < 0 || n > 100000000)
		return -EINVAL;
	if (*end) {
		size_t l = strlen(end);
		unsigned i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strncasecmp(end, units[i].name, l) == 0)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		mult = units[i].secs;
	}
	*out = *s == '+' ? now + (time_t)(n * mult) : now - (time_t)(n * mult);
	return 0;
}

int conv_parse_time(const char *s, time_t now, time_t *out)
{
	static const struct {
		const char *name;
		int hour;
		int day;
	} words[] = {
		{ "today", 0, 0 },	{ "midnight", 0, 1 }, { "noon", 12, 0 },
		{ "elevenses", 11, 0 }, { "fika", 15, 0 },    { "teatime", 16, 0 },
		{ "tomorrow", 0, 1 },
	};
	struct tm tm;
	time_t t;
	int at;

	if (!s || !*s || !localtime_r(&now, &tm))
		return -EINVAL;
	if (strncasecmp(s, "now", 3) == 0)
		return parse_now(s, now, out);
	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcasecmp(s, words[i].name))
			continue;
		tm.tm_hour = words[i].hour;
		tm.tm_min = tm.tm_sec = 0;
		tm.tm_mday += words[i].day;
		/* noon and teatime that have passed mean tomorrow's, as Slurm reads them */
		tm.tm_isdst = -1;
		t = mktime(&tm);
		if (words[i].hour && t < now) {
			tm.tm_mday++;
			tm.tm_isdst = -1;
			t = mktime(&tm);
		}
		*out = t;
		return t == (time_t)-1 ? -EINVAL : 0;
	}
	if (strlen(s) >= 10 && digits(s, (int)strlen(s))) {
		*out = (time_t)strtoll(s, NULL, 10);
		return 0;
	}
	if ((at = parse_clock(s, &tm)) && !s[at]) {
		tm.tm_isdst = -1;
		*out = mktime(&tm);
		return 0;
	}
	at = parse_date(s, &tm);
	if (!at)
		return -EINVAL;
	if (s[at] == 'T' || s[at] == '-') {
		int c = parse_clock(s + at + 1, &tm);

		if (!c)
			return -EINVAL;
		at += 1 + c;
	}
	if (s[at])
		return -EINVAL;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -EINVAL;
	*out = t;
	return 0;
}

time_t conv_midnight(time_t now)
{
	struct tm tm;

	localtime_r(&now, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* ---- states */

static const char *const state_names[] = {
	"PENDING", "RUNNING",	"SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
	"TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY",
};
static const char *const state_codes[] = { "PD", "R",  "S",  "CD", "CA", "F",
					   "TO", "NF", "PR", "BF", "DL", "OOM" };
#define NSTATES (sizeof(state_names) / sizeof(state_names[0]))

const char *conv_state_name(unsigned st)
{
	return st < NSTATES ? state_names[st] : "UNKNOWN";
}

int conv_state_parse(const char *s)
{
	for (unsigned i = 0; i < NSTATES; i++)
		if (strcasecmp(s, state_names[i]) == 0 || strcasecmp(s, state_codes[i]) == 0)
			return (int)i;
	if (strcasecmp(s, "COMPLETE") == 0)
		return 3;
	return -1;
}

void conv_job_state(char *out, size_t len, uint32_t state, uint32_t requid)
{
	unsigned base = state & 0xff;

	if (state & (1u << 10)) /* JOB_REQUEUE */
		snprintf(out, len, "REQUEUED");
	else if (state & (1u << 13)) /* JOB_RESIZING */
		snprintf(out, len, "RESIZING");
	else if (base == 4 && requid != 0xffffffffu && requid != 0xfffffffeu)
		snprintf(out, len, "%s by %u", conv_state_name(base), requid);
	else
		snprintf(out, len, "%s", conv_state_name(base));
}

int64_t conv_tres(const char *tres, int id)
{
	const char *p = tres;

	while (p && *p) {
		char *end;
		long k = strtol(p, &end, 10);

		if (end != p && *end == '=' && k == id) {
			long long v = strtoll(end + 1, &end, 10);

			return (*end == ',' || !*end) && v >= 0 ? (int64_t)v : JS_NONE;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return JS_NONE;
}

void conv_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static int strv_add(char ***v, size_t *n, size_t *cap, const char *s, size_t max)
{
	if (*n >= max)
		return -EINVAL;
	if (*n == *cap) {
		char **nv = realloc(*v, (*cap = *cap ? *cap * 2 : 16) * sizeof(char *));

		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	if (!((*v)[*n] = strdup(s)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* one "prefix[ranges]suffix" (or a plain name) */
static int expand_one(const char *item, size_t len, char ***v, size_t *n, size_t *cap, size_t max)
{
	const char *lb = memchr(item, '[', len), *rb, *p;
	char name[256];
	int r;

	if (!lb) {
		if (len >= sizeof(name) || !len)
			return -EINVAL;
		memcpy(name, item, len);
		name[len] = 0;
		return strv_add(v, n, cap, name, max);
	}
	rb = memchr(lb, ']', len - (size_t)(lb - item));
	if (!rb || memchr(rb + 1, '[', len - (size_t)(rb + 1 - item)))
		return -EINVAL; /* one bracket per name: what Slurm's node names use */
	for (p = lb + 1; p < rb;) {
		char *end;
		unsigned long lo, hi;
		int width;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		width = (int)(end - p);
		if (*end == '-') {
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || end > rb || hi - lo > max)
			return -EINVAL;
		for (unsigned long k = lo; k <= hi; k++) {
			if ((size_t)snprintf(name, sizeof(name), "%.*s%0*lu%.*s", (int)(lb - item),
					     item, width, k, (int)(len - (size_t)(rb + 1 - item)),
					     rb + 1) >= sizeof(name))
				return -EINVAL;
			if ((r = strv_add(v, n, cap, name, max)) < 0)
				return r;
		}
		p = end;
		if (*p == ',')
			p++;
		else if (p != rb)
			return -EINVAL;
	}
	return 0;
}

size_t conv_item_len(const char *s)
{
	size_t l = 0;
	int depth = 0;

	while (s[l] && (s[l] != ',' || depth)) {
		depth += s[l] == '[';
		depth -= s[l] == ']' && depth;
		l++;
	}
	return l;
}

int conv_hostlist(const char *list, char ***out, size_t max)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	const char *p = list;
	int r = 0;

	while (p && *p && !r) {
		size_t l = conv_item_len(p);

		if (l)
			r = expand_one(p, l, &v, &n, &cap, max);
		p += l + (p[l] == ',');
	}
	if (r < 0) {
		conv_strv_free(v, n);
		return r;
	}
	*out = v;
	return (int)n;
}

/* ---- CPU lists */

int conv_cpulist(const char *s, unsigned char *mask, size_t nbits)
{
	int count = 0;

	if (!s)
		return -EINVAL;
	memset(mask, 0, (nbits + 7) / 8);
	while (*s) {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || hi >= nbits)
			return -EINVAL;
		for (unsigned long c = lo; c <= hi; c++) {
			if (!(mask[c / 8] & (1u << (c % 8))))
				count++;
			mask[c / 8] |= 1u << (c % 8);
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
		else
			break;
	}
	return count;
}

#define MAX_CPUS 8192

int conv_numa_span(const char *alloc, const char *const *numa, size_t n)
{
	unsigned char a[MAX_CPUS / 8], m[MAX_CPUS / 8];
	int span = 0;

	if (conv_cpulist(alloc, a, MAX_CPUS) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (conv_cpulist(numa[i], m, MAX_CPUS) < 0)
			return -EINVAL;
		for (size_t b = 0; b < sizeof(a); b++)
			if (a[b] & m[b]) {
				span++;
				break;
			}
	}
	return span;
}

int64_t conv_ceil(double v)
{
	int64_t i = (int64_t)v;

	return (double)i < v ? i + 1 : i;
}

int64_t conv_round(double v)
{
	return v < 0 ? -(int64_t)(-v + 0.5) : (int64_t)(v + 0.5);
}
