/* Prometheus's text exposition format 0.0.4: a reply body built in memory, family by family.
 * Label values are text others chose (unit, user and tool names): each is made harmless and
 * valid UTF-8 as every tracer client shows such text (safetext.h), then escaped as the format
 * wants (backslash, double quote, newline), so that no name can end a label, a line or a
 * series. The body is bounded: past max bytes nothing more is added and the caller is told. */
#ifndef TRACER_PROMTEXT_H
#define TRACER_PROMTEXT_H

#include <stddef.h>
#include <stdint.h>

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* A label value is cut to this many bytes (escaped), whole characters and escapes only. */
#define PROM_LABEL_MAX 256
/* Labels of one series at most */
#define PROM_LABELS_MAX 10

struct prom_buf {
	char *data;
	size_t len, cap, max;
	int full; /* something was left out: max reached, or out of memory */
};

struct prom_label {
	const char *name; /* [a-zA-Z_][a-zA-Z0-9_]*, the caller's constant */
	const char *value;
};

void prom_init(struct prom_buf *b, size_t max);
void prom_free(struct prom_buf *b);
/* "# HELP name help" and "# TYPE name type" (counter, gauge). help is the caller's constant. */
int prom_family(struct prom_buf *b, const char *name, const char *type, const char *help);
/* One series: name{labels} value (n at most PROM_LABELS_MAX). A whole value is written as an
 * integer, any other in the fewest digits that read back as the same double (full precision). 0 or
 * -ENOSPC (nothing of it added: a series is never cut). */
int prom_sample(struct prom_buf *b, const char *name, const struct prom_label *labels, size_t n,
		double value);
/* A label value as it is written between the quotes, into out (len bytes, NUL-terminated):
 * made safe and escaped, cut to whole escapes. Returns its length. */
size_t prom_label_value(char *out, size_t len, const char *value);

#endif
