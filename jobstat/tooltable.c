/* Tool tables, from tracerd's grouped "tools" replies or from processes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "tooltable.h"

#define CODES_MAX 8

struct tool_acc {
        struct row r;
        int64_t wrapper_rss_kb; /* the tool's MaxRSS only when no process of its own has one */
        struct { char code[16]; int64_t n; } codes[CODES_MAX];
        int ncodes, more;
};

struct table {
        struct tool_acc *t;
        size_t n, cap;
};

/* a new row for tool, or NULL (ENOMEM) */
static struct tool_acc *table_add(struct table *tt, const char *tool, const struct row *s)
{
        struct tool_acc *a;

        if (tt->n == tt->cap) {
                size_t cap = tt->cap ? 2 * tt->cap : 16;
                struct tool_acc *nv = realloc(tt->t, cap * sizeof(*nv));

                if (!nv)
                        return NULL;
                tt->t = nv;
                tt->cap = cap;
        }
        a = &tt->t[tt->n++];
        memset(a, 0, sizeof(*a));
        procs_agg_row(&a->r, ROW_TOOL, s);
        snprintf(a->r.tool, sizeof(a->r.tool), "%s", tool);
        return a;
}

static void add_code(struct tool_acc *a, int64_t status, int64_t n)
{
        char code[16];
        int c;

        conv_exitcode(code, sizeof(code), status);
        for (c = 0; c < a->ncodes && strcmp(a->codes[c].code, code); c++)
                ;
        if (c == a->ncodes) {
                if (c == CODES_MAX) {
                        a->more++;
                        return;
                }
                snprintf(a->codes[c].code, sizeof(a->codes[c].code), "%s", code);
                a->ncodes++;
        }
        a->codes[c].n += n;
}

static int by_cpu(const void *a, const void *b)
{
        const struct tool_acc *x = a, *y = b;

        if (x->r.cpu_ns != y->r.cpu_ns)
                return x->r.cpu_ns > y->r.cpu_ns ? -1 : 1;
        return strcmp(x->r.tool, y->r.tool);
}

/* a wrapper's RSS where the tool has no other; the most CPU first */
static void table_finish(struct table *tt)
{
        for (size_t k = 0; k < tt->n; k++)
                if (tt->t[k].r.f.maxrss_kb == JS_NONE && tt->t[k].wrapper_rss_kb > 0)
                        tt->t[k].r.f.maxrss_kb = tt->t[k].wrapper_rss_kb;
        if (tt->n > 1)
                qsort(tt->t, tt->n, sizeof(*tt->t), by_cpu);
}

/* ---- from processes */

static int by_tool(const void *a, const void *b)
{
        const struct proc_rec *x = *(const struct proc_rec *const *)a, *y = *(const struct proc_rec *const *)b;
        int c = strcmp(x->tool, y->tool);

        return c ? c : x < y ? -1 : x > y;
}

static int group_procs(const struct procset *ps, const struct row *s, struct table *tt)
{
        const struct proc_rec **sorted = malloc((ps->n + 1) * sizeof(*sorted));
        struct tool_acc *a = NULL;
        size_t m = 0;

        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < ps->n; i++)
                if (!ps->p[i].excluded)
                        sorted[m++] = &ps->p[i];
        qsort(sorted, m, sizeof(*sorted), by_tool);
        for (size_t i = 0; i < m; i++) {
                const struct proc_rec *p = sorted[i];

                if ((!a || strcmp(a->r.tool, p->tool)) && !(a = table_add(tt, p->tool, s))) {
                        free(sorted);
                        return -ENOMEM;
                }
                if (p->wrapper) { /* time -v forked from a 70 MB python keeps python's peak */
                        struct proc_rec own = *p;

                        if (p->maxrss_kb != JS_NONE && p->maxrss_kb > a->wrapper_rss_kb)
                                a->wrapper_rss_kb = p->maxrss_kb;
                        own.maxrss_kb = JS_NONE;
                        procs_accumulate(&a->r, &own);
                } else {
                        procs_accumulate(&a->r, p);
                }
                add_code(a, p->status, 1);
        }
        free(sorted);
        table_finish(tt);
        return 0;
}

/* ---- from tracerd's "tools" replies */

static const char *jstr(struct json_object *o, const char *key)
{
        struct json_object *v;

        return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v) : "";
}

/* "0:12,256:1" (an empty status: not known) */
static void add_codes(struct tool_acc *a, const char *counts)
{
        while (*counts) {
                char *end;
                int64_t status = JS_NONE, n;

                if (*counts != ':')
                        status = strtoll(counts, &end, 10);
                else
                        end = (char *)counts;
                if (*end != ':')
                        return; /* not the shape tracerd writes: keep what was read */
                n = strtoll(end + 1, &end, 10);
                if (n > 0)
                        add_code(a, status, n);
                if (*end != ',')
                        return;
                counts = end + 1;
        }
}

