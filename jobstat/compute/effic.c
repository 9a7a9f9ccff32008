/* Efficiency and rightsizing. */
#include <stdio.h>
#include <string.h>

#include "aggregate.h"
#include "convert.h"
#include "effic.h"

/* TotalCPU / (wall x AllocCPUS), wall in ns */
static double eff_cpu_ns(int64_t cpu_ns, int64_t wall_ns, int64_t alloc_cpus)
{
	if (cpu_ns == JS_NONE || cpu_ns < 0 || wall_ns == JS_NONE || wall_ns <= 0 ||
	    alloc_cpus == JS_NONE || alloc_cpus <= 0)
		return -1;
	return 100.0 * (double)cpu_ns / ((double)wall_ns * (double)alloc_cpus);
}

double eff_cpu(int64_t cpu_ns, int64_t elapsed_s, int64_t alloc_cpus)
{
	return eff_cpu_ns(cpu_ns,
			  elapsed_s == JS_NONE || elapsed_s <= 0 ? JS_NONE : elapsed_s * 1000000000,
			  alloc_cpus);
}

/* the tasks a row's per-task figures scale by: the given count, else its task units, else 1 */
static int64_t tasks_of(const struct figures *f, int64_t ntasks)
{
	return ntasks == JS_NONE || ntasks < 1 ? (f->ntasks > 0 ? f->ntasks : 1) : ntasks;
}

double eff_mem(int64_t peak_kb, int64_t req_mb)
{
	if (peak_kb == JS_NONE || peak_kb < 0 || req_mb == JS_NONE || req_mb <= 0)
		return -1;
	return 100.0 * (double)peak_kb / ((double)req_mb * 1024.0);
}

double eff_time(int64_t elapsed_s, int64_t limit_min)
{
	if (elapsed_s == JS_NONE || elapsed_s < 0 || limit_min == JS_NONE || limit_min <= 0)
		return -1;
	return 100.0 * (double)elapsed_s / ((double)limit_min * 60.0);
}

int64_t eff_peak_memory(const struct figures *f, int64_t ntasks, const char **src)
{
	int64_t n = tasks_of(f, ntasks);

	*src = NULL;
	if (!f->nunits)
		return JS_NONE;
	if (f->cgroup_mem_peak_kb != JS_NONE && f->cgroup_mem_peak_kb > 0) {
		*src = "cgroup";
		return f->nprocs > 0 && f->maxrss_kb > f->cgroup_mem_peak_kb
			       ? f->maxrss_kb
			       : f->cgroup_mem_peak_kb;
	}
	if (f->task_peak_rss_kb != JS_NONE && f->task_peak_rss_kb > 0) {
		int64_t v = f->task_peak_rss_kb * n;

		/* samples miss a short peak: never below the largest process's own */
		*src = "sampled";
		if (f->nprocs > 0 && f->maxrss_kb != JS_NONE && f->maxrss_kb > v) {
			*src = "maxrss";
			v = f->maxrss_kb;
		}
		return v;
	}
	if (f->maxrss_kb != JS_NONE && f->nprocs > 0) {
		*src = "maxrss";
		return f->maxrss_kb * n;
	}
	return JS_NONE;
}

int64_t eff_own_peak(const struct figures *f, int64_t ntasks)
{
	int64_t n = tasks_of(f, ntasks);
	int64_t own = JS_NONE;

	if (f->maxrss_kb != JS_NONE && f->maxrss_kb > 0 && f->nprocs > 0)
		own = f->maxrss_kb;
	if (f->task_peak_rss_kb != JS_NONE && f->task_peak_rss_kb > 0)
		fig_max(&own, f->task_peak_rss_kb * n);
	return own;
}

int64_t eff_node_peak_memory(const struct figures *f, int64_t ntasks, int64_t nnodes)
{
	int64_t n = tasks_of(f, ntasks);
	int64_t nodes = nnodes == JS_NONE || nnodes < 1 ? (f->nnodes > 0 ? f->nnodes : 1) : nnodes;
	int64_t per_node = (n + nodes - 1) / nodes, v = JS_NONE;

	if (!f->nunits)
		return JS_NONE;
	if (f->node_mem_peak_kb != JS_NONE && f->node_mem_peak_kb > 0)
		v = f->node_mem_peak_kb;
	else if (f->task_peak_rss_kb != JS_NONE && f->task_peak_rss_kb > 0)
		v = f->task_peak_rss_kb * per_node;
	else if (f->maxrss_kb != JS_NONE && f->nprocs > 0)
		v = f->maxrss_kb * per_node;
	/* a cgroup that was not charged for all of a process's pages is still not below it */
	if (f->nprocs > 0)
		fig_max(&v, f->maxrss_kb);
	return v;
}

