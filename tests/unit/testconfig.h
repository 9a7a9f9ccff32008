/* What the tests of util/config.c share: a parse that must succeed, and one that must fail
 * with exactly a message and leave the caller's config untouched. Include after cmocka.h. */
#ifndef TRACER_TESTCONFIG_H
#define TRACER_TESTCONFIG_H

#include <errno.h>
#include <string.h>

#include "config.h"

static char err[512];

/* Parse text (a C string) and expect success. */
static inline struct tracer_config ok(const char *text)
{
	struct tracer_config c;
	int ret;

	memset(&c, 0x5a, sizeof(c));
	err[0] = '\0';
	ret = config_parse(text, strlen(text), "t.conf", &c, err, sizeof(err));
	if (ret != 0)
		fail_msg("parse of <<%s>> failed: %d %s", text, ret, err);
	return c;
}

/* Parse text and expect -EINVAL with exactly the message want, and *cfg untouched. */
static inline void bad_n(const char *text, size_t len, const char *want)
{
	struct tracer_config c, before;
	int ret;

	memset(&c, 0xa5, sizeof(c));
	before = c;
	err[0] = '\0';
	ret = config_parse(text, len, "t.conf", &c, err, sizeof(err));
	assert_int_equal(ret, -EINVAL);
	assert_string_equal(err, want);
	assert_memory_equal(&c, &before, sizeof(c));
}

static inline void bad(const char *text, const char *want)
{
	bad_n(text, strlen(text), want);
}

#endif
