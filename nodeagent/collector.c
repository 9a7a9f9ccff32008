/* Load the process collector, probe its tracepoints, attach, and drain its ring buffer. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "collector.h"
#include "log.h"
#include "process.skel.h"

enum { SIG_FORK, SIG_EXEC, SIG_EXIT, SIG_SWITCH, SIG_OOM, SIG_COUNT };

struct collector {
        struct process_bpf *skel;
        struct ring_buffer *rb;
        struct bpf_link *links[SIG_COUNT];
        struct collector_signal signals[SIG_COUNT];
        collector_event_fn fn;
        void *ctx;
        int ncpus;
};

static const struct {
        const char *name, *provides;
        int raw;      /* raw tracepoint (BTF typedef) rather than a tracefs event */
        int required; /* without it no process can be tracked correctly */
} signal_info[SIG_COUNT] = {
        [SIG_FORK] = { "sched:sched_process_fork", "children of tracked processes", 1, 1 },
        [SIG_EXEC] = { "sched:sched_process_exec", "executed commands", 1, 1 },
        [SIG_EXIT] = { "sched:sched_process_exit", "per-process totals at exit", 1, 1 },
        [SIG_SWITCH] = { "sched:sched_switch", "the last CPU slice of short processes", 1, 0 },
        [SIG_OOM] = { "oom:mark_victim", "OOM-kill attribution", 0, 0 },
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
        char buf[512];
        size_t n;

        if (level == LIBBPF_DEBUG)
                return 0;
        vsnprintf(buf, sizeof(buf), fmt, ap);
        n = strlen(buf);
        if (n && buf[n - 1] == '\n')
                buf[n - 1] = 0;
        log_msg(level == LIBBPF_WARN ? LOG_LEVEL_WARNING : LOG_LEVEL_INFO, "libbpf: %s", buf);
        return 0;
}

/* tracefs event directories; libbpf needs one to attach classic tracepoints */
static int tracefs_event_exists(const char *category, const char *event)
{
        static const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
        char path[256];
        struct stat st;
        size_t i;

        for (i = 0; i < 2; i++) {
                snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i], category, event);
                if (stat(path, &st) == 0)
                        return 1;
        }
        /* not mounted yet (common under systemd-less boots): mount it once and look again */
        if (stat("/sys/kernel/tracing/events", &st) != 0 &&
            mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
                snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id", category, event);
                return stat(path, &st) == 0;
        }
        return 0;
}

/* Decide before load which programs this kernel can take, so one missing tracepoint only
 * disables its own signal. */
static void probe_signals(struct collector *c, struct btf *vmlinux)
{
        struct bpf_program *progs[SIG_COUNT] = {
                c->skel->progs.handle_fork, c->skel->progs.handle_exec,
                c->skel->progs.handle_exit, c->skel->progs.handle_switch, c->skel->progs.handle_oom,
        };
        char what[128];
        int i;

        for (i = 0; i < SIG_COUNT; i++) {
                struct collector_signal *s = &c->signals[i];
                const char *event = strchr(signal_info[i].name, ':') + 1;

                s->name = signal_info[i].name;
                s->provides = signal_info[i].provides;
                s->available = 1;
                if (signal_info[i].raw) {
                        snprintf(what, sizeof(what), "btf_trace_%s", event);
                        if (vmlinux && btf__find_by_name_kind(vmlinux, what, BTF_KIND_TYPEDEF) < 0) {
                                s->available = 0;
                                snprintf(s->reason, sizeof(s->reason), "no such tracepoint in this kernel");
                        }
                } else {
                        snprintf(what, sizeof(what), "%.*s", (int)(event - 1 - signal_info[i].name),
                                 signal_info[i].name);
                        if (!tracefs_event_exists(what, event)) {
                                s->available = 0;
                                snprintf(s->reason, sizeof(s->reason), "tracefs event not found");
                        }
                }
                if (!s->available)
                        bpf_program__set_autoload(progs[i], false);
        }
}

static int attach_signals(struct collector *c)
{
        struct bpf_program *progs[SIG_COUNT] = {
                c->skel->progs.handle_fork, c->skel->progs.handle_exec,
                c->skel->progs.handle_exit, c->skel->progs.handle_switch, c->skel->progs.handle_oom,
        };
        int i, err;

        for (i = 0; i < SIG_COUNT; i++) {
                struct collector_signal *s = &c->signals[i];

                if (s->available) {
                        c->links[i] = bpf_program__attach(progs[i]);
                        if (!c->links[i]) {
                                err = -errno;
                                s->available = 0;
                                snprintf(s->reason, sizeof(s->reason), "attach failed: %s", strerror(-err));
                        }
                }
                if (!s->available) {
                        if (signal_info[i].required) {
                                log_error("%s unavailable (%s): cannot track processes", s->name, s->reason);
                                return -EOPNOTSUPP;
                        }
                        log_warn("%s unavailable (%s): no %s", s->name, s->reason, s->provides);
                }
        }
        return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
        struct collector *c = ctx;

        return c->fn(c->ctx, data, size);
}

