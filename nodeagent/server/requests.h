/* Control requests, split by who makes them: requests.c (anyone's: status, runs, listings)
 * dispatches, by the table of operations (ops.h); requests_slurm.c (Slurm's side:
 * registrations, Prolog, Epilog) answers its own. Requests see the agent through agent.h and
 * the units in memory through units.h. */
#ifndef TRACER_REQUESTS_H
#define TRACER_REQUESTS_H

#include <stdint.h>
#include <json-c/json.h>

#include "agent.h"
#include "protocol.h"
#include "unit.h"

/* A request whose reply waits, never blocking the loop. The end of a unit or of a job waits for
 * the kernel: until their last processes' exits are recorded (the last one is sent at its
 * final switch-out, a moment after the client's wait(2) returned), at most PARK_MS. A listing
 * waits for the store's thread to commit what was written before it, which the listing's own
 * connection then sees, at most PARK_LISTING_MS (then it commits at once). The loop keeps the
 * client waiting and resumes the request (request_resume) when it is ready. */
#define PARK_MS 100
#define PARK_LISTING_MS 2000
struct parked {
	enum { PARK_NONE, PARK_UNIT_END, PARK_JOB_END, PARK_LISTING } kind;
	uint64_t id;	     /* the unit or the job; a listing's unit, or 0 */
	int64_t status;	     /* the exit status the request gave, or -1 */
	int64_t deadline_ns; /* CLOCK_BOOTTIME */
	struct peer peer;
	/* a listing's: its kind (stream.h), whose units it may show, the store's ticket
	 * (store_flush_async), its selector */
	int listing;
	uint32_t uid;
	uint64_t ticket;
	int has_select;
	char select[257];
	struct row_fields fields; /* a processes listing's columns */
	int no_totals;		  /* a unit's listing or end without its totals ("totals": false) */
};

/* Requests; each returns a reply object (never NULL unless out of memory), or NULL with
 * park->kind set: the request waits (see struct parked). For a listing, *stream is set too:
 * the reply is then the head, and the rows follow from the stream (stream.h). */
struct reply_stream;
struct json_object *request_handle(struct agent *a, const struct peer *peer,
				   struct json_object *req, struct reply_stream **stream,
				   struct parked *park);
/* Whether a parked request can be answered now: its processes are recorded, or its time is up. */
int request_ready(struct agent *a, const struct parked *park);
/* Finish a parked request: its reply (and, for a listing, *stream as request_handle's). */
struct json_object *request_resume(struct agent *a, const struct parked *park,
				   struct reply_stream **stream);

/* ---- between requests.c and requests_slurm.c */

/* {"ok":true,"unit":{...}}: inline, as both files answer with it and neither calls the
 * other back */
static inline struct json_object *request_reply_unit(const struct unit *u)
{
	struct json_object *r = proto_reply_ok();

	json_object_object_add(r, "unit", unit_to_json(u));
	return r;
}

struct json_object *request_register(struct agent *a, const struct peer *peer,
				     struct json_object *req);
struct json_object *request_job_begin(struct agent *a, const struct peer *peer,
				      struct json_object *req);
/* The epilog's job end: parked until the job's last exits are recorded (struct parked). */
struct json_object *request_job_end(struct agent *a, const struct peer *peer,
				    struct json_object *req, struct parked *park);
struct json_object *request_job_finish(struct agent *a, const struct parked *park);

#endif
