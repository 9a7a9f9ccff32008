/* tracerctl: control tracerd, and trace any command outside Slurm with `tracerctl run`. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "config.h"
#include "format.h"
#include "ops.h"
#include "pinset.h"
#include "safetext.h"
#include "slurm_ids.h"
#include "status_export.h"

static const char *prog = "tracerctl";

static void usage(FILE *f)
{
	fprintf(f, "Usage: tracerctl [-c FILE] [-N NODE] [-H HOST[:PORT]] COMMAND ...\n"
		   "  -H HOST[:PORT]                      a tracerd over TCP (MUNGE), by address; "
		   "-N names its\n"
		   "                                      node (else learnt from its answer); "
		   "status only\n"
		   "  status [--json]                     daemon health, kernel signals, counters\n"
		   "  run [--name N] [--pipeline P] [--run R] [--step S] -- CMD [ARGS...]\n"
		   "                                      run CMD traced; summary on stderr; CMD's "
		   "exit status\n"
		   "  register --uid U [--pid P] [--cgroup-id ID] [--name N] [--job-id J] "
		   "[--step-id S]\n"
		   "           [--task-id T] [--cluster C] [--job-name N] [--cgroup-path PATH]\n"
		   "           [--pipeline P] [--run R] [--step S] [--alloc-cpus N] "
		   "[--alloc-mem-mb MB]\n"
		   "           [--account A] [--partition P] [--nodelist NODES]\n"
		   "                                      track a process tree and/or cgroup (root "
		   "or SlurmUser)\n"
		   "  unregister UNIT [--status N]        end a registered unit (root or "
		   "SlurmUser)\n"
		   "  shutdown [--unpin]                  stop tracerd (root); --unpin: detach "
		   "its programs\n"
		   "                                      and remove its pins\n");
}

/* Where requests go: the local socket, or another node's tracerd over TCP with MUNGE (-H). */
struct target {
	const char *sock;
	const char *host;
	const char *node; /* the node the request is for (TCP): -N, else learnt from the daemon */
	unsigned port;
	char munge_socket[4096];
	char learnt[64];
};

/* -H by address without -N: the daemon refuses a credential for another node (code
 * wrong_node) and names its own; a fresh credential for that node is then sent (each
 * credential is used once). */
static int request_by_address(struct target *t, struct json_object *req, int timeout_ms,
			      struct json_object **reply)
{
	char why[512] = "";
	int r;

	r = client_request_tcp_why(NULL, t->host, t->port, t->host, t->munge_socket, req,
				   timeout_ms, reply, why, sizeof(why), t->learnt,
				   sizeof(t->learnt));
	/* the name goes into the next credential: a node name's characters only */
	if (r != -EREMOTEIO || !t->learnt[0] ||
	    t->learnt[strspn(t->learnt,
			     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			     "._-")]) {
		if (r == -EREMOTEIO)
			fprintf(stderr, "%s: %s\n", prog, why);
		else if (r < 0)
			fprintf(stderr, "%s: cannot reach tracerd at %s:%u: %s\n", prog, t->host,
				t->port, strerror(-r));
		return r;
	}
	t->node = t->learnt;
	return client_request_tcp(prog, t->host, t->port, t->node, t->munge_socket, req, timeout_ms,
				  reply);
}

/* A reply's strings (unit and process names, commands, reasons: users' text) escaped once, for
 * every way it is printed (safetext.h). */
static int printable(int r, struct json_object **reply)
{
	if (r == 0 && safe_text_json(*reply) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		json_object_put(*reply);
		*reply = NULL;
		return -ENOMEM;
	}
	return r;
}

static int request(struct target *t, struct json_object *req, int timeout_ms,
		   struct json_object **reply)
{
	if (t->host && !t->node)
		return printable(request_by_address(t, req, timeout_ms, reply), reply);
	if (t->host)
		return printable(client_request_tcp(prog, t->host, t->port, t->node,
						    t->munge_socket, req, timeout_ms, reply),
				 reply);
	return printable(client_request(prog, t->sock, req, timeout_ms, reply), reply);
}

