/* libFuzzer target: the correlate library's JSON reader (Snakemake's job properties in a batch
 * script). The input is walked as an object, members of member objects too, each key and
 * string value is decoded into buffers of several sizes, and a few keys are looked up.
 * Checks that keys and values lie inside the text and are never empty, that the walk always
 * moves forward and ends, that keys always decode, and that decoded strings fit their
 * buffers. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void decode(struct word raw, int must)
{
	static const size_t sizes[] = { 1, 2, 8, 256 };
	char buf[256];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		int rc = json_string(raw, buf, sizes[i]);

		if (rc == 0 && strnlen(buf, sizes[i]) >= sizes[i])
			abort();
		if ((rc != 0 && rc != -EINVAL) || (must && rc != 0))
			abort();
	}
}

static void walk(struct word obj, int depth)
{
	static const char *const keys[] = { "type", "rule", "jobid", "wildcards", "groupid", "" };
	struct word k, v;
	size_t pos = 0, last = 0;
	int rc;

	while ((rc = json_next_member(obj, &pos, &k, &v)) == 1) {
		if (k.s < obj.s || v.s < k.s + k.len || !v.len || v.s + v.len > obj.s + obj.len ||
		    pos > obj.len || pos <= last)
			abort();
		last = pos;
		decode(k, 1); /* a key is always a whole string */
		decode(v, 0);
		if (depth < JSON_DEPTH_MAX && v.len && (v.s[0] == '{' || v.s[0] == '['))
			walk(v, depth + 1);
	}
	if (rc != 0 && rc != -EINVAL)
		abort();
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		rc = json_get(obj, keys[i], &v);
		if (rc == 0 && (v.s < obj.s || v.s + v.len > obj.s + obj.len))
			abort();
		if (rc != 0 && rc != -ENOENT && rc != -EINVAL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly the input's size: the reader must never look past len */
	char *text = malloc(size ? size : 1);
	struct word obj;

	if (!text)
		return 0;
	memcpy(text, data, size);
	obj.s = text;
	obj.len = size;
	walk(obj, 0);
	decode(obj, 0);
	free(text);
	return 0;
}
