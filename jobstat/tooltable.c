/* Tool tables, from tracerd's grouped "tools" replies. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "procs.h"
#include "tooltable.h"

#define CODES_MAX (sizeof(((struct exit_counts *)0)->c) / sizeof(((struct exit_counts *)0)->c[0]))

/* ---- records */

static void add_int(struct json_object *o, const char *key, int64_t v)
{
        if (v != JS_NONE)
                json_object_object_add(o, key, json_object_new_int64(v));
}

/* a tracerd without the "tools" query: one record per process that is not shell plumbing,
 * or that failed */
static int records_from_processes(struct daemons *d, const struct unit_rec *u, struct json_object **tools)
{
        struct json_object *procs, *out;
        int r = daemons_processes(d, u->node, u->id, &procs);

        if (r < 0)
                return r;
        if (!(out = json_object_new_array())) {
                json_object_put(procs);
                return -ENOMEM;
        }
        for (size_t i = 0; i < json_object_array_length(procs); i++) {
                struct proc_rec p;
                struct json_object *o;
                char counts[32];

                if (proc_from_json(json_object_array_get_idx(procs, i), &p) < 0)
                        continue;
                if ((!p.excluded || (p.status != JS_NONE && p.status != 0)) && (o = json_object_new_object())) {
                        json_object_object_add(o, "tool", json_object_new_string(p.tool));
                        json_object_object_add(o, "nprocs", json_object_new_int64(1));
                        add_int(o, "cpu_ns", p.cpu_ns);
                        add_int(o, "user_ns", p.user_ns);
                        add_int(o, "sys_ns", p.sys_ns);
                        add_int(o, "maxrss_kb", p.maxrss_kb);
                        add_int(o, "read_bytes", p.read_bytes);
                        add_int(o, "write_bytes", p.write_bytes);
                        add_int(o, "rchar", p.rchar);
                        add_int(o, "wchar", p.wchar);
                        add_int(o, "first_start_ns", p.start_ns);
                        add_int(o, "last_end_ns", p.end_ns);
                        add_int(o, "oom_kills", p.flags != JS_NONE && (p.flags & PROC_OOM_KILLED) ? 1 : 0);
                        if (p.status != JS_NONE)
                                snprintf(counts, sizeof(counts), "%" PRId64 ":1", p.status);
                        else
                                snprintf(counts, sizeof(counts), ":1");
                        json_object_object_add(o, "status_counts", json_object_new_string(counts));
                        json_object_array_add(out, o);
                }
                free(p.cmd);
        }
        json_object_put(procs);
        *tools = out;
        return 0;
}

int tooltable_unit_tools(void *ctx, const struct unit_rec *u, struct json_object **tools)
{
        struct daemons *d = ctx;
        int r = daemons_tools(d, u->node, u->id, tools);

        return r == -EREMOTEIO ? records_from_processes(d, u, tools) : r;
}

int tooltable_record_name(struct json_object *rec, char *out, size_t len)
{
        const char *tool, *sub;

        if (!json_object_is_type(rec, json_type_object) || !*(tool = json_text(rec, "tool")))
                return -ENOENT;
        sub = json_text(rec, "subcommand");
        snprintf(out, len, "%s%s%s", tool, *sub ? " " : "", sub);
        conv_sanitize(out);
        return 0;
}

static void add_code(struct exit_counts *ec, int64_t status, int64_t n)
{
        int c;

        for (c = 0; c < ec->n && ec->c[c].status != status; c++)
                ;
        if (c == ec->n) {
                if (c == (int)CODES_MAX) {
                        ec->more++;
                        return;
                }
                ec->c[c].status = status;
                ec->n++;
        }
        ec->c[c].n += n;
}

/* "0:12,256:1" (an empty status: not known) */
static void add_codes(struct exit_counts *ec, const char *counts)
{
        while (*counts) {
                char *end = (char *)counts;
                int64_t status = *counts == ':' ? JS_NONE : strtoll(counts, &end, 10), n;

                if (*end != ':')
                        return; /* not the shape tracerd writes: keep what was read */
                n = strtoll(end + 1, &end, 10);
                if (n > 0)
                        add_code(ec, status, n);
                if (*end != ',')
                        return;
                counts = end + 1;
        }
}

/* a tool group's numbers, as tracerd sends them */
struct tool_rec {
        TOOL_RECORD(REC_NUMBER)
};
#define TOOL_SLOT(name, kind, sql, len, flags) REC_SLOT_NUMBER_##kind(struct tool_rec, name, kind)
static const struct rec_slot tool_slots[] = { TOOL_RECORD(TOOL_SLOT) };

