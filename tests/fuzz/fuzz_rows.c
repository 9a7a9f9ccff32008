/* libFuzzer target: a "processes" reply as tracer-jobstat reads it, its big array a row at a
 * time: the reply split around the array (proto_parse_reply_rows), the array's records parsed
 * into flat rows (rows_parse), each row read as a process would be. Checks that a success hands
 * on well-formed rows and a failure a negative errno with a message. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flatrow.h"
#include "protocol.h"
#include "rows_parse.h"

static int read_row(void *ctx, struct flat_row *r)
{
	const char *s = NULL;
	size_t n;

	(void)ctx;
	if (r->n > FLAT_FIELDS_MAX || r->len > r->cap)
		abort();
	(void)flat_int(r, "pid");
	if ((s = flat_str(r, "comm")) && strlen(s) >= r->len)
		abort();
	n = flat_strs(r, "argv", &s);
	for (size_t i = 0; i < n; i++, s = flat_next_str(s))
		if (s < r->text || s >= r->text + r->len)
			abort();
	return 0;
}

static int rows(void *ctx, const char *text, size_t len, char *err, size_t errlen)
{
	char why[160] = "";
	int r = rows_parse(text, len, read_row, ctx, why, sizeof(why));

	if (r == -EPROTO && !why[0])
		abort(); /* a refusal says why */
	if (r < 0)
		proto_errf(err, errlen, "invalid rows: %s", why);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct proto_rows spec = { .key = "processes", .rows = rows };
	struct json_object *reply = NULL;
	char err[256] = "";
	int rc = proto_parse_reply_rows((const char *)data, size, &spec, &reply, err, sizeof(err));

	if (rc == 0) {
		if (!reply || !json_object_is_type(reply, json_type_object))
			abort();
		json_object_put(reply);
	} else if (rc > 0 || !err[0] || reply) {
		abort();
	}
	return 0;
}
