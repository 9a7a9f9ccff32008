/* Requests from Slurm's side: the SPANK plugin's task registrations, Prolog and Epilog. Only
 * root or SlurmUser may make them. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "process.h"
#include "protocol.h"
#include "readfile.h"
#include "registry.h"
#include "requests.h"
#include "traceparent.h"
#include "units.h"
#include "workflow.h"

#define ERR_REPLY(code, ...) proto_reply_error(PROTO_E_##code, __VA_ARGS__)

/* The batch script is read as root from a path in a registration: only a regular file under
 * slurmd's spool directory (SlurmdSpoolDir, %n the node), named without "." or ".." parts,
 * opened without following a link or blocking on a FIFO, and at most its first
 * WORKFLOW_SCRIPT_MAX bytes. Returns 0 with *script (caller frees) and *len, or -errno. */
static int read_batch_script(const struct agent *a, const char *path, char **script, size_t *len)
{
	const char *dir = agent_config(a)->slurmd_spool_dir, *n = strstr(dir, "%n");
	char spool[PATH_MAX];
	size_t sl;

	if (n)
		snprintf(spool, sizeof(spool), "%.*s%s%s", (int)(n - dir), dir, agent_node(a),
			 n + 2);
	else
		snprintf(spool, sizeof(spool), "%s", dir);
	sl = strlen(spool);
	if (strncmp(path, spool, sl) != 0 || path[sl] != '/' || strstr(path, "/./") ||
	    strstr(path, "/../"))
		return -EPERM;
	return readfile(path, WORKFLOW_SCRIPT_MAX, READFILE_NOFOLLOW | READFILE_PREFIX, script, len,
			NULL, 0);
}

/* A step started inside a job takes the workflow its job's batch step found: the first unit of
 * the job (newest first) with an engine gives its fields to u where u has none. */
static int take_workflow(struct unit *v, void *ctx)
{
	struct unit *u = ctx;

	if (v == u || !v->engine[0])
		return 0;
	memcpy(u->engine, v->engine, sizeof(u->engine));
#define TAKE(f)                                           \
	do {                                              \
		if (!u->f[0])                             \
			memcpy(u->f, v->f, sizeof(u->f)); \
	} while (0)
	TAKE(pipeline);
	TAKE(run);
	TAKE(step_name);
	TAKE(wf_job);
	TAKE(wildcards);
	TAKE(tag);
	TAKE(task_hash);
#undef TAKE
	return 1;
}

/* The job's account, partition and nodes, as its environment gave them to the plugin or the
 * prolog: a user's text, kept cleaned and cut (proto_copy_text). */
static int job_facts(struct json_object *req, struct unit *tmp, char *err, size_t errlen)
{
	if (proto_copy_text(req, "account", tmp->account, sizeof(tmp->account), err, errlen) ||
	    proto_copy_text(req, "partition", tmp->partition, sizeof(tmp->partition), err,
			    errlen) ||
	    proto_copy_text(req, "nodelist", tmp->nodelist, sizeof(tmp->nodelist), err, errlen))
		return -EINVAL;
	return 0;
}

static void job_facts_take(struct unit *u, const struct unit *from)
{
	memcpy(u->account, from->account, sizeof(u->account));
	memcpy(u->partition, from->partition, sizeof(u->partition));
	memcpy(u->nodelist, from->nodelist, sizeof(u->nodelist));
}

/* A step registered without them takes those of another unit of its job (its allocation's,
 * from the prolog), newest first. */
static int take_job_facts(struct unit *v, void *ctx)
{
	struct unit *u = ctx;

	if (v == u || u->account[0] || u->partition[0] || u->nodelist[0])
		return 1;
	if (!v->account[0] && !v->partition[0] && !v->nodelist[0])
		return 0;
	job_facts_take(u, v);
	return 1;
}

/* Which workflow a step belongs to, from what the engine already passed to Slurm: the job
 * name, the batch script (read here, as root, from where slurmd keeps it), the step's command
 * line and working directory. Explicit values (SPANK options, TRACER_* variables) win; steps
 * started inside a job take what the job's batch step found. */