void tooltable_record_add(struct row *r, struct exit_counts *ec, struct json_object *rec)
{
        struct figures *f = &r->f;
        struct tool_rec t;

        json_to_rec(rec, tool_slots, sizeof(tool_slots) / sizeof(*tool_slots), &t);
        fig_sum(&f->nprocs, t.nprocs);
        fig_sum(&r->cpu_ns, t.cpu_ns);
        fig_sum(&r->user_ns, t.user_ns);
        fig_sum(&r->sys_ns, t.sys_ns);
        fig_max(&f->maxrss_kb, t.maxrss_kb);
        fig_sum(&f->read_bytes, t.read_bytes);
        fig_sum(&f->write_bytes, t.write_bytes);
        fig_sum(&f->rchar, t.rchar);
        fig_sum(&f->wchar, t.wchar);
        fig_sum(&f->oom_kills, t.oom_kills);
        fig_min(&f->first_start_ns, t.first_start_ns);
        fig_max(&f->last_end_ns, t.last_end_ns);
        add_codes(ec, json_text(rec, "status_counts"));
}

void exit_counts_format(const struct exit_counts *ec, int with_counts, char *out, size_t len)
{
        size_t at = 0;

        out[0] = 0;
        for (int c = 0; c < ec->n && at < len; c++) {
                char code[16];
                int w;

                conv_exitcode(code, sizeof(code), ec->c[c].status);
                w = with_counts ? snprintf(out + at, len - at, "%s%s(%" PRId64 ")", c ? "," : "", code, ec->c[c].n)
                                : snprintf(out + at, len - at, "%s%s", c ? "," : "", code);
                at += w > 0 ? (size_t)w : 0;
        }
        if (ec->more && at < len)
                snprintf(out + at, len - at, ",...");
}

/* ---- one step's table */

struct tool_acc {
        struct row r;
        struct exit_counts ec;
};

struct table {
        struct tool_acc *t;
        size_t n, cap;
};

/* the row of tool (a new one at first use), or NULL (ENOMEM) */
static struct tool_acc *table_row(struct table *tt, const char *tool, const struct row *s)
{
        struct tool_acc *a;

        for (size_t i = 0; i < tt->n; i++)
                if (!strcmp(tt->t[i].r.tool, tool))
                        return &tt->t[i];
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

static int by_cpu(const void *a, const void *b)
{
        const struct tool_acc *x = a, *y = b;

        if (x->r.cpu_ns != y->r.cpu_ns)
                return x->r.cpu_ns > y->r.cpu_ns ? -1 : 1;
        return strcmp(x->r.tool, y->r.tool);
}

/* the tools of the step's units, the most CPU first: 0 or -ENOMEM. A node that cannot be
 * asked is left out (the warnings name it). */
static int group_step(const struct job *j, const struct row *s, struct daemons *d, struct table *tt)
{
        size_t *idx = malloc((j->nunits + 1) * sizeof(*idx)), n;
        int err = 0;

        if (!idx)
                return -ENOMEM;
        n = report_step_units(j, s, idx, j->nunits);
        for (size_t u = 0; u < n && !err; u++) {
                struct json_object *tools;

                if (tooltable_unit_tools(d, &j->units[idx[u]], &tools) < 0)
                        continue;
                for (size_t k = 0; k < json_object_array_length(tools) && !err; k++) {
                        struct json_object *rec = json_object_array_get_idx(tools, k);
                        struct tool_acc *a;
                        char name[sizeof(a->r.tool)];

                        if (tooltable_record_name(rec, name, sizeof(name)) < 0)
                                continue;
                        if (!(a = table_row(tt, name, s)))
                                err = -ENOMEM;
                        else
                                tooltable_record_add(&a->r, &a->ec, rec);
                }
                json_object_put(tools);
        }
        free(idx);
        if (!err && tt->n > 1)
                qsort(tt->t, tt->n, sizeof(*tt->t), by_cpu);
        return err;
}

long tooltable_emit(const struct job *j, const struct row *s, struct daemons *d, struct emit *e)
{
        struct table tt = {};
        long n = group_step(j, s, d, &tt);

        for (size_t k = 0; !n && k < tt.n; k++) {
                exit_counts_format(&tt.t[k].ec, 1, tt.t[k].r.exit_codes, sizeof(tt.t[k].r.exit_codes));
                emit_row(e, &tt.t[k].r);
        }
        if (!n)
                n = (long)tt.n;
        free(tt.t);
        return n;
}

void tooltable_main_tool(const struct job *j, const struct row *s, struct daemons *d, char *out, size_t len)
{
        struct table tt = {};

        snprintf(out, len, "%s", group_step(j, s, d, &tt) == 0 && tt.n ? tt.t[0].r.tool : "");
        free(tt.t);
}
