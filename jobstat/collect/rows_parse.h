/* Collect: a reply's array of records, a flat row at a time (rows_parse.c). */
#ifndef JOBSTAT_ROWS_PARSE_H
#define JOBSTAT_ROWS_PARSE_H

#include <stddef.h>

struct flat_row;
/* One record: 0, or < 0 to stop (rows_parse returns it). The row is reused after the call. */
typedef int (*rows_fn)(void *ctx, struct flat_row *row);

/* Each object of the JSON array text[0, len) to fn, in order. 0; -EPROTO when the text is no
 * array of objects (why says where); -ENOMEM; or what fn returned. Rows before the fault have
 * been handed on. */
int rows_parse(const char *text, size_t len, rows_fn fn, void *ctx, char *why, size_t whylen);

#endif
