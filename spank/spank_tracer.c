/* spank_tracer.so: ties every task of a Slurm job to tracerd on its node.
 *
 * In slurmstepd, as root, each task is registered with the node's tracerd right after it is
 * forked into its cgroup (task_post_fork); tracerd tracks it and all its descendants in the
 * kernel. The plugin is listed `optional` and must never fail, block or slow a job: every
 * exchange with tracerd is bounded (TimeoutMs, 100 ms by default), errors are logged once and
 * the job carries on. Running as root, it talks only to a tracerd no other user could fake
 * (protocol/trust.c). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <slurm/spank.h>

#include "cgroup_path.h"
#include "config.h"
#include "process.h"
#include "procfs.h"
#include "protocol.h"
#include "slurm_ids.h"
#include "traceparent.h"
#include "trust.h"

SPANK_PLUGIN(tracer, 1);

#define NAME_MAX_LEN 127
#define MAX_TASKS 1024

enum { OPT_PIPELINE = 1, OPT_RUN, OPT_STEP, OPT_TRACER };

static struct {
	int off;
	char pipeline[NAME_MAX_LEN + 1], run[NAME_MAX_LEN + 1], step[NAME_MAX_LEN + 1];
	char conf[PATH_MAX];
	char socket[PATH_MAX]; /* socket= plugin argument, else from the config */
	char node[64];	       /* this node's name, once known (node_name) */
	int cfg_read;	       /* 1 cfg holds tracer.conf, -1 it could not be read, 0 not yet */
	struct tracer_config cfg;
	int timeout_ms;
	int failed; /* an exchange of this step failed: the step's others are skipped, or only
		     * sent (tasks registered in the kernel) */
	int send_failed;
	int ntasks;
	struct {
		uint32_t task;
		pid_t pid;
		int64_t unit; /* 0: tracerd did not answer its registration */
		uint64_t key; /* its key, when registered in the kernel */
	} tasks[MAX_TASKS];
} st = { .timeout_ms = 100 };

static int opt_cb(int val, const char *arg, int remote);

static struct spank_option options[] = {
	{ "tracer-pipeline", "NAME", "tracer: the pipeline this job belongs to", 1, OPT_PIPELINE,
	  opt_cb },
	{ "tracer-run", "ID", "tracer: the pipeline run this job belongs to", 1, OPT_RUN, opt_cb },
	{ "tracer-step", "NAME", "tracer: the workflow step this job runs", 1, OPT_STEP, opt_cb },
	{ "tracer", "on|off", "tracer: --tracer=off leaves this job untraced", 1, OPT_TRACER,
	  opt_cb },
	SPANK_OPTIONS_TABLE_END
};