/* Processes of running units that made no progress for StallAfter, yours (all for root). */
static void print_stalled(struct json_object *reply)
{
	struct json_object *st;
	size_t i, n;
	time_t now = time(NULL);

	if (!json_object_object_get_ex(reply, "stalled", &st))
		return;
	n = json_object_array_length(st);
	printf("  stalled processes %zu\n", n);
	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(st, i);
		time_t since = (time_t)(reply_int(o, "since_ns", 0) / 1000000000);
		char when[16], job[48] = "", dur[32];
		struct tm tm;

		strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&since, &tm));
		if (reply_int(o, "job_id", 0))
			snprintf(job, sizeof(job), ", job %" PRId64, reply_int(o, "job_id", 0));
		fmt_elapsed(dur, sizeof(dur), now > since ? (int64_t)(now - since) : 0);
		printf("    pid %" PRId64 " %s (unit %" PRId64
		       " %s%s): stalled since %s (for %s), %s\n",
		       reply_int(o, "pid", 0), reply_str(o, "comm", "?"), reply_int(o, "unit", 0),
		       reply_str(o, "name", "?"), job, when, dur, reply_str(o, "reason", "?"));
	}
}

/* One line: the store's use, and the users who hold the most of it (a user: their own). */
static void print_store(struct json_object *reply)
{
	struct json_object *st, *users;
	char used[32], max[32], held[32];
	size_t i, n;

	if (!json_object_object_get_ex(reply, "store", &st) ||
	    !json_object_object_get_ex(st, "users", &users))
		return;
	fmt_size(used, sizeof(used), (double)reply_int(st, "used_bytes", 0), U_NONE, -1, 0);
	fmt_size(max, sizeof(max), (double)reply_int(st, "max_bytes", 0), U_NONE, -1, 0);
	printf("  store             %s of %s", used,
	       reply_int(st, "max_bytes", 0) ? max : "no limit");
	n = json_object_array_length(users);
	for (i = 0; i < n; i++) {
		struct json_object *u = json_object_array_get_idx(users, i);
		const struct passwd *pw = getpwuid((uid_t)reply_int(u, "uid", -1));

		fmt_size(held, sizeof(held), (double)reply_int(u, "bytes", 0), U_NONE, -1, 0);
		printf("%s", i ? ", " : "; by user: ");
		if (pw)
			printf("%s", pw->pw_name);
		else
			printf("uid %" PRId64, reply_int(u, "uid", -1));
		printf(" %s in %" PRId64 " units", held, reply_int(u, "units", 0));
	}
	if (reply_int(st, "more_users", 0) > 0)
		printf(", %" PRId64 " more users", reply_int(st, "more_users", 0));
	printf("\n");
}

