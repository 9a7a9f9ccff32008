/* Control requests: who may do what (SO_PEERCRED), and the answers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "live.h"
#include "log.h"
#include "procfs.h"
#include "protocol.h"
#include "requests.h"
#include "slower.h"
#include "slurm_ids.h"
#include "store.h"
#include "stream.h"
#include "units.h"

#define ERR_REPLY(code, ...) proto_reply_error(PROTO_E_##code, __VA_ARGS__)
#define HISTORY_RUNS_MAX 50

static struct json_object *op_run_begin(struct agent *a, const struct peer *peer,
					struct json_object *req)
{
	const char *name = NULL, *pipeline = NULL, *run = NULL, *step = NULL;
	char err[160];
	int64_t pid;
	uint32_t uid, owner;
	struct procfs_stat st;
	struct unit *u;
	int r;

	if (proto_get_int64(req, "pid", 1, INT32_MAX, &pid, err, sizeof(err)) ||
	    proto_opt_string(req, "name", UNIT_NAME_MAX - 1, &name, err, sizeof(err)) ||
	    proto_opt_string(req, "pipeline", UNIT_NAME_MAX - 1, &pipeline, err, sizeof(err)) ||
	    proto_opt_string(req, "run", UNIT_NAME_MAX - 1, &run, err, sizeof(err)) ||
	    proto_opt_string(req, "step", UNIT_NAME_MAX - 1, &step, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	if (name && slurm_id_shaped(name))
		return ERR_REPLY(MALFORMED, "%s", SLURM_ID_SHAPED_WHY);
	if (procfs_read_stat(pid, &st) < 0 || procfs_read_uid(pid, &uid) < 0)
		return ERR_REPLY(NOT_FOUND, "process %" PRId64 " does not exist", pid);
	/* a user may only trace a command of their own that they just started */
	if (peer->uid != 0 && (uid != peer->uid || (pid_t)st.ppid != peer->pid))
		return ERR_REPLY(DENIED, "process %" PRId64 " is not a child of the caller", pid);
	/* a user namespace's runs count as its owner's: limits, rate and store share */
	owner = uid == peer->uid ? peer->owner : uid;
	if (!agent_is_admin(a, peer) && units_admit(a, owner, err, sizeof(err)))
		return ERR_REPLY(LIMIT, "%s", err);
	u = units_new(a, "local", name, uid, peer->gid);
	if (!u)
		return ERR_REPLY(FAILED, "out of memory");
	u->owner_uid = owner;
	if (pipeline)
		snprintf(u->pipeline, sizeof(u->pipeline), "%s", pipeline);
	if (run)
		snprintf(u->run, sizeof(u->run), "%s", run);
	if (step)
		snprintf(u->step_name, sizeof(u->step_name), "%s", step);
	r = units_track_pid(a, u, pid);
	if (r) {
		units_drop(a, u);
		return ERR_REPLY(FAILED, "cannot track process %" PRId64 ": %s", pid, strerror(-r));
	}
	units_save(a, u);
	log_info("unit %" PRIu64 " (%s) started for uid %u, pid %" PRId64, u->id, u->name, uid,
		 pid);
	return request_reply_unit(u);
}

/* The unit named by "unit" (an id) that this peer may see, whether in memory or stored. */
static int peer_unit(struct agent *a, const struct peer *peer, struct json_object *req,
		     uint64_t *id, struct unit **live, struct unit *stored, char *err,
		     size_t errlen)
{
	uint32_t owner;
	int64_t v;
	int r;

	r = proto_get_int64(req, "unit", 1, INT64_MAX, &v, err, errlen);
	if (r)
		return r;
	*id = v;
	*live = units_find(a, v);
	if (*live)
		owner = (*live)->uid;
	else if ((r = store_get_unit(agent_store(a), v, stored)) < 0)
		return r;
	else
		owner = stored->uid;
	return agent_is_admin(a, peer) || owner == peer->uid ? 0 : -EPERM;
}

/* Why peer_unit's answer r refuses the request (id and err as it left them), or NULL: another
 * user's unit is not told from one that does not exist. */