static int add_record(struct table *tt, struct json_object *o, const struct row *s)
{
        const char *tool = jstr(o, "tool"), *sub = jstr(o, "subcommand");
        char name[sizeof(tt->t->r.tool)];
        struct tool_acc *a = NULL;

        if (!*tool)
                return 0;
        snprintf(name, sizeof(name), "%s%s%s", tool, *sub ? " " : "", sub);
        conv_sanitize(name);
        for (size_t i = 0; i < tt->n && !a; i++)
                if (!strcmp(tt->t[i].r.tool, name))
                        a = &tt->t[i];
        if (!a && !(a = table_add(tt, name, s)))
                return -ENOMEM;
        fig_sum(&a->r.f.nprocs, json_int(o, "nprocs"));
        fig_sum(&a->r.cpu_ns, json_int(o, "cpu_ns"));
        fig_sum(&a->r.user_ns, json_int(o, "user_ns"));
        fig_sum(&a->r.sys_ns, json_int(o, "sys_ns"));
        fig_max(&a->r.f.maxrss_kb, json_int(o, "maxrss_kb"));
        fig_sum(&a->r.f.read_bytes, json_int(o, "read_bytes"));
        fig_sum(&a->r.f.write_bytes, json_int(o, "write_bytes"));
        fig_sum(&a->r.f.rchar, json_int(o, "rchar"));
        fig_sum(&a->r.f.wchar, json_int(o, "wchar"));
        fig_sum(&a->r.f.oom_kills, json_int(o, "oom_kills"));
        fig_min(&a->r.f.first_start_ns, json_int(o, "first_start_ns"));
        fig_max(&a->r.f.last_end_ns, json_int(o, "last_end_ns"));
        add_codes(a, jstr(o, "status_counts"));
        return 0;
}

/* 0, -EREMOTEIO when a node's tracerd has no "tools" query (the caller reads processes), or
 * -ENOMEM. A node that cannot be asked is left out (the warnings name it). */
static int group_daemon(const struct job *j, const struct row *s, struct daemons *d, struct table *tt)
{
        size_t *idx = malloc((j->nunits + 1) * sizeof(*idx)), n;
        int err = 0;

        if (!idx)
                return -ENOMEM;
        n = report_step_units(j, s, idx, j->nunits);
        for (size_t u = 0; u < n && !err; u++) {
                const struct unit_rec *unit = &j->units[idx[u]];
                struct json_object *tools;
                int r = daemons_tools(d, unit->node, unit->id, &tools);

                if (r == -EREMOTEIO)
                        err = r;
                if (r < 0)
                        continue;
                for (size_t k = 0; k < json_object_array_length(tools) && !err; k++)
                        err = add_record(tt, json_object_array_get_idx(tools, k), s);
                json_object_put(tools);
        }
        free(idx);
        if (!err)
                table_finish(tt);
        return err;
}

/* tt from the daemons, else from the step's processes */
static int group_step(const struct job *j, const struct row *s, struct daemons *d, struct table *tt)
{
        struct procset ps;
        int err = group_daemon(j, s, d, tt);

        if (err != -EREMOTEIO)
                return err;
        tt->n = 0;
        err = procs_load(j, s, d, &ps);
        if (!err)
                err = group_procs(&ps, s, tt);
        procs_free(&ps);
        return err;
}

/* ---- out */

static long emit_table(struct table *tt, struct emit *e)
{
        for (size_t k = 0; k < tt->n; k++) {
                struct tool_acc *a = &tt->t[k];
                size_t at = 0;

                for (int c = 0; c < a->ncodes && at < sizeof(a->r.exit_codes); c++)
                        at += snprintf(a->r.exit_codes + at, sizeof(a->r.exit_codes) - at, "%s%s(%" PRId64 ")",
                                       c ? "," : "", a->codes[c].code, a->codes[c].n);
                if (a->more && at < sizeof(a->r.exit_codes))
                        snprintf(a->r.exit_codes + at, sizeof(a->r.exit_codes) - at, ",...");
                emit_row(e, &a->r);
        }
        return (long)tt->n;
}

long tooltable_emit(const struct job *j, const struct row *s, struct daemons *d, struct emit *e)
{
        struct table tt = {};
        long n = group_step(j, s, d, &tt);

        if (!n)
                n = emit_table(&tt, e);
        free(tt.t);
        return n;
}

void tooltable_main_tool(const struct job *j, const struct row *s, struct daemons *d, char *out, size_t len)
{
        struct table tt = {};

        snprintf(out, len, "%s", group_step(j, s, d, &tt) == 0 && tt.n ? tt.t[0].r.tool : "");
        free(tt.t);
}