static void unit_workflow(struct agent *a, struct unit *u, struct json_object *req)
{
	struct json_object *argv_o, *cwd_o;
	struct workflow_input in = {};
	struct workflow_id w;
	char argv[4096], *script = NULL;
	size_t len = 0, i;
	int r;

	if (json_object_object_get_ex(req, "argv", &argv_o) &&
	    json_object_is_type(argv_o, json_type_array)) {
		for (i = 0; i < json_object_array_length(argv_o); i++) {
			const char *arg =
				json_object_get_string(json_object_array_get_idx(argv_o, i));
			size_t l = arg ? strlen(arg) : 0;

			if (!arg || len + l + 1 > sizeof(argv))
				break;
			memcpy(argv + len, arg, l + 1);
			len += l + 1;
		}
	}
	if (len && u->step_id == STEP_BATCH) {
		r = read_batch_script(a, argv, &script, &in.script_len);
		if (r < 0)
			log_info("job %" PRIu64 ": batch script not read: %s", u->job_id,
				 strerror(-r));
		in.script = script;
	}
	in.job_name = u->job_name;
	in.argv = len ? argv : NULL;
	in.argv_len = len;
	in.cwd = json_object_object_get_ex(req, "cwd", &cwd_o) ? json_object_get_string(cwd_o)
							       : NULL;
	in.pipeline = u->pipeline;
	in.run = u->run;
	in.step = u->step_name;
	if (workflow_identify(&in, &w) == 0) {
		snprintf(u->engine, sizeof(u->engine), "%s", w.engine);
		snprintf(u->pipeline, sizeof(u->pipeline), "%s", w.pipeline);
		snprintf(u->run, sizeof(u->run), "%s", w.run);
		snprintf(u->step_name, sizeof(u->step_name), "%s", w.step);
		snprintf(u->wf_job, sizeof(u->wf_job), "%s", w.job);
		snprintf(u->wildcards, sizeof(u->wildcards), "%s", w.wildcards);
		snprintf(u->tag, sizeof(u->tag), "%s", w.tag);
		snprintf(u->task_hash, sizeof(u->task_hash), "%s", w.task_hash);
	}
	free(script);
	if (!u->engine[0])
		units_of_job(a, u->job_id, take_workflow, u);
}

/* Slurm (or any admin) registration: a task pid and/or a cgroup, with its job context. */
struct json_object *request_register(struct agent *a, const struct peer *peer,
				     struct json_object *req)
{
	int64_t pid = 0, uid = -1, gid = 0, job = 0, step = STEP_NONE, task = -1;
	int64_t cgid = 0, cpus = 0, mem = 0, array_job = 0, array_task = -1, key = 0;
	const char *name = NULL;
	struct unit *u, tmp = {};
	char err[160];
	int r;