static struct json_object *unit_refused(int r, uint64_t id, const char *err)
{
	if (r == -EPERM || r == -ENOENT)
		return ERR_REPLY(NOT_FOUND, "unit %" PRIu64 " not found or not yours", id);
	if (r)
		return proto_reply_error(r == -EINVAL ? PROTO_E_MALFORMED : PROTO_E_FAILED, "%s",
					 err);
	return NULL;
}

/* A client that has no use for a unit's totals says "totals": false, exactly (a listing's that
 * has them from its units listing, the SPANK plugin at a task's end): counting them is a pass
 * over the unit's processes on the loop. */
static int totals_unwanted(struct json_object *req)
{
	struct json_object *totals;

	return json_object_object_get_ex(req, "totals", &totals) &&
	       json_object_is_type(totals, json_type_boolean) && !json_object_get_boolean(totals);
}

/* A unit's totals: from memory when it holds them all (units_totals), else from the store, a
 * pass over the unit's rows. Either way what is queued is committed first, as it was when
 * every unit's came from the store: a reply with totals says its rows are on disk, for
 * whoever reads the store next. */
static struct json_object *with_totals(struct agent *a, struct json_object *r, uint64_t id,
				       const struct unit *u, int no_totals)
{
	struct json_object *totals;

	if (no_totals)
		return r;
	if (u && units_totals(u, &totals) == 0)
		store_commit(agent_store(a)); /* a failure is said and counted there */
	else if (store_unit_totals(agent_store(a), id, &totals) != 0)
		return r;
	live_add_totals(a, id, totals);
	json_object_object_add(r, "totals", totals);
	return r;
}

/* A unit's end: its reply waits (parked) for the unit's last exits, at most PARK_MS. */
static struct json_object *op_unit_end(struct agent *a, const struct peer *peer,
				       struct json_object *req, int admin_only, struct parked *park)
{
	char err[160];
	int64_t status = -1;
	uint64_t id = 0;
	struct json_object *refused;
	struct unit *u, stored;
	int r, no_totals = totals_unwanted(req);

	if (admin_only && !agent_is_admin(a, peer))
		return ERR_REPLY(DENIED,
				 "permission denied: only root or SlurmUser may unregister");
	r = peer_unit(a, peer, req, &id, &u, &stored, err, sizeof(err));
	if ((refused = unit_refused(r, id, err)))
		return refused;
	/* a user ends only what `tracerctl run` began: a Slurm unit's end is Slurm's to tell */
	if (!agent_is_admin(a, peer) && strcmp(u ? u->kind : stored.kind, "local") != 0)
		return ERR_REPLY(DENIED,
				 "permission denied: unit %" PRIu64 " is a Slurm unit; only root or"
				 " SlurmUser may end it",
				 id);
	r = proto_get_int64(req, "status", -1, INT32_MAX, &status, err, sizeof(err));
	if (r && r != -ENOENT)
		return ERR_REPLY(MALFORMED, "%s", err);
	if (!u) /* ended before a restart, or twice: answer what is stored */
		return with_totals(a, request_reply_unit(&stored), id, NULL, no_totals);
	*park = (struct parked){ .kind = PARK_UNIT_END,
				 .id = id,
				 .status = status,
				 .peer = *peer,
				 .no_totals = no_totals };
	return NULL;
}

/* A stored unit's reply, with its totals unless no_totals. */
static struct json_object *stored_unit(struct agent *a, uint64_t id, int no_totals)
{
	struct unit stored;

	if (store_get_unit(agent_store(a), id, &stored) < 0)
		return ERR_REPLY(NOT_FOUND, "unit %" PRIu64 " not found", id);
	return with_totals(a, request_reply_unit(&stored), id, NULL, no_totals);
}

static struct json_object *resume_unit_end(struct agent *a, const struct parked *park)
{
	struct json_object *reply;
	struct unit *u = units_find(a, park->id);

	if (!u) /* ended meanwhile (another client, the orphan check): what is stored */
		return stored_unit(a, park->id, park->no_totals);
	units_end(a, u, park->status, unit_state_of_status(park->status));
	log_info("unit %" PRIu64 " (%s) ended, status %" PRId64 ", %u processes still running",
		 u->id, u->name, park->status, u->live);
	reply = with_totals(a, request_reply_unit(u), u->id, u, park->no_totals);
	if (!u->live)
		units_drop(a, u);
	return reply;
}

