/* Kernel events → process table → store; rediscovery; the agent's life cycle and tool rules. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cgroup.h"
#include "argv.h"
#include "log.h"
#include "procfs.h"
#include "units.h"

static int64_t clock_ns(clockid_t id)
{
        struct timespec ts;

        clock_gettime(id, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t agent_now_boot_ns(void)
{
        return clock_ns(CLOCK_BOOTTIME);
}

int64_t agent_now_unix_ns(void)
{
        return clock_ns(CLOCK_REALTIME);
}

/* The store lost processes of unit (disk full): counted in its Lost, its record written again. */
static void store_loss(void *ctx, uint64_t id, uint32_t n)
{
        struct agent *a = ctx;
        struct unit *u = units_find(a, id);

        if (!u) {
                a->unstored += n;
                return;
        }
        u->unstored += n;
        if (u->state != UNIT_RUNNING) {
                u->lost_events += n;
                u->dirty = 1;
        }
}

/* ---- events */

static void set_command(struct proc *p, const struct exec_event *e, size_t argv_len)
{
        char *argv;
        size_t len;

        free(p->exe);
        p->exe = strndup(e->path, sizeof(e->path));
        memcpy(p->comm, e->comm, sizeof(p->comm));
        p->comm[sizeof(p->comm) - 1] = 0;
        if (argv_redact(e->argv, argv_len, &argv, &len) == 0) {
                free(p->argv);
                p->argv = argv;
                p->argv_len = len;
        }
        p->flags |= PROC_EXECED;
        if (e->flags & EXEC_ARGV_TRUNCATED)
                p->flags |= PROC_ARGV_TRUNCATED;
        else
                p->flags &= ~PROC_ARGV_TRUNCATED;
}

static struct proc *get_proc(struct agent *a, const struct event_header *h)
{
        struct proc *p;
        struct unit *u;
        int created;

        if (proctable_get(&a->procs, h->pid, h->start_ns, &p, &created) < 0) {
                log_error("out of memory: process %u not recorded", h->pid);
                return NULL;
        }
        if (created) {
                p->unit = h->unit;
                u = units_find(a, h->unit);
                if (u)
                        u->live++;
        } else if (h->unit && h->unit != p->unit) {
                units_move_proc(a, p, h->unit); /* registered as another unit's root since its fork */
        }
        return p;
}

/* A process that never exec'd runs its parent's program: name it so. */
static void inherit_command(struct proc *p, const struct proc *parent)
{
        if ((p->flags & PROC_EXECED) || !parent)
                return;
        if (parent->exe && !p->exe)
                p->exe = strdup(parent->exe);
        if (parent->argv && !p->argv) {
                p->argv = malloc(parent->argv_len + 1);
                if (p->argv) {
                        memcpy(p->argv, parent->argv, parent->argv_len + 1);
                        p->argv_len = parent->argv_len;
                }
        }
}

static uint64_t minus(uint64_t v, uint64_t base)
{
        return v > base ? v - base : 0;
}

/* The exit's CPU and faults count from fork; a program's own count from its first exec. The
 * user/system split is kept in proportion (it is tick-sampled anyway). I/O stays as
 * /proc/PID/io counts it, from fork: before its exec a child does little I/O, and the exec's
 * own reads of the program are part of starting it. */
static void leave_out_pre_exec(struct exit_event *x, const struct exec_base *b)
{
        x->runtime_ns = minus(x->runtime_ns, b->runtime_ns);
        x->minflt = minus(x->minflt, b->minflt);
        x->majflt = minus(x->majflt, b->majflt);
}

