/* The attributes of an exported item, built into its batch: each value copied there, each
 * user's name looked up once a batch. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "items_attrs.h"

void attrs_begin(struct attrs *as, struct export_batch *b)
{
	as->b = b;
	as->n = 0;
	as->oom = 0;
}

int attrs_end(struct attrs *as, const struct otlp_attr **out, size_t *n)
{
	struct otlp_attr *a;

	if (as->oom || !(a = batch_alloc(as->b, as->n * sizeof(*a) + 1)))
		return -ENOMEM;
	memcpy(a, as->a, as->n * sizeof(*a));
	*out = a;
	*n = as->n;
	return 0;
}

void attrs_add(struct attrs *as, const struct otlp_attr *a, size_t n)
{
	if (n > ATTRS_MAX - as->n) {
		as->oom = 1;
		return;
	}
	memcpy(&as->a[as->n], a, n * sizeof(*a));
	as->n += n;
}

struct otlp_attr *attr(struct attrs *as, const char *key, enum otlp_value_type type)
{
	struct otlp_attr *a;

	if (as->n == ATTRS_MAX) {
		as->oom = 1;
		return NULL;
	}
	a = &as->a[as->n++];
	*a = (struct otlp_attr){ .key = key, .type = type };
	return a;
}

void attr_str(struct attrs *as, const char *key, const char *v, size_t len)
{
	struct otlp_attr *a;
	const char *s;

	if (!v || !*v)
		return;
	s = batch_text(as->b, v, len);
	if (!s || !(a = attr(as, key, OTLP_STR))) {
		as->oom = 1;
		return;
	}
	a->s = s;
}

void attr_col(struct attrs *as, const char *key, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_NULL)
		attr_str(as, key, text(st, col), (size_t)sqlite3_column_bytes(st, col));
}

void attr_int(struct attrs *as, const char *key, int64_t v)
{
	struct otlp_attr *a = attr(as, key, OTLP_INT);

	if (a)
		a->i = v;
}

/* An integer column, left out where unknown */
void attr_num(struct attrs *as, const char *key, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_NULL)
		attr_int(as, key, num(st, col));
}

void attr_bool(struct attrs *as, const char *key, int v)
{
	struct otlp_attr *a = attr(as, key, OTLP_BOOL);

	if (a)
		a->i = !!v;
}

/* The user's name, looked up once per batch: the export thread's, never the loop's */
void attr_owner(struct attrs *as, const char *key, uint32_t uid)
{
	struct export_batch *b = as->b;
	char buf[1024], name[32];
	struct passwd pw, *res = NULL;
	unsigned i;

	for (i = 0; i < b->nowners && b->owners[i].uid != uid; i++)
		;
	if (i == b->nowners) {
		if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) || !res)
			snprintf(name, sizeof(name), "%u", uid);
		else
			snprintf(name, sizeof(name), "%s", res->pw_name);
		if (i < OWNERS_CACHED) {
			b->owners[i].uid = uid;
			b->owners[i].name = batch_text(b, name, strlen(name));
			b->nowners++;
		} else {
			attr_str(as, key, name, strlen(name));
			return;
		}
	}
	if (b->owners[i].name)
		attr_str(as, key, b->owners[i].name, strlen(b->owners[i].name));
}
