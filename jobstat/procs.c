/* Processes, tools and process trees of a step. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convert.h"
#include "procs.h"

#define CMD_MAX 1024

static const char *sget(struct json_object *o, const char *key)
{
        struct json_object *v;

        return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v) : NULL;
}

static void tool_of(struct json_object *o, struct json_object *argv, char *out, size_t len)
{
        const char *t = sget(o, "tool"), *sub = sget(o, "subcommand"), *a0 = NULL, *slash;

        if (t && *t) { /* tracerd's tool identity, with its subcommand ("samtools sort") */
                snprintf(out, len, "%s%s%s", t, sub && *sub ? " " : "", sub && *sub ? sub : "");
                conv_sanitize(out);
                return;
        }
        if (argv && json_object_array_length(argv) > 0)
                a0 = json_object_get_string(json_object_array_get_idx(argv, 0));
        if (a0 && *a0) {
                slash = strrchr(a0, '/');
                a0 = slash && slash[1] ? slash + 1 : a0;
                if (*a0 == '-' && a0[1]) /* a login shell's "-bash" */
                        a0++;
                snprintf(out, len, "%s", a0);
        } else {
                snprintf(out, len, "%s", (t = sget(o, "comm")) ? t : JS_UNKNOWN);
        }
        conv_sanitize(out);
}

static char *command_of(struct json_object *o, struct json_object *argv, int64_t flags)
{
        char *c = malloc(CMD_MAX);
        size_t at = 0;

        if (!c)
                return NULL;
        c[0] = 0;
        for (size_t i = 0; argv && i < json_object_array_length(argv) && at + 1 < CMD_MAX; i++) {
                const char *a = json_object_get_string(json_object_array_get_idx(argv, i));
                int w = snprintf(c + at, CMD_MAX - at, "%s%s", i ? " " : "", a ? a : "");

                at = w < 0 ? at : at + (size_t)w >= CMD_MAX ? CMD_MAX - 1 : at + (size_t)w;
        }
        if (!at)
                snprintf(c, CMD_MAX, "%s", sget(o, "comm") ? sget(o, "comm") : "");
        if ((flags != JS_NONE && (flags & PROC_ARGV_TRUNCATED)) || at >= CMD_MAX - 1)
                snprintf(c + (at < CMD_MAX - 4 ? at : CMD_MAX - 4), 4, "...");
        conv_sanitize(c);
        return c;
}

#define PROC_SLOT(name, kind, sql, len, flags) REC_SLOT_NUMBER_##kind(struct proc_rec, name, kind)
static const struct rec_slot proc_slots[] = { PROCESS_RECORD(PROC_SLOT) };

int proc_from_json(struct json_object *o, struct proc_rec *p)
{
        struct json_object *argv, *run;

        memset(p, 0, sizeof(*p));
        if (!o || !json_object_is_type(o, json_type_object))
                return -EINVAL;
        if (!json_object_object_get_ex(o, "argv", &argv) || !json_object_is_type(argv, json_type_array))
                argv = NULL;
        json_to_rec(o, proc_slots, sizeof(proc_slots) / sizeof(*proc_slots), p);
        tool_of(o, argv, p->tool, sizeof(p->tool));
        p->excluded = p->tool_excluded > 0;
        p->task = JS_NONE;
        p->running = json_object_object_get_ex(o, "running", &run) && json_object_get_boolean(run);
        p->cmd = command_of(o, argv, p->flags);
        return p->cmd ? 0 : -ENOMEM;
}

