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
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "client.h"
#include "ops.h"
#include "protocol.h"
#include "trust.h"

#define PROLOG_TIMEOUT_MS 200  /* the job waits for it to start */
#define EPILOG_TIMEOUT_MS 1000 /* tracerd waits up to 100 ms per open unit for its last exits */
/* After a tracerd that did not answer, the next jobs' hooks leave their request without the
 * wait (tracerd carries it out when it reads it), for this long; then one waits again. A hung
 * tracerd thus costs one job in UNANSWERED_S its hook's timeout, not every job. */
#define UNANSWERED_S 30
#define SEND_MS 5

/* What Slurm gives the prolog of the job, and the fields tracerd takes them in */
#define FACT(var, older, field) { var, older, field },
static const char *const facts[][3] = { PROTO_JOB_FACTS(FACT) };
#undef FACT

static int env_u64(const char *name, long long *out)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return -ENOENT;
	*out = strtoll(v, &end, 10);
	return *end || *out < 0 ? -EINVAL : 0;
}

/* "SOCKET.unanswered", next to the socket in tracerd's root-only directory: its time is when a
 * hook last found tracerd not answering. Is it recent (a regular file of root's)? */
static int unanswered_lately(const char *mark)
{
	struct stat st;

	return lstat(mark, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	       time(NULL) - st.st_mtime < UNANSWERED_S;
}

static void unanswered_note(const char *mark, int unanswered)
{
	FILE *f;

	if (!unanswered) {
		unlink(mark);
		return;
	}
	unlink(mark); /* written anew: its time is now */
	if ((f = fopen(mark, "wx")))
		fclose(f);
}

int main(int argc, char **argv)
{
	const char *prog = basename(argv[0]);
	int epilog = strstr(prog, "epilog") != NULL;
	/* tracer.conf as every client finds it; the node is the one slurmd runs it for */
	struct client_target target = { .node = getenv("SLURMD_NODENAME") };
	struct json_object *req, *reply = NULL;
	long long job, uid;
	char sock[4096], mark[4200], why[8192];
	const char *v;
	int r;

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
		/* the job's account, partition and nodes: tracerd cleans and cuts them */
		for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
			if ((!(v = getenv(facts[i][0])) || !*v) && facts[i][1])
				v = getenv(facts[i][1]);
			if (v && *v && strlen(v) < PROTO_TEXT_SENT_MAX)
				json_object_object_add(req, facts[i][2], json_object_new_string(v));
		}
	}
	/* root talks only to a tracerd no other user could have put in its place */
	snprintf(mark, sizeof(mark), "%s.unanswered", sock);
	if (unanswered_lately(mark)) {
		r = trust_send(sock, req, SEND_MS, why, sizeof(why));
		if (r < 0)
			syslog(LOG_WARNING, "job %lld: tracerd at %s: %s", job, sock, why);
	} else {
		r = client_request_root(prog, sock, req,
					epilog ? EPILOG_TIMEOUT_MS : PROLOG_TIMEOUT_MS, &reply, why,
					sizeof(why));
		if (r < 0)
			syslog(LOG_WARNING,
			       "job %lld: tracerd at %s did not take the %s: %s; job goes on"
			       " untraced",
			       job, sock, epilog ? "job end" : "job start", why);
		unanswered_note(mark, r == -ETIMEDOUT);
	}
	json_object_put(reply);
	json_object_put(req);
	return 0;
}
