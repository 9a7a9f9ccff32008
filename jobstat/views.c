/* Printing a report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrays.h"
#include "notes.h"
#include "pipelines.h"
#include "procs.h"
#include "tooltable.h"
#include "views.h"

static void header(struct viewctx *v)
{
        if (!v->header_done && !v->e.json)
                out_header(&v->out);
        v->header_done = 1;
}

static void put(struct viewctx *v, const struct row *r)
{
        header(v);
        out_row(&v->out, r);
        v->rows++;
}

static int wants(const struct viewctx *v, int field)
{
        for (size_t i = 0; i < v->out.ncols; i++)
                if (v->out.cols[i].field == field)
                        return 1;
        return 0;
}

/* the processes of a job that did not complete, or lost one to the OOM killer: which failed */
static void load_failures(struct viewctx *v, struct job *j)
{
        int ok = strcmp(j->row.state, "COMPLETED") == 0 && !(j->row.f.oom_kills > 0);

        memset(&j->fail, 0, sizeof(j->fail));
        if (j->row.running || ok || !j->row.f.nunits)
                return;
        for (size_t i = 0; i < (j->row.kind == ROW_LOCAL ? 1 : j->nsteps); i++) {
                struct row *s = j->row.kind == ROW_LOCAL ? &j->row : &j->steps[i];
                struct procset ps;

                if (s->f.nunits && procs_load(j, s, v->d, &ps) == 0)
                        failures_add(&j->fail, s->jobid, ps.p, ps.n);
                procs_free(&ps);
        }
}

/* the failing tool of row r (an OOM victim first), if it holds one */
static void failed_tool(const struct job *j, struct row *r)
{
        const struct failed_proc *p = j->fail.noom ? &j->fail.oom : j->fail.nfailed ? &j->fail.first : NULL;

        if (p && (r == &j->row || strcmp(r->jobid, p->step) == 0))
                snprintf(r->tool, sizeof(r->tool), "%s", p->tool);
}

/* the Tool field of jobs and steps: the tool that failed when one did, else the one that
 * used the most CPU */
static void main_tools(struct viewctx *v, struct job *j)
{
        int64_t best = -1;

        if (j->row.kind == ROW_LOCAL) {
                tooltable_main_tool(j, &j->row, v->d, j->row.tool, sizeof(j->row.tool));
                failed_tool(j, &j->row);
                return;
        }
        for (size_t i = 0; i < j->nsteps; i++) {
                struct row *s = &j->steps[i];

                if (!s->f.nunits)
                        continue;
                tooltable_main_tool(j, s, v->d, s->tool, sizeof(s->tool));
                if (s->cpu_ns != JS_NONE && s->cpu_ns > best && s->tool[0]) {
                        best = s->cpu_ns;
                        snprintf(j->row.tool, sizeof(j->row.tool), "%s", s->tool);
                }
                failed_tool(j, s);
        }
        failed_tool(j, &j->row);
}

static struct json_object *jobs_json(struct viewctx *v, struct job *j)
{
        struct json_object *o = out_row_json(&j->row, v->e.jcols, v->e.njcols, &v->out.cc), *steps;

        if (!o)
                return NULL;
        if (wants(v, F_TOOL))
                json_object_object_add(o, "Tool", j->row.tool[0] ? json_object_new_string(j->row.tool) : NULL);
        if (j->row.kind == ROW_JOB && !v->o->allocations) {
                steps = json_object_new_array();
                for (size_t i = 0; i < j->nsteps; i++) {
                        struct json_object *s = out_row_json(&j->steps[i], v->e.jcols, v->e.njcols, &v->out.cc);

                        if (s && wants(v, F_TOOL))
                                json_object_object_add(s, "Tool", j->steps[i].tool[0]
                                                                          ? json_object_new_string(j->steps[i].tool) : NULL);
                        json_object_array_add(steps, s);
                }
                json_object_object_add(o, "steps", steps);
        }
        report_numa(j, v->d);
        json_object_object_add(o, "notes", notes_json(j, v->o->units));
        return o;
}

static size_t view_jobs(struct viewctx *v, struct report *rep)
{
        /* notes are for a reader: not with -n (a script's), -p/-P or --json (which has them) */
        int tools = wants(v, F_TOOL), notes = !v->o->parsable && !v->e.json && !v->o->noheader;

        notes_arrays(rep);
        for (size_t i = 0; i < rep->n; i++) {
                struct job *j = &rep->jobs[i];

                report_nodes(j, v->d);
                if (tools || notes || v->e.json)
                        load_failures(v, j);
                if (tools)
                        main_tools(v, j);
                if (v->e.json) {
                        json_object_array_add(v->e.jarr, jobs_json(v, j));
                        v->rows++;
                        continue;
                }
                if (!j->step_only)
                        put(v, &j->row);
                for (size_t k = 0; k < j->nsteps && (!v->o->allocations || j->step_only); k++)
                        put(v, &j->steps[k]);
        }
        out_flush(&v->out);
        if (notes)
                for (size_t i = 0; i < rep->n; i++) {
                        if (rep->jobs[i].step_only)
                                continue;
                        report_numa(&rep->jobs[i], v->d);
                        notes_print(v->out.f, &rep->jobs[i], v->o->units);
                }
        return v->rows;
}