double eff_cores(const struct figures *f, int64_t cpu_ns, int64_t wall_ns, int64_t ntasks,
		 const char **src)
{
	int64_t n = tasks_of(f, ntasks);

	*src = NULL;
	if (f->task_peak_cores >= 0) {
		*src = "sampled";
		return f->task_peak_cores;
	}
	if (cpu_ns == JS_NONE || wall_ns == JS_NONE || wall_ns <= 0)
		return -1;
	*src = "average";
	return (double)cpu_ns / (double)wall_ns / (double)n;
}

int suggest_cpus(double cores)
{
	int64_t c;

	if (!(cores >= 0))
		return -1;
	c = conv_ceil(cores - CORE_SLACK);
	return c < 1 ? 1 : (int)c;
}

int64_t suggest_mem_mb(int64_t peak_kb)
{
	if (peak_kb == JS_NONE || peak_kb <= 0)
		return -1;
	return conv_ceil(MEM_HEADROOM * (double)peak_kb / 1024.0);
}

void suggest_mem_text(char *out, size_t len, int64_t mb)
{
	if (mb < 0)
		snprintf(out, len, JS_UNKNOWN);
	else if (mb >= 10240)
		snprintf(out, len, "%lldG", (long long)((mb + 1023) / 1024));
	else
		snprintf(out, len, "%lldM", (long long)mb);
}

int64_t time_round_min(int64_t m)
{
	if (m < 1)
		return 1;
	if (m <= 60)
		return m;
	if (m <= 24 * 60)
		return (m + 14) / 15 * 15;
	return (m + 59) / 60 * 60;
}

int64_t suggest_time_min(int64_t elapsed_s)
{
	if (elapsed_s == JS_NONE || elapsed_s < 0)
		return -1;
	return time_round_min(conv_ceil(TIME_HEADROOM * (double)elapsed_s / 60.0));
}

int eff_colour(double pct)
{
	if (pct < 0)
		return 0;
	return pct < 20 ? -1 : pct > 80 ? 1 : 0;
}

double row_cpu_eff(const struct row *r)
{
	if (r->running)
		return -1;
	/* exact times (report.c's wall_ns): Elapsed's whole seconds would put a short job above
	 * 100 % */
	if (r->wall_ns != JS_NONE)
		return eff_cpu_ns(r->cpu_ns, r->wall_ns, r->alloc_cpus);
	return eff_cpu(r->cpu_ns, r->elapsed, r->alloc_cpus);
}

double row_mem_eff(const struct row *r)
{
	if (r->running)
		return -1;
	return eff_mem(r->peak_mem_kb, r->req_mem_share_mb);
}

double row_time_eff(const struct row *r)
{
	if (r->running || (r->kind != ROW_JOB && r->kind != ROW_LOCAL))
		return -1;
	return eff_time(r->elapsed, r->timelimit);
}

int row_oom(const struct row *r)
{
	return (r->f.oom_kills != JS_NONE && r->f.oom_kills > 0) ||
	       strncmp(r->state, "OUT_OF_MEMORY", 13) == 0;
}

