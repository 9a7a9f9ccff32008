/* Collect: Slurm's accounting through libslurmdb. */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

#include "convert.h"
#include "jobstat.h"
#include "slurmacct.h"

#include "protocol.h"

static int slurm_ready;
static node_info_msg_t *node_table; /* slurmctld's nodes, loaded at the first address asked */
static int node_table_tried;

static void slurm_ready_up(void)
{
	if (!slurm_ready) {
		slurm_init(NULL);
		slurm_ready = 1;
	}
}

int sacct_node_addr(const char *node, char *addr, size_t len)
{
	if (!sacct_available())
		return -ENOENT;
	slurm_ready_up();
	if (!node_table_tried) {
		node_table_tried = 1;
		if (slurm_load_node((time_t)0, &node_table, SHOW_ALL) != SLURM_SUCCESS)
			node_table = NULL;
	}
	for (uint32_t i = 0; node_table && i < node_table->record_count; i++) {
		const node_info_t *n = &node_table->node_array[i];

		if (!n->name || strcmp(n->name, node) != 0)
			continue;
		if (!n->node_addr || !n->node_addr[0] || strlen(n->node_addr) >= len)
			return -ENOENT;
		snprintf(addr, len, "%s", n->node_addr);
		return 0;
	}
	return -ENOENT;
}

int sacct_available(void)
{
	const char *c = getenv("SLURM_CONF");

	if (c && *c)
		return access(c, R_OK) == 0;
	return access("/etc/slurm/slurm.conf", R_OK) == 0 ||
	       access("/run/slurm/conf/slurm.conf", R_OK) == 0 ||
	       access("/var/spool/slurmd/conf-cache/slurm.conf", R_OK) == 0;
}

