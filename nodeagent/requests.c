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
#include "log.h"
#include "procfs.h"
#include "protocol.h"
#include "traceparent.h"

#define ANY_UID UINT32_MAX
#define UNIT_END_WAIT_MS 100

static int64_t now_unix_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int is_admin(const struct agent *a, const struct peer *peer)
{
        return peer->uid == 0 || peer->uid == a->slurm_uid;
}

static uint64_t lost_now(struct agent *a)
{
        uint64_t st[STAT_MAX];

        return collector_stats(a->collector, st) == 0 ? st[STAT_LOST] : 0;
}

static struct json_object *unit_json(const struct unit *u)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "id", json_object_new_int64(u->id));
        json_object_object_add(o, "name", json_object_new_string(u->name));
        json_object_object_add(o, "kind", json_object_new_string(u->kind));
        json_object_object_add(o, "uid", json_object_new_int64(u->uid));
        json_object_object_add(o, "state", json_object_new_string(unit_state_name(u->state)));
        json_object_object_add(o, "start_ns", json_object_new_int64(u->start_ns));
        if (u->end_ns)
                json_object_object_add(o, "end_ns", json_object_new_int64(u->end_ns));
        json_object_object_add(o, "exit_status", json_object_new_int(u->exit_status));
        json_object_object_add(o, "lost_events", json_object_new_int64(u->lost_events));
        json_object_object_add(o, "live", json_object_new_int64(u->live));
        return o;
}

/* Create a running unit, store it, keep it in memory. */
static struct unit *unit_new(struct agent *a, const char *kind, const char *name, uid_t uid,
                             gid_t gid)
{
        struct unit *u = calloc(1, sizeof(*u));

        if (!u)
                return NULL;
        u->id = a->next_unit_id++;
        snprintf(u->kind, sizeof(u->kind), "%s", kind);
        if (name && *name)
                snprintf(u->name, sizeof(u->name), "%s", name);
        else
                snprintf(u->name, sizeof(u->name), "run-%" PRIu64, u->id);
        u->uid = uid;
        u->gid = gid;
        u->task_id = -1;
        u->array_task_id = -1;
        u->step_id = UNIT_STEP_NONE;
        u->exit_status = -1;
        u->start_ns = now_unix_ns();
        u->state = UNIT_RUNNING;
        u->lost_at_start = lost_now(a);
        u->next = a->units;
        a->units = u;
        return u;
}

/* Seed the tracked set with pid; its descendants follow in the kernel. */
static int unit_track_pid(struct agent *a, struct unit *u, pid_t pid)
{
        struct procfs_stat st;
        int err = procfs_read_stat(pid, &st);

        if (err)
                return err;
        err = collector_track_pid(a->collector, pid, u->id);
        if (err)
                return err;
        u->root_pid = pid;
        u->root_start_ns = st.start_ticks * a->tick_ns;
        return 0;
}

int agent_unit_end(struct agent *a, struct unit *u, int status, enum unit_state state)
{
        struct cgroup_counters cg;
        int err;

        /* Every exit the kernel already reported belongs in the totals. The last one may be a
         * few microseconds behind the client's wait(2) (it is sent at the final switch-out):
         * give it a bounded moment. */
        collector_drain(a->collector);
        for (int i = 0; i < UNIT_END_WAIT_MS / 5 && u->live; i++)
                collector_poll(a->collector, 5);
        if (u->state == UNIT_RUNNING) {
                u->end_ns = now_unix_ns();
                u->state = state;
                u->exit_status = status;
                u->lost_events = lost_now(a) - u->lost_at_start;
                if (u->cgroup_id)
                        collector_untrack_cgroup(a->collector, u->cgroup_id);
        }
        /* the step's own counters, while its cgroup still exists: each task's end rereads
         * them, so the last task of a step leaves the step's totals */
        if (u->cgroup_path[0] && cgroup_step_counters(u->cgroup_path, &cg) == 0) {
                u->cgroup_cpu_ns = cg.cpu_ns;
                u->cgroup_mem_peak_kb = cg.mem_peak_kb;
        }
        err = store_put_unit(a->store, u);
        if (!err)
                err = store_commit(a->store);
        return err;
}