static int cmd_status(struct target *t, int argc, char **argv)
{
	struct json_object *reply, *sigs, *ev, *reg = NULL;
	int json = argc > 1 && strcmp(argv[1], "--json") == 0;
	size_t i;
	int r;

	struct json_object *req = proto_request(OP_STATUS);

	r = request(t, req, 5000, &reply);
	json_object_put(req);
	if (r < 0)
		return 1;
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PRETTY));
		json_object_put(reply);
		return 0;
	}
	printf("tracerd on node %s, pid %" PRId64 ", %s %s\n", reply_str(reply, "node", "?"),
	       reply_int(reply, "pid", 0), t->host ? "reached over TCP at" : "socket",
	       t->host ? t->host : t->sock);
	printf("  running units     %" PRId64 "\n", reply_int(reply, "running_units", 0));
	printf("  live processes    %" PRId64 "\n", reply_int(reply, "live_processes", 0));
	printf("  stored processes  %" PRId64 " since start\n",
	       reply_int(reply, "stored_processes", 0));
	print_store(reply);
	print_export(reply);
	print_metrics(reply);
	if (json_object_object_get_ex(reply, "events", &ev))
		printf("  kernel events     fork %" PRId64 ", exec %" PRId64 ", exit %" PRId64
		       ", oom %" PRId64 ", lost %" PRId64 " (%" PRId64 " of them refused to users "
		       "holding too much of the ring), unstored %" PRId64 "\n",
		       reply_int(ev, "fork", 0), reply_int(ev, "exec", 0), reply_int(ev, "exit", 0),
		       reply_int(ev, "oom", 0), reply_int(ev, "lost", 0),
		       reply_int(ev, "refused", 0), reply_int(ev, "unstored", 0));
	if (ev && reply_int(ev, "subuid_ranges_left_out", 0) > 0)
		printf("  subordinate uids  %" PRId64 " ranges beyond the kernel side's %" PRId64
		       ": their uids hold a share of the ring each, not their owner's\n",
		       reply_int(ev, "subuid_ranges_left_out", 0),
		       reply_int(ev, "subuid_ranges", 0));
	print_stalled(reply);
	if (json_object_object_get_ex(reply, "kernel_registration", &reg))
		printf("  registration      %s\n",
		       reply_int(reg, "pinned", 0)
			       ? "in the kernel, through the map the SPANK plugin writes"
			       : "through the socket alone: no pinned map");
	if (reg && !reply_int(reg, "pinned", 1))
		printf("                    (%s)\n", reply_str(reg, "reason", "?"));
	printf("  signals\n");
	if (json_object_object_get_ex(reply, "signals", &sigs)) {
		for (i = 0; i < json_object_array_length(sigs); i++) {
			struct json_object *s = json_object_array_get_idx(sigs, i), *av, *nd;
			int ok = json_object_object_get_ex(s, "available", &av) &&
				 json_object_get_boolean(av);
			int unneeded = json_object_object_get_ex(s, "needed", &nd) &&
				       !json_object_get_boolean(nd);

			printf("    %-30s %s", reply_str(s, "name", "?"),
			       ok	  ? "available"
			       : unneeded ? "not needed"
					  : "UNAVAILABLE");
			if (unneeded)
				printf(" (%s)", reply_str(s, "reason", "?"));
			else if (!ok)
				printf(" (%s): no %s", reply_str(s, "reason", "?"),
				       reply_str(s, "provides", "?"));
			printf("\n");
		}
	}
	json_object_put(reply);
	return 0;
}

/* CPU time as MM:SS.mmm (H:MM:SS.mmm from an hour): the three figures of the summary's line in
 * one format, where sacct's drops the milliseconds of a whole second */
static void cpu_text(char *out, size_t len, int64_t ns)
{
	int64_t ms = ns > 0 ? ns / 1000000 : 0, s = ms / 1000;

	if (s >= 3600)
		snprintf(out, len, "%" PRId64 ":%02" PRId64 ":%02" PRId64 ".%03" PRId64, s / 3600,
			 s / 60 % 60, s % 60, ms % 1000);
	else
		snprintf(out, len, "%02" PRId64 ":%02" PRId64 ".%03" PRId64, s / 60, s % 60,
			 ms % 1000);
}