int request_ready(struct agent *a, const struct parked *park)
{
	const struct unit *u;

	if ((int64_t)clock_boot_ns() >= park->deadline_ns)
		return 1;
	if (park->kind == PARK_LISTING)
		return store_flushed(agent_store(a), park->ticket);
	if (park->kind == PARK_JOB_END)
		return units_job_live(a, park->id) == 0;
	u = units_find(a, park->id);
	return !u || !u->live;
}

/* Listings are streamed from the store (stream.h), through a connection of their own: what
 * was written before the request is committed first, on the store's thread while the listing
 * waits (parked), so that the stream sees it. */
static int extra_totals(void *ctx, uint64_t unit, struct json_object *totals)
{
	return live_add_totals(ctx, unit, totals);
}

static struct json_object *listing_now(struct agent *a, const struct parked *park,
				       struct reply_stream **stream)
{
	/* a running unit's live processes follow its stored ones, and count in the totals */
	struct stream_extra extra = { .totals = extra_totals,
				      .ctx = a,
				      .offset_ns = agent_offset_ns(a),
				      .fields = park->fields,
				      .no_totals = park->no_totals };
	enum stream_kind kind = (enum stream_kind)park->listing;

	if (kind == STREAM_PROCESSES || kind == STREAM_TOOLS) {
		extra.tail = json_object_new_array();
		if (extra.tail)
			(kind == STREAM_PROCESSES ? live_add_processes
						  : live_add_tools)(a, park->id, extra.tail);
	}
	/* its time is up (a disk too slow), or no wait is possible (a TCP peer): at once; a
	 * full disk leaves what is stored readable */
	if (!store_flushed(agent_store(a), park->ticket))
		store_commit(agent_store(a));
	if (reply_stream_new(agent_store(a), kind, park->id, park->has_select ? park->select : NULL,
			     park->uid, &extra, stream))
		return ERR_REPLY(FAILED, "store query failed");
	return proto_reply_ok();
}

struct json_object *request_resume(struct agent *a, const struct parked *park,
				   struct reply_stream **stream)
{
	if (park->kind == PARK_LISTING)
		return listing_now(a, park, stream);
	return park->kind == PARK_JOB_END ? request_job_finish(a, park) : resume_unit_end(a, park);
}

static struct json_object *listing(struct agent *a, enum stream_kind kind, uint64_t unit,
				   const char *sel, const struct row_fields *fields, int no_totals,
				   uint32_t uid, struct reply_stream **stream, struct parked *park)
{
	*park = (struct parked){
		.fields = *fields,
		.no_totals = no_totals,
		.kind = PARK_LISTING,
		.id = unit,
		.deadline_ns = (int64_t)clock_boot_ns() + (int64_t)PARK_LISTING_MS * 1000000,
		.listing = kind,
		.uid = uid,
		.ticket = store_flush_async(agent_store(a)),
		.has_select = sel != NULL,
	};
	if (sel)
		snprintf(park->select, sizeof(park->select), "%s", sel);
	if (!store_flushed(agent_store(a), park->ticket))
		return NULL; /* parked */
	park->kind = PARK_NONE;
	return listing_now(a, park, stream);
}

static struct json_object *op_units(struct agent *a, const struct peer *peer,
				    struct json_object *req, struct reply_stream **stream,
				    struct parked *park)
{
	const char *sel;
	char err[160];