	if (!agent_is_admin(a, peer))
		return ERR_REPLY(DENIED, "permission denied: only root or SlurmUser may register");
	if (proto_opt_string(req, "name", UNIT_NAME_MAX - 1, &name, err, sizeof(err)) ||
	    proto_get_int64(req, "uid", 0, UINT32_MAX - 1, &uid, err, sizeof(err)) ||
	    proto_opt_int64(req, "gid", 0, UINT32_MAX - 1, &gid, err, sizeof(err)) ||
	    proto_opt_int64(req, "pid", 1, INT32_MAX, &pid, err, sizeof(err)) ||
	    proto_opt_int64(req, "job_id", 0, INT64_MAX, &job, err, sizeof(err)) ||
	    proto_opt_int64(req, "step_id", 0, UINT32_MAX, &step, err, sizeof(err)) ||
	    proto_opt_int64(req, "task_id", -1, INT32_MAX, &task, err, sizeof(err)) ||
	    proto_opt_int64(req, "array_job_id", 0, INT64_MAX, &array_job, err, sizeof(err)) ||
	    proto_opt_int64(req, "array_task_id", -1, INT64_MAX, &array_task, err, sizeof(err)) ||
	    proto_opt_int64(req, "cgroup_id", 0, INT64_MAX, &cgid, err, sizeof(err)) ||
	    proto_opt_int64(req, "kernel_key", INT64_MIN, INT64_MAX, &key, err, sizeof(err)) ||
	    proto_opt_int64(req, "alloc_cpus", 0, UINT32_MAX, &cpus, err, sizeof(err)) ||
	    proto_opt_int64(req, "alloc_mem_mb", 0, INT64_MAX, &mem, err, sizeof(err)) ||
	    proto_copy_string(req, "cluster", tmp.cluster, sizeof(tmp.cluster), err, sizeof(err)) ||
	    proto_copy_string(req, "alloc_cores", tmp.alloc_cores, sizeof(tmp.alloc_cores), err,
			      sizeof(err)) ||
	    proto_copy_string(req, "job_name", tmp.job_name, sizeof(tmp.job_name), err,
			      sizeof(err)) ||
	    proto_copy_string(req, "cgroup_path", tmp.cgroup_path, sizeof(tmp.cgroup_path), err,
			      sizeof(err)) ||
	    proto_copy_string(req, "pipeline", tmp.pipeline, sizeof(tmp.pipeline), err,
			      sizeof(err)) ||
	    proto_copy_string(req, "run", tmp.run, sizeof(tmp.run), err, sizeof(err)) ||
	    proto_copy_string(req, "step", tmp.step_name, sizeof(tmp.step_name), err,
			      sizeof(err)) ||
	    proto_copy_string(req, "traceparent", tmp.traceparent, sizeof(tmp.traceparent), err,
			      sizeof(err)) ||
	    job_facts(req, &tmp, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	if (tmp.traceparent[0] && !traceparent_valid(tmp.traceparent))
		return ERR_REPLY(MALFORMED, "traceparent is not a W3C trace context");
	if (!pid && !cgid)
		return ERR_REPLY(MALFORMED, "register needs a pid or a cgroup_id");
	/* the key the plugin put its task in the kernel under (struct task_registration) */
	if (key && (!((uint64_t)key & UNIT_KEY_BIT) ||
		    ((uint64_t)key & UNIT_KEY_PID_MASK) != ((uint64_t)pid & UNIT_KEY_PID_MASK)))
		return ERR_REPLY(MALFORMED, "kernel_key is not the key of task %" PRId64, pid);
	u = units_new(a, job ? "slurm" : "local", name, uid, gid);
	if (!u)
		return ERR_REPLY(FAILED, "out of memory");
	memcpy(u->cluster, tmp.cluster, sizeof(u->cluster));
	memcpy(u->alloc_cores, tmp.alloc_cores, sizeof(u->alloc_cores));
	memcpy(u->job_name, tmp.job_name, sizeof(u->job_name));
	memcpy(u->cgroup_path, tmp.cgroup_path, sizeof(u->cgroup_path));
	memcpy(u->pipeline, tmp.pipeline, sizeof(u->pipeline));
	memcpy(u->run, tmp.run, sizeof(u->run));
	memcpy(u->step_name, tmp.step_name, sizeof(u->step_name));
	memcpy(u->traceparent, tmp.traceparent, sizeof(u->traceparent));
	job_facts_take(u, &tmp);
	u->job_id = job;
	u->array_job_id = array_job;
	u->array_task_id = array_task;
	u->step_id = step;
	u->task_id = task;
	u->alloc_cpus = cpus;
	u->alloc_mem_mb = mem;
	u->cgroup_id = cgid;
	u->kernel_key = (uint64_t)key;
	if (job) {
		unit_workflow(a, u, req);
		units_of_job(a, u->job_id, take_job_facts, u);
	}
	r = units_track(a, u, pid);
	if (r) {
		units_drop(a, u);
		return ERR_REPLY(FAILED, "cannot track the unit: %s", strerror(-r));
	}
	registry_adopt(a, u); /* what the kernel recorded under its task's key, if any */
	units_save(a, u);
	log_info("unit %" PRIu64 " (%s) registered: job %" PRId64 " step %" PRId64 " task %" PRId64
		 " pid %" PRId64,
		 u->id, u->name, job, step, task, pid);
	return request_reply_unit(u);
}

/* Prolog: the job's allocation on this node begins (no process yet: steps register theirs). */
struct json_object *request_job_begin(struct agent *a, const struct peer *peer,
				      struct json_object *req)
{
	int64_t job, uid, gid = 0;
	struct unit *u, tmp = {};
	char err[160], name[32];

	if (!agent_is_admin(a, peer))
		return ERR_REPLY(DENIED,
				 "permission denied: only root or SlurmUser may begin jobs");
	if (proto_get_int64(req, "job_id", 1, INT64_MAX, &job, err, sizeof(err)) ||
	    proto_get_int64(req, "uid", 0, UINT32_MAX - 1, &uid, err, sizeof(err)) ||
	    proto_opt_int64(req, "gid", 0, UINT32_MAX - 1, &gid, err, sizeof(err)) ||
	    proto_copy_string(req, "cluster", tmp.cluster, sizeof(tmp.cluster), err, sizeof(err)) ||
	    proto_copy_string(req, "job_name", tmp.job_name, sizeof(tmp.job_name), err,
			      sizeof(err)) ||
	    job_facts(req, &tmp, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	snprintf(name, sizeof(name), "%" PRId64, job);
	u = units_new(a, "slurm", name, uid, gid);
	if (!u)
		return ERR_REPLY(FAILED, "out of memory");
	u->job_id = job;
	memcpy(u->cluster, tmp.cluster, sizeof(u->cluster));
	memcpy(u->job_name, tmp.job_name, sizeof(u->job_name));
	job_facts_take(u, &tmp);
	units_save(a, u);
	return request_reply_unit(u);
}

/* Epilog: the job is over on this node. Every unit of it still open ends, once its last exits
 * are recorded or PARK_MS has passed (the request is parked meanwhile). */
struct json_object *request_job_end(struct agent *a, const struct peer *peer,
				    struct json_object *req, struct parked *park)
{
	int64_t job, status = -1;
	char err[160];

	if (!agent_is_admin(a, peer))
		return ERR_REPLY(DENIED, "permission denied: only root or SlurmUser may end jobs");
	if (proto_get_int64(req, "job_id", 1, INT64_MAX, &job, err, sizeof(err)) ||
	    proto_opt_int64(req, "status", -1, INT32_MAX, &status, err, sizeof(err)))
		return ERR_REPLY(MALFORMED, "%s", err);
	*park = (struct parked){ .kind = PARK_JOB_END, .id = job, .status = status, .peer = *peer };
	return NULL;
}

struct job_end {
	struct agent *a;
	const struct parked *park;
	unsigned ended, live;
};

static int end_job_unit(struct unit *u, void *ctx)
{
	struct job_end *j = ctx;

	if (u->state != UNIT_RUNNING)
		return 0;
	units_end(j->a, u, j->park->status, unit_state_of_status(j->park->status));
	j->ended++;
	j->live += u->live;
	if (!u->live)
		units_drop(j->a, u); /* freed by the loop (units_reap): the walk goes on safely */
	return 0;
}

struct json_object *request_job_finish(struct agent *a, const struct parked *park)
{
	struct job_end j = { a, park, 0, 0 };
	struct json_object *reply;

	units_of_job(a, park->id, end_job_unit, &j);
	log_info("job %" PRIu64 " ended: %u units closed, %u processes still running", park->id,
		 j.ended, j.live);
	reply = proto_reply_ok();
	if (!reply)
		return NULL; /* out of memory: the units are ended, the client is let go */
	json_object_object_add(reply, "units_ended", json_object_new_int(j.ended));
	json_object_object_add(reply, "still_running", json_object_new_int(j.live));
	return reply;
}
