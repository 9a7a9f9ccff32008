/* Control-socket protocol, tracerd's side: a request's typed fields, and the replies. The
 * clients (SPANK plugin, prolog, tracerctl, tracer-jobstat) link without this file. */
#include "protocol.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "safetext.h"

/* Look key up in object o; JSON null counts as absent, which is how optional fields are
 * usually left out by clients. */
static int get_field(struct json_object *o, const char *key, struct json_object **v, char *err,
		     size_t errlen)
{
	if (!o || !key || !json_object_is_type(o, json_type_object)) {
		proto_errf(err, errlen, "not a JSON object");
		return -EINVAL;
	}
	if (!json_object_object_get_ex(o, key, v) || !*v) {
		proto_errf(err, errlen, "missing \"%s\"", key);
		return -ENOENT;
	}
	return 0;
}

int proto_get_string(struct json_object *o, const char *key, size_t maxlen, const char **out,
		     char *err, size_t errlen)
{
	struct json_object *v;
	const char *s;
	size_t n;
	int ret;

	if (!out)
		return -EINVAL;
	if ((ret = get_field(o, key, &v, err, errlen)) < 0)
		return ret;
	if (!json_object_is_type(v, json_type_string)) {
		proto_errf(err, errlen, "\"%s\" must be a string", key);
		return -EINVAL;
	}
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	/* "\u0000" would silently truncate the C string the caller sees. */
	if (strlen(s) != n) {
		proto_errf(err, errlen, "\"%s\" contains a NUL byte", key);
		return -EINVAL;
	}
	if (n > maxlen) {
		proto_errf(err, errlen, "\"%s\" is too long (%zu bytes, at most %zu)", key, n,
			   maxlen);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

int proto_get_int64(struct json_object *o, const char *key, int64_t min, int64_t max, int64_t *out,
		    char *err, size_t errlen)
{
	struct json_object *v;
	int64_t x;
	int ret;

	if (!out)
		return -EINVAL;
	if ((ret = get_field(o, key, &v, err, errlen)) < 0)
		return ret;
	if (!json_object_is_type(v, json_type_int)) {
		proto_errf(err, errlen, "\"%s\" must be an integer", key);
		return -EINVAL;
	}
	x = json_object_get_int64(v);
	/* json-c saturates: a value above INT64_MAX reads as INT64_MAX, unless read unsigned. */
	if ((x == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX) || x < min ||
	    x > max) {
		proto_errf(err, errlen, "\"%s\" out of range (%" PRId64 "..%" PRId64 ")", key, min,
			   max);
		return -EINVAL;
	}
	*out = x;
	return 0;
}

static struct json_object *reply_new(bool ok)
{
	struct json_object *o = json_object_new_object();
	struct json_object *v, *b;

	if (!o)
		return NULL;
	v = json_object_new_int(TRACER_PROTO_VERSION);
	if (!v || json_object_object_add(o, "v", v) < 0) {
		json_object_put(v);
		goto fail;
	}
	b = json_object_new_boolean(ok);
	if (!b || json_object_object_add(o, "ok", b) < 0) {
		json_object_put(b);
		goto fail;
	}
	return o;
fail:
	json_object_put(o);
	return NULL;
}

struct json_object *proto_reply_ok(void)
{
	return reply_new(true);
}

struct json_object *proto_reply_error(enum proto_code code, const char *fmt, ...)
{
	struct json_object *o, *s;
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	o = reply_new(false);
	s = o ? json_object_new_string_len(msg, n) : NULL;
	free(msg);
	if (!s || json_object_object_add(o, "error", s) < 0) {
		json_object_put(s);
		json_object_put(o);
		return NULL;
	}
	s = json_object_new_string(proto_code_name(code));
	if (!s || json_object_object_add(o, "code", s) < 0) {
		json_object_put(s);
		json_object_put(o);
		return NULL;
	}
	return o;
}

int proto_refuse(int fd, enum proto_code code, const char *text)
{
	struct json_object *r = proto_reply_error(code, "%s", text);
	size_t len = 0;
	char *line = r ? proto_serialize(r, &len) : NULL;
	int ret = line ? 0 : -ENOMEM;

	json_object_put(r);
	if (line && send(fd, line, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		ret = -errno;
	free(line);
	return ret;
}

/* ---- optional fields: absent is not an error */

int proto_opt_string(struct json_object *req, const char *key, size_t max, const char **out,
		     char *err, size_t errlen)
{
	int r = proto_get_string(req, key, max, out, err, errlen);

	if (r == -ENOENT) {
		*out = NULL;
		return 0;
	}
	return r;
}

int proto_copy_string(struct json_object *req, const char *key, char *dst, size_t len, char *err,
		      size_t errlen)
{
	const char *v;
	int r = proto_opt_string(req, key, len - 1, &v, err, errlen);

	if (!r && v)
		snprintf(dst, len, "%s", v);
	return r;
}

int proto_copy_text(struct json_object *req, const char *key, char *dst, size_t len, char *err,
		    size_t errlen)
{
	const char *v;
	int r = proto_opt_string(req, key, TRACER_MSG_MAX, &v, err, errlen);

	if (!r && v)
		safe_text(dst, len, v, strlen(v));
	return r;
}

int proto_opt_int64(struct json_object *req, const char *key, int64_t min, int64_t max,
		    int64_t *out, char *err, size_t errlen)
{
	int r = proto_get_int64(req, key, min, max, out, err, errlen);

	return r == -ENOENT ? 0 : r;
}