int collector_open(struct collector **out, uint64_t ring_bytes, collector_event_fn fn, void *ctx)
{
        struct collector *c;
        struct btf *vmlinux;
        int err;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->fn = fn;
        c->ctx = ctx;
        c->ncpus = libbpf_num_possible_cpus();
        libbpf_set_print(libbpf_log);

        c->skel = process_bpf__open();
        if (!c->skel) {
                err = -errno;
                log_error("cannot open the BPF object: %s", strerror(-err));
                goto fail;
        }
        c->skel->rodata->page_kb = sysconf(_SC_PAGESIZE) / 1024;
        c->skel->rodata->wakeup_bytes = ring_bytes / 8;
        bpf_map__set_max_entries(c->skel->maps.events, ring_bytes);

        vmlinux = btf__load_vmlinux_btf();
        if (!vmlinux)
                log_warn("kernel BTF not readable (%m): attaching every tracepoint blindly");
        probe_signals(c, vmlinux);
        btf__free(vmlinux);

        err = process_bpf__load(c->skel);
        if (err) {
                log_error("cannot load the BPF programs: %s (BTF, CAP_BPF and CAP_PERFMON needed)",
                          strerror(-err));
                goto fail;
        }
        err = attach_signals(c);
        if (err)
                goto fail;
        c->skel->bss->have_switch = c->signals[SIG_SWITCH].available;
        malloc_trim(0); /* parsing kernel BTF left ~10 MB of freed heap resident */
        c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events), on_event, c, NULL);
        if (!c->rb) {
                err = -errno;
                log_error("cannot open the ring buffer: %s", strerror(-err));
                goto fail;
        }
        *out = c;
        return 0;
fail:
        collector_close(c);
        return err < 0 ? err : -EINVAL;
}

void collector_close(struct collector *c)
{
        int i;

        if (!c)
                return;
        ring_buffer__free(c->rb);
        for (i = 0; i < SIG_COUNT; i++)
                bpf_link__destroy(c->links[i]);
        process_bpf__destroy(c->skel);
        free(c);
}

int collector_fd(const struct collector *c)
{
        return ring_buffer__epoll_fd(c->rb);
}

int collector_drain(struct collector *c)
{
        return ring_buffer__consume(c->rb);
}

int collector_poll(struct collector *c, int timeout_ms)
{
        return ring_buffer__poll(c->rb, timeout_ms);
}

int collector_track_pid(struct collector *c, uint32_t tgid, uint64_t unit)
{
        return bpf_map__update_elem(c->skel->maps.tracked, &tgid, sizeof(tgid), &unit, sizeof(unit),
                                    BPF_ANY);
}

int collector_untrack_pid(struct collector *c, uint32_t tgid)
{
        int err = bpf_map__delete_elem(c->skel->maps.tracked, &tgid, sizeof(tgid), 0);

        return err == -ENOENT ? 0 : err;
}

int collector_track_cgroup(struct collector *c, uint64_t cgroup_id, uint64_t unit)
{
        int err = bpf_map__update_elem(c->skel->maps.tracked_cgroups, &cgroup_id, sizeof(cgroup_id),
                                       &unit, sizeof(unit), BPF_ANY);

        if (!err)
                c->skel->bss->cgroup_tracking = 1;
        return err;
}

int collector_untrack_cgroup(struct collector *c, uint64_t cgroup_id)
{
        int err = bpf_map__delete_elem(c->skel->maps.tracked_cgroups, &cgroup_id, sizeof(cgroup_id), 0);

        return err == -ENOENT ? 0 : err;
}

int collector_stats(const struct collector *c, uint64_t out[STAT_MAX])
{
        uint64_t *vals;
        uint32_t i;
        int cpu, err = 0;

        vals = calloc(c->ncpus, sizeof(*vals));
        if (!vals)
                return -ENOMEM;
        for (i = 0; i < STAT_MAX; i++) {
                out[i] = 0;
                err = bpf_map__lookup_elem(c->skel->maps.stats, &i, sizeof(i), vals,
                                           sizeof(*vals) * c->ncpus, 0);
                if (err)
                        break;
                for (cpu = 0; cpu < c->ncpus; cpu++)
                        out[i] += vals[cpu];
        }
        free(vals);
        return err;
}

size_t collector_signals(const struct collector *c, const struct collector_signal **out)
{
        *out = c->signals;
        return SIG_COUNT;
}