/* A value for a name option: printable, no control characters, bounded. */
static int copy_name(char *dst, const char *src)
{
	size_t i, n = src ? strlen(src) : 0;

	if (n == 0 || n > NAME_MAX_LEN)
		return -1;
	for (i = 0; i < n; i++)
		if ((unsigned char)src[i] < 0x20 || src[i] == 0x7f)
			return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

static int opt_cb(int val, const char *arg, int remote)
{
	char *dst = val == OPT_PIPELINE ? st.pipeline : val == OPT_RUN ? st.run : st.step;

	(void)remote;
	if (val == OPT_TRACER) {
		if (arg && strcmp(arg, "off") == 0)
			st.off = 1;
		else if (arg && strcmp(arg, "on") == 0)
			st.off = 0;
		else {
			slurm_error("tracer: --tracer takes on or off, not '%s'", arg ? arg : "");
			return ESPANK_BAD_ARG;
		}
		return ESPANK_SUCCESS;
	}
	if (copy_name(dst, arg) < 0) {
		slurm_error("tracer: option value must be 1-%d printable characters", NAME_MAX_LEN);
		return ESPANK_BAD_ARG;
	}
	return ESPANK_SUCCESS;
}

/* The wait for tracerd's answer for a task already registered in the kernel (registry.h):
 * tracerd answers in about a millisecond; late, it still records the task from its start. */
#define KERNEL_REGISTERED_WAIT_MS 10

/* plugstack.conf arguments: conf=FILE socket=PATH timeout_ms=N */
static void parse_args(int ac, char **av)
{
	int i;

	snprintf(st.conf, sizeof(st.conf), "%s", TRACER_CONF_DEFAULT);
	for (i = 0; i < ac; i++) {
		if (strncmp(av[i], "conf=", 5) == 0)
			snprintf(st.conf, sizeof(st.conf), "%s", av[i] + 5);
		else if (strncmp(av[i], "socket=", 7) == 0)
			snprintf(st.socket, sizeof(st.socket), "%s", av[i] + 7);
		else if (strncmp(av[i], "timeout_ms=", 11) == 0)
			st.timeout_ms = atoi(av[i] + 11) > 0 ? atoi(av[i] + 11) : 100;
		else
			slurm_error("tracer: unknown plugin argument '%s' ignored", av[i]);
	}
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	int i;

	parse_args(ac, av);
	for (i = 0; options[i].name; i++)
		spank_option_register(sp, &options[i]);
	return ESPANK_SUCCESS;
}

/* ---- helpers for the remote (slurmstepd) side */

static void job_env(spank_t sp, const char *name, char *buf, size_t len)
{
	if (spank_getenv(sp, name, buf, len) != ESPANK_SUCCESS)
		buf[0] = 0;
}

/* Options given on the command line win over TRACER_* variables of the job's environment. */
static void env_defaults(spank_t sp)
{
	char v[NAME_MAX_LEN + 2];

	job_env(sp, "SLURM_SPANK__SLURM_SPANK_OPTION_tracer_tracer", v, sizeof(v));
	if (strcmp(v, "off") == 0)
		st.off = 1;
	if (!st.pipeline[0] && (job_env(sp, "TRACER_PIPELINE_NAME", v, sizeof(v)), v[0]))
		copy_name(st.pipeline, v);
	if (!st.run[0] && (job_env(sp, "TRACER_RUN_NAME", v, sizeof(v)), v[0]))
		copy_name(st.run, v);
	if (!st.step[0] && (job_env(sp, "TRACER_STEP_NAME", v, sizeof(v)), v[0]))
		copy_name(st.step, v);
}

/* libslurm's hostlist, looked up at run time: present in slurmstepd, not linked by us */
typedef void *(*hostlist_create_fn)(const char *);
typedef char *(*hostlist_shift_fn)(void *);
typedef void (*hostlist_destroy_fn)(void *);

/* The name of node number `nodeid` of a step, from the step's (or job's) node list. */
static int node_from_list(spank_t sp, char *out, size_t len)
{
	hostlist_create_fn create =
		(hostlist_create_fn)dlsym(RTLD_DEFAULT, "slurm_hostlist_create");
	hostlist_shift_fn shift = (hostlist_shift_fn)dlsym(RTLD_DEFAULT, "slurm_hostlist_shift");
	hostlist_destroy_fn destroy =
		(hostlist_destroy_fn)dlsym(RTLD_DEFAULT, "slurm_hostlist_destroy");
	char list[4096], *host = NULL;
	uint32_t nodeid = 0, i;
	void *hl;

	if (!create || !shift || !destroy ||
	    spank_get_item(sp, S_JOB_NODEID, &nodeid) != ESPANK_SUCCESS)
		return -1;
	job_env(sp, "SLURM_STEP_NODELIST", list, sizeof(list));
	if (!list[0])
		job_env(sp, "SLURM_JOB_NODELIST", list, sizeof(list));
	if (!list[0] || !(hl = create(list)))
		return -1;
	for (i = 0; i <= nodeid; i++) {
		free(host);
		host = shift(hl);
		if (!host)
			break;
	}
	destroy(hl);
	if (!host)
		return -1;
	snprintf(out, len, "%s", host);
	free(host);
	return 0;
}

/* cgroup v1 trees of Slurm carry the node name: /slurm_<node>/uid_U/job_J/... */
static int node_from_cgroup(pid_t pid, char *out, size_t len)
{
	char file[64], line[1024], *p, *end;
	FILE *f;
	int r = -1;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	while (r < 0 && fgets(line, sizeof(line), f)) {
		p = strstr(line, "/slurm_");
		if (!p)
			continue;
		p += 7;
		end = strchr(p, '/');
		if (end && (size_t)(end - p) < len) {
			snprintf(out, len, "%.*s", (int)(end - p), p);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* tracer.conf, read once per slurmstepd (a step's every task and task end asks for it) and
 * only when needed: socket= makes it unnecessary. A file that cannot be read is said once. */
static const struct tracer_config *config(void)
{
	char err[256];

	if (!st.cfg_read) {
		st.cfg_read = config_load(st.conf, strcmp(st.conf, TRACER_CONF_DEFAULT) == 0,
					  &st.cfg, err, sizeof(err)) == 0
				      ? 1
				      : -1;
		if (st.cfg_read < 0)
			slurm_error("tracer: %s", err);
	}
	return st.cfg_read > 0 ? &st.cfg : NULL;
}

/* This node's tracerd: socket= wins; else SocketDir from the config and the node name, which
 * slurmstepd does not hand plugins: the step's node list and this node's index in it, else
 * Slurm's cgroup path, else NodeName or the host name. */
/* This node's name, worked out once per step (slurmstepd serves one step). */
static const char *node_name(spank_t sp, pid_t pid, const struct tracer_config *cfg)
{
	if (!st.node[0] && node_from_list(sp, st.node, sizeof(st.node)) < 0 &&
	    node_from_cgroup(pid, st.node, sizeof(st.node)) < 0 &&
	    config_node(cfg, NULL, st.node, sizeof(st.node)) < 0) {
		st.node[0] = 0;
		return NULL;
	}
	return st.node;
}

static int socket_path(spank_t sp, pid_t pid, char *out, size_t len)
{
	const struct tracer_config *cfg;
	const char *node;

	if (st.socket[0]) {
		snprintf(out, len, "%s", st.socket);
		return 0;
	}
	if (!(cfg = config()) || !(node = node_name(sp, pid, cfg)))
		return -1;
	return config_socket_path(cfg, node, out, len);
}

/* Registration in the kernel (struct task_registration, bpf/process.h): the task, forked and
 * not yet released to exec, goes in the registry tracerd pinned for this node, and the kernel
 * tracks it from its exec on, whatever tracerd's state. Only a map found where only root could
 * have put it (trust_parent's walk from "/", the pin itself root's) and of the registry's shape
 * is written to. Returns the task's key (the request names it), or 0: then the socket alone. */
static uint64_t register_in_kernel(spank_t sp, pid_t pid)
{
	const struct tracer_config *cfg = config();
	char path[PATH_MAX], real[PATH_MAX], via[64], err[2 * PATH_MAX];
	struct task_registration r = {};
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	struct procfs_stat ps;
	const char *node;
	struct stat sb;
	int dfd = -1, fd = -1, pidfd = -1, ok = 0;

	if (!cfg || !(node = node_name(sp, pid, cfg)) ||
	    config_pin_path(cfg, node, CONFIG_REGISTRY_FILE, path, sizeof(path)) < 0)
		return 0;
	if (!realpath(path, real)) /* none: tracerd pins none, or is not running */
		return 0;
	if (trust_parent("pinned registry", path, real, &dfd, err, sizeof(err)) < 0) {
		slurm_info("tracer: %s", err);
		return 0;
	}
	if (fstatat(dfd, CONFIG_REGISTRY_FILE, &sb, AT_SYMLINK_NOFOLLOW) < 0 || sb.st_uid != 0 ||
	    (sb.st_mode & 022) || S_ISLNK(sb.st_mode))
		goto out;
	/* by the directory checked, not by its name again */
	snprintf(via, sizeof(via), "/proc/self/fd/%d/" CONFIG_REGISTRY_FILE, dfd);
	fd = bpf_obj_get(via);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0 ||
	    info.type != BPF_MAP_TYPE_TASK_STORAGE || info.key_size != sizeof(pidfd) ||
	    info.value_size != sizeof(r) || strcmp(info.name, CONFIG_REGISTRY_FILE) != 0)
		goto out;
	/* the task itself, whatever becomes of its pid; its start read once it is held (the
	 * key's), while slurmstepd, which waits on this hook, has not reaped it */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0 || procfs_read_stat(pid, &ps) < 0)
		goto out;
	r.start_ticks = ps.start_ticks;
	ok = bpf_map_update_elem(fd, &pidfd, &r, BPF_ANY) == 0;
	if (!ok)
		slurm_debug("tracer: no registration in the kernel: %m");
out:
	if (pidfd >= 0)
		close(pidfd);
	if (fd >= 0)
		close(fd);
	close(dfd);
	return ok ? unit_key(pid, ps.start_ticks) : 0;
}

/* cgroup of a task: the v1 memory controller's path (where Slurm keeps its limits and peak)
 * or the v2 path, and on v2 the cgroup id (the directory's inode). */
static void task_cgroup(pid_t pid, char *path, size_t len, uint64_t *id)
{
	char file[64], line[1024], dir[PATH_MAX];
	struct stat sb;
	FILE *f;

	*id = 0;
	path[0] = 0;
	snprintf(file, sizeof(file), "/proc/%d/cgroup", pid);
	f = fopen(file, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;

		if (!q)
			continue;
		q[strcspn(q, "\n")] = 0;
		if (strncmp(p, ":memory:", 8) == 0) {
			snprintf(path, len, "/sys/fs/cgroup/memory%s", q + 1);
		} else if (strncmp(line, "0::", 3) == 0 && strstr(q + 1, "job_")) {
			/* pure v2 mounts at /sys/fs/cgroup, hybrid at .../unified */
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", q + 1);
			if (stat(dir, &sb) < 0)
				snprintf(dir, sizeof(dir), "/sys/fs/cgroup/unified%s", q + 1);
			if (stat(dir, &sb) == 0) {
				*id = sb.st_ino;
				if (!path[0])
					snprintf(path, len, "%s", dir);
			}
		}
	}
	fclose(f);
}

/* cgroup v2: leave the trace context on the step's cgroup too, for tools that start from a
 * cgroup (user.* xattrs on cgroupfs: kernel >= 5.7; failure is harmless) */
static void cgroup_xattrs(const char *task_dir, const char *traceparent)
{
	char step[PATH_MAX], id[33];

	if (cgroup_step_dir(task_dir, step, sizeof(step)) < 0)
		return;
	traceparent_trace_id(traceparent, id);
	if (setxattr(step, "user.tracer.traceparent", traceparent, strlen(traceparent), 0) < 0 ||
	    setxattr(step, "user.tracer.trace_id", id, strlen(id), 0) < 0)
		slurm_debug("tracer: no trace xattrs on %s: %m", step);
}

/* One bounded exchange, only with a tracerd that trust_call accepts (its socket where only root
 * could have put it, root at the other end, a short reply); a failure is logged once and never
 * reaches the job. After one, the step's other tasks skip theirs: a tracerd that is down, hung
 * or not trusted costs a step timeout_ms in all, however many tasks it starts. */
static int call_tracerd(spank_t sp, pid_t pid, struct json_object *req, struct json_object **reply,
			int in_kernel)
{
	char path[PATH_MAX], err[2 * PATH_MAX + 128] = "";
	int r;

	*reply = NULL;
	if (st.failed && !in_kernel)
		return -1;
	if (socket_path(sp, pid, path, sizeof(path)) < 0)
		return -1;
	/* the step's tracerd did not answer: the request is left for it all the same, for the
	 * task it tracks already, without the wait */
	if (st.failed) { /* a millisecond each at most: the step paid its timeout already */
		r = trust_send(path, req, 1, err, sizeof(err));
		if (r < 0 && !st.send_failed++)
			slurm_info("tracer: %s", err);
		return r < 0 ? r : -EINPROGRESS;
	}
	/* a task registered in the kernel is tracked whenever tracerd reads this: no reason to
	 * hold the job for more than a healthy tracerd's answer */
	r = trust_call(path, req,
		       in_kernel && st.timeout_ms > KERNEL_REGISTERED_WAIT_MS
			       ? KERNEL_REGISTERED_WAIT_MS
			       : st.timeout_ms,
		       reply, err, sizeof(err));
	if (r == -EPERM && !st.failed++)
		slurm_info("tracer: job runs untraced: %s", err); /* says which path and why */
	else if (r < 0 && in_kernel && !st.failed++)
		slurm_info(
			"tracer: tracerd did not answer (%s); the job's tasks are tracked in the "
			"kernel from their start, and recorded once tracerd reads their "
			"registration",
			err);
	else if (r < 0 && !st.failed++)
		slurm_info("tracer: tracerd not reachable, job runs untraced: %s (see tracerd's "
			   "log on this node)",
			   err);
	return r;
}

static void add_str(struct json_object *o, const char *key, const char *v)
{
	if (v && *v)
		json_object_object_add(o, key, json_object_new_string(v));
}

/* The job's account, partition and nodes from its environment, as slurmstepd set it: a value
 * that does not fit PROTO_TEXT_SENT_MAX is left out; tracerd cleans and cuts the rest. */
static void add_job_facts(spank_t sp, struct json_object *req)
{
#define FACT(var, older, field) { var, older, field },
	static const char *const facts[][3] = { PROTO_JOB_FACTS(FACT) };
#undef FACT
	char v[PROTO_TEXT_SENT_MAX];

	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		job_env(sp, facts[i][0], v, sizeof(v));
		if (!v[0] && facts[i][1])
			job_env(sp, facts[i][1], v, sizeof(v));
		add_str(req, facts[i][2], v);
	}
}

/* The step's working directory and command line (for a batch step: the script, which tracerd
 * reads to recognise workflow engines). Added last: argv gets what room the request has left,
 * and is cut, and marked so, rather than the step left untraced. */
static void add_job_argv(spank_t sp, struct json_object *req)
{
	char **argv = NULL, cwd[PATH_MAX];
	int argc = 0, r;

	job_env(sp, "PWD", cwd, sizeof(cwd));
	if (!cwd[0])
		job_env(sp, "SLURM_SUBMIT_DIR", cwd, sizeof(cwd));
	add_str(req, "cwd", cwd);
	if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) == ESPANK_SUCCESS && argc > 0 && argv &&
	    (r = proto_add_argv(req, argv, argc)) < 0)
		slurm_debug("tracer: step registered without its arguments: %s", strerror(-r));
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	char cluster[64], tp[TRACEPARENT_LEN + 8], id[33];
	uint32_t job = 0, step = 0;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return ESPANK_SUCCESS;
	env_defaults(sp);
	if (st.off)
		return ESPANK_SUCCESS;
	/* engines and tools pass TRACEPARENT on: keep a valid one, else derive it from the job */
	job_env(sp, "TRACEPARENT", tp, sizeof(tp));
	if (!traceparent_valid(tp)) {
		job_env(sp, "SLURM_CLUSTER_NAME", cluster, sizeof(cluster));
		spank_get_item(sp, S_JOB_ID, &job);
		spank_get_item(sp, S_JOB_STEPID, &step);
		traceparent_derive(cluster, job, step, tp);
		spank_setenv(sp, "TRACEPARENT", tp, 1);
	}
	traceparent_trace_id(tp, id);
	spank_setenv(sp, "TRACER_TRACE_ID", id, 1);
	return ESPANK_SUCCESS;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	struct json_object *req, *reply = NULL, *u = NULL, *idv = NULL;
	uint32_t job = 0, step = 0, task = 0, array_job = 0, array_task = 0;
	uint16_t cpus = 0;
	uint64_t mem = 0, cgid = 0, key;
	uid_t uid = 0;
	gid_t gid = 0;
	pid_t pid = 0;
	char cluster[64], job_name[NAME_MAX_LEN + 1], tp[TRACEPARENT_LEN + 8], cg[PATH_MAX];
	char name[64], label[16], *cores = NULL;
	int r;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || st.off)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return ESPANK_SUCCESS;
	spank_get_item(sp, S_TASK_GLOBAL_ID, &task);
	spank_get_item(sp, S_JOB_UID, &uid);
	spank_get_item(sp, S_JOB_GID, &gid);
	spank_get_item(sp, S_JOB_NCPUS, &cpus);
	if (spank_get_item(sp, S_STEP_ALLOC_MEM, &mem) != ESPANK_SUCCESS || !mem)
		spank_get_item(sp, S_JOB_ALLOC_MEM, &mem);
	if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS)
		cores = NULL;
	spank_get_item(sp, S_JOB_ARRAY_ID, &array_job);
	spank_get_item(sp, S_JOB_ARRAY_TASK_ID, &array_task);
	job_env(sp, "SLURM_CLUSTER_NAME", cluster, sizeof(cluster));
	job_env(sp, "SLURM_JOB_NAME", job_name, sizeof(job_name));
	job_env(sp, "TRACEPARENT", tp, sizeof(tp));
	task_cgroup(pid, cg, sizeof(cg), &cgid);
	snprintf(name, sizeof(name), "%u.%s", job, slurm_step_name(step, label, sizeof(label)));

	req = proto_request(OP_REGISTER);
	json_object_object_add(req, "name", json_object_new_string(name));
	json_object_object_add(req, "pid", json_object_new_int(pid));
	json_object_object_add(req, "uid", json_object_new_int64(uid));
	json_object_object_add(req, "gid", json_object_new_int64(gid));
	json_object_object_add(req, "job_id", json_object_new_int64(job));
	json_object_object_add(req, "step_id", json_object_new_int64(step));
	json_object_object_add(req, "task_id", json_object_new_int64(task));
	if (array_job) {
		json_object_object_add(req, "array_job_id", json_object_new_int64(array_job));
		json_object_object_add(req, "array_task_id", json_object_new_int64(array_task));
	}
	json_object_object_add(req, "alloc_cpus", json_object_new_int64(cpus));
	json_object_object_add(req, "alloc_mem_mb", json_object_new_int64(mem));
	if (cgid)
		json_object_object_add(req, "cgroup_id", json_object_new_int64(cgid));
	add_str(req, "cgroup_path", cg);
	if (cores && strlen(cores) < 64)
		add_str(req, "alloc_cores", cores);
	add_str(req, "cluster", cluster);
	add_str(req, "job_name", job_name);
	add_job_facts(sp, req);
	add_str(req, "pipeline", st.pipeline);
	add_str(req, "run", st.run);
	add_str(req, "step", st.step);
	if (traceparent_valid(tp)) {
		add_str(req, "traceparent", tp);
		if (cgid)
			cgroup_xattrs(cg, tp);
	}
	if ((key = register_in_kernel(sp, pid)))
		json_object_object_add(req, "kernel_key", json_object_new_int64((int64_t)key));
	add_job_argv(sp, req);

	r = call_tracerd(sp, pid, req, &reply, key != 0);
	/* the task's end names its unit, or, when tracerd did not answer, its key */
	if (st.ntasks < MAX_TASKS && ((r == 0 && json_object_object_get_ex(reply, "unit", &u) &&
				       json_object_object_get_ex(u, "id", &idv)) ||
				      (r < 0 && key))) {
		st.tasks[st.ntasks].task = task;
		st.tasks[st.ntasks].pid = pid;
		st.tasks[st.ntasks].key = key;
		st.tasks[st.ntasks++].unit = r == 0 ? json_object_get_int64(idv) : 0;
	}
	json_object_put(reply);
	json_object_put(req);
	return ESPANK_SUCCESS;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	struct json_object *req, *reply = NULL;
	uint32_t task = 0;
	int status = -1, i;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || st.off)
		return ESPANK_SUCCESS;
	spank_get_item(sp, S_TASK_GLOBAL_ID, &task);
	spank_get_item(sp, S_TASK_EXIT_STATUS, &status);
	for (i = 0; i < st.ntasks && st.tasks[i].task != task; i++)
		;
	if (i == st.ntasks)
		return ESPANK_SUCCESS;
	req = proto_request(OP_UNREGISTER);
	if (st.tasks[i].unit)
		json_object_object_add(req, "unit", json_object_new_int64(st.tasks[i].unit));
	else
		json_object_object_add(req, "kernel_key",
				       json_object_new_int64((int64_t)st.tasks[i].key));
	json_object_object_add(req, "status", json_object_new_int(status));
	/* the reply is not read: tracerd need not count the task's processes for it */
	json_object_object_add(req, "totals", json_object_new_boolean(0));
	call_tracerd(sp, st.tasks[i].pid, req, &reply, st.tasks[i].key != 0);
	json_object_put(reply);
	json_object_put(req);
	return ESPANK_SUCCESS;
}
