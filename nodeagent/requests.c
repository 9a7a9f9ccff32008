/* Control requests: who may do what (SO_PEERCRED), and the answers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cgroup.h"
#include "live.h"
#include "log.h"
#include "procfs.h"
#include "protocol.h"
#include "requests.h"
#include "traceparent.h"


int request_is_admin(const struct agent *a, const struct peer *peer)
{
        return peer->uid == 0 || peer->uid == a->slurm_uid;
}

#define ERR_REPLY(...) proto_reply_error(__VA_ARGS__)

struct json_object *request_reply_unit(const struct unit *u)
{
        struct json_object *r = proto_reply_ok();

        json_object_object_add(r, "unit", unit_to_json(u));
        return r;
}

static struct json_object *op_status(struct agent *a, const struct peer *peer)
{
        struct json_object *r = proto_reply_ok(), *sigs = json_object_new_array(), *ev;
        const struct collector_signal *s;
        uint64_t st[STAT_MAX] = {};
        size_t i, n;
        struct unit *u;
        unsigned running = 0;

        (void)peer;
        collector_stats(a->collector, st);
        n = collector_signals(a->collector, &s);
        for (i = 0; i < n; i++) {
                struct json_object *o = json_object_new_object();

                json_object_object_add(o, "name", json_object_new_string(s[i].name));
                json_object_object_add(o, "available", json_object_new_boolean(s[i].available));
                json_object_object_add(o, "provides", json_object_new_string(s[i].provides));
                if (!s[i].available)
                        json_object_object_add(o, "reason", json_object_new_string(s[i].reason));
                if (s[i].unneeded)
                        json_object_object_add(o, "needed", json_object_new_boolean(0));
                json_object_array_add(sigs, o);
        }
        for (u = a->units; u; u = u->next)
                running += u->state == UNIT_RUNNING;
        ev = json_object_new_object();
        json_object_object_add(ev, "fork", json_object_new_int64(st[STAT_FORK]));
        json_object_object_add(ev, "exec", json_object_new_int64(st[STAT_EXEC]));
        json_object_object_add(ev, "exit", json_object_new_int64(st[STAT_EXIT]));
        json_object_object_add(ev, "oom", json_object_new_int64(st[STAT_OOM]));
        json_object_object_add(ev, "lost", json_object_new_int64(st[STAT_LOST]));
        json_object_object_add(ev, "stale", json_object_new_int64(st[STAT_STALE]));
        json_object_object_add(ev, "malformed", json_object_new_int64(a->bad_events));
        json_object_object_add(r, "node", json_object_new_string(a->node));
        json_object_object_add(r, "pid", json_object_new_int(getpid()));
        json_object_object_add(r, "started_ns", json_object_new_int64(a->started_ns));
        json_object_object_add(r, "boot_id", json_object_new_string(a->boot_id));
        json_object_object_add(r, "signals", sigs);
        json_object_object_add(r, "events", ev);
        json_object_object_add(r, "live_processes", json_object_new_int64(a->procs.count));
        json_object_object_add(r, "running_units", json_object_new_int64(running));
        json_object_object_add(r, "stored_processes", json_object_new_int64(a->stored));
        if (a->have_topology)
                json_object_object_add(r, "topology", topology_to_json(&a->topology));
        return r;
}

static struct json_object *op_run_begin(struct agent *a, const struct peer *peer,
                                        struct json_object *req)
{
        const char *name = NULL, *pipeline = NULL, *run = NULL, *step = NULL;
        char err[160];
        int64_t pid;
        uint32_t uid;
        struct procfs_stat st;
        struct unit *u;
        int r;

        if (proto_get_int64(req, "pid", 1, INT32_MAX, &pid, err, sizeof(err)) ||
            proto_opt_string(req, "name", UNIT_NAME_MAX - 1, &name, err, sizeof(err)) ||
            proto_opt_string(req, "pipeline", UNIT_NAME_MAX - 1, &pipeline, err, sizeof(err)) ||
            proto_opt_string(req, "run", UNIT_NAME_MAX - 1, &run, err, sizeof(err)) ||
            proto_opt_string(req, "step", UNIT_NAME_MAX - 1, &step, err, sizeof(err)))
                return ERR_REPLY("%s", err);
        if (procfs_read_stat(pid, &st) < 0 || procfs_read_uid(pid, &uid) < 0)
                return ERR_REPLY("process %" PRId64 " does not exist", pid);
        /* a user may only trace a command of their own that they just started */
        if (peer->uid != 0 && (uid != peer->uid || (pid_t)st.ppid != peer->pid))
                return ERR_REPLY("process %" PRId64 " is not a child of the caller", pid);
        u = agent_unit_new(a, "local", name, uid, peer->gid);
        if (!u)
                return ERR_REPLY("out of memory");
        if (pipeline)
                snprintf(u->pipeline, sizeof(u->pipeline), "%s", pipeline);
        if (run)
                snprintf(u->run, sizeof(u->run), "%s", run);
        if (step)
                snprintf(u->step_name, sizeof(u->step_name), "%s", step);
        r = agent_unit_track_pid(a, u, pid);
        if (!r)
                r = store_put_unit(a->store, u);
        if (!r)
                r = store_commit(a->store);
        if (r) {
                collector_untrack_pid(a->collector, pid);
                agent_unit_drop(a, u);
                return ERR_REPLY("cannot track process %" PRId64 ": %s", pid, strerror(-r));
        }
        log_info("unit %" PRIu64 " (%s) started for uid %u, pid %" PRId64, u->id, u->name, uid, pid);
        return request_reply_unit(u);
}

