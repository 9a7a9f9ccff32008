/* tracer-prolog and tracer-epilog: Slurm's Prolog= and Epilog= on every node, as root.
 *
 * The prolog tells the node's tracerd that a job's allocation begins; the epilog that it is
 * over, so tracerd closes the job's units once their last exits are in. Both always exit 0:
 * a node must never be drained because tracer is down. Slurm gives them only the job's ids,
 * in the environment. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "client.h"
#include "ops.h"

#define PROLOG_TIMEOUT_MS 200  /* the job waits for it to start */
#define EPILOG_TIMEOUT_MS 1000 /* tracerd waits up to 100 ms per open unit for its last exits */

static int env_u64(const char *name, long long *out)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return -ENOENT;
	*out = strtoll(v, &end, 10);
	return *end || *out < 0 ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	const char *prog = basename(argv[0]);
	int epilog = strstr(prog, "epilog") != NULL;
	/* tracer.conf as every client finds it; the node is the one slurmd runs it for */
	struct client_target target = { .node = getenv("SLURMD_NODENAME") };
	struct json_object *req, *reply = NULL;
	long long job, uid;
	char sock[4096], why[8192];
	const char *v;

	(void)argc;
	openlog(epilog ? "tracer-epilog" : "tracer-prolog", LOG_PID, LOG_DAEMON);
	if (env_u64("SLURM_JOB_ID", &job) < 0 || env_u64("SLURM_JOB_UID", &uid) < 0) {
		syslog(LOG_ERR,
		       "SLURM_JOB_ID or SLURM_JOB_UID missing or malformed: not run by Slurm?");
		fprintf(stderr, "%s: SLURM_JOB_ID or SLURM_JOB_UID missing or malformed\n", prog);
		return 0;
	}
	if (client_socket_path(&target, sock, sizeof(sock)) < 0) {
		syslog(LOG_ERR, "job %lld: no tracerd socket path (bad tracer.conf?)", job);
		return 0;
	}
	req = proto_request(epilog ? OP_JOB_END : OP_JOB_BEGIN);
	json_object_object_add(req, "job_id", json_object_new_int64(job));
	if (!epilog) {
		json_object_object_add(req, "uid", json_object_new_int64(uid));
		if ((v = getenv("SLURM_CLUSTER_NAME")) && *v && strlen(v) < 64)
			json_object_object_add(req, "cluster", json_object_new_string(v));
		if ((v = getenv("SLURM_JOB_NAME")) && *v && strlen(v) < 128)
			json_object_object_add(req, "job_name", json_object_new_string(v));
	}
	/* root talks only to a tracerd no other user could have put in its place */
	if (client_request_root(prog, sock, req, epilog ? EPILOG_TIMEOUT_MS : PROLOG_TIMEOUT_MS,
				&reply, why, sizeof(why)) < 0)
		syslog(LOG_WARNING,
		       "job %lld: tracerd at %s did not take the %s: %s; job goes on untraced", job,
		       sock, epilog ? "job end" : "job start", why);
	json_object_put(reply);
	json_object_put(req);
	return 0;
}