/* The one-screen summary of a finished run, on stderr so CMD's output stays clean. */
static void print_summary(struct json_object *reply, double elapsed, const char *node)
{
	struct json_object *u, *t;
	char cpu[32], user[32], sys[32], rss[32], rd[32], wr[32];
	int status;

	if (!json_object_object_get_ex(reply, "unit", &u) ||
	    !json_object_object_get_ex(reply, "totals", &t))
		return;
	status = (int)reply_int(u, "exit_status", -1);
	cpu_text(cpu, sizeof(cpu), reply_int(t, "cpu_ns", 0));
	cpu_text(user, sizeof(user), reply_int(t, "user_ns", 0));
	cpu_text(sys, sizeof(sys), reply_int(t, "sys_ns", 0));
	fmt_size(rss, sizeof(rss), (double)reply_int(t, "maxrss_kb", 0), U_K, -1, 0);
	fmt_size(rd, sizeof(rd), (double)reply_int(t, "read_bytes", 0), U_NONE, -1, 0);
	fmt_size(wr, sizeof(wr), (double)reply_int(t, "write_bytes", 0), U_NONE, -1, 0);
	fprintf(stderr, "\ntracer: %s (run r%" PRId64 ") %s after %.2fs, ",
		reply_str(u, "name", "?"), reply_int(u, "id", 0), reply_str(u, "state", "?"),
		elapsed);
	if (status >= 0 && WIFSIGNALED(status))
		fprintf(stderr, "killed by signal %d\n", WTERMSIG(status));
	else
		fprintf(stderr, "exit code %d\n", status >= 0 ? WEXITSTATUS(status) : -1);
	fprintf(stderr,
		"  processes   %" PRId64 " recorded, %" PRId64 " still running, %" PRId64
		" events lost\n",
		reply_int(t, "nprocs", 0) - reply_int(t, "running_procs", 0),
		reply_int(u, "live", 0), reply_int(u, "lost_events", 0));
	fprintf(stderr, "  cpu         %s (user %s, system %s)\n", cpu, user, sys);
	fprintf(stderr, "  peak rss    %s (largest process)\n", rss);
	fprintf(stderr, "  storage     read %s, written %s\n", rd, wr);
	if (reply_int(t, "oom_kills", 0))
		fprintf(stderr, "  OOM kills   %" PRId64 "\n", reply_int(t, "oom_kills", 0));
	/* a run's id has its own prefix: never mistaken for a Slurm job's */
	fprintf(stderr, "  details     tracer-jobstat %s%s%s-j r%" PRId64 " --processes\n",
		node ? "-N " : "", node ? node : "", node ? " " : "", reply_int(u, "id", 0));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Ask for the end of the run; a daemon restarting meanwhile gets a few seconds to come back. */
static struct json_object *end_run(const char *sock, int64_t unit, int status)
{
	struct json_object *req, *reply = NULL;
	char why[1024] = ""; /* truncated past that: it ends a line of ours */
	int attempt, r = -1;

	for (attempt = 0; attempt < 20; attempt++) {
		req = proto_request(OP_RUN_END);
		json_object_object_add(req, "unit", json_object_new_int64(unit));
		json_object_object_add(req, "status", json_object_new_int(status));
		r = printable(client_request_why(NULL, sock, req, 10000, &reply, why, sizeof(why)),
			      &reply);
		json_object_put(req);
		if (r != -ECONNREFUSED && r != -ENOENT)
			break;
		usleep(250000);
	}
	if (r < 0)
		fprintf(stderr, "%s: the end of run r%" PRId64 " was not recorded: %s\n", prog,
			unit, why);
	return r == 0 ? reply : NULL;
}

static int cmd_run(const char *sock, const char *node, int argc, char **argv)
{
	static const struct option longopts[] = { { "name", required_argument, NULL, 'n' },
						  { "pipeline", required_argument, NULL, 'p' },
						  { "run", required_argument, NULL, 'r' },
						  { "step", required_argument, NULL, 's' },
						  { "help", no_argument, NULL, 'h' },
						  {} };
	const char *keys[4] = { "name", "pipeline", "run", "step" }, *vals[4] = {};
	struct json_object *req, *reply = NULL, *u;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int go[2], c, i, status = 0, r;
	int64_t unit = 0;
	double t0;
	pid_t pid;
	char b;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+n:p:r:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			vals[0] = optarg;
			break;
		case 'p':
			vals[1] = optarg;
			break;
		case 'r':
			vals[2] = optarg;
			break;
		case 's':
			vals[3] = optarg;
			break;
		default:
			usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s run: no command given\n", prog);
		return 2;
	}
	if (vals[0] && slurm_id_shaped(vals[0])) { /* tracerd refuses it too */
		fprintf(stderr, "%s run: %s\n", prog, SLURM_ID_SHAPED_WHY);
		return 2;
	}
	if (pipe2(go, O_CLOEXEC) < 0) {
		perror("pipe");
		return 1;
	}
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		/* wait until tracerd tracks us, so the very first exec is seen */
		close(go[1]);
		if (read(go[0], &b, 1) < 0)
			_exit(127);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "%s run: %s: %s\n", prog, argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(go[0]);
	req = proto_request(OP_RUN_BEGIN);
	json_object_object_add(req, "pid", json_object_new_int(pid));
	for (i = 0; i < 4; i++)
		if (vals[i])
			json_object_object_add(req, keys[i], json_object_new_string(vals[i]));
	r = client_request(prog, sock, req, 5000, &reply);
	json_object_put(req);
	if (r == 0 && json_object_object_get_ex(reply, "unit", &u))
		unit = reply_int(u, "id", 0);
	else
		fprintf(stderr,
			"%s: running %s untraced (is tracerd running? its log, or "
			"'systemctl status tracerd', says why)\n",
			prog, argv[optind]);
	json_object_put(reply);
	if (write(go[1], "g", 1) < 0)
		perror("write");
	close(go[1]);

	/* like system(3): the terminal's ^C and ^\ are for the command */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	if (unit) {
		reply = end_run(sock, unit, status);
		if (reply) {
			print_summary(reply, now_s() - t0, node);
			json_object_put(reply);
		}
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int cmd_register(const char *sock, int argc, char **argv)
{
	static const struct option longopts[] = { { "uid", required_argument, NULL, 'u' },
						  { "gid", required_argument, NULL, 'g' },
						  { "pid", required_argument, NULL, 'p' },
						  { "cgroup-id", required_argument, NULL, 'C' },
						  { "name", required_argument, NULL, 'n' },
						  { "job-id", required_argument, NULL, 'j' },
						  { "step-id", required_argument, NULL, 's' },
						  { "task-id", required_argument, NULL, 't' },
						  { "cluster", required_argument, NULL, 'c' },
						  { "job-name", required_argument, NULL, 'J' },
						  { "cgroup-path", required_argument, NULL, 'P' },
						  { "pipeline", required_argument, NULL, 'l' },
						  { "run", required_argument, NULL, 'r' },
						  { "step", required_argument, NULL, 'S' },
						  { "alloc-cpus", required_argument, NULL, 'a' },
						  { "alloc-mem-mb", required_argument, NULL, 'm' },
						  { "account", required_argument, NULL, 'A' },
						  { "partition", required_argument, NULL, 'Q' },
						  { "nodelist", required_argument, NULL, 'L' },
						  {} };
	static const struct {
		int opt;
		const char *key;
		int number;
	} map[] = {
		{ 'u', "uid", 1 },	    { 'g', "gid", 1 },	       { 'p', "pid", 1 },
		{ 'C', "cgroup_id", 1 },    { 'n', "name", 0 },	       { 'j', "job_id", 1 },
		{ 's', "step_id", 1 },	    { 't', "task_id", 1 },     { 'c', "cluster", 0 },
		{ 'J', "job_name", 0 },	    { 'P', "cgroup_path", 0 }, { 'l', "pipeline", 0 },
		{ 'r', "run", 0 },	    { 'S', "step", 0 },	       { 'a', "alloc_cpus", 1 },
		{ 'm', "alloc_mem_mb", 1 }, { 'A', "account", 0 },     { 'Q', "partition", 0 },
		{ 'L', "nodelist", 0 },
	};
	struct json_object *req = proto_request(OP_REGISTER), *reply, *u;
	size_t i;
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		for (i = 0; i < sizeof(map) / sizeof(*map) && map[i].opt != c; i++)
			;
		if (i == sizeof(map) / sizeof(*map)) {
			usage(stderr);
			json_object_put(req);
			return 2;
		}
		if (map[i].number) {
			long long v = strtoll(optarg, &end, 10);

			if (!*optarg || *end) {
				fprintf(stderr, "%s register: %s wants a number, not '%s'\n", prog,
					map[i].key, optarg);
				json_object_put(req);
				return 2;
			}
			json_object_object_add(req, map[i].key, json_object_new_int64(v));
		} else {
			json_object_object_add(req, map[i].key, json_object_new_string(optarg));
		}
	}
	/* name the thing that is wrong, not the errno tracerd would answer with */
	if (json_object_object_get_ex(req, "pid", &u) &&
	    kill((pid_t)json_object_get_int64(u), 0) < 0 && errno == ESRCH) {
		fprintf(stderr, "%s register: process %" PRId64 " does not exist\n", prog,
			json_object_get_int64(u));
		json_object_put(req);
		return 1;
	}
	c = client_request(prog, sock, req, 5000, &reply);
	json_object_put(req);
	if (c < 0)
		return 1;
	if (json_object_object_get_ex(reply, "unit", &u))
		printf("%" PRId64 "\n", reply_int(u, "id", 0));
	json_object_put(reply);
	return 0;
}

static int cmd_unregister(const char *sock, int argc, char **argv)
{
	struct json_object *req, *reply;
	char *end;
	long long unit;
	int r;

	if (argc < 2 || (unit = strtoll(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "%s unregister: give a unit id\n", prog);
		return 2;
	}
	req = proto_request(OP_UNREGISTER);
	json_object_object_add(req, "unit", json_object_new_int64(unit));
	if (argc >= 4 && strcmp(argv[2], "--status") == 0)
		json_object_object_add(req, "status", json_object_new_int(atoi(argv[3]) << 8));
	r = client_request(prog, sock, req, 10000, &reply);
	json_object_put(req);
	if (r < 0)
		return 1;
	json_object_put(reply);
	return 0;
}

/* --unpin with no tracerd running (stopped by systemctl, or gone): its pin set, which keeps
 * tracer's programs attached, removed here. Only when the node's lock is free: a running
 * tracerd's set is its own. */
static int unpin_offline(const struct client_target *ct)
{
	struct tracer_config cfg;
	char lock[4096], pins[4096];
	int fd, r;

	if (geteuid() != 0) {
		fprintf(stderr, "%s shutdown --unpin: only root removes a pin set\n", prog);
		return 1;
	}
	if (client_config(ct, &cfg) < 0 || config_lock_path(&cfg, ct->node, lock, sizeof(lock)) ||
	    config_pin_path(&cfg, ct->node, NULL, pins, sizeof(pins)))
		return 1;
	fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "%s: a tracerd holds %s but does not answer: its pins stay\n", prog,
			lock);
		close(fd);
		return 1;
	}
	r = pinset_remove(pins);
	if (fd >= 0)
		close(fd); /* its lock with it */
	if (r == -ENOENT) {
		fprintf(stderr, "no tracerd is running, and no pin set is left at %s\n", pins);
		return 0;
	}
	if (r < 0) {
		fprintf(stderr, "%s: cannot remove the pin set %s: %s\n", prog, pins, strerror(-r));
		return 1;
	}
	fprintf(stderr,
		"no tracerd was running: its pin set %s is removed and its programs are "
		"detached\n",
		pins);
	return 0;
}