	if (proto_get_string(req, "select", 256, &sel, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	return listing(a, STREAM_UNITS, 0, sel, &(struct row_fields){ { 0, 0 } }, 0,
		       agent_is_admin(a, peer) ? ANY_UID : peer->uid, stream, park);
}

/* A per-unit listing the peer may see, with the unit's totals unless "totals": false. */
static struct json_object *unit_listing(struct agent *a, const struct peer *peer,
					struct json_object *req, enum stream_kind kind,
					struct reply_stream **stream, struct parked *park)
{
	struct json_object *refused;
	struct unit *u, stored;
	char err[160];
	uint64_t id = 0;
	int rc;

	struct json_object *names = NULL;
	struct row_fields fields;

	/* a processes listing may name its columns: a client that reads a few takes less */
	if (kind == STREAM_PROCESSES)
		json_object_object_get_ex(req, "fields", &names);
	if (process_row_fields(names, &fields, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	rc = peer_unit(a, peer, req, &id, &u, &stored, err, sizeof(err));
	if ((refused = unit_refused(rc, id, err)))
		return refused;
	return listing(a, kind, id, NULL, &fields, totals_unwanted(req),
		       agent_is_admin(a, peer) ? ANY_UID : peer->uid, stream, park);
}

/* The earlier runs of the same step as a unit the peer may see, by the unit's own user. */
static struct json_object *op_history(struct agent *a, const struct peer *peer,
				      struct json_object *req)
{
	struct unit *u, stored;
	struct json_object *rows, *r;
	char err[160];
	uint64_t id = 0;
	int64_t limit = SLOWER_RUNS; /* the runs "slower than usual" compares with */
	int rc;

	rc = peer_unit(a, peer, req, &id, &u, &stored, err, sizeof(err));
	if ((r = unit_refused(rc, id, err)))
		return r;
	if (proto_opt_int64(req, "limit", 1, HISTORY_RUNS_MAX, &limit, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	if (store_unit_history(agent_store(a), id, (unsigned)limit, &rows))
		return ERR_REPLY(FAILED, "store query failed");
	r = proto_reply_ok();
	json_object_object_add(r, proto_ops[OP_HISTORY].reply, rows);
	return r;
}

/* ---- the operations: a handler for each of the table's (ops.h) */

typedef struct json_object *(*op_fn)(struct agent *a, const struct peer *peer,
				     struct json_object *req, struct reply_stream **stream,
				     struct parked *park);

static struct json_object *do_status(struct agent *a, const struct peer *peer,
				     struct json_object *req, struct reply_stream **stream,
				     struct parked *park)
{
	(void)req, (void)stream, (void)park;
	return agent_status_json(a, peer);
}

static struct json_object *do_run_begin(struct agent *a, const struct peer *peer,
					struct json_object *req, struct reply_stream **stream,
					struct parked *park)
{
	(void)stream, (void)park;
	return op_run_begin(a, peer, req);
}

static struct json_object *do_run_end(struct agent *a, const struct peer *peer,
				      struct json_object *req, struct reply_stream **stream,
				      struct parked *park)
{
	(void)stream;
	return op_unit_end(a, peer, req, 0, park);
}

static struct json_object *do_unregister(struct agent *a, const struct peer *peer,
					 struct json_object *req, struct reply_stream **stream,
					 struct parked *park)
{
	char err[160];
	int64_t key = 0;
	uint64_t id;

	(void)stream;
	if (proto_opt_int64(req, "kernel_key", INT64_MIN, INT64_MAX, &key, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	/* a task whose registration the plugin sent without waiting: named by its key */
	if (key && agent_is_admin(a, peer)) {
		id = agent_unit_of_key(a, (uint64_t)key);
		if (!id)
			return ERR_REPLY(NOT_FOUND,
					 "no unit of a task registered in the kernel as %" PRId64,
					 key);
		json_object_object_add(req, "unit", json_object_new_int64((int64_t)id));
	}
	return op_unit_end(a, peer, req, 1, park);
}

static struct json_object *do_register(struct agent *a, const struct peer *peer,
				       struct json_object *req, struct reply_stream **stream,
				       struct parked *park)
{
	(void)stream, (void)park;
	return request_register(a, peer, req);
}

static struct json_object *do_job_begin(struct agent *a, const struct peer *peer,
					struct json_object *req, struct reply_stream **stream,
					struct parked *park)
{
	(void)stream, (void)park;
	return request_job_begin(a, peer, req);
}

static struct json_object *do_job_end(struct agent *a, const struct peer *peer,
				      struct json_object *req, struct reply_stream **stream,
				      struct parked *park)
{
	(void)stream;
	return request_job_end(a, peer, req, park);
}

static struct json_object *do_units(struct agent *a, const struct peer *peer,
				    struct json_object *req, struct reply_stream **stream,
				    struct parked *park)
{
	return op_units(a, peer, req, stream, park);
}

static struct json_object *do_processes(struct agent *a, const struct peer *peer,
					struct json_object *req, struct reply_stream **stream,
					struct parked *park)
{
	return unit_listing(a, peer, req, STREAM_PROCESSES, stream, park);
}

static struct json_object *do_tools(struct agent *a, const struct peer *peer,
				    struct json_object *req, struct reply_stream **stream,
				    struct parked *park)
{
	return unit_listing(a, peer, req, STREAM_TOOLS, stream, park);
}

static struct json_object *do_history(struct agent *a, const struct peer *peer,
				      struct json_object *req, struct reply_stream **stream,
				      struct parked *park)
{
	(void)stream, (void)park;
	return op_history(a, peer, req);
}

static struct json_object *do_samples(struct agent *a, const struct peer *peer,
				      struct json_object *req, struct reply_stream **stream,
				      struct parked *park)
{
	return unit_listing(a, peer, req, STREAM_SAMPLES, stream, park);
}

/* Root alone (OP_ROOT): SlurmUser may register and end units, not stop tracerd or detach its
 * programs. */
static struct json_object *do_shutdown(struct agent *a, const struct peer *peer,
				       struct json_object *req, struct reply_stream **stream,
				       struct parked *park)
{
	struct json_object *r, *o;
	int unpin = json_object_object_get_ex(req, "unpin", &o) && json_object_get_boolean(o);

	(void)stream, (void)park;
	agent_request_stop(a, unpin);
	log_info("shutdown asked by pid %d%s", (int)peer->pid,
		 unpin ? ", the pin set removed with it" : "");
	r = proto_reply_ok();
	json_object_object_add(r, "pid", json_object_new_int(getpid()));
	json_object_object_add(r, "unpin", json_object_new_boolean(unpin));
	return r;
}

/* The dispatcher: a handler for each operation of the table (ops.h), which says who may call
 * it and whether it is served over TCP. */
static const op_fn handlers[OP_COUNT] = {
	[OP_STATUS] = do_status,     [OP_RUN_BEGIN] = do_run_begin,   [OP_RUN_END] = do_run_end,
	[OP_REGISTER] = do_register, [OP_UNREGISTER] = do_unregister, [OP_JOB_BEGIN] = do_job_begin,
	[OP_JOB_END] = do_job_end,   [OP_UNITS] = do_units,	      [OP_PROCESSES] = do_processes,
	[OP_TOOLS] = do_tools,	     [OP_HISTORY] = do_history,	      [OP_SAMPLES] = do_samples,
	[OP_SHUTDOWN] = do_shutdown,
};

struct json_object *request_handle(struct agent *a, const struct peer *peer,
				   struct json_object *req, struct reply_stream **stream,
				   struct parked *park)
{
	struct json_object *op_o, *reply;
	int i;

	*stream = NULL;
	park->kind = PARK_NONE;
	if (!json_object_object_get_ex(req, "op", &op_o))
		return ERR_REPLY(MALFORMED, "missing op");
	i = proto_op_find(json_object_get_string(op_o));
	if (i < 0 || !handlers[i])
		return ERR_REPLY(UNKNOWN_OP, "unknown op '%s'", json_object_get_string(op_o));
	if (proto_ops[i].who == OP_ADMIN && !agent_is_admin(a, peer))
		return ERR_REPLY(DENIED, "permission denied: only root or SlurmUser may %s",
				 proto_ops[i].name);
	if (proto_ops[i].who == OP_ROOT && peer->uid != 0)
		return ERR_REPLY(DENIED, "permission denied: only root may %s", proto_ops[i].name);
	reply = handlers[i](a, peer, req, stream, park);
	if (!reply && park->kind != PARK_NONE)
		park->deadline_ns = (int64_t)clock_boot_ns() + (int64_t)PARK_MS * 1000000;
	else if (!reply)
		reply = ERR_REPLY(FAILED, "out of memory");
	return reply;
}