static void emit_set(struct viewctx *v, const struct procset *ps, const struct row *s)
{
        size_t before = v->e.jarr ? json_object_array_length(v->e.jarr) : 0;

        if (!ps->n)
                return;
        header(v);
        switch (v->o->view) {
        case V_TREE:
                if (procs_emit_tree(ps, s, &v->e) < 0)
                        fprintf(stderr, JS_PROG ": out of memory for the tree of %s\n", s->jobid);
                break;
        default: procs_emit_processes(ps, s, &v->e); break;
        }
        v->rows += v->e.json ? json_object_array_length(v->e.jarr) - before : ps->n;
}

/* the tool table of step (or run) row s, grouped in tracerd's store */
static void emit_tools(struct viewctx *v, const struct job *j, const struct row *s)
{
        long n;

        if (s->f.nprocs == 0)
                return;
        header(v);
        if ((n = tooltable_emit(j, s, v->d, &v->e)) < 0)
                fprintf(stderr, JS_PROG ": out of memory for the tools of %s\n", s->jobid);
        else
                v->rows += (size_t)n;
}

static size_t view_procs(struct viewctx *v, struct report *rep)
{
        for (size_t i = 0; i < rep->n; i++) {
                struct job *j = &rep->jobs[i];
                struct procset ps;

                if (v->o->view == V_TOOLS) {
                        if (j->row.kind == ROW_LOCAL)
                                emit_tools(v, j, &j->row);
                        for (size_t k = 0; k < j->nsteps && j->row.kind != ROW_LOCAL; k++)
                                if (j->steps[k].f.nunits)
                                        emit_tools(v, j, &j->steps[k]);
                        continue;
                }
                if (j->row.kind == ROW_LOCAL) {
                        if (procs_load(j, &j->row, v->d, &ps) == 0)
                                emit_set(v, &ps, &j->row);
                        procs_free(&ps);
                        continue;
                }
                for (size_t k = 0; k < j->nsteps; k++) {
                        if (!j->steps[k].f.nunits)
                                continue;
                        if (procs_load(j, &j->steps[k], v->d, &ps) == 0)
                                emit_set(v, &ps, &j->steps[k]);
                        procs_free(&ps);
                }
        }
        return v->rows;
}

static size_t view_arrays(struct viewctx *v, struct report *rep)
{
        struct row *rows;
        struct array_stats *st;
        int n;

        notes_arrays(rep);
        n = arrays_build(rep, &rows, &st);

        if (n < 0) {
                fprintf(stderr, JS_PROG ": out of memory\n");
                return 0;
        }
        if (!n && rep->n)
                fprintf(stderr, JS_PROG ": none of these jobs is part of a job array\n");
        for (int i = 0; i < n; i++) {
                if (v->e.json) {
                        json_object_array_add(v->e.jarr, array_json(&rows[i], v->out.cols, v->out.ncols, &v->out.cc));
                        v->rows++;
                } else {
                        put(v, &rows[i]);
                }
        }
        free(rows);
        free(st);
        return v->rows;
}

static size_t view_workflow(struct viewctx *v, struct report *rep)
{
        struct row *rows;
        struct timespec now;
        long n;

        clock_gettime(CLOCK_REALTIME, &now);
        n = pipelines_build(rep, tooltable_unit_tools, v->d, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, &rows);
        if (n < 0) {
                fprintf(stderr, JS_PROG ": out of memory\n");
                return 0;
        }
        if (!n && rep->n)
                fprintf(stderr, JS_PROG ": none of these jobs belongs to a workflow tracer recognised\n");
        if (n)
                header(v);
        v->rows += pipelines_emit(rows, (size_t)n, &v->e);
        free(rows);
        return v->rows;
}

size_t view_print(struct viewctx *v, struct report *rep)
{
        size_t n;

        switch (v->o->view) {
        case V_WORKFLOW: n = view_workflow(v, rep); break;
        case V_ARRAY: n = view_arrays(v, rep); break;
        case V_TOOLS: case V_PROCS: case V_TREE: n = view_procs(v, rep); break;
        case V_JOBS: default: n = view_jobs(v, rep); break;
        }
        out_flush(&v->out);
        return n;
}

void view_warnings(struct viewctx *v, const struct report *rep)
{
        for (size_t i = 0; i < v->d->n; i++) {
                const struct node_conn *c = &v->d->nodes[i];
                char jobs[512] = "", msg[1024];
                size_t at = 0;

                if (!c->failed)
                        continue;
                for (size_t k = 0; k < rep->n && at < sizeof(jobs) - 32; k++) {
                        const char *m = rep->jobs[k].missing;
                        size_t l = strlen(c->name);
                        const char *p = m;

                        while ((p = strstr(p, c->name)) && !((p == m || p[-1] == ',') && (p[l] == ',' || !p[l])))
                                p += l;
                        if (p)
                                at += snprintf(jobs + at, sizeof(jobs) - at, "%s%s", at ? "," : "", rep->jobs[k].row.jobid);
                }
                snprintf(msg, sizeof(msg), "node %s: %s%s%s", c->name, c->error,
                         at ? "; figures missing for job(s) " : "", jobs);
                fprintf(stderr, JS_PROG ": warning: %s\n", msg);
                if (v->warnings)
                        json_object_array_add(v->warnings, json_object_new_string(msg));
        }
}
