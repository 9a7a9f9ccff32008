/* Rightsizing notes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "effic.h"
#include "notes.h"

static const char *peak_source(const struct row *r)
{
        if (r->peak_src && strcmp(r->peak_src, "cgroup") == 0)
                return "step cgroup peak";
        if (r->peak_src && strcmp(r->peak_src, "sampled") == 0)
                return "largest sampled RSS sum";
        return "largest process RSS";
}

/* the memory line: what was used of what was asked, per node, and why the advice is what it is */
static void mem_note(const struct row *r, const struct advice *adv, int units, char lines[][NOTE_LEN], size_t *n,
                     size_t max)
{
        char used[24], node[80] = "", req[48] = "", lim[24], sug[48] = "", eff[24] = "", why[80] = "";
        double e = eff_mem(r->peak_mem_kb, r->req_mem_share_mb);
        int multi = r->nnodes != JS_NONE && r->nnodes > 1 && r->node_peak_mem_kb != JS_NONE;

        conv_size(used, sizeof(used), (double)r->peak_mem_kb, U_K, units, 0);
        if (multi) {
                /* --mem is per node: the highest node against its share */
                conv_size(lim, sizeof(lim), (double)r->node_peak_mem_kb, U_K, units, 0);
                snprintf(node, sizeof(node), " over %" PRId64 " nodes, %s on the highest", r->nnodes, lim);
                if (r->req_mem_node_mb != JS_NONE)
                        e = eff_mem(r->node_peak_mem_kb, r->req_mem_node_mb);
        }
        if (e >= 0) {
                conv_size(lim, sizeof(lim), (double)(multi ? r->req_mem_node_mb : r->req_mem_share_mb), U_M, units, 1);
                snprintf(req, sizeof(req), "%s of %s requested%s", multi ? "," : "", lim, multi ? " per node" : "");
                snprintf(eff, sizeof(eff), ", %.1f%%", e);
        }
        if (adv->mem_mb > 0 || adv->mem_per_cpu_mb > 0) {
                suggest_mem_text(lim, sizeof(lim), adv->mem_mb > 0 ? adv->mem_mb : adv->mem_per_cpu_mb);
                snprintf(sug, sizeof(sug), ": --mem%s=%s", adv->mem_mb > 0 ? "" : "-per-cpu", lim);
        }
        switch (adv->mem_why) {
        case MEM_OOM:
                snprintf(why, sizeof(why), " (%dx the limit)", LIMIT_RAISE);
                break;
        case MEM_FLOOR:
                snprintf(why, sizeof(why), " (Slurm's smallest memory limit)");
                break;
        default: break;
        }
        if (adv->oom) {
                if (adv->limit_mb > 0)
                        conv_size(lim, sizeof(lim), (double)adv->limit_mb, U_M, units, 1);
                else
                        snprintf(lim, sizeof(lim), "%s", used);
                if (*n < max)
                        snprintf(lines[(*n)++], NOTE_LEN,
                                 "killed by the OOM killer at its %s%s limit (peak %s%s): it needed more than the limit, "
                                 "how much more cannot be known%s%s",
                                 lim, multi ? " per node" : "", used, node, sug, why);
                return;
        }
        if (*n < max)
                snprintf(lines[(*n)++], NOTE_LEN, "peak memory %s (%s)%s%s%s%s%s", used, peak_source(r), node, req,
                         eff, sug, why);
}

/* the OOM victim and the first process that failed, by name */
static void failure_notes(const struct failures *f, char lines[][NOTE_LEN], size_t *n, size_t max)
{
        char st[48], more[48] = "";
        const struct failed_proc *p = &f->first;

        if (f->noom && *n < max) {
                if (f->noom > 1)
                        snprintf(more, sizeof(more), " (and %zu more)", f->noom - 1);
                snprintf(lines[(*n)++], NOTE_LEN, "the OOM killer stopped process %" PRId64 " (%.32s, step %.32s)%.40s: %.100s",
                         f->oom.pid, f->oom.tool, f->oom.step, more, f->oom.cmd);
        }
        if (!f->nfailed || (f->noom && p->pid == f->oom.pid && !strcmp(p->step, f->oom.step)) || *n >= max)
                return;
        failures_status_text(st, sizeof(st), p->status);
        more[0] = 0;
        if (f->nfailed > 1)
                snprintf(more, sizeof(more), " (%zu processes failed)", f->nfailed);
        snprintf(lines[(*n)++], NOTE_LEN, "first to fail: process %" PRId64 " (%.32s, step %.32s) %.40s%.40s: %.100s", p->pid,
                 p->tool, p->step, st, more, p->cmd);
}