/* Stop tracerd, and wait (10 s at most) until it is gone, so that what it leaves is final. */
static int cmd_shutdown(const struct client_target *ct, const char *sock, int argc, char **argv)
{
	struct json_object *req, *reply;
	int unpin = argc > 1 && strcmp(argv[1], "--unpin") == 0, r, i;
	char why[8192];
	pid_t pid;

	if (argc > 1 + unpin) {
		fprintf(stderr, "%s shutdown: only --unpin is taken\n", prog);
		return 2;
	}
	req = proto_request(OP_SHUTDOWN);
	json_object_object_add(req, "unpin", json_object_new_boolean(unpin));
	r = client_request_why(NULL, sock, req, 10000, &reply, why, sizeof(why));
	json_object_put(req);
	if (r < 0 && unpin && (r == -ENOENT || r == -ECONNREFUSED))
		return unpin_offline(ct);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return 1;
	}
	pid = (pid_t)reply_int(reply, "pid", 0);
	json_object_put(reply);
	for (i = 0; pid > 0 && i < 100 && (kill(pid, 0) == 0 || errno != ESRCH); i++)
		usleep(100 * 1000);
	if (i == 100) {
		fprintf(stderr, "%s: tracerd (pid %d) has not stopped after 10 s\n", prog,
			(int)pid);
		return 1;
	}
	fprintf(stderr, "tracerd stopped%s\n",
		unpin ? "; its programs are detached and its pins removed"
		      : "; its programs stay attached and the next tracerd takes them over");
	return 0;
}

