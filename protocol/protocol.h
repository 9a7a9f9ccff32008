/* Control-socket protocol between tracerd and its clients (tracerctl, tracer-jobstat, SPANK,
 * prolog): newline-delimited JSON objects, each carrying the protocol version "v". */
#ifndef TRACER_PROTOCOL_H
#define TRACER_PROTOCOL_H

#include <stddef.h>
#include <json-c/json.h>

#include "ops.h"

#define TRACER_PROTO_VERSION 1
#define TRACER_MSG_MAX (64 * 1024)    /* longest accepted request line, newline excluded */
#define TRACER_REPLY_MAX (512u << 20) /* longest reply a client accepts: reports can be big */

/* Incremental line framer for one connection. */
struct line_reader {
	char *buf;
	size_t len, cap;
	int overflow; /* a line longer than max was seen: the connection must close */
	size_t start; /* first byte not yet returned by line_reader_next (private) */
	size_t tail; /* start of the unterminated last line; buf[tail..len) has no '\n' (private) */
	size_t max;  /* longest line accepted; 0 = TRACER_MSG_MAX */
};

void line_reader_init(struct line_reader *r);
void line_reader_free(struct line_reader *r);
/* Append received bytes. Returns 0, or -EMSGSIZE once a pending line exceeds the reader's max,
 * or -ENOMEM. */
int line_reader_feed(struct line_reader *r, const char *data, size_t n);
/* Is a complete line waiting for line_reader_next? */
static inline int line_reader_has_line(const struct line_reader *r)
{
	return r->start < r->tail;
}
/* Bytes of an unterminated line held so far. */
static inline size_t line_reader_partial(const struct line_reader *r)
{
	return r->len - r->tail;
}
/* Take the next complete line (without '\n', NUL-terminated, caller frees). Returns 1 and sets
 * *line and *len, 0 when no complete line is pending, negative errno on error. */
int line_reader_next(struct line_reader *r, char **line, size_t *len);

/* Parse one request line: must be a JSON object with integer "v" == TRACER_PROTO_VERSION and a
 * non-empty string "op" of at most 32 chars made of [a-z_]. Returns 0 and *out (caller puts), or
 * -EINVAL/-EPROTO with a message in err. Embedded NUL bytes are an error. */
int proto_parse_request(const char *line, size_t len, struct json_object **out, char *err,
			size_t errlen);

/* ---- tracerd's side (protocol_server.c): a request's fields, and the replies */

/* Typed field access with validation; each returns 0, -ENOENT when absent (and not required
 * elsewhere), or -EINVAL when present with the wrong type/range, with a message in err. */
int proto_get_string(struct json_object *o, const char *key, size_t maxlen, const char **out,
		     char *err, size_t errlen);
int proto_get_int64(struct json_object *o, const char *key, int64_t min, int64_t max, int64_t *out,
		    char *err, size_t errlen);

/* Optional fields: absent gives 0 and leaves the output alone (NULL for strings); present but
 * wrong is -EINVAL with a message. proto_copy_string copies into dst[len]. */
int proto_opt_string(struct json_object *o, const char *key, size_t maxlen, const char **out,
		     char *err, size_t errlen);
int proto_copy_string(struct json_object *o, const char *key, char *dst, size_t len, char *err,
		      size_t errlen);
int proto_opt_int64(struct json_object *o, const char *key, int64_t min, int64_t max, int64_t *out,
		    char *err, size_t errlen);
/* An optional text that a job's user may have chosen (a Slurm account, a partition, a node
 * list), whatever its length: escaped as util/safetext.h does and cut to fit dst[len] (never
 * half an escape or a character), rather than the request refused for it. A value that is
 * not a string, or holds a NUL, is -EINVAL with a message. */
int proto_copy_text(struct json_object *o, const char *key, char *dst, size_t len, char *err,
		    size_t errlen);
/* The longest such text a client sends: past it, the client leaves the field out */
#define PROTO_TEXT_SENT_MAX 4096
/* The job's facts the SPANK plugin and the prolog pass from the job's environment, as
 * X(variable, older variable, field): Slurm 22.05's slurmd gives a prolog the node list only
 * as SLURM_NODELIST */
#define PROTO_JOB_FACTS(X)                          \
	X("SLURM_JOB_ACCOUNT", NULL, "account")     \
	X("SLURM_JOB_PARTITION", NULL, "partition") \
	X("SLURM_JOB_NODELIST", "SLURM_NODELIST", "nodelist")

/* Replies: {"v":1,"ok":true,...} / {"v":1,"ok":false,"error":"...","code":"..."}: the text is
 * for people, the code (ops.h) for programs. */
struct json_object *proto_reply_ok(void);
struct json_object *proto_reply_error(enum proto_code code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A refusal written at once to fd, best effort and without waiting: for a client let go right
 * after. 0, or -errno (errno set too) when it could not be sent. */
int proto_refuse(int fd, enum proto_code code, const char *text);

/* ---- both sides (protocol.c) */

/* Serialise o as one line (plain JSON, no spaces) followed by '\n'; caller frees. NULL on ENOMEM.
 */
char *proto_serialize(struct json_object *o, size_t *len);

/* Add argv[0..argc) to request req as the array "argv", as much of it as keeps req within
 * TRACER_MSG_MAX once serialised: what does not fit is left out (an argument may be cut short,
 * at a UTF-8 character boundary) and "argv_cut": true says so. Returns 0, or -EMSGSIZE when
 * req is too long even without argv (nothing added), or -ENOMEM. */
int proto_add_argv(struct json_object *req, char *const *argv, int argc);

/* Parse one reply line: a JSON object with "v" == TRACER_PROTO_VERSION, up to TRACER_REPLY_MAX. */
int proto_parse_reply(const char *line, size_t len, struct json_object **out, char *err,
		      size_t errlen);
/* A reply's big array left to its reader (reply_rows.c): the text of the top-level array member
 * key, brackets and all, goes to rows() unparsed (its reader parses it a row at a time), and
 * the reply keeps an empty array there. rows() returns 0, or < 0 with a message in err: the
 * parse returns that. */
struct proto_rows {
	const char *key;
	int (*rows)(void *ctx, const char *text, size_t len, char *err, size_t errlen);
	void *ctx;
};
/* proto_parse_reply(), with an array (rows, NULL: none) left to its reader */
int proto_parse_reply_rows(const char *line, size_t len, const struct proto_rows *rows,
			   struct json_object **out, char *err, size_t errlen);
/* Format an error message into err (NULL or 0 length: nothing). */
void proto_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Client side: connect to a unix socket path (blocking connect, or non-blocking with timeout
 * when timeout_ms >= 0), send a request and read one reply line. */
int proto_connect(const char *path, int timeout_ms);
/* The same over TCP to host:port (a name or an address). */
int proto_connect_tcp(const char *host, unsigned port, int timeout_ms);
int proto_call(int fd, struct json_object *req, int timeout_ms, struct json_object **reply,
	       char *err, size_t errlen);
/* The request alone, whole within timeout_ms: for a sender that does not wait for the reply. */
int proto_send(int fd, struct json_object *req, int timeout_ms, char *err, size_t errlen);
/* The same, reading a reply line of at most max bytes: past it, -EPROTO with a message. */
int proto_call_max(int fd, struct json_object *req, int timeout_ms, size_t max,
		   struct json_object **reply, char *err, size_t errlen);
/* proto_call(), the reply's array left to its reader so (NULL: none) */
int proto_call_rows(int fd, struct json_object *req, int timeout_ms, const struct proto_rows *rows,
		    struct json_object **reply, char *err, size_t errlen);

#endif