void sacct_fini(void)
{
	if (node_table)
		slurm_free_node_info_msg(node_table);
	node_table = NULL;
	node_table_tried = 0;
	if (slurm_ready)
		slurm_fini();
	slurm_ready = 0;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static int64_t running_elapsed(uint32_t state, int64_t elapsed, int64_t start)
{
	unsigned base = state & JOB_STATE_BASE;

	if ((base == JOB_RUNNING || base == JOB_SUSPENDED) && start > 0)
		return (int64_t)time(NULL) - start;
	return elapsed;
}

static int convert_step(slurmdb_step_rec_t *s, struct sstep *o)
{
	memset(o, 0, sizeof(*o));
	o->step_id = s->step_id.step_id;
	copy(o->name, sizeof(o->name), s->stepname);
	copy(o->nodes, sizeof(o->nodes), s->nodes);
	o->nnodes = s->nnodes;
	o->ntasks = s->ntasks;
	o->state = s->state;
	o->requid = s->requid;
	o->start = s->start;
	o->end = s->end;
	o->elapsed = running_elapsed(s->state, s->elapsed, s->start);
	o->exitcode = s->exitcode == (int32_t)NO_VAL ? JS_NONE : s->exitcode;
	o->alloc_cpus = conv_tres(s->tres_alloc_str, 1);
	o->tot_cpu_us = (int64_t)s->tot_cpu_sec * 1000000 + s->tot_cpu_usec;
	o->user_cpu_us = (int64_t)s->user_cpu_sec * 1000000 + s->user_cpu_usec;
	o->sys_cpu_us = (int64_t)s->sys_cpu_sec * 1000000 + s->sys_cpu_usec;
	return 0;
}

/* --mem is per node, --mem-per-cpu per CPU (MEM_PER_CPU set); ReqMem is the job's total */
static void req_mem(uint32_t alloc_nodes, uint64_t mem, struct sjob *o)
{
	int64_t nodes = alloc_nodes > 0 ? (int64_t)alloc_nodes : 1;

	o->req_mem_node_mb = o->req_mem_per_cpu_mb = JS_NONE;
	if (mem && mem != NO_VAL64 && (mem & MEM_PER_CPU))
		o->req_mem_per_cpu_mb = (int64_t)(mem & ~MEM_PER_CPU);
	else if (mem && mem != NO_VAL64)
		o->req_mem_node_mb = (int64_t)mem;
	if (o->req_mem_node_mb == JS_NONE && o->req_mem_mb != JS_NONE && o->req_mem_mb > 0)
		o->req_mem_node_mb = (o->req_mem_mb + nodes - 1) / nodes;
}

/* minutes, as struct sjob holds a time limit */
static int64_t time_limit(uint32_t minutes)
{
	return minutes == INFINITE ? TL_UNLIMITED
	       : minutes == NO_VAL ? TL_PARTITION
				   : (int64_t)minutes;
}

static void user_name(struct sjob *o)
{
	struct passwd *pw = getpwuid(o->uid);

	if (pw)
		copy(o->user, sizeof(o->user), pw->pw_name);
	else
		snprintf(o->user, sizeof(o->user), "%u", o->uid);
}

static int convert_job(slurmdb_job_rec_t *j, struct sjob *o)
{
	ListIterator it;
	slurmdb_step_rec_t *s;
	struct passwd *pw;
	int n;

	memset(o, 0, sizeof(*o));
	o->job_id = j->jobid;
	o->array_job_id = j->array_job_id;
	o->array_task_id = j->array_task_id == NO_VAL || j->array_task_id == INFINITE
				   ? SJ_NO_TASK
				   : j->array_task_id;
	copy(o->array_task_str, sizeof(o->array_task_str), j->array_task_str);
	o->het_job_id = j->het_job_id;
	o->het_job_offset = j->het_job_offset;
	o->uid = j->uid;
	o->state = j->state;
	o->requid = j->requid;
	copy(o->name, sizeof(o->name), j->jobname);
	/* Just after a job ends, slurmdbd answers uid 0 for a few seconds while its user (from
	 * its association) is already right: that user's uid then, or its owner could not
	 * see it */
	if (j->uid == 0 && j->user && *j->user && (pw = getpwnam(j->user)))
		o->uid = pw->pw_uid;
	if (j->user && *j->user)
		copy(o->user, sizeof(o->user), j->user);
	else
		user_name(o);
	copy(o->nodes, sizeof(o->nodes), j->nodes);
	copy(o->partition, sizeof(o->partition), j->partition);
	copy(o->account, sizeof(o->account), j->account);
	o->qos_id = j->qosid;
	o->nnodes = j->alloc_nodes;
	o->submit = j->submit;
	o->eligible =
		j->eligible == (time_t)INFINITE || j->eligible == (time_t)NO_VAL ? 0 : j->eligible;
	o->start = j->start;
	o->end = j->end;
	o->elapsed = running_elapsed(j->state, j->elapsed, j->start);
	o->timelimit = time_limit(j->timelimit);
	o->alloc_cpus = conv_tres(j->tres_alloc_str, 1);
	o->req_mem_mb = conv_tres(j->tres_req_str, 2);
	req_mem(j->alloc_nodes, j->req_mem, o);
	o->exitcode = j->exitcode;
	o->tot_cpu_us = (int64_t)j->tot_cpu_sec * 1000000 + (int64_t)j->tot_cpu_usec;
	o->user_cpu_us = (int64_t)j->user_cpu_sec * 1000000 + (int64_t)j->user_cpu_usec;
	o->sys_cpu_us = (int64_t)j->sys_cpu_sec * 1000000 + (int64_t)j->sys_cpu_usec;
	n = j->steps ? slurm_list_count(j->steps) : 0;
	if (n <= 0)
		return 0;
	o->steps = calloc((size_t)n, sizeof(*o->steps));
	if (!o->steps)
		return -ENOMEM;
	it = slurm_list_iterator_create(j->steps);
	while ((s = slurm_list_next(it)) && o->nsteps < (size_t)n)
		convert_step(s, &o->steps[o->nsteps++]);
	slurm_list_iterator_destroy(it);
	return 0;
}

/* Does this record answer a selector? *all_steps when one wants the whole job; else the
 * steps wanted are in steps[0..*nsteps). */
static int wanted(const struct sacct_query *q, const struct sjob *j, int *all_steps,
		  uint32_t *steps, size_t *nsteps)
{
	int hit = 0;

	*all_steps = 0;
	*nsteps = 0;
	if (!q->nsel) {
		*all_steps = 1;
		return 1;
	}
	for (size_t i = 0; i < q->nsel; i++) {
		const struct jobsel *s = &q->sel[i];
		int match;

		if (s->has_tasks)
			match = j->array_job_id == s->job && j->array_task_id != SJ_NO_TASK &&
				jobsel_has_task(s, j->array_task_id);
		else
			match = j->job_id == s->job ||
				(j->array_job_id == s->job && j->array_job_id);
		if (!match)
			continue;
		if (!s->has_step)
			*all_steps = 1;
		else
			steps[(*nsteps)++] = s->step;
		hit = 1;
	}
	return hit;
}

static void keep_steps(struct sjob *j, const uint32_t *steps, size_t nsteps)
{
	size_t k = 0;

	for (size_t i = 0; i < j->nsteps; i++)
		for (size_t w = 0; w < nsteps; w++)
			if (j->steps[i].step_id == steps[w]) {
				j->steps[k++] = j->steps[i];
				break;
			}
	j->nsteps = k;
	j->step_only = 1;
}

/* A running job as slurmctld holds it; its steps come from tracer's units. */
static void convert_running(const slurm_job_info_t *c, struct sjob *o)
{
	memset(o, 0, sizeof(*o));
	o->job_id = c->job_id;
	o->array_job_id = c->array_job_id;
	o->array_task_id =
		c->array_job_id && c->array_task_id != NO_VAL && c->array_task_id != INFINITE
			? c->array_task_id
			: SJ_NO_TASK;
	copy(o->array_task_str, sizeof(o->array_task_str), c->array_task_str);
	o->het_job_id = c->het_job_id;
	o->het_job_offset = c->het_job_offset;
	o->uid = c->user_id;
	user_name(o);
	o->state = c->job_state;
	copy(o->name, sizeof(o->name), c->name);
	copy(o->nodes, sizeof(o->nodes), c->nodes);
	copy(o->partition, sizeof(o->partition), c->partition);
	copy(o->account, sizeof(o->account), c->account);
	copy(o->qos, sizeof(o->qos), c->qos);
	o->nnodes = c->num_nodes;
	o->submit = c->submit_time;
	o->eligible = c->eligible_time;
	o->start = c->start_time;
	o->elapsed = running_elapsed(c->job_state, 0, c->start_time);
	o->timelimit = time_limit(c->time_limit);
	o->alloc_cpus = conv_tres(c->tres_alloc_str, 1);
	o->req_mem_mb = conv_tres(c->tres_req_str, 2);
	req_mem(c->num_nodes, c->pn_min_memory, o);
	o->exitcode = JS_NONE;
}

static int uid_wanted(const struct sacct_query *q, uint32_t uid)
{
	for (size_t i = 0; i < q->nuids; i++)
		if (q->uids[i] == uid)
			return 1;
	return !q->nuids;
}

/* slurmdbd learns of a job's start after slurmctld, and on a busy controller seconds later:
 * until then it holds the job pending, even as "allocation" when a step's record came first.
 * A job running now is as slurmctld says: its facts replace slurmdbd's, and one slurmdbd does
 * not hold yet is added. Steps stay slurmdbd's. On any failure the records stay as they are. */
static void running_from_slurmctld(const struct sacct_query *q, struct sjob **v, size_t *n,
				   uint32_t *steps)
{
	job_info_msg_t *msg = NULL;
	size_t open = 0;

	/* a report of named jobs that have all ended asks slurmctld nothing (it may be down while
	 * slurmdbd is not); a listing asks it, for the jobs running now */
	for (size_t i = 0; i < *n; i++)
		open += ((*v)[i].state & JOB_STATE_BASE) <= JOB_SUSPENDED;
	if (q->nsel && !open)
		return;
	if (slurm_load_jobs((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS || !msg)
		return;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *c = &msg->job_array[i];
		unsigned base = c->job_state & JOB_STATE_BASE;
		struct sjob now, *grown;
		size_t at, nsteps;
		int all_steps;

		if ((base != JOB_RUNNING && base != JOB_SUSPENDED) || !uid_wanted(q, c->user_id) ||
		    (q->end && c->start_time > q->end))
			continue;
		convert_running(c, &now);
		for (at = 0; at < *n && (*v)[at].job_id != c->job_id; at++)
			;
		if (at < *n) {
			now.steps = (*v)[at].steps;
			now.nsteps = (*v)[at].nsteps;
			now.step_only = (*v)[at].step_only;
			(*v)[at] = now;
			continue;
		}
		if (!wanted(q, &now, &all_steps, steps, &nsteps))
			continue;
		if (!(grown = realloc(*v, (*n + 1) * sizeof(**v))))
			break;
		*v = grown;
		now.step_only = !all_steps;
		(*v)[(*n)++] = now;
	}
	slurm_free_job_info_msg(msg);
}

/* QOS ids to names, as sacct shows them: one query for all the jobs */
static void qos_names(void *db, struct sjob *v, size_t n)
{
	slurmdb_qos_cond_t cond = { .with_deleted = 1 };
	slurmdb_qos_rec_t *q;
	ListIterator it;
	List all;
	size_t i;

	for (i = 0; i < n && !v[i].qos_id; i++)
		;
	if (i == n || !(all = slurmdb_qos_get(db, &cond)))
		return;
	it = slurm_list_iterator_create(all);
	while ((q = slurm_list_next(it)))
		for (i = 0; i < n; i++)
			if (v[i].qos_id == q->id)
				copy(v[i].qos, sizeof(v[i].qos), q->name);
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(all);
}

/* sacct's order: by job id, array tasks together under their array's id */
static int by_id(const void *a, const void *b)
{
	const struct sjob *x = a, *y = b;
	uint32_t kx = x->array_job_id ? x->array_job_id : x->job_id,
		 ky = y->array_job_id ? y->array_job_id : y->job_id;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->array_task_id != y->array_task_id)
		return x->array_task_id < y->array_task_id ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

int sacct_jobs(const struct sacct_query *q, struct sjob **out, size_t *nout, char *err,
	       size_t errlen)
{
	slurmdb_job_cond_t cond;
	void *db = NULL;
	List jobs = NULL;
	ListIterator it;
	slurmdb_job_rec_t *rec;
	struct sjob *v = NULL;
	size_t n = 0, cap;
	uint16_t persist = 0;
	uint32_t *steps = NULL;
	int ret = 0;

	if (!sacct_available()) {
		proto_errf(err, errlen, "no Slurm configuration (SLURM_CONF)");
		return -ENOENT;
	}
	slurm_ready_up();
	memset(&cond, 0, sizeof(cond));
	cond.flags = JOBCOND_FLAG_NO_TRUNC;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	cond.usage_start = q->start;
	cond.usage_end = q->end;
	if (q->nsel) {
		cond.step_list = slurm_list_create(free);
		for (size_t i = 0; i < q->nsel; i++) {
			slurm_selected_step_t *s = calloc(1, sizeof(*s));

			if (!s) {
				ret = -ENOMEM;
				goto out;
			}
			s->array_task_id = NO_VAL;
			s->het_job_offset = NO_VAL;
			s->step_id.job_id = q->sel[i].job;
			s->step_id.step_het_comp = NO_VAL;
			s->step_id.step_id = NO_VAL;
			slurm_list_append(cond.step_list, s);
		}
	}
	if (q->nuids) {
		cond.userid_list = slurm_list_create(free);
		for (size_t i = 0; i < q->nuids; i++) {
			char *u = malloc(16);

			if (!u) {
				ret = -ENOMEM;
				goto out;
			}
			snprintf(u, 16, "%u", (unsigned)q->uids[i]);
			slurm_list_append(cond.userid_list, u);
		}
	}
	db = slurmdb_connection_get(&persist);
	if (!db) {
		proto_errf(err, errlen, "cannot reach slurmdbd: %s",
			   slurm_strerror(slurm_get_errno()));
		ret = -EHOSTUNREACH;
		goto out;
	}
	jobs = slurmdb_jobs_get(db, &cond);
	if (!jobs) {
		proto_errf(err, errlen, "slurmdbd did not answer the job query: %s",
			   slurm_strerror(slurm_get_errno()));
		ret = -EIO;
		goto out;
	}
	cap = (size_t)slurm_list_count(jobs);
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto out;
	}
	steps = calloc(q->nsel + 1, sizeof(*steps));
	if (!steps) {
		ret = -ENOMEM;
		goto out;
	}
	it = slurm_list_iterator_create(jobs);
	while ((rec = slurm_list_next(it)) && n < cap) {
		int all_steps;
		size_t nsteps;

		if ((ret = convert_job(rec, &v[n])) < 0)
			break;
		if (!wanted(q, &v[n], &all_steps, steps, &nsteps)) {
			free(v[n].steps);
			continue;
		}
		if (!all_steps)
			keep_steps(&v[n], steps, nsteps);
		n++;
	}
	slurm_list_iterator_destroy(it);
	if (ret < 0) {
		sacct_free(v, n);
		v = NULL;
		n = 0;
	} else {
		running_from_slurmctld(q, &v, &n, steps);
		qos_names(db, v, n);
	}
out:
	free(steps);
	if (jobs)
		slurm_list_destroy(jobs);
	if (db)
		slurmdb_connection_close(&db);
	if (cond.step_list)
		slurm_list_destroy(cond.step_list);
	if (cond.userid_list)
		slurm_list_destroy(cond.userid_list);
	if (ret < 0)
		return ret;
	if (n > 1)
		qsort(v, n, sizeof(*v), by_id);
	*out = v;
	*nout = n;
	return 0;
}

void sacct_free(struct sjob *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++)
		free(jobs[i].steps);
	free(jobs);
}