static enum unit_state state_of_status(int status)
{
        if (status < 0)
                return UNIT_COMPLETED;
        if ((status & 0x7f) == 0)
                return (status >> 8) & 0xff ? UNIT_FAILED : UNIT_COMPLETED;
        switch (status & 0x7f) {
        case 2: case 9: case 15: /* SIGINT, SIGKILL, SIGTERM: stopped from outside */
                return UNIT_CANCELLED;
        default:
                return UNIT_FAILED;
        }
}

#define ERR_REPLY(...) proto_reply_error(__VA_ARGS__)

static struct json_object *reply_with_unit(const struct unit *u)
{
        struct json_object *r = proto_reply_ok();

        json_object_object_add(r, "unit", unit_json(u));
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
        return r;
}

static int opt_string(struct json_object *req, const char *key, size_t max, const char **out,
                      char *err, size_t errlen)
{
        int r = proto_get_string(req, key, max, out, err, errlen);

        if (r == -ENOENT) {
                *out = NULL;
                return 0;
        }
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
            opt_string(req, "name", UNIT_NAME_MAX - 1, &name, err, sizeof(err)) ||
            opt_string(req, "pipeline", UNIT_NAME_MAX - 1, &pipeline, err, sizeof(err)) ||
            opt_string(req, "run", UNIT_NAME_MAX - 1, &run, err, sizeof(err)) ||
            opt_string(req, "step", UNIT_NAME_MAX - 1, &step, err, sizeof(err)))
                return ERR_REPLY("%s", err);
        if (procfs_read_stat(pid, &st) < 0 || procfs_read_uid(pid, &uid) < 0)
                return ERR_REPLY("process %" PRId64 " does not exist", pid);
        /* a user may only trace a command of their own that they just started */
        if (peer->uid != 0 && (uid != peer->uid || (pid_t)st.ppid != peer->pid))
                return ERR_REPLY("process %" PRId64 " is not a child of the caller", pid);
        u = unit_new(a, "local", name, uid, peer->gid);
        if (!u)
                return ERR_REPLY("out of memory");
        if (pipeline)
                snprintf(u->pipeline, sizeof(u->pipeline), "%s", pipeline);
        if (run)
                snprintf(u->run, sizeof(u->run), "%s", run);
        if (step)
                snprintf(u->step_name, sizeof(u->step_name), "%s", step);
        r = unit_track_pid(a, u, pid);
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
        return reply_with_unit(u);
}

/* The unit named by "unit" (an id) that this peer may see, whether in memory or stored. */
static int peer_unit(struct agent *a, const struct peer *peer, struct json_object *req,
                     uint64_t *id, struct unit **live, char *err, size_t errlen)
{
        struct json_object *found = NULL;
        char sel[32];
        int64_t v;
        int r;

        r = proto_get_int64(req, "unit", 1, INT64_MAX, &v, err, errlen);
        if (r)
                return r;
        *id = v;
        *live = agent_unit(a, v);
        if (*live)
                return is_admin(a, peer) || (*live)->uid == peer->uid ? 0 : -EPERM;
        snprintf(sel, sizeof(sel), "%" PRId64, v);
        r = store_find_units(a->store, sel, is_admin(a, peer) ? ANY_UID : peer->uid, &found);
        if (r)
                return r;
        r = -ENOENT;
        for (size_t i = 0; i < json_object_array_length(found); i++) {
                struct json_object *id_o;

                if (json_object_object_get_ex(json_object_array_get_idx(found, i), "id", &id_o) &&
                    json_object_get_int64(id_o) == v)
                        r = 0;
        }
        json_object_put(found);
        return r;
}

static struct json_object *with_totals(struct agent *a, struct json_object *r, uint64_t id)
{
        struct json_object *totals;

        if (store_unit_totals(a->store, id, &totals) == 0)
                json_object_object_add(r, "totals", totals);
        return r;
}

