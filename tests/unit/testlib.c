/* Helpers shared by the unit tests (testlib.h). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

struct json_object *key(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no key %s in %s", k, json_object_to_json_string(o));
	return v;
}

int64_t geti(struct json_object *o, const char *k)
{
	return json_object_get_int64(key(o, k));
}

const char *gets_(struct json_object *o, const char *k)
{
	return json_object_get_string(key(o, k));
}

int has(struct json_object *o, const char *k)
{
	return json_object_object_get_ex(o, k, NULL);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int tl_rmtree(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *srcdir(void)
{
	const char *d = getenv("TRACER_SRCDIR");

	return d && d[0] ? d : ".";
}

int tl_lines_have(const char *lines, size_t width, size_t n, const char *needle)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(lines + i * width, needle))
			return 1;
	return 0;
}
