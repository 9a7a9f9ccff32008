/* A collector's reply to an export (otlp.h): Export{Trace,Logs}ServiceResponse, whose one field
 * is partial_success (1) { rejected_spans, _log_records or _data_points (1, int64), error_message
 * (2, string) }, in protobuf or JSON. The reply comes from the network: nothing is read past
 * len, a varint is at most 10 bytes, a length never reaches past its message, only the two
 * known levels are entered (unknown fields are skipped, not parsed), and JSON nesting is
 * capped. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "otlp.h"
#include "safetext.h"

#define JSON_DEPTH_MAX 16

/* partialSuccess's count, by signal: a reply carries one */
static const char *const rejected_keys[] = { "rejectedSpans", "rejectedLogRecords",
					     "rejectedDataPoints" };

struct reply {
	int64_t rejected;
	const char *msg;
	size_t msglen;
};

struct pb_reader {
	const uint8_t *p, *end;
};

static int pb_varint(struct pb_reader *r, uint64_t *v)
{
	uint64_t x = 0;

	for (int i = 0; i < 10; i++) {
		if (r->p >= r->end)
			return -EBADMSG;
		uint8_t b = *r->p++;

		if (i == 9 && b > 1) /* past 64 bits */
			return -EBADMSG;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EBADMSG;
}

/* The next field: its number, its wire type, and its value (a varint's in *v, a
 * length-delimited one's bytes in *sub) */
static int pb_field(struct pb_reader *r, uint64_t *field, unsigned *wire, uint64_t *v,
		    struct pb_reader *sub)
{
	uint64_t tag;
	int rc = pb_varint(r, &tag);

	if (rc)
		return rc;
	*field = tag >> 3;
	*wire = tag & 7;
	if (*field == 0 || *field > 536870911) /* 2^29 - 1: the largest field number */
		return -EBADMSG;
	switch (*wire) {
	case 0:
		return pb_varint(r, v);
	case 1:
	case 5:
		if ((size_t)(r->end - r->p) < (*wire == 1 ? 8u : 4u))
			return -EBADMSG;
		r->p += *wire == 1 ? 8 : 4;
		return 0;
	case 2:
		if ((rc = pb_varint(r, v)))
			return rc;
		if (*v > (uint64_t)(r->end - r->p))
			return -EBADMSG;
		sub->p = r->p;
		sub->end = r->p + *v;
		r->p += *v;
		return 0;
	default: /* groups (3, 4) are not in proto3; 6 and 7 are no wire type */
		return -EBADMSG;
	}
}

static int pb_partial_success(struct pb_reader r, struct reply *out)
{
	struct pb_reader sub;
	uint64_t field, v;
	unsigned wire;
	int rc;

	while (r.p < r.end) {
		if ((rc = pb_field(&r, &field, &wire, &v, &sub)))
			return rc;
		if (field == 1) {
			if (wire != 0 || (int64_t)v < 0)
				return -EBADMSG;
			out->rejected = (int64_t)v;
		} else if (field == 2) {
			if (wire != 2)
				return -EBADMSG;
			out->msg = (const char *)sub.p;
			out->msglen = (size_t)(sub.end - sub.p);
		}
	}
	return 0;
}

static int pb_response(const char *body, size_t len, struct reply *out)
{
	struct pb_reader r = { (const uint8_t *)body, (const uint8_t *)body + len }, sub;
	uint64_t field, v;
	unsigned wire;
	int rc;

	while (r.p < r.end) {
		if ((rc = pb_field(&r, &field, &wire, &v, &sub)))
			return rc;
		if (field != 1)
			continue;
		if (wire != 2)
			return -EBADMSG;
		if ((rc = pb_partial_success(sub, out)))
			return rc;
	}
	return 0;
}

/* A count as the JSON mapping gives an int64: a decimal string or an integral number */
static int json_count(struct json_object *v, int64_t *out)
{
	const char *s;
	char *end;
	long long n;

	if (json_object_is_type(v, json_type_int)) {
		errno = 0;
		n = json_object_get_int64(v);
		if (errno || n < 0)
			return -EBADMSG;
		*out = n;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EBADMSG;
	s = json_object_get_string(v);
	if (*s < '0' || *s > '9')
		return -EBADMSG;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || *end || (size_t)(end - s) != (size_t)json_object_get_string_len(v))
		return -EBADMSG;
	*out = n;
	return 0;
}

static int json_response(const char *body, size_t len, struct reply *out, struct json_object **doc)
{
	struct json_tokener *tok;
	struct json_object *o, *ps, *v;
	int found = 0, rc = -EBADMSG;
	size_t i = 0;

	while (i < len && body[i] && strchr(" \t\r\n", body[i]))
		i++;
	if (i == len)
		return 0; /* empty: full success */
	if (len > INT_MAX)
		return -EBADMSG;
	tok = json_tokener_new_ex(JSON_DEPTH_MAX);
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, body, (int)len);
	*doc = o;
	if (!o || json_tokener_get_error(tok) != json_tokener_success)
		goto out;
	for (i = json_tokener_get_parse_end(tok); i < len; i++)
		if (!body[i] || !strchr(" \t\r\n", body[i]))
			goto out; /* something after the document */
	if (!json_object_is_type(o, json_type_object))
		goto out;
	if (!json_object_object_get_ex(o, "partialSuccess", &ps) || !ps) {
		rc = 0;
		goto out;
	}
	if (!json_object_is_type(ps, json_type_object))
		goto out;
	for (size_t k = 0; k < sizeof(rejected_keys) / sizeof(rejected_keys[0]); k++) {
		if (!json_object_object_get_ex(ps, rejected_keys[k], &v) || !v)
			continue;
		if (found++ || json_count(v, &out->rejected))
			goto out;
	}
	if (json_object_object_get_ex(ps, "errorMessage", &v) && v) {
		if (!json_object_is_type(v, json_type_string))
			goto out;
		out->msg = json_object_get_string(v);
		out->msglen = (size_t)json_object_get_string_len(v);
	}
	rc = 0;
out:
	json_tokener_free(tok);
	return rc;
}