static struct json_object *op_unit_end(struct agent *a, const struct peer *peer,
                                       struct json_object *req, int admin_only)
{
        struct json_object *reply;
        char err[160];
        int64_t status = -1;
        uint64_t id = 0;
        struct unit *u;
        int r;

        if (admin_only && !is_admin(a, peer))
                return ERR_REPLY("permission denied: only root or SlurmUser may unregister");
        r = peer_unit(a, peer, req, &id, &u, err, sizeof(err));
        if (r == -EPERM || r == -ENOENT)
                return ERR_REPLY("unit %" PRIu64 " not found or not yours", id);
        if (r)
                return ERR_REPLY("%s", err);
        r = proto_get_int64(req, "status", -1, INT32_MAX, &status, err, sizeof(err));
        if (r && r != -ENOENT)
                return ERR_REPLY("%s", err);
        if (!u) /* ended before a restart, or twice: answer what is stored */
                return with_totals(a, proto_reply_ok(), id);
        r = agent_unit_end(a, u, status, state_of_status(status));
        if (r)
                return ERR_REPLY("cannot store unit %" PRIu64 ": %s", id, strerror(-r));
        log_info("unit %" PRIu64 " (%s) ended, status %" PRId64 ", %u processes still running",
                 u->id, u->name, status, u->live);
        reply = with_totals(a, reply_with_unit(u), id);
        if (!u->live)
                agent_unit_drop(a, u);
        return reply;
}

static int copy_opt(struct json_object *req, const char *key, char *dst, size_t len, char *err,
                    size_t errlen)
{
        const char *v;
        int r = opt_string(req, key, len - 1, &v, err, errlen);

        if (!r && v)
                snprintf(dst, len, "%s", v);
        return r;
}

static int get_opt_int(struct json_object *req, const char *key, int64_t min, int64_t max,
                       int64_t *out, char *err, size_t errlen)
{
        int r = proto_get_int64(req, key, min, max, out, err, errlen);

        return r == -ENOENT ? 0 : r;
}

/* Slurm (or any admin) registration: a task pid and/or a cgroup, with its job context. */
static struct json_object *op_register(struct agent *a, const struct peer *peer,
                                       struct json_object *req)
{
        int64_t pid = 0, uid = -1, gid = 0, job = 0, step = UNIT_STEP_NONE, task = -1;
        int64_t cgid = 0, cpus = 0, mem = 0, array_job = 0, array_task = -1;
        const char *name = NULL;
        struct unit *u, tmp = {};
        char err[160];
        int r;

