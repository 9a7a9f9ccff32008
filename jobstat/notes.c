/* Rightsizing notes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "effic.h"
#include "notes.h"

size_t notes_build(const struct job *j, int units, char lines[][NOTE_LEN], size_t max)
{
        const struct row *r = &j->row;
        char a[64], b[64], c[64], sug[160];
        size_t n = 0;
        int cpus;
        int64_t mb, tm;

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
        /* CPU */
        cpus = suggest_cpus(r->cores_per_task);
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
        mb = suggest_mem_mb(r->peak_mem_kb);
        if (mb > 0) {
                double eff = eff_mem(r->peak_mem_kb, r->req_mem_share_mb);

                conv_size(a, sizeof(a), (double)r->peak_mem_kb, U_K, units, 0);
                suggest_mem_text(c, sizeof(c), mb);
                if (eff >= 0) {
                        conv_size(b, sizeof(b), (double)r->req_mem_share_mb, U_M, units, 1);
                        NOTE("peak memory %s (%s) of %s requested, %.1f%%: --mem=%s", a,
                             r->peak_src && strcmp(r->peak_src, "cgroup") == 0 ? "step cgroup peak"
                             : r->peak_src && strcmp(r->peak_src, "sampled") == 0 ? "largest sampled RSS sum"
                                                                                   : "largest process RSS",
                             b, eff, c);
                } else {
                        NOTE("peak memory %s: --mem=%s", a, c);
                }
        }
        /* time */
        if (r->elapsed != JS_NONE) {
                double eff = eff_time(r->elapsed, r->timelimit);

                tm = strcmp(r->state, "COMPLETED") == 0 ? suggest_time_min(r->elapsed) : -1;
                conv_elapsed(a, sizeof(a), r->elapsed);
                conv_elapsed(c, sizeof(c), tm * 60);
                if (eff >= 0) {
                        conv_timelimit(b, sizeof(b), r->timelimit);
                        if (tm > 0)
                                NOTE("ran %s of a %s limit, %.1f%%: --time=%s", a, b, eff, c);
                        else
                                NOTE("ran %s of a %s limit, %.1f%% (it did not complete: no --time advice)", a, b, eff);
                } else if (tm > 0) {
                        NOTE("ran %s: --time=%s", a, c);
                }
        }
        if (r->numa_span > 1)
                NOTE("allocation spans %d NUMA nodes (cores %.100s): memory access crosses nodes", r->numa_span,
                     r->alloc_cores);
        if (r->peak_cores >= 0 && r->alloc_cpus != JS_NONE && r->alloc_cpus > 0 &&
            r->peak_cores > (double)r->alloc_cpus + CORE_SLACK)
                NOTE("more runnable threads than allocated cores: %.2f cores busy at peak, %" PRId64 " allocated",
                     r->peak_cores, r->alloc_cpus);
        if (r->f.oom_kills > 0)
                NOTE("%" PRId64 " process%s killed by the OOM killer", r->f.oom_kills, r->f.oom_kills > 1 ? "es" : "");
        if (r->f.lost > 0)
                NOTE("%" PRId64 " kernel events lost while it ran: its figures may be incomplete", r->f.lost);
        row_suggest(r, sug, sizeof(sug));
        if (sug[0])
                NOTE("next time: %s", sug);
#undef NOTE
        return n;
}

void notes_print(FILE *f, const struct job *j, int units)
{
        char lines[NOTES_MAX][NOTE_LEN];
        size_t n = notes_build(j, units, lines, NOTES_MAX);

        if (!n)
                return;
        fprintf(f, "\n%s %s%s%s%s, %s:\n", j->row.kind == ROW_LOCAL ? "Run" : "Job", j->row.jobid,
                j->row.jobname[0] ? " (" : "", j->row.jobname, j->row.jobname[0] ? ")" : "", j->row.state);
        for (size_t i = 0; i < n; i++) {
                conv_sanitize(lines[i]);
                fprintf(f, "  %s\n", lines[i]);
        }
}

struct json_object *notes_json(const struct job *j, int units)
{
        char lines[NOTES_MAX][NOTE_LEN];
        size_t n = notes_build(j, units, lines, NOTES_MAX);
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; a && i < n; i++)
                json_object_array_add(a, json_object_new_string(lines[i]));
        return a;
}