static void finish_proc(struct agent *a, struct proc *p, const struct exit_event *e)
{
        struct unit *u = units_find(a, p->unit);

        if (u) /* its work since its last sample, for the unit's idle windows */
                activity_exit(&u->activity, e->h.time_ns,
                              minus(e->runtime_ns + e->w.iowait_ns, p->sample_cpu_ns + p->sample_w.iowait_ns));

        p->exit = *e;
        leave_out_pre_exec(&p->exit, &p->base);
        stall_close(&p->stall, e->h.time_ns);
        p->flags |= PROC_FINISHED;
        if (!p->ppid)
                p->ppid = e->ppid;
        if (!p->comm[0])
                memcpy(p->comm, e->comm, sizeof(p->comm));
        p->comm[sizeof(p->comm) - 1] = 0;
        inherit_command(p, proctable_find_pid(&a->procs, p->ppid));
        if (tool_identify_flags(a->rules, p->exe, p->argv, p->argv_len,
                                p->flags & PROC_ARGV_TRUNCATED ? TOOL_ARGV_TRUNCATED : 0, &p->tool) < 0)
                snprintf(p->tool.name, sizeof(p->tool.name), "%s", p->comm);
        if (store_add_process(a->store, p, a->offset_ns) == 0)
                a->stored++;
        if (u && p->stall.ns) {
                u->stalls++;
                if (p->stall.ns > u->stall_ns) { /* the unit's record names its longest */
                        u->stall_pid = p->pid;
                        snprintf(u->stall_tool, sizeof(u->stall_tool), "%s", p->tool.name);
                        u->stall_start_ns = (int64_t)p->stall.start_ns + a->offset_ns;
                        u->stall_ns = p->stall.ns;
                        snprintf(u->stall_reason, sizeof(u->stall_reason), "%s", p->stall.reason);
                }
        }
        if (u) {
                u->finished++;
                if (u->live && !--u->live)
                        u->idle_since_ns = agent_now_unix_ns();
        }
        proctable_remove(&a->procs, p);
        if (u && u->state != UNIT_RUNNING && !u->live)
                units_drop(a, u); /* ended earlier, waited for its last process */
}

void agent_close_lost(struct agent *a, struct proc *p)
{
        struct exit_event e;

        memset(&e, 0, sizeof(e));
        e.h.type = EVENT_EXIT;
        e.h.pid = p->pid;
        e.h.start_ns = p->start_ns;
        e.h.unit = p->unit;
        e.h.time_ns = agent_now_boot_ns();
        e.status = -1;
        e.runtime_ns = p->sample_cpu_ns;
        e.flags = EXIT_PEAK_UNREAD | EXIT_NO_WAITS | EXIT_NO_NET; /* MaxRSS from the last sample */
        memcpy(e.comm, p->comm, sizeof(e.comm));
        p->flags |= PROC_EXIT_LOST;
        finish_proc(a, p, &e);
}

/* events[] counts as the kernel side's stats do: by STAT_*, not by the event's type number */
static const enum stat_index stat_of_event[] = {
        [EVENT_FORK] = STAT_FORK, [EVENT_EXEC] = STAT_EXEC, [EVENT_EXIT] = STAT_EXIT,
        [EVENT_OOM] = STAT_OOM,
};

int agent_on_event(void *ctx, const void *data, size_t size)
{
        struct agent *a = ctx;
        const struct event_header *h = data;
        struct proc *p;

        if (size < sizeof(*h) || h->type < EVENT_FORK || h->type > EVENT_OOM)
                goto bad;
        switch (h->type) {
        case EVENT_FORK: {
                const struct fork_event *e = data;

                if (size < sizeof(*e))
                        goto bad;
                p = get_proc(a, h);
                if (p) {
                        p->ppid = e->ppid;
                        p->uid = e->uid;
                        /* now: the parent may be gone by the child's exit */
                        inherit_command(p, proctable_find(&a->procs, e->ppid, e->parent_start_ns));
                }
                break;
        }
        case EVENT_EXEC: {
                const struct exec_event *e = data;
                size_t fixed = offsetof(struct exec_event, argv);

                if (size < fixed || e->argv_len > sizeof(e->argv) || size < fixed + e->argv_len)
                        goto bad;
                p = get_proc(a, h);
                if (p) {
                        p->ppid = e->ppid;
                        p->uid = e->uid;
                        p->gid = e->gid;
                        p->cgroup_id = e->cgroup_id;
                        p->exec_ns = h->time_ns;
                        if (!(p->flags & PROC_EXECED))
                                p->base = e->base;
                        set_command(p, e, e->argv_len);
                }
                break;
        }
        case EVENT_EXIT: {
                const struct exit_event *e = data;

                if (size < sizeof(*e))
                        goto bad;
                p = get_proc(a, h);
                if (p)
                        finish_proc(a, p, e);
                break;
        }
        case EVENT_OOM: {
                const struct oom_event *e = data;

                if (size < sizeof(*e))
                        goto bad;
                p = proctable_find_pid(&a->procs, e->victim_tid);
                log_warn("OOM killer chose pid %u (%s) of unit %llu, anon-rss %llukB", e->victim_tid,
                         p ? p->comm : "?", (unsigned long long)h->unit,
                         (unsigned long long)e->anon_rss_kb);
                if (p)
                        p->flags |= PROC_OOM_KILLED;
                break;
        }
        }
        a->events[stat_of_event[h->type]]++;
        return 0;
bad:
        a->bad_events++;
        log_warn("malformed event (%zu bytes) ignored", size);
        return 0;
}