        if (!is_admin(a, peer))
                return ERR_REPLY("permission denied: only root or SlurmUser may register");
        if (opt_string(req, "name", UNIT_NAME_MAX - 1, &name, err, sizeof(err)) ||
            proto_get_int64(req, "uid", 0, UINT32_MAX - 1, &uid, err, sizeof(err)) ||
            get_opt_int(req, "gid", 0, UINT32_MAX - 1, &gid, err, sizeof(err)) ||
            get_opt_int(req, "pid", 1, INT32_MAX, &pid, err, sizeof(err)) ||
            get_opt_int(req, "job_id", 0, INT64_MAX, &job, err, sizeof(err)) ||
            get_opt_int(req, "step_id", 0, UINT32_MAX, &step, err, sizeof(err)) ||
            get_opt_int(req, "task_id", -1, INT32_MAX, &task, err, sizeof(err)) ||
            get_opt_int(req, "array_job_id", 0, INT64_MAX, &array_job, err, sizeof(err)) ||
            get_opt_int(req, "array_task_id", -1, INT64_MAX, &array_task, err, sizeof(err)) ||
            get_opt_int(req, "cgroup_id", 0, INT64_MAX, &cgid, err, sizeof(err)) ||
            get_opt_int(req, "alloc_cpus", 0, UINT32_MAX, &cpus, err, sizeof(err)) ||
            get_opt_int(req, "alloc_mem_mb", 0, INT64_MAX, &mem, err, sizeof(err)) ||
            copy_opt(req, "cluster", tmp.cluster, sizeof(tmp.cluster), err, sizeof(err)) ||
            copy_opt(req, "job_name", tmp.job_name, sizeof(tmp.job_name), err, sizeof(err)) ||
            copy_opt(req, "cgroup_path", tmp.cgroup_path, sizeof(tmp.cgroup_path), err, sizeof(err)) ||
            copy_opt(req, "pipeline", tmp.pipeline, sizeof(tmp.pipeline), err, sizeof(err)) ||
            copy_opt(req, "run", tmp.run, sizeof(tmp.run), err, sizeof(err)) ||
            copy_opt(req, "step", tmp.step_name, sizeof(tmp.step_name), err, sizeof(err)) ||
            copy_opt(req, "traceparent", tmp.traceparent, sizeof(tmp.traceparent), err, sizeof(err)))
                return ERR_REPLY("%s", err);
        if (tmp.traceparent[0] && !traceparent_valid(tmp.traceparent))
                return ERR_REPLY("traceparent is not a W3C trace context");
        if (!pid && !cgid)
                return ERR_REPLY("register needs a pid or a cgroup_id");
        u = unit_new(a, job ? "slurm" : "local", name, uid, gid);
        if (!u)
                return ERR_REPLY("out of memory");
        memcpy(u->cluster, tmp.cluster, sizeof(u->cluster));
        memcpy(u->job_name, tmp.job_name, sizeof(u->job_name));
        memcpy(u->cgroup_path, tmp.cgroup_path, sizeof(u->cgroup_path));
        memcpy(u->pipeline, tmp.pipeline, sizeof(u->pipeline));
        memcpy(u->run, tmp.run, sizeof(u->run));
        memcpy(u->step_name, tmp.step_name, sizeof(u->step_name));
        memcpy(u->traceparent, tmp.traceparent, sizeof(u->traceparent));
        u->job_id = job;
        u->array_job_id = array_job;
        u->array_task_id = array_task;
        u->step_id = step;
        u->task_id = task;
        u->alloc_cpus = cpus;
        u->alloc_mem_mb = mem;
        u->cgroup_id = cgid;
        r = pid ? unit_track_pid(a, u, pid) : 0;
        if (!r && cgid)
                r = collector_track_cgroup(a->collector, cgid, u->id);
        if (!r)
                r = store_put_unit(a->store, u);
        if (!r)
                r = store_commit(a->store);
        if (r) {
                if (pid)
                        collector_untrack_pid(a->collector, pid);
                agent_unit_drop(a, u);
                return ERR_REPLY("cannot track the unit: %s", strerror(-r));
        }
        log_info("unit %" PRIu64 " (%s) registered: job %" PRId64 " step %" PRId64 " task %" PRId64
                 " pid %" PRId64, u->id, u->name, job, step, task, pid);
        return reply_with_unit(u);
}

static struct json_object *op_units(struct agent *a, const struct peer *peer, struct json_object *req)
{
        struct json_object *units, *r;
        const char *sel;
        char err[160];

        if (proto_get_string(req, "select", 256, &sel, err, sizeof(err)))
                return ERR_REPLY("%s", err);
        collector_drain(a->collector);
        if (store_find_units(a->store, sel, is_admin(a, peer) ? ANY_UID : peer->uid, &units))
                return ERR_REPLY("store query failed");
        for (size_t i = 0; i < json_object_array_length(units); i++) {
                struct json_object *u = json_object_array_get_idx(units, i), *id, *totals;

                if (json_object_object_get_ex(u, "id", &id) &&
                    store_unit_totals(a->store, json_object_get_int64(id), &totals) == 0)
                        json_object_object_add(u, "totals", totals);
        }
        r = proto_reply_ok();
        json_object_object_add(r, "units", units);
        return r;
}

static struct json_object *op_processes(struct agent *a, const struct peer *peer,
                                        struct json_object *req)
{
        struct json_object *procs, *r;
        struct unit *u;
        char err[160];
        uint64_t id = 0;
        int rc;