static int by_start(const void *a, const void *b)
{
        const struct proc_rec *x = a, *y = b;

        if (x->start_ns != y->start_ns)
                return x->start_ns < y->start_ns ? -1 : 1;
        return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int procs_load(const struct job *j, const struct row *s, struct daemons *d, struct procset *ps)
{
        size_t *idx = malloc((j->nunits + 1) * sizeof(*idx)), n, cap = 0;
        int err = 0;

        memset(ps, 0, sizeof(*ps));
        if (!idx)
                return -ENOMEM;
        n = report_step_units(j, s, idx, j->nunits);
        for (size_t u = 0; u < n && !err; u++) {
                const struct unit_rec *unit = &j->units[idx[u]];
                struct json_object *procs;
                size_t k, len;

                if (daemons_processes(d, unit->node, unit->id, &procs) < 0)
                        continue; /* the node is named in the warnings */
                len = json_object_array_length(procs);
                if (ps->n + len > cap) {
                        struct proc_rec *nv = realloc(ps->p, (cap = ps->n + len + 16) * sizeof(*nv));

                        if (!nv) {
                                err = -ENOMEM;
                                json_object_put(procs);
                                break;
                        }
                        ps->p = nv;
                }
                for (k = 0; k < len; k++) {
                        struct proc_rec *p = &ps->p[ps->n];

                        if (proc_from_json(json_object_array_get_idx(procs, k), p) < 0)
                                continue;
                        snprintf(p->node, sizeof(p->node), "%s", d->nodes[unit->node].name);
                        p->task = unit->task_id >= 0 ? unit->task_id : JS_NONE;
                        ps->n++;
                }
                json_object_put(procs);
        }
        free(idx);
        if (ps->n > 1)
                qsort(ps->p, ps->n, sizeof(*ps->p), by_start);
        return err;
}

void procs_free(struct procset *ps)
{
        for (size_t i = 0; i < ps->n; i++)
                free(ps->p[i].cmd);
        free(ps->p);
        memset(ps, 0, sizeof(*ps));
}

/* the workflow labels of the step (or run) a process row belongs to */
static void step_labels(struct row *r, const struct row *s)
{
        memcpy(r->pipeline, s->pipeline, sizeof(r->pipeline));
        memcpy(r->run, s->run, sizeof(r->run));
        memcpy(r->step, s->step, sizeof(r->step));
        memcpy(r->wildcards, s->wildcards, sizeof(r->wildcards));
        memcpy(r->tag, s->tag, sizeof(r->tag));
}

const char *procs_state(const struct proc_rec *p)
{
        if (p->running)
                return "RUNNING";
        if (p->flags != JS_NONE && (p->flags & PROC_OOM_KILLED))
                return "OUT_OF_MEMORY";
        if (p->status == JS_NONE || p->status < 0)
                return "";
        if (p->status & 0x7f)
                return "CANCELLED";
        return p->status >> 8 & 0xff ? "FAILED" : "COMPLETED";
}

/* what a process and a tree row share: where it ran */
static void proc_place(struct row *r, const struct proc_rec *p)
{
        snprintf(r->nodelist, sizeof(r->nodelist), "%s", p->node);
        r->task = p->task;
        r->running = p->running;
        snprintf(r->state, sizeof(r->state), "%s", procs_state(p));
}

static void proc_row(struct row *r, const struct proc_rec *p, const struct row *s)
{
        row_init(r, ROW_PROC);
        snprintf(r->jobid, sizeof(r->jobid), "%s", s->jobid);
        step_labels(r, s);
        r->pid = p->pid;
        r->ppid = p->ppid;
        proc_place(r, p);
        r->f.nunits = 1;
        r->f.nprocs = 1;
        r->f.first_start_ns = p->start_ns;
        r->f.last_end_ns = p->end_ns;
        r->elapsed = p->start_ns != JS_NONE && p->end_ns != JS_NONE && p->end_ns >= p->start_ns
                             ? (p->end_ns - p->start_ns + 500000000) / 1000000000 : JS_NONE;
        if (p->running && p->start_ns != JS_NONE && (int64_t)time(NULL) * 1000000000 >= p->start_ns)
                r->elapsed = ((int64_t)time(NULL) * 1000000000 - p->start_ns) / 1000000000; /* so far */
        r->cpu_ns = p->cpu_ns;
        r->user_ns = p->user_ns;
        r->sys_ns = p->sys_ns;
        r->f.maxrss_kb = p->maxrss_kb;
        r->f.read_bytes = p->read_bytes;
        r->f.write_bytes = p->write_bytes;
        r->f.rchar = p->rchar;
        r->f.wchar = p->wchar;
        r->f.oom_kills = p->flags != JS_NONE && (p->flags & PROC_OOM_KILLED) ? 1 : 0;
        r->exit_status = p->status;
        snprintf(r->tool, sizeof(r->tool), "%s", p->tool);
        r->command = p->cmd;
}

void procs_emit_processes(const struct procset *ps, const struct row *s, struct emit *e)
{
        struct row r;

        for (size_t i = 0; i < ps->n; i++) {
                proc_row(&r, &ps->p[i], s);
                emit_row(e, &r);
        }
}

void procs_agg_row(struct row *r, enum row_kind kind, const struct row *s)
{
        row_init(r, kind);
        snprintf(r->jobid, sizeof(r->jobid), "%s", s->jobid);
        step_labels(r, s);
        r->f.nunits = 1;
        r->cpu_ns = r->user_ns = r->sys_ns = 0;
}

static const struct proc_rec *sort_base;

static int by_pid_start(const void *a, const void *b)
{
        const struct proc_rec *x = &sort_base[*(const long *)a], *y = &sort_base[*(const long *)b];
        int c = strcmp(x->node, y->node);

        if (c)
                return c;
        if (x->pid != y->pid)
                return x->pid < y->pid ? -1 : 1;
        if (x->start_ns != y->start_ns)
                return x->start_ns < y->start_ns ? -1 : 1;
        return *(const long *)a < *(const long *)b ? -1 : 1;
}

int procs_parents(const struct proc_rec *p, size_t n, long *parent)
{
        long *ord = malloc((n + 1) * sizeof(*ord));

        if (!ord)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                ord[i] = (long)i;
        sort_base = p;
        qsort(ord, n, sizeof(*ord), by_pid_start);
        for (size_t i = 0; i < n; i++) {
                size_t lo = 0, hi = n;
                long best = -1;

                parent[i] = -1;
                if (p[i].ppid == JS_NONE || p[i].ppid <= 0)
                        continue;
                while (lo < hi) { /* first entry of its node with pid >= ppid */
                        size_t mid = (lo + hi) / 2;
                        int c = strcmp(p[ord[mid]].node, p[i].node);

                        if (c < 0 || (c == 0 && p[ord[mid]].pid < p[i].ppid))
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                for (; lo < n && p[ord[lo]].pid == p[i].ppid && strcmp(p[ord[lo]].node, p[i].node) == 0; lo++)
                        if ((size_t)ord[lo] != i && p[ord[lo]].start_ns <= p[i].start_ns)
                                best = ord[lo];
                parent[i] = best;
        }
        free(ord);
        return 0;
}

struct subtot {
        int64_t nprocs, cpu, user, sys, maxrss, rb, wb, rc, wc, oom, last_end;
};

static void subtot_of(struct subtot *t, const struct proc_rec *p)
{
        t->nprocs = 1;
        t->cpu = p->cpu_ns == JS_NONE ? 0 : p->cpu_ns;
        t->user = p->user_ns == JS_NONE ? 0 : p->user_ns;
        t->sys = p->sys_ns == JS_NONE ? 0 : p->sys_ns;
        t->maxrss = p->maxrss_kb;
        t->rb = p->read_bytes == JS_NONE ? 0 : p->read_bytes;
        t->wb = p->write_bytes == JS_NONE ? 0 : p->write_bytes;
        t->rc = p->rchar == JS_NONE ? 0 : p->rchar;
        t->wc = p->wchar == JS_NONE ? 0 : p->wchar;
        t->oom = p->flags != JS_NONE && (p->flags & PROC_OOM_KILLED) ? 1 : 0;
        t->last_end = p->end_ns;
}

static void subtot_add(struct subtot *t, const struct subtot *c)
{
        t->nprocs += c->nprocs;
        t->cpu += c->cpu;
        t->user += c->user;
        t->sys += c->sys;
        if (c->maxrss > t->maxrss)
                t->maxrss = c->maxrss;
        t->rb += c->rb;
        t->wb += c->wb;
        t->rc += c->rc;
        t->wc += c->wc;
        t->oom += c->oom;
        if (c->last_end > t->last_end)
                t->last_end = c->last_end;
}

int procs_emit_tree(const struct procset *ps, const struct row *s, struct emit *e)
{
        size_t n = ps->n, norder = 0;
        long *parent = malloc((n + 1) * sizeof(long)), *first = malloc((n + 1) * sizeof(long));
        long *next = malloc((n + 1) * sizeof(long)), *stack = malloc((n + 1) * sizeof(long));
        long *order = malloc((n + 1) * sizeof(long));
        int *depth = malloc((n + 1) * sizeof(int));
        struct subtot *sub = malloc((n + 1) * sizeof(*sub));
        int err = -ENOMEM;

        if (!parent || !first || !next || !stack || !order || !depth || !sub || procs_parents(ps->p, n, parent) < 0)
                goto out;
        /* children lists in start order: walk backwards, pushing to the front */
        for (size_t i = 0; i < n; i++)
                first[i] = next[i] = -1;
        for (size_t i = n; i-- > 0;)
                if (parent[i] >= 0) {
                        next[i] = first[parent[i]];
                        first[parent[i]] = (long)i;
                }
        /* pre-order from every root, iteratively; the first-started child comes out first */
        for (size_t r = 0; r < n; r++) {
                size_t sp = 0;

                if (parent[r] >= 0)
                        continue;
                stack[sp++] = (long)r;
                depth[r] = 0;
                while (sp) {
                        long v = stack[--sp], c;
                        size_t k = 0, i = 0;

                        order[norder++] = v;
                        for (c = first[v]; c >= 0; c = next[c])
                                k++;
                        for (c = first[v]; c >= 0; c = next[c], i++) {
                                stack[sp + k - 1 - i] = c;
                                depth[c] = depth[v] + 1;
                        }
                        sp += k;
                }
        }
        /* subtree totals, children before parents (reverse pre-order) */
        for (size_t i = 0; i < n; i++)
                subtot_of(&sub[i], &ps->p[i]);
        for (size_t k = norder; k-- > 0;)
                if (parent[order[k]] >= 0)
                        subtot_add(&sub[parent[order[k]]], &sub[order[k]]);
        for (size_t k = 0; k < norder; k++) {
                long v = order[k];
                const struct proc_rec *p = &ps->p[v];
                struct row r;
                struct json_object *o;

                procs_agg_row(&r, ROW_TREE, s);
                r.f.nprocs = sub[v].nprocs;
                r.cpu_ns = sub[v].cpu;
                r.user_ns = sub[v].user;
                r.sys_ns = sub[v].sys;
                r.f.maxrss_kb = sub[v].maxrss;
                r.f.read_bytes = sub[v].rb;
                r.f.write_bytes = sub[v].wb;
                r.f.rchar = sub[v].rc;
                r.f.wchar = sub[v].wc;
                r.f.oom_kills = sub[v].oom;
                r.f.first_start_ns = p->start_ns;
                r.f.last_end_ns = sub[v].last_end;
                r.pid = p->pid;
                r.ppid = p->ppid;
                proc_place(&r, p);
                r.depth = depth[v];
                r.exit_status = p->status;
                r.command = p->cmd;
                snprintf(r.tool, sizeof(r.tool), "%s", p->tool);
                o = emit_row(e, &r);
                if (o) {
                        json_object_object_add(o, "Tree", json_object_new_string(r.tool));
                        json_object_object_add(o, "Depth", json_object_new_int(r.depth));
                }
        }
        err = 0;
out:
        free(parent);
        free(first);
        free(next);
        free(stack);
        free(order);
        free(depth);
        free(sub);
        return err;
}