/* ---- rediscovery after a restart */

struct rediscover_ctx {
        struct agent *a;
        struct unit *u;
        unsigned found;
};

/* Track a live process of a unit again and give it a table entry from /proc. */
static int adopt(pid_t pid, void *ctx)
{
        struct rediscover_ctx *rc = ctx;
        struct agent *a = rc->a;
        struct procfs_stat st;
        struct proc *p;
        char buf[EXEC_ARGV_MAX], exe[EXEC_PATH_MAX], *argv;
        ssize_t n;
        size_t len;
        int created, trunc = 0;

        if (procfs_read_stat(pid, &st) < 0 || st.state == 'Z' || st.state == 'X')
                return 0; /* a zombie's exit is past: tracking its pid would catch the next owner */
        if (collector_track_pid(a->collector, pid, st.start_ticks, rc->u->id) < 0)
                return 0;
        if (proctable_get(&a->procs, pid, st.start_ticks * a->tick_ns, &p, &created) < 0)
                return -ENOMEM;
        if (!created)
                return 0;
        p->unit = rc->u->id;
        p->ppid = st.ppid;
        p->flags |= PROC_REDISCOVERED | PROC_EXECED;
        procfs_read_uid(pid, &p->uid);
        memcpy(p->comm, st.comm, sizeof(p->comm));
        if (procfs_read_exe(pid, exe, sizeof(exe)) == 0)
                p->exe = strdup(exe);
        n = procfs_read_cmdline(pid, buf, sizeof(buf), &trunc);
        if (n > 0 && argv_redact(buf, n, &argv, &len) == 0) {
                p->argv = argv;
                p->argv_len = len;
                if (trunc)
                        p->flags |= PROC_ARGV_TRUNCATED;
        }
        rc->u->live++;
        rc->found++;
        return 0;
}

static int rediscover_unit(const struct unit *stored, void *ctx)
{
        struct agent *a = ctx;
        struct rediscover_ctx rc = { .a = a };
        struct procfs_stat st;
        struct unit *u;

        u = units_adopt(a, stored);
        if (!u)
                return -ENOMEM;
        rc.u = u;
        if (u->cgroup_path[0])
                procfs_cgroup_procs(u->cgroup_path, adopt, &rc);
        if (u->cgroup_id)
                collector_track_cgroup(a->collector, u->cgroup_id, u->id);
        /* it ran while tracerd was away: its record has that gap */
        if (a->last_alive_ns > u->start_ns) {
                if (!u->down_start_ns)
                        u->down_start_ns = a->last_alive_ns;
                u->down_end_ns = agent_now_unix_ns();
                store_put_unit(a->store, u);
        }
        if (u->root_pid && procfs_read_stat(u->root_pid, &st) == 0 &&
            st.start_ticks == u->root_start_ns / a->tick_ns) {
                adopt(u->root_pid, &rc);
                procfs_descendants(u->root_pid, adopt, &rc);
        }
        log_info("unit %llu (%s): %u running processes found again", (unsigned long long)u->id,
                 u->name, rc.found);
        return 0;
}