int main(int argc, char **argv)
{
	struct client_target ct = {};
	struct target t = {};
	struct tracer_config cfg;
	char sock[4096], host[256], *colon;
	int c;

	while ((c = getopt(argc, argv, "+c:N:H:h")) != -1) {
		switch (c) {
		case 'c':
			ct.config = optarg;
			break;
		case 'N':
			ct.node = optarg;
			break;
		case 'H':
			snprintf(host, sizeof(host), "%s", optarg);
			t.host = host;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	argc -= optind;
	argv += optind;
	if (t.host) {
		/* HOST:PORT, or HOST with the configured ListenPort; [v6]:PORT too */
		if (client_config(&ct, &cfg) < 0)
			return 1;
		snprintf(t.munge_socket, sizeof(t.munge_socket), "%s", cfg.munge_socket);
		/* without :PORT, the node's port (NodePorts) when -N names it, else ListenPort */
		t.port = config_listen_port(&cfg, ct.node);
		colon = strrchr(host, ':');
		if (colon && (host[0] != '[' || colon[-1] == ']')) {
			*colon = 0;
			t.port = atoi(colon + 1);
		}
		if (host[0] == '[' && host[strlen(host) - 1] == ']') {
			host[strlen(host) - 1] = 0;
			t.host = host + 1;
		}
		t.node = ct.node; /* else learnt from the daemon's answer */
		if (!t.port) {
			fprintf(stderr, "%s: -H needs HOST:PORT or a ListenPort in tracer.conf\n",
				prog);
			return 2;
		}
		if (strcmp(argv[0], proto_op_name(OP_STATUS)) == 0)
			return cmd_status(&t, argc, argv);
		fprintf(stderr, "%s: only status is served over TCP (-H)\n", prog);
		return 2;
	}
	if (client_socket_path(&ct, sock, sizeof(sock)) < 0)
		return 1;
	t.sock = sock;
	if (strcmp(argv[0], proto_op_name(OP_STATUS)) == 0)
		return cmd_status(&t, argc, argv);
	if (strcmp(argv[0], "run") == 0)
		return cmd_run(sock, ct.node, argc, argv);
	if (strcmp(argv[0], proto_op_name(OP_REGISTER)) == 0)
		return cmd_register(sock, argc, argv);
	if (strcmp(argv[0], proto_op_name(OP_UNREGISTER)) == 0)
		return cmd_unregister(sock, argc, argv);
	if (strcmp(argv[0], proto_op_name(OP_SHUTDOWN)) == 0)
		return cmd_shutdown(&ct, sock, argc, argv);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[0]);
	usage(stderr);
	return 2;
}
