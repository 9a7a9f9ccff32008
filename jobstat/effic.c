/* Efficiency and rightsizing. */
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "effic.h"

double eff_cpu(int64_t cpu_ns, int64_t elapsed_s, int64_t alloc_cpus)
{
        if (cpu_ns == JS_NONE || cpu_ns < 0 || elapsed_s == JS_NONE || elapsed_s <= 0 ||
            alloc_cpus == JS_NONE || alloc_cpus <= 0)
                return -1;
        return 100.0 * (double)cpu_ns / 1e9 / ((double)elapsed_s * (double)alloc_cpus);
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
        int64_t n = ntasks == JS_NONE || ntasks < 1 ? (f->ntasks > 0 ? f->ntasks : 1) : ntasks;

        *src = NULL;
        if (!f->nunits)
                return JS_NONE;
        if (f->cgroup_mem_peak_kb != JS_NONE && f->cgroup_mem_peak_kb > 0) {
                *src = "cgroup";
                return f->cgroup_mem_peak_kb;
        }
        if (f->task_peak_rss_kb != JS_NONE && f->task_peak_rss_kb > 0) {
                *src = "sampled";
                return f->task_peak_rss_kb * n;
        }
        if (f->maxrss_kb != JS_NONE && f->nprocs > 0) {
                *src = "maxrss";
                return f->maxrss_kb * n;
        }
        return JS_NONE;
}

double eff_cores(const struct figures *f, int64_t cpu_ns, int64_t wall_ns, int64_t ntasks,
                 const char **src)
{
        int64_t n = ntasks == JS_NONE || ntasks < 1 ? (f->ntasks > 0 ? f->ntasks : 1) : ntasks;

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

int64_t suggest_time_min(int64_t elapsed_s)
{
        int64_t m;

        if (elapsed_s == JS_NONE || elapsed_s < 0)
                return -1;
        m = conv_ceil(TIME_HEADROOM * (double)elapsed_s / 60.0);
        if (m < 1)
                return 1;
        if (m <= 60)
                return m;
        if (m <= 24 * 60)
                return (m + 14) / 15 * 15;
        return (m + 59) / 60 * 60;
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

void row_suggest(const struct row *r, char *out, size_t len)
{
        char mem[32], t[32];
        int cpus = suggest_cpus(r->cores_per_task);
        int64_t mb = suggest_mem_mb(r->peak_mem_kb), tm = -1;
        size_t at = 0;

        out[0] = 0;
        if ((r->kind != ROW_JOB && r->kind != ROW_LOCAL) || r->running)
                return;
        /* a time limit only for a job that ended by itself: a cancelled or timed-out one
         * says nothing about how long it needs */
        if (strcmp(r->state, "COMPLETED") == 0)
                tm = suggest_time_min(r->elapsed);
        if (cpus > 0)
                at += snprintf(out + at, len - at, "--cpus-per-task=%d", cpus);
        if (mb > 0 && at < len) {
                suggest_mem_text(mem, sizeof(mem), mb);
                at += snprintf(out + at, len - at, "%s--mem=%s", at ? " " : "", mem);
        }
        if (tm > 0 && at < len) {
                conv_elapsed(t, sizeof(t), tm * 60);
                snprintf(out + at, len - at, "%s--time=%s", at ? " " : "", t);
        }
}
