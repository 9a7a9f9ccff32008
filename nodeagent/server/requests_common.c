/* What the handlers of requests.c and requests_slurm.c share, apart from both: so that
 * requests.c, which dispatches to requests_slurm.c, is not called back by it. */
#include "protocol.h"
#include "requests.h"

struct json_object *request_reply_unit(const struct unit *u)
{
	struct json_object *r = proto_reply_ok();

	json_object_object_add(r, "unit", unit_to_json(u));
	return r;
}