int row_timeout(const struct row *r)
{
	return strncmp(r->state, "TIMEOUT", 7) == 0;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

int64_t eff_peak_without_cache(const struct row *r)
{
	const struct figures *f = &r->f;
	int64_t own = r->own_peak_kb;

	if (!r->peak_src || (strcmp(r->peak_src, "cgroup") && strcmp(r->peak_src, "jobcgroup")) ||
	    r->peak_mem_kb == JS_NONE)
		return JS_NONE;
	if (own == JS_NONE || own * 2 >= r->peak_mem_kb)
		return JS_NONE;
	/* cache can only hold what went through files: with less I/O than the excess, the
	 * excess is processes' memory the samples missed (many at once, short-lived) */
	if (f->rchar == JS_NONE || f->wchar == JS_NONE ||
	    (f->rchar + f->wchar) / 1024 < r->peak_mem_kb - own)
		return JS_NONE;
	return own;
}

/* --mem of a job: per node, from its highest node; after an OOM kill above the limit; of a
 * one-node job whose peak was mostly page cache, from its processes' own peak */
static void advise_mem(const struct row *r, struct advice *a)
{
	int64_t own = eff_peak_without_cache(r), cpus_node;
	int64_t need = suggest_mem_mb(r->node_peak_mem_kb);

	a->limit_mb =
		r->req_mem_node_mb != JS_NONE && r->req_mem_node_mb > 0 ? r->req_mem_node_mb : -1;
	a->mem_why = MEM_PEAK;
	if (!a->oom && own != JS_NONE && (r->nnodes == JS_NONE || r->nnodes <= 1)) {
		need = suggest_mem_mb(own);
		a->mem_why = MEM_NO_CACHE;
	}
	if (a->oom) {
		/* the peak of a job the OOM killer stopped is its limit, not its need */
		int64_t limit = a->limit_mb > 0 ? a->limit_mb
				: r->node_peak_mem_kb != JS_NONE
					? conv_ceil((double)r->node_peak_mem_kb / 1024.0)
					: -1;

		if (limit > 0 && LIMIT_RAISE * limit >= need) {
			need = LIMIT_RAISE * limit;
			a->mem_why = MEM_OOM;
		}
	}
	if (need <= 0)
		return;
	/* the node's peak already holds the largest process (eff_node_peak_memory) */
	if (need < SLURM_MIN_MEM_MB) {
		a->mem_why = MEM_FLOOR;
		need = SLURM_MIN_MEM_MB;
	}
	a->node_mem_mb = need;
	if (r->req_mem_per_cpu_mb == JS_NONE) {
		a->mem_mb = need;
		return;
	}
	/* --mem-per-cpu: the node's need over the CPUs it will have with the CPU advice */
	cpus_node =
		a->cpus > 0 ? a->cpus * (r->tasks_per_node != JS_NONE && r->tasks_per_node > 0
						 ? r->tasks_per_node
						 : 1)
		: r->alloc_cpus != JS_NONE && r->alloc_cpus > 0
			? max64(1, r->alloc_cpus /
					   (r->nnodes != JS_NONE && r->nnodes > 0 ? r->nnodes : 1))
			: 1;
	a->mem_per_cpu_mb = (need + cpus_node - 1) / cpus_node;
}

void row_advice(const struct row *r, struct advice *a)
{
	memset(a, 0, sizeof(*a));
	a->cpus = -1;
	a->mem_mb = a->mem_per_cpu_mb = a->node_mem_mb = a->time_min = a->limit_mb = -1;
	if ((r->kind != ROW_JOB && r->kind != ROW_LOCAL) || r->running)
		return;
	a->oom = row_oom(r);
	a->timeout = row_timeout(r);
	a->cpus = suggest_cpus(r->cores_per_task);
	advise_mem(r, a);
	/* a time limit from a job that ended by itself; above the limit it hit; nothing from
	 * a cancelled or failed one */
	if (strcmp(r->state, "COMPLETED") == 0)
		a->time_min = suggest_time_min(r->elapsed);
	else if (a->timeout && r->timelimit != JS_NONE && r->timelimit > 0)
		a->time_min = time_round_min(LIMIT_RAISE * r->timelimit);
	else if (a->timeout && r->elapsed != JS_NONE && r->elapsed > 0)
		a->time_min = time_round_min(conv_ceil(LIMIT_RAISE * (double)r->elapsed / 60.0));
}

void advice_merge(struct advice *into, const struct advice *a)
{
	if (a->cpus > into->cpus)
		into->cpus = a->cpus;
	if (a->mem_mb > into->mem_mb) {
		into->mem_mb = a->mem_mb;
		into->mem_why = a->mem_why;
	}
	if (a->mem_per_cpu_mb > into->mem_per_cpu_mb)
		into->mem_per_cpu_mb = a->mem_per_cpu_mb;
	into->node_mem_mb = max64(into->node_mem_mb, a->node_mem_mb);
	into->time_min = max64(into->time_min, a->time_min);
	into->limit_mb = max64(into->limit_mb, a->limit_mb);
	into->oom |= a->oom;
	into->timeout |= a->timeout;
}

void advice_text(const struct advice *a, char *out, size_t len)
{
	char v[32];
	size_t at = 0;

	out[0] = 0;
#define PART(...)                                                        \
	do {                                                             \
		if (at < len)                                            \
			at += snprintf(out + at, len - at, __VA_ARGS__); \
	} while (0)
	if (a->cpus > 0)
		PART("--cpus-per-task=%d", a->cpus);
	if (a->mem_mb > 0) {
		suggest_mem_text(v, sizeof(v), a->mem_mb);
		PART("%s--mem=%s", at ? " " : "", v);
	}
	if (a->mem_per_cpu_mb > 0) {
		suggest_mem_text(v, sizeof(v), a->mem_per_cpu_mb);
		PART("%s--mem-per-cpu=%s", at ? " " : "", v);
	}
	if (a->time_min > 0) {
		fmt_elapsed(v, sizeof(v), a->time_min * 60);
		PART("%s--time=%s", at ? " " : "", v);
	}
#undef PART
}

void row_suggest(const struct row *r, char *out, size_t len)
{
	struct advice a;

	row_advice(r, &a);
	advice_text(&a, out, len);
}