/* The unit named by "unit" (an id) that this peer may see, whether in memory or stored. */
static int peer_unit(struct agent *a, const struct peer *peer, struct json_object *req,
                     uint64_t *id, struct unit **live, struct unit *stored, char *err, size_t errlen)
{
        uint32_t owner;
        int64_t v;
        int r;

        r = proto_get_int64(req, "unit", 1, INT64_MAX, &v, err, errlen);
        if (r)
                return r;
        *id = v;
        *live = agent_unit(a, v);
        if (*live)
                owner = (*live)->uid;
        else if ((r = store_get_unit(a->store, v, stored)) < 0)
                return r;
        else
                owner = stored->uid;
        return request_is_admin(a, peer) || owner == peer->uid ? 0 : -EPERM;
}

static struct json_object *with_totals(struct agent *a, struct json_object *r, uint64_t id)
{
        struct json_object *totals;

        if (store_unit_totals(a->store, id, &totals) == 0) {
                live_add_totals(a, id, totals);
                json_object_object_add(r, "totals", totals);
        }
        return r;
}

static struct json_object *op_unit_end(struct agent *a, const struct peer *peer,
                                       struct json_object *req, int admin_only)
{
        struct json_object *reply;
        char err[160];
        int64_t status = -1;
        uint64_t id = 0;
        struct unit *u, stored;
        int r;

        if (admin_only && !request_is_admin(a, peer))
                return ERR_REPLY("permission denied: only root or SlurmUser may unregister");
        r = peer_unit(a, peer, req, &id, &u, &stored, err, sizeof(err));
        if (r == -EPERM || r == -ENOENT)
                return ERR_REPLY("unit %" PRIu64 " not found or not yours", id);
        if (r)
                return ERR_REPLY("%s", err);
        r = proto_get_int64(req, "status", -1, INT32_MAX, &status, err, sizeof(err));
        if (r && r != -ENOENT)
                return ERR_REPLY("%s", err);
        if (!u) /* ended before a restart, or twice: answer what is stored */
                return with_totals(a, request_reply_unit(&stored), id);
        r = agent_unit_end(a, u, status, unit_state_of_status(status), 1);
        if (r)
                return ERR_REPLY("cannot store unit %" PRIu64 ": %s", id, strerror(-r));
        log_info("unit %" PRIu64 " (%s) ended, status %" PRId64 ", %u processes still running",
                 u->id, u->name, status, u->live);
        reply = with_totals(a, request_reply_unit(u), id);
        if (!u->live)
                agent_unit_drop(a, u);
        return reply;
}

static struct json_object *op_units(struct agent *a, const struct peer *peer, struct json_object *req)
{
        struct json_object *units, *r;
        const char *sel;
        char err[160];

        if (proto_get_string(req, "select", 256, &sel, err, sizeof(err)))
                return ERR_REPLY("%s", err);
        collector_drain(a->collector);
        if (store_find_units(a->store, sel, request_is_admin(a, peer) ? ANY_UID : peer->uid, &units))
                return ERR_REPLY("store query failed");
        for (size_t i = 0; i < json_object_array_length(units); i++) {
                struct json_object *u = json_object_array_get_idx(units, i), *id, *totals;

                if (json_object_object_get_ex(u, "id", &id) &&
                    store_unit_totals(a->store, json_object_get_int64(id), &totals) == 0) {
                        live_add_totals(a, json_object_get_int64(id), totals);
                        json_object_object_add(u, "totals", totals);
                }
        }
        r = proto_reply_ok();
        json_object_object_add(r, "units", units);
        return r;
}

/* A per-unit listing the peer may see, with the unit's totals. */
static struct json_object *unit_listing(struct agent *a, const struct peer *peer,
                                        struct json_object *req, const char *key,
                                        int (*list)(struct store *, uint64_t, struct json_object **))
{
        struct json_object *rows, *r;
        struct unit *u, stored;
        char err[160];
        uint64_t id = 0;
        int rc;

        rc = peer_unit(a, peer, req, &id, &u, &stored, err, sizeof(err));
        if (rc == -EPERM || rc == -ENOENT)
                return ERR_REPLY("unit %" PRIu64 " not found or not yours", id);
        if (rc)
                return ERR_REPLY("%s", err);
        collector_drain(a->collector);
        if (list(a->store, id, &rows))
                return ERR_REPLY("store query failed");
        live_add_rows(a, key, id, rows);
        r = proto_reply_ok();
        json_object_object_add(r, key, rows);
        return with_totals(a, r, id);
}

struct json_object *agent_request(struct agent *a, const struct peer *peer, struct json_object *req)
{
        struct json_object *op_o;
        const char *op;

        if (!json_object_object_get_ex(req, "op", &op_o))
                return ERR_REPLY("missing op");
        op = json_object_get_string(op_o);
        if (strcmp(op, "status") == 0)
                return op_status(a, peer);
        if (strcmp(op, "run_begin") == 0)
                return op_run_begin(a, peer, req);
        if (strcmp(op, "run_end") == 0)
                return op_unit_end(a, peer, req, 0);
        if (strcmp(op, "register") == 0)
                return request_register(a, peer, req);
        if (strcmp(op, "unregister") == 0)
                return op_unit_end(a, peer, req, 1);
        if (strcmp(op, "job_begin") == 0)
                return request_job_begin(a, peer, req);
        if (strcmp(op, "job_end") == 0)
                return request_job_end(a, peer, req);
        if (strcmp(op, "units") == 0)
                return op_units(a, peer, req);
        if (strcmp(op, "processes") == 0)
                return unit_listing(a, peer, req, "processes", store_unit_processes);
        if (strcmp(op, "tools") == 0)
                return unit_listing(a, peer, req, "tools", store_unit_tools);
        return ERR_REPLY("unknown op '%s'", op);
}
