/* The operations' table and the one request builder (ops.h). */
#include <string.h>

#include "ops.h"
#include "protocol.h"

const struct op_info proto_ops[OP_COUNT] = {
#define OP_ROW(id, op_name, op_who, op_tcp, op_reply) \
	[id] = { .name = op_name, .who = op_who, .tcp = op_tcp, .reply = op_reply(op_name) },
	TRACER_OPS(OP_ROW)
#undef OP_ROW
};

static const char *const code_names[PROTO_CODE_COUNT] = {
#define CODE_ROW(id, name) [id] = name,
	PROTO_CODES(CODE_ROW)
#undef CODE_ROW
};

int proto_op_find(const char *name)
{
	int i;

	for (i = 0; name && i < OP_COUNT; i++)
		if (!strcmp(proto_ops[i].name, name))
			return i;
	return -1;
}

struct json_object *proto_request_named(const char *name)
{
	struct json_object *o = json_object_new_object();

	if (o && (json_object_object_add(o, "v", json_object_new_int(TRACER_PROTO_VERSION)) ||
		  json_object_object_add(o, "op", json_object_new_string(name)))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *proto_request(enum tracer_op op)
{
	return proto_request_named(proto_op_name(op));
}

const char *proto_code_name(enum proto_code code)
{
	return code < PROTO_CODE_COUNT ? code_names[code] : code_names[PROTO_E_FAILED];
}

enum proto_code proto_reply_code(struct json_object *reply)
{
	struct json_object *c;
	const char *name;
	int i;

	if (!json_object_object_get_ex(reply, "code", &c) || !(name = json_object_get_string(c)))
		return PROTO_E_FAILED;
	for (i = 0; i < PROTO_CODE_COUNT; i++)
		if (!strcmp(code_names[i], name))
			return i;
	return PROTO_E_FAILED;
}
