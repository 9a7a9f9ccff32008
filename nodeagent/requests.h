/* Control requests, split by who makes them; agent_request() (agent.h) dispatches. */
#ifndef TRACER_REQUESTS_H
#define TRACER_REQUESTS_H

#include <json-c/json.h>
#include "agent.h"

#define ANY_UID UINT32_MAX /* store queries: units of every user */

/* root, or the configured SlurmUser */
int request_is_admin(const struct agent *a, const struct peer *peer);
/* {"ok":true,"unit":{...}} */
struct json_object *request_reply_unit(const struct unit *u);

struct json_object *request_register(struct agent *a, const struct peer *peer, struct json_object *req);
struct json_object *request_job_begin(struct agent *a, const struct peer *peer, struct json_object *req);
/* The epilog's job end: parked until the job's last exits are recorded (agent.h, struct parked). */
struct json_object *request_job_end(struct agent *a, const struct peer *peer, struct json_object *req,
                                    struct parked *park);
struct json_object *request_job_finish(struct agent *a, const struct parked *park);
/* A stored unit's reply, with its totals. */
struct json_object *request_stored_unit(struct agent *a, uint64_t id);
/* Whether other nodes may ask op over TCP (the op table says). */
int request_over_tcp(const char *op);

#endif
