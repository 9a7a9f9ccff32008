/* Control-socket protocol: newline-delimited JSON, one object per line, each with "v". Every
 * byte here comes from another process, so sizes, depth and types are all checked. */
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REQ_DEPTH 16   /* requests are flat; a deeper one is an attack or a bug */
#define REPLY_DEPTH 32 /* reports nest jobs > steps > tools > processes, with room to spare */
#define OP_MAX 32
#define IDLE_KEEP (16 * 1024) /* a drained reader keeps at most this much buffer */
#define SERIAL_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

void proto_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- line framing */

void line_reader_init(struct line_reader *r)
{
	memset(r, 0, sizeof(*r));
}

void line_reader_free(struct line_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* Does a line of n bytes (newline excluded) ending in byte last fit? The '\r' of CRLF does not
 * count, since line_reader_next strips it. */
static size_t line_max(const struct line_reader *r)
{
	return r->max ? r->max : TRACER_MSG_MAX;
}

static bool line_fits(const struct line_reader *r, size_t n, char last)
{
	return n <= line_max(r) || (n == line_max(r) + 1 && last == '\r');
}

int line_reader_feed(struct line_reader *r, const char *data, size_t n)
{
	size_t cur, need;
	const char *p, *end, *lastnl = NULL;
	char last;

	if (!r)
		return -EINVAL;
	if (r->overflow)
		return -EMSGSIZE;
	if (!n)
		return 0;
	if (!data)
		return -EINVAL;

	/* Check every line this data completes, and the new unterminated tail, before storing
	 * anything: a hostile peer must not make us buffer more than one line's worth. Only the
	 * new bytes are scanned, so trickled input costs O(n) overall. */
	cur = r->len - r->tail;
	last = cur ? r->buf[r->len - 1] : '\0';
	for (p = data, end = data + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t seg = (size_t)((nl ? nl : end) - p);

		if (seg)
			last = p[seg - 1];
		if (!nl) {
			/* Unterminated: may still gain a '\r' before its '\n'. */
			if (cur + seg > line_max(r) + 1 ||
			    (cur + seg == line_max(r) + 1 && last != '\r'))
				goto overflow;
			break;
		}
		if (!line_fits(r, cur + seg, last))
			goto overflow;
		lastnl = nl;
		cur = 0;
		last = '\0';
		p = nl + 1;
	}

	if (n > SIZE_MAX - r->len)
		return -ENOMEM;
	/* Drop consumed lines first; amortised, since we only move when half is dead. */
	if (r->start && (r->start >= r->cap / 2 || r->len + n > r->cap)) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->tail -= r->start;
		r->start = 0;
	}
	need = r->len + n;
	if (need > r->cap) {
		size_t cap = r->cap ? r->cap : 1024;
		char *nb;

		while (cap < need)
			cap = cap > SIZE_MAX / 2 ? need : cap * 2;
		nb = realloc(r->buf, cap);
		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, data, n);
	if (lastnl)
		r->tail = r->len + (size_t)(lastnl - data) + 1;
	r->len += n;
	return 0;

overflow:
	r->overflow = 1;
	return -EMSGSIZE;
}

int line_reader_next(struct line_reader *r, char **line, size_t *len)
{
	const char *s, *nl;
	size_t n;
	char *out;

	if (!r || !line || !len)
		return -EINVAL;
	/* After an overflow the stream position is lost: nothing more is trustworthy. */
	if (r->overflow)
		return -EMSGSIZE;
	if (r->start >= r->tail)
		return 0;
	s = r->buf + r->start;
	nl = memchr(s, '\n', r->tail - r->start); /* exists: tail is just past the last '\n' */
	if (!nl)
		return -EIO;
	n = (size_t)(nl - s);
	if (n && s[n - 1] == '\r')
		n--;
	out = malloc(n + 1);
	if (!out)
		return -ENOMEM;
	memcpy(out, s, n);
	out[n] = '\0';
	*line = out;
	*len = n;
	r->start = (size_t)(nl - r->buf) + 1;
	if (r->start == r->len) {
		/* Drained: rewind, and give back a buffer that a big message grew. */
		r->start = r->tail = r->len = 0;
		if (r->cap > IDLE_KEEP) {
			free(r->buf);
			r->buf = NULL;
			r->cap = 0;
		}
	}
	return 1;
}

/* ---- messages */

/* Parse one line as a JSON object; the whole line must be one JSON value (trailing blanks
 * aside). Returns the object or NULL with a message. */