        rc = peer_unit(a, peer, req, &id, &u, err, sizeof(err));
        if (rc == -EPERM || rc == -ENOENT)
                return ERR_REPLY("unit %" PRIu64 " not found or not yours", id);
        if (rc)
                return ERR_REPLY("%s", err);
        collector_drain(a->collector);
        if (store_unit_processes(a->store, id, &procs))
                return ERR_REPLY("store query failed");
        r = proto_reply_ok();
        json_object_object_add(r, "processes", procs);
        return with_totals(a, r, id);
}

/* Prolog: the job's allocation on this node begins (no process yet: steps register theirs). */
static struct json_object *op_job_begin(struct agent *a, const struct peer *peer,
                                        struct json_object *req)
{
        int64_t job, uid, gid = 0;
        struct unit *u, tmp = {};
        char err[160], name[32];
        int r;

        if (!is_admin(a, peer))
                return ERR_REPLY("permission denied: only root or SlurmUser may begin jobs");
        if (proto_get_int64(req, "job_id", 1, INT64_MAX, &job, err, sizeof(err)) ||
            proto_get_int64(req, "uid", 0, UINT32_MAX - 1, &uid, err, sizeof(err)) ||
            get_opt_int(req, "gid", 0, UINT32_MAX - 1, &gid, err, sizeof(err)) ||
            copy_opt(req, "cluster", tmp.cluster, sizeof(tmp.cluster), err, sizeof(err)) ||
            copy_opt(req, "job_name", tmp.job_name, sizeof(tmp.job_name), err, sizeof(err)))
                return ERR_REPLY("%s", err);
        snprintf(name, sizeof(name), "%" PRId64, job);
        u = unit_new(a, "slurm", name, uid, gid);
        if (!u)
                return ERR_REPLY("out of memory");
        u->job_id = job;
        memcpy(u->cluster, tmp.cluster, sizeof(u->cluster));
        memcpy(u->job_name, tmp.job_name, sizeof(u->job_name));
        r = store_put_unit(a->store, u);
        if (!r)
                r = store_commit(a->store);
        if (r) {
                agent_unit_drop(a, u);
                return ERR_REPLY("cannot store job %" PRId64 ": %s", job, strerror(-r));
        }
        return reply_with_unit(u);
}

/* Epilog: the job is over on this node. Every unit of it still open ends now, after the last
 * exits were given a bounded moment to arrive. */
static struct json_object *op_job_end(struct agent *a, const struct peer *peer,
                                      struct json_object *req)
{
        struct json_object *reply;
        struct unit *u, *next;
        int64_t job, status = -1;
        unsigned ended = 0, live = 0;
        char err[160];
        int r;

        if (!is_admin(a, peer))
                return ERR_REPLY("permission denied: only root or SlurmUser may end jobs");
        if (proto_get_int64(req, "job_id", 1, INT64_MAX, &job, err, sizeof(err)) ||
            get_opt_int(req, "status", -1, INT32_MAX, &status, err, sizeof(err)))
                return ERR_REPLY("%s", err);
        for (u = a->units; u; u = next) {
                next = u->next;
                if (u->job_id != (uint64_t)job || u->state != UNIT_RUNNING)
                        continue;
                r = agent_unit_end(a, u, status, state_of_status(status));
                if (r)
                        return ERR_REPLY("cannot store job %" PRId64 ": %s", job, strerror(-r));
                ended++;
                live += u->live;
                if (!u->live)
                        agent_unit_drop(a, u);
        }
        log_info("job %" PRId64 " ended: %u units closed, %u processes still running", job, ended, live);
        reply = proto_reply_ok();
        json_object_object_add(reply, "units_ended", json_object_new_int(ended));
        json_object_object_add(reply, "still_running", json_object_new_int(live));
        return reply;
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
                return op_register(a, peer, req);
        if (strcmp(op, "unregister") == 0)
                return op_unit_end(a, peer, req, 1);
        if (strcmp(op, "job_begin") == 0)
                return op_job_begin(a, peer, req);
        if (strcmp(op, "job_end") == 0)
                return op_job_end(a, peer, req);
        if (strcmp(op, "units") == 0)
                return op_units(a, peer, req);
        if (strcmp(op, "processes") == 0)
                return op_processes(a, peer, req);
        return ERR_REPLY("unknown op '%s'", op);
}