size_t notes_build(const struct job *j, int units, char lines[][NOTE_LEN], size_t max)
{
        const struct row *r = &j->row;
        char a[64], b[64], c[64], sug[160];
        struct advice adv;
        size_t n = 0;
        int cpus;

#define NOTE(...) do { if (n < max) snprintf(lines[n++], NOTE_LEN, __VA_ARGS__); } while (0)
        if (!r->f.nunits)
                NOTE("tracer recorded nothing for it (no tracerd on its nodes then, or not yours)");
        if (j->missing[0])
                NOTE("no figures from node(s) %.160s: their tracerd could not be asked; totals are partial", j->missing);
        if (r->running) {
                NOTE("still running: efficiencies and suggestions come when it ends");
                return n;
        }
        if (!r->f.nunits)
                return n;
        row_advice(r, &adv);
        /* CPU */
        cpus = adv.cpus;
        if (cpus > 0) {
                int used = suggest_cpus(r->peak_cores);

                if (r->alloc_cpus != JS_NONE && r->alloc_cpus > 0)
                        snprintf(a, sizeof(a), "used %d of %" PRId64 " allocated cores", used, r->alloc_cpus);
                else
                        snprintf(a, sizeof(a), "used %d cores", used);
                if (r->cores_src && strcmp(r->cores_src, "sampled") == 0)
                        NOTE("%s (peak %.2f busy at once per task, from live samples): --cpus-per-task=%d", a,
                             r->cores_per_task, cpus);
                else
                        NOTE("%s (%.2f busy on average per task; too short-lived for live samples): "
                             "--cpus-per-task=%d", a, r->cores_per_task, cpus);
        }
        /* memory */
        if (r->peak_mem_kb != JS_NONE && r->peak_mem_kb > 0)
                mem_note(r, &adv, units, lines, &n, max);
        /* time */
        if (r->elapsed != JS_NONE) {
                double eff = eff_time(r->elapsed, r->timelimit);

                conv_elapsed(a, sizeof(a), r->elapsed);
                conv_elapsed(c, sizeof(c), adv.time_min * 60);
                conv_timelimit(b, sizeof(b), r->timelimit);
                if (adv.timeout && adv.time_min > 0)
                        NOTE("hit its %s time limit after %s: it needed more, how much more cannot be known: "
                             "--time=%.24s (%dx the limit)", b, a, c, LIMIT_RAISE);
                else if (eff >= 0 && adv.time_min > 0)
                        NOTE("ran %s of a %s limit, %.1f%%: --time=%s", a, b, eff, c);
                else if (eff >= 0)
                        NOTE("ran %s of a %s limit, %.1f%% (it did not complete: no --time advice)", a, b, eff);
                else if (adv.time_min > 0)
                        NOTE("ran %s: --time=%s", a, c);
        }
        failure_notes(&j->fail, lines, &n, max);
        if (r->numa_span > 1)
                NOTE("allocation spans %d NUMA nodes (cores %.100s): memory access crosses nodes", r->numa_span,
                     r->alloc_cores);
        if (r->peak_cores >= 0 && r->alloc_cpus != JS_NONE && r->alloc_cpus > 0 &&
            r->peak_cores > (double)r->alloc_cpus + CORE_SLACK)
                NOTE("more runnable threads than allocated cores: %.2f cores busy at peak, %" PRId64 " allocated",
                     r->peak_cores, r->alloc_cpus);
        if (r->f.lost > 0)
                NOTE("incomplete: %" PRId64 " of its kernel events were lost (ring buffer or tracked set "
                     "full): its figures are short of them", r->f.lost);
        if (r->f.down_start_ns != JS_NONE && r->f.down_end_ns != JS_NONE) {
                char from[32], to[32];

                conv_datetime(from, sizeof(from), r->f.down_start_ns / 1000000000);
                conv_datetime(to, sizeof(to), r->f.down_end_ns / 1000000000);
                /* the date once, when both fall on the same day */
                NOTE("incomplete: tracerd was down %s-%s: what ran then is missing", from,
                     strncmp(from, to, 11) ? to : to + 11);
        }
        advice_text(&adv, sug, sizeof(sug));
        if (j->array_ntasks > 1) {
                if (j->array_last && j->array_suggest[0])
                        NOTE("next time, for every task of array %" PRId64 " (from the highest needs of its %zu tasks): %.150s",
                             j->array_job_id, j->array_ntasks, j->array_suggest);
        } else if (sug[0]) {
                NOTE("next time: %s", sug);
        }
#undef NOTE
        return n;
}

/* count each array's tasks in the report and mark the last */
static void count_arrays(struct report *rep)
{
        for (size_t i = 0; i < rep->n; i++) {
                struct job *j = &rep->jobs[i];

                j->array_ntasks = 0;
                j->array_last = 0;
                if (j->array_job_id <= 0 || j->array_task_id < 0)
                        continue;
                for (size_t k = 0; k < rep->n; k++)
                        if (rep->jobs[k].array_job_id == j->array_job_id && rep->jobs[k].array_task_id >= 0) {
                                j->array_ntasks++;
                                j->array_last = k <= i;
                        }
        }
}

void notes_arrays(struct report *rep)
{
        count_arrays(rep);
        for (size_t i = 0; i < rep->n; i++) {
                struct job *last = &rep->jobs[i];
                struct advice all, one;
                int first = 1;

                if (!last->array_last || last->array_ntasks < 2)
                        continue;
                for (size_t k = 0; k <= i; k++) {
                        const struct job *t = &rep->jobs[k];

                        if (t->array_job_id != last->array_job_id || t->array_task_id < 0)
                                continue;
                        row_advice(&t->row, &one);
                        if (first)
                                all = one;
                        else
                                advice_merge(&all, &one);
                        first = 0;
                }
                advice_text(&all, last->array_suggest, sizeof(last->array_suggest));
        }
}