static struct json_object *parse_object(const char *line, size_t len, size_t max, int depth,
					char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t end;

	if (len > max) {
		proto_errf(err, errlen, "message too long (%zu bytes, at most %zu)", len, max);
		return NULL;
	}
	if (memchr(line, '\0', len)) {
		proto_errf(err, errlen, "NUL byte in message");
		return NULL;
	}
	if (!len) {
		proto_errf(err, errlen, "empty message");
		return NULL;
	}
	tok = json_tokener_new_ex(depth);
	if (!tok) {
		proto_errf(err, errlen, "out of memory");
		return NULL;
	}
	/* Strict: no comments, no trailing commas, and nothing after the value. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr == json_tokener_continue) {
		json_object_put(o);
		proto_errf(err, errlen, "invalid JSON: incomplete");
		return NULL;
	}
	if (jerr != json_tokener_success || !o) {
		json_object_put(o);
		proto_errf(err, errlen, "invalid JSON at offset %zu: %s", end,
			   json_tokener_error_desc(jerr));
		return NULL;
	}
	if (end != len) {
		json_object_put(o);
		proto_errf(err, errlen, "invalid JSON: trailing data at offset %zu", end);
		return NULL;
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		proto_errf(err, errlen, "message is not a JSON object");
		return NULL;
	}
	return o;
}

/* "v" must be the integer TRACER_PROTO_VERSION. */
static int check_version(struct json_object *o, char *err, size_t errlen)
{
	struct json_object *v;
	int64_t ver;

	if (!json_object_object_get_ex(o, "v", &v) || !v) {
		proto_errf(err, errlen, "missing protocol version \"v\"");
		return -EPROTO;
	}
	if (!json_object_is_type(v, json_type_int)) {
		proto_errf(err, errlen, "protocol version \"v\" must be an integer");
		return -EPROTO;
	}
	ver = json_object_get_int64(v);
	if (ver != TRACER_PROTO_VERSION) {
		proto_errf(err, errlen, "unsupported protocol version %" PRId64, ver);
		return -EPROTO;
	}
	return 0;
}

int proto_parse_request(const char *line, size_t len, struct json_object **out, char *err,
			size_t errlen)
{
	struct json_object *o, *op;
	const char *s;
	size_t n;
	int ret;

	if (!out || (!line && len))
		return -EINVAL;
	o = parse_object(line ? line : "", len, TRACER_MSG_MAX, REQ_DEPTH, err, errlen);
	if (!o)
		return -EINVAL;
	if ((ret = check_version(o, err, errlen)) < 0)
		goto fail;
	ret = -EINVAL;
	if (!json_object_object_get_ex(o, "op", &op) || !op) {
		proto_errf(err, errlen, "missing \"op\"");
		goto fail;
	}
	if (!json_object_is_type(op, json_type_string)) {
		proto_errf(err, errlen, "\"op\" must be a string");
		goto fail;
	}
	s = json_object_get_string(op);
	n = (size_t)json_object_get_string_len(op);
	if (n == 0 || n > OP_MAX) {
		proto_errf(err, errlen, "\"op\" must be 1 to %d characters", OP_MAX);
		goto fail;
	}
	/* The op is echoed in logs and replies: only [a-z_] (this also excludes NUL). */
	for (size_t i = 0; i < n; i++) {
		if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_')) {
			proto_errf(err, errlen, "\"op\" may only contain a-z and '_'");
			goto fail;
		}
	}
	*out = o;
	return 0;
fail:
	json_object_put(o);
	return ret;
}

char *proto_serialize(struct json_object *o, size_t *len)
{
	const char *s;
	size_t n;
	char *out;

	if (!o)
		return NULL;
	/* json-c escapes control characters in strings, so the output holds no '\n' of its own. */
	s = json_object_to_json_string_length(o, SERIAL_FLAGS, &n);
	if (!s)
		return NULL;
	out = malloc(n + 2);
	if (!out)
		return NULL;
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	if (len)
		*len = n + 1;
	return out;
}

/* Bytes json-c writes for byte c inside a string, with proto_serialize's flags. An estimate
 * only needs to be exact or high: proto_add_argv checks the result. */
static size_t json_char_len(unsigned char c)
{
	switch (c) {
	case '"':
	case '\\':
	case '\b':
	case '\f':
	case '\n':
	case '\r':
	case '\t':
		return 2;
	}
	return c < 0x20 ? 6 : 1; /* \u00XX */
}

int proto_add_argv(struct json_object *req, char *const *argv, int argc)
{
	static const char frame[] = ",\"argv\":[]", mark[] = ",\"argv_cut\":true";
	struct json_object *arr;
	size_t base, room, n, k;
	int i, cut = 0;

	if (!req || (argc > 0 && !argv))
		return -EINVAL;
	if (!json_object_to_json_string_length(req, SERIAL_FLAGS, &base))
		return -ENOMEM;
	if (base + strlen(frame) + strlen(mark) > TRACER_MSG_MAX)
		return -EMSGSIZE;
	room = TRACER_MSG_MAX - base - strlen(frame) - strlen(mark);
	arr = json_object_new_array();
	if (!arr)
		return -ENOMEM;
	/* a step with a huge command line is still registered: with as much of it as fits */
	for (i = 0; i < argc && argv[i] && !cut; i++) {
		size_t quotes = i ? 3 : 2; /* "" and the comma before it */

		if (quotes > room) {
			cut = 1;
			break;
		}
		room -= quotes;
		n = strlen(argv[i]);
		for (k = 0; k < n && json_char_len((unsigned char)argv[i][k]) <= room; k++)
			room -= json_char_len((unsigned char)argv[i][k]);
		if (k < n) {
			cut = 1;
			/* never half a UTF-8 character: back to the start of the one cut */
			while (k > 0 && ((unsigned char)argv[i][k] & 0xc0) == 0x80)
				k--;
		}
		if (json_object_array_add(arr, json_object_new_string_len(argv[i], (int)k)) < 0) {
			json_object_put(arr);
			return -ENOMEM;
		}
	}
	json_object_object_add(req, "argv", arr);
	if (cut)
		json_object_object_add(req, "argv_cut", json_object_new_boolean(1));
	if (!json_object_to_json_string_length(req, SERIAL_FLAGS, &n))
		return -ENOMEM;
	if (n > TRACER_MSG_MAX) {
		/* the estimate was wrong after all: the registration matters more than argv */
		json_object_object_del(req, "argv");
		json_object_object_add(req, "argv_cut", json_object_new_boolean(1));
	}
	return 0;
}

int proto_parse_reply(const char *line, size_t len, struct json_object **out, char *err,
		      size_t errlen)
{
	struct json_object *o = parse_object(line, len, TRACER_REPLY_MAX, REPLY_DEPTH, err, errlen);
	int ret;

	if (!o)
		return -EPROTO;
	if ((ret = check_version(o, err, errlen)) < 0) {
		json_object_put(o);
		return ret;
	}
	*out = o;
	return 0;
}
