/* Prometheus's text exposition format (promtext.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promtext.h"
#include "safetext.h"

void prom_init(struct prom_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void prom_free(struct prom_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static int reserve(struct prom_buf *b, size_t n)
{
	size_t cap;
	char *nd;

	if (b->len + n + 1 > b->max) {
		b->full = 1;
		return -ENOSPC;
	}
	if (b->len + n + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n + 1)
		cap *= 2;
	if (cap > b->max)
		cap = b->max;
	nd = realloc(b->data, cap);
	if (!nd) {
		b->full = 1;
		return -ENOMEM;
	}
	b->data = nd;
	b->cap = cap;
	return 0;
}

static int append(struct prom_buf *b, const char *s, size_t n)
{
	int r = reserve(b, n);

	if (r)
		return r;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int prom_family(struct prom_buf *b, const char *name, const char *type, const char *help)
{
	char line[768];
	int n = snprintf(line, sizeof(line), "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
			 type);

	if (n < 0 || (size_t)n >= sizeof(line))
		return -EINVAL;
	return append(b, line, (size_t)n);
}

size_t prom_label_value(char *out, size_t len, const char *value)
{
	/* safe_text grows a byte to 4 at most; the format's escaping doubles a byte at most */
	char safe[PROM_LABEL_MAX];
	size_t i, at = 0;

	if (!len)
		return 0;
	safe_text(safe, sizeof(safe), value, strlen(value));
	for (i = 0; safe[i]; i++) {
		const char *e = NULL;
		char c[2] = { safe[i], 0 };

		if (safe[i] == '\\')
			e = "\\\\";
		else if (safe[i] == '"')
			e = "\\\"";
		else if (safe[i] == '\n') /* never left by safe_text: kept for the format's sake */
			e = "\\n";
		else
			e = c;
		if (at + strlen(e) + 1 > len)
			break;
		memcpy(out + at, e, strlen(e));
		at += strlen(e);
	}
	/* cut inside a multi-byte character: back off to its start */
	if (((unsigned char)safe[i] & 0xc0) == 0x80) {
		while (at && ((unsigned char)out[at - 1] & 0xc0) == 0x80)
			at--;
		if (at)
			at--;
	}
	out[at] = 0;
	return at;
}

/* Integers whole, other values in the fewest digits that read back as the same double (a
 * timestamp in seconds keeps its milliseconds and more: %.9g would be seconds off) */
static void value_text(char *out, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(out, len, "NaN");
	} else if (isinf(v)) {
		snprintf(out, len, "%sInf", v > 0 ? "+" : "-");
	} else if (v == (double)(int64_t)v && v > -9e18 && v < 9e18) {
		snprintf(out, len, "%lld", (long long)v);
	} else {
		for (int digits = 15; digits <= 17; digits++) {
			snprintf(out, len, "%.*g", digits, v);
			if (strtod(out, NULL) == v)
				break;
		}
	}
}

int prom_sample(struct prom_buf *b, const char *name, const struct prom_label *labels, size_t n,
		double value)
{
	char line[256 + PROM_LABELS_MAX * (PROM_LABEL_MAX + 64)], val[40];
	size_t at, i;
	int w;

	if (n > PROM_LABELS_MAX)
		return -EINVAL;
	at = (size_t)snprintf(line, sizeof(line), "%s", name);
	for (i = 0; i < n; i++) {
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s=\"", i ? "," : "{",
				       labels[i].name);
		at += prom_label_value(line + at, PROM_LABEL_MAX,
				       labels[i].value ? labels[i].value : "");
		line[at++] = '"';
	}
	value_text(val, sizeof(val), value);
	w = snprintf(line + at, sizeof(line) - at, "%s %s\n", n ? "}" : "", val);
	if (w < 0 || (size_t)w >= sizeof(line) - at)
		return -EINVAL;
	return append(b, line, at + (size_t)w);
}