int agent_rediscover(struct agent *a)
{
        if (store_last_alive(a->store, &a->last_alive_ns) < 0)
                a->last_alive_ns = 0;
        store_close_stale_units(a->store);
        return store_running_units(a->store, rediscover_unit, a);
}

int agent_load_rules(struct agent *a, const char *path)
{
        struct tool_rules *rules = NULL, *local = NULL;
        char err[512] = "";
        size_t builtin, n = 0;
        int e;

        /* parsed afresh each time: the file's rules are appended to a set of their own */
        if ((e = tool_rules_builtin(&rules, err, sizeof(err))) < 0) {
                log_error("built-in tool rules: %s", err[0] ? err : strerror(-e));
                goto cleanup;
        }
        builtin = tool_rules_count(rules);
        e = tool_rules_load(path, &local, err, sizeof(err));
        if (e == -ENOENT) {
                /* no local rules is a normal setup: the built-in ones are complete */
                if (strcmp(path, TRACER_TOOL_RULES_DEFAULT) == 0)
                        log_info("no local tool rules at %s: the %zu built-in rules", path, builtin);
                else
                        log_warn("ToolRules %s: the %zu built-in rules only", err, builtin);
                e = 0;
        } else if (e == 0) {
                n = tool_rules_count(local);
                err[0] = 0;
                if ((e = tool_rules_append(rules, local)) == 0) {
                        local = NULL;
                        log_info("%zu tool rules from %s after the %zu built-in ones", n, path, builtin);
                }
        }
        if (e < 0) {
                log_error("tool rules refused, %s: %s", a->rules ? "the rules in force stay" : "tracerd stops",
                          err[0] ? err : strerror(-e));
                goto cleanup;
        }
        tool_rules_free(a->rules);
        a->rules = rules;
        rules = NULL;
cleanup:
        tool_rules_free(local);
        tool_rules_free(rules);
        return e;
}

/* ---- life cycle */

int agent_init(struct agent *a, const struct tracer_config *cfg, const char *node)
{
        struct collector_opts o = { .ring_bytes = cfg->ring_buffer_bytes, .btf_path = cfg->btf_path };
        struct passwd *pw;
        char dir[PATH_MAX];
        int err;

        memset(a, 0, sizeof(*a));
        a->cfg = *cfg;
        snprintf(a->node, sizeof(a->node), "%s", node);
        a->offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME);
        a->started_ns = agent_now_unix_ns();
        a->tick_ns = procfs_tick_ns();
        pw = getpwnam(cfg->slurm_user);
        a->slurm_uid = pw ? pw->pw_uid : (uid_t)-1;
        err = procfs_boot_id(a->boot_id, sizeof(a->boot_id));
        if (err) {
                log_error("cannot read the boot id: %s", strerror(-err));
                return err;
        }
        err = topology_load(&a->topology);
        if (err)
                log_warn("hwloc cannot read this node's topology (%s): no rightsizing facts", strerror(-err));
        a->have_topology = !err;
        err = agent_load_rules(a, cfg->tool_rules);
        if (err)
                return err;
        err = proctable_init(&a->procs, a->tick_ns);
        if (err)
                return err;
        if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", cfg->state_dir, node) >= sizeof(dir))
                return -ENAMETOOLONG;
        if (mkdir(cfg->state_dir, 0755) < 0 && errno != EEXIST) {
                err = -errno;
                log_error("cannot create %s: %m", cfg->state_dir);
                return err;
        }
        err = store_open(&a->store, dir, a->boot_id);
        if (err)
                return err;
        store_on_loss(a->store, store_loss, a);
        err = store_next_unit_id(a->store, &a->next_unit_id);
        if (err)
                return err;
        return collector_open(&a->collector, &o, agent_on_event, a);
}

void agent_fini(struct agent *a)
{
        if (a->collector)
                collector_drain(a->collector);
        collector_close(a->collector);
        if (a->store)
                store_set_alive(a->store, agent_now_unix_ns()); /* away from now on */
        store_close(a->store);
        proctable_free(&a->procs);
        tool_rules_free(a->rules);
        units_free(a);
        memset(a, 0, sizeof(*a));
}
