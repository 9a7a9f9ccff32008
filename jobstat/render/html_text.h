/* Text and data inside tracer-jobstat's HTML report (--html): every string there came from
 * the store (argv, process, tool, job, pipeline and run names, paths) and is the user's to
 * choose, so nothing of it may become markup or script. */
#ifndef JOBSTAT_HTML_TEXT_H
#define JOBSTAT_HTML_TEXT_H

#include <stdio.h>
#include <json-c/json.h>

/* s as HTML text or a quoted attribute's value: escaped for a reader first (safetext.h:
 * invalid UTF-8 and controls shown as \xHH, \uHHHH), then &, <, >, " and ' as entities. */
void html_text(FILE *f, const char *s);
/* The same of s's first max bytes, and "..." when it was longer (titles of long commands). */
void html_text_cut(FILE *f, const char *s, size_t max);
/* The same of a formatted message (at most 1 KiB). */
void html_textf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* o as the content of a <script type="application/json"> block that JSON.parse reads back:
 * its strings escaped for a reader (safe_text_json, in place), then '<', '>', '&' and the
 * line and paragraph separators written as \u escapes, so that no "</script>", "<!--" or
 * line break of JavaScript's can appear in it. 0 or -ENOMEM. */
int html_json(FILE *f, struct json_object *o);

#endif