int otlp_decode_response(enum otlp_format f, const char *body, size_t len, int64_t *rejected,
			 char *msg, size_t msglen)
{
	struct reply r = { 0, NULL, 0 };
	struct json_object *doc = NULL;
	int rc;

	if (f == OTLP_PROTOBUF)
		rc = pb_response(body, len, &r);
	else if (f == OTLP_JSON)
		rc = json_response(body, len, &r, &doc);
	else
		rc = -EINVAL;
	if (rc == 0) {
		*rejected = r.rejected;
		if (msglen)
			safe_text(msg, msglen, r.msg ? r.msg : "", r.msglen);
	}
	json_object_put(doc);
	return rc;
}

/* google.rpc.Status { int32 code = 1; string message = 2; repeated Any details = 3; }: its
 * message, or -EBADMSG when body is no Status with one */
static int pb_status_message(const char *body, size_t len, const char **msg, size_t *msglen)
{
	struct pb_reader r = { (const uint8_t *)body, (const uint8_t *)body + len }, sub;
	uint64_t field, v;
	unsigned wire;
	int rc;

	*msg = NULL;
	while (r.p < r.end) {
		if ((rc = pb_field(&r, &field, &wire, &v, &sub)))
			return rc;
		if ((field == 1 && wire != 0) || ((field == 2 || field == 3) && wire != 2))
			return -EBADMSG;
		if (field == 2) {
			*msg = (const char *)sub.p;
			*msglen = (size_t)(sub.end - sub.p);
		}
	}
	return *msg && *msglen ? 0 : -EBADMSG;
}

void otlp_reply_reason(enum otlp_format f, const char *body, size_t len, char *out, size_t outlen)
{
	const char *text = body;
	size_t n = len;

	if (f == OTLP_PROTOBUF && pb_status_message(body, len, &text, &n)) {
		text = body;
		n = len;
	}
	while (n && strchr(" \t\r\n", text[n - 1]) && text[n - 1])
		n--; /* a trailing newline says nothing */
	if (n > OTLP_REASON_BYTES) {
		n = OTLP_REASON_BYTES;
		/* a character cut in two is left out */
		for (int i = 0; i < 3 && n && ((unsigned char)text[n] & 0xc0) == 0x80; i++)
			n--;
	}
	if (outlen)
		safe_text(out, outlen, text, n);
}
