/* The control socket's schema in one place: every operation, who may call it, whether other
 * nodes may ask it over TCP and where its reply carries the answer; and the codes a refusal
 * carries. tracerd's dispatcher and TCP allow-list and every client take their names from
 * here, so that a name is spelt once. */
#ifndef TRACER_OPS_H
#define TRACER_OPS_H

#include <json-c/json.h>

/* Who may call an operation: anyone (a unit's owner is checked by the operation itself), only
 * root and SlurmUser, or root alone. */
enum op_who { OP_ANYONE, OP_ADMIN, OP_ROOT };

/* Where a reply carries its answer: the unit ("unit"), an array named as the op, or the
 * reply's own fields. */
#define OP_REPLY_UNIT(name) "unit"
#define OP_REPLY_NAMED(name) name
#define OP_REPLY_SELF(name) NULL

/* X(id, name, who, tcp, reply): other nodes may ask only queries (tcp 1). */
#define TRACER_OPS(X)                                                              \
	X(OP_STATUS, "status", OP_ANYONE, 1, OP_REPLY_SELF)                        \
	X(OP_RUN_BEGIN, "run_begin", OP_ANYONE, 0, OP_REPLY_UNIT) /* a child */    \
	X(OP_RUN_END, "run_end", OP_ANYONE, 0, OP_REPLY_UNIT)	  /* own, local */ \
	X(OP_REGISTER, "register", OP_ADMIN, 0, OP_REPLY_UNIT)                     \
	X(OP_UNREGISTER, "unregister", OP_ADMIN, 0, OP_REPLY_UNIT)                 \
	X(OP_JOB_BEGIN, "job_begin", OP_ADMIN, 0, OP_REPLY_UNIT)                   \
	X(OP_JOB_END, "job_end", OP_ADMIN, 0, OP_REPLY_SELF)                       \
	X(OP_UNITS, "units", OP_ANYONE, 1, OP_REPLY_NAMED) /* own, all: admin */   \
	X(OP_PROCESSES, "processes", OP_ANYONE, 1, OP_REPLY_NAMED)                 \
	X(OP_TOOLS, "tools", OP_ANYONE, 1, OP_REPLY_NAMED)                         \
	X(OP_HISTORY, "history", OP_ANYONE, 1, OP_REPLY_NAMED) /* own units' */    \
	X(OP_SAMPLES, "samples", OP_ANYONE, 1, OP_REPLY_NAMED) /* own units' */    \
	X(OP_SHUTDOWN, "shutdown", OP_ROOT, 0, OP_REPLY_SELF)

enum tracer_op {
#define OP_ENUM(id, name, who, tcp, reply) id,
	TRACER_OPS(OP_ENUM)
#undef OP_ENUM
		OP_COUNT
};

struct op_info {
	const char *name;
	enum op_who who;
	int tcp;	   /* other nodes may ask it over TCP */
	const char *reply; /* the reply's key that holds the answer; NULL: the reply itself */
};

extern const struct op_info proto_ops[OP_COUNT];

/* The TCP envelope: {"op":"munge","cred":...}, whose credential carries the request proper
 * (nodeagent/auth.h). It is no operation of its own: only tracerd's TCP side reads it. */
#define PROTO_OP_MUNGE "munge"

/* The operation named name, or -1. */
int proto_op_find(const char *name);
/* The op's name (op < OP_COUNT). */
static inline const char *proto_op_name(enum tracer_op op)
{
	return proto_ops[op].name;
}

/* A request: {"v":TRACER_PROTO_VERSION,"op":name}, fields to be added by the caller; NULL
 * when out of memory. proto_request_named is for the envelope alone. */
struct json_object *proto_request(enum tracer_op op);
struct json_object *proto_request_named(const char *name);

/* Why a request was refused, for programs: the reply's "code" beside its "error" text, which
 * is for people (and for clients older than the codes). */
#define PROTO_CODES(X)                                                                     \
	X(PROTO_E_FAILED, "failed")	    /* tracerd could not do it (memory, store) */  \
	X(PROTO_E_BUSY, "busy")		    /* no connection slot now: try again soon */   \
	X(PROTO_E_MALFORMED, "malformed")   /* not a valid request, or a field is wrong */ \
	X(PROTO_E_UNKNOWN_OP, "unknown_op") /* no such operation */                        \
	X(PROTO_E_DENIED, "denied")	    /* not for this caller, or not over TCP */     \
	X(PROTO_E_NOT_FOUND, "not_found")   /* no such unit or process, or not yours */    \
	X(PROTO_E_LIMIT, "limit")	    /* a per-user limit (MaxUnitsPerUser, ...) */  \
	X(PROTO_E_WRONG_NODE, "wrong_node") /* a credential for another node; "node" */    \
	X(PROTO_E_TIMEOUT, "timeout")	    /* the request line came too slowly */         \
	X(PROTO_E_TOO_BIG, "too_big")	    /* the reply exceeds ClientBufferSize */

enum proto_code {
#define CODE_ENUM(id, name) id,
	PROTO_CODES(CODE_ENUM)
#undef CODE_ENUM
		PROTO_CODE_COUNT
};

const char *proto_code_name(enum proto_code code);
/* A refusal's code; PROTO_E_FAILED when it has none or one not known here. */
enum proto_code proto_reply_code(struct json_object *reply);

#endif
