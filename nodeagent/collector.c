/* Load the process collector, probe its tracepoints, attach, and drain its ring buffer. */
#include <errno.h>
#include <stddef.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "collector.h"
#include "collector_internal.h"
#include "log.h"
#include "procfs.h"
#include "ring_reader.h"

/* Each tracepoint: its name, the program attached to it (an offset into the skeleton, so that a
 * misspelt program does not build) and what is missing without it. */
#define PROG(name) offsetof(struct process_bpf, progs.name)
static const struct {
	const char *name, *provides;
	size_t prog;
	int raw;      /* raw tracepoint (BTF typedef) rather than a tracefs event */
	int required; /* without it no process can be tracked correctly */
} signal_info[SIG_COUNT] = {
	[SIG_FORK] = { "sched:sched_process_fork", "children of tracked processes",
		       PROG(handle_fork), 1, 1 },
	[SIG_EXEC] = { "sched:sched_process_exec", "executed commands", PROG(handle_exec), 1, 1 },
	[SIG_EXIT] = { "sched:sched_process_exit", "per-process totals at exit", PROG(handle_exit),
		       1, 1 },
	[SIG_SWITCH] = { "sched:sched_switch",
			 "the last CPU slice of short processes; CPU, I/O and other waits",
			 PROG(handle_switch), 1, 0 },
	[SIG_OOM] = { "oom:mark_victim", "OOM-kill attribution", PROG(handle_oom), 0, 0 },
	[SIG_SIGNAL] = { "signal:signal_deliver", "own peak memory of programs killed by a signal",
			 PROG(handle_signal), 1, 0 },
	[SIG_EXIT_GROUP] = { "syscalls:sys_enter_exit_group",
			     "own peak memory of programs started by a larger parent",
			     PROG(handle_exit_group), 0, 0 },
	/* 6.3 and later */
	[SIG_SEND] = { "sock:sock_send_length", "network bytes sent (NetTx)", PROG(handle_send), 1,
		       0 },
	[SIG_RECV] = { "sock:sock_recv_length", "network bytes received (NetRx)", PROG(handle_recv),
		       1, 0 },
};
#undef PROG

static struct bpf_program *signal_prog(const struct process_bpf *skel, int i)
{
	return *(struct bpf_program *const *)((const char *)skel + signal_info[i].prog);
}

/* What libbpf said about the program that failed to load, boiled down to one line: libbpf's
 * print callback has no context, and tracerd loads from one thread. */
static struct {
	int loading;
	char prog[64];	  /* the program libbpf last named */
	char reason[160]; /* the kernel feature it lacks, or the verifier's last word */
} load_diag;

/* One line out of a verifier log: a CO-RE relocation names the missing kernel field or type,
 * an unknown helper names the helper; otherwise the log's last statement. */
static void diagnose(const char *log)
{
	const char *p, *end;
	char last[160] = "";

	if ((p = strstr(log, "failed to resolve CO-RE relocation"))) {
		p = strchr(p, ']');
		end = p ? strstr(p, " (") : NULL;
		if (p && end && end - p > 2) {
			snprintf(load_diag.reason, sizeof(load_diag.reason),
				 "this kernel has no %.*s", (int)(end - p - 2), p + 2);
			return;
		}
	}
	if ((p = strstr(log, "unknown func "))) {
		end = strpbrk(p + 13, "#\n");
		snprintf(load_diag.reason, sizeof(load_diag.reason),
			 "this kernel lacks the helper %.*s",
			 (int)((end ? end : p + strlen(p)) - (p + 13)), p + 13);
		return;
	}
	for (p = log; *p; p = end + (*end != 0)) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (end > p && strncmp(p, "processed ", 10) && strncmp(p, "-- END", 6) &&
		    strncmp(p, "verification time", 17) && strncmp(p, "stack depth", 11))
			snprintf(last, sizeof(last), "%.*s", (int)(end - p), p);
	}
	snprintf(load_diag.reason, sizeof(load_diag.reason), "verifier: %s", last);
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static char buf[65536]; /* a verifier log comes in one message */
	const char *p, *q;
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	if (load_diag.loading) {
		/* while loading, failures are summed up by collector_open; the details only at
		 * debug level */
		if ((p = strstr(buf, "prog '")) && (q = strchr(p + 6, '\'')))
			snprintf(load_diag.prog, sizeof(load_diag.prog), "%.*s", (int)(q - p - 6),
				 p + 6);
		if ((p = strstr(buf, "BEGIN PROG LOAD LOG")))
			diagnose(p);
		else if (strstr(buf, "failed to create map") || strstr(buf, "failed to find BTF"))
			snprintf(load_diag.reason, sizeof(load_diag.reason), "%s", buf);
		log_msg(LOG_LEVEL_DEBUG, "libbpf: %s", buf);
		return 0;
	}
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
		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id", category,
			 event);
		return stat(path, &st) == 0;
	}
	return 0;
}

/* Decide before load which programs this kernel can take, so one missing tracepoint only
 * disables its own signal. */
static void probe_signals(struct collector *c, const struct btf *vmlinux)
{
	char what[128];
	int i;

	for (i = 0; i < SIG_COUNT; i++) {
		struct collector_signal *s = &c->signals[i];
		const char *event = strchr(signal_info[i].name, ':') + 1;

		if (!s->available) { /* refused by this kernel's verifier on an earlier try */
			bpf_program__set_autoload(signal_prog(c->skel, i), false);
			continue;
		}
		if (signal_info[i].raw) {
			snprintf(what, sizeof(what), "btf_trace_%s", event);
			if (vmlinux &&
			    btf__find_by_name_kind(vmlinux, what, BTF_KIND_TYPEDEF) < 0) {
				s->available = 0;
				snprintf(s->reason, sizeof(s->reason),
					 "no such tracepoint in this kernel");
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
			bpf_program__set_autoload(signal_prog(c->skel, i), false);
	}
}

static int attach_signals(struct collector *c)
{
	int i, err;

	for (i = 0; i < SIG_COUNT; i++) {
		struct collector_signal *s = &c->signals[i];

		if (s->available) {
			err = pins_attach(c, signal_prog(c->skel, i), &c->links[i]);
			if (err < 0) {
				s->available = 0;
				/* E2BIG: a tracepoint takes 64 programs at most, and pin sets
				 * left by other tracerds keep theirs attached */
				snprintf(s->reason, sizeof(s->reason), "attach failed: %s%s",
					 strerror(-err),
					 err == -E2BIG
						 ? " (the tracepoint's 64 programs are taken:"
						   " see bpftool link, and remove stale pin sets)"
						 : "");
			}
		}
		if (!s->available) {
			if (signal_info[i].required) {
				log_error("%s unavailable (%s): cannot track processes", s->name,
					  s->reason);
				return -EOPNOTSUPP;
			}
			log_warn("%s unavailable (%s): no %s", s->name, s->reason, s->provides);
		}
	}
	return 0;
}

/* What the event held of the ring is free again: taken off its user's share (ring_share). */
static int share_release(void *ctx, const void *data, size_t size)
{
	struct collector *c = ctx;
	const struct event_header *h = data;

	if (size >= sizeof(*h) && h->share && h->share <= SHARE_SLOTS)
		__atomic_fetch_sub(&c->skel->data_shares->shares[h->share - 1].bytes,
				   (int64_t)ring_charge(size), __ATOMIC_RELAXED);
	return 0;
}

/* A negative return stops the reading after this event, which counts as read. */
static int on_event(void *ctx, const void *data, size_t size)
{
	struct collector *c = ctx;
	int err = c->fn(c->ctx, data, size);

	if (err < 0) { /* what is left is read later */
		c->stopped = 1;
		return err;
	}
	/* the clock every few events: each costs microseconds, the clock some nanoseconds */
	if (++c->drained % COLLECTOR_DRAIN_CHECK == 0 && clock_mono_ns() >= c->drain_end_ns) {
		c->stopped = 1;
		return -EAGAIN;
	}
	return 0;
}

/* Once an exit shows that this kernel keeps the address space until the exit tracepoint, the
 * exit_group(2) reading is redundant, and its syscall tracepoint slows every syscall. */
static void drop_exit_group(struct collector *c)
{
	struct collector_signal *s = &c->signals[SIG_EXIT_GROUP];

	if (!c->links[SIG_EXIT_GROUP] || !c->skel->bss->exit_sees_mm)
		return;
	pins_detach(c, c->skel->progs.handle_exit_group);
	bpf_link__destroy(c->links[SIG_EXIT_GROUP]);
	c->links[SIG_EXIT_GROUP] = NULL;
	s->available = 0;
	s->unneeded = 1;
	snprintf(s->reason, sizeof(s->reason), "this kernel's exit tracepoint sees the memory");
	log_info("%s detached, not needed: %s", s->name, s->reason);
}

/* Does this kernel still hold a process's memory at sched_process_exit? A child that exits at
 * once, tracked as unit 0 (which the kernel side never reports), tells before any job runs. */
static void probe_exit_mm(struct collector *c)
{
	struct procfs_stat st;
	int go[2], status;
	pid_t pid;
	char b;

	if (!c->links[SIG_EXIT_GROUP] || pipe2(go, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &b, 1) < 0);
	}
	close(go[0]);
	if (pid > 0 && procfs_read_stat(pid, &st) == 0)
		collector_track_pid(c, pid, st.start_ticks, 0);
	close(go[1]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	drop_exit_group(c);
}

/* Open the object and load what this kernel takes. A program the verifier refuses costs its own
 * signal when optional (the object is opened again without it); a required one stops tracerd
 * with one line naming the program and what the kernel lacks. */
static int load(struct collector *c, const struct collector_opts *o, const struct btf *vmlinux)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts,
		    .btf_custom_path = o->btf_path[0] ? o->btf_path : NULL);
	int err, i, tries;

	for (tries = 0; tries <= SIG_COUNT; tries++) {
		process_bpf__destroy(c->skel);
		c->skel = process_bpf__open_opts(&opts);
		if (!c->skel) {
			err = -errno;
			log_error("cannot open the BPF object: %s", strerror(-err));
			return err;
		}
		c->skel->rodata->page_kb = sysconf(_SC_PAGESIZE) / 1024;
		c->skel->rodata->wakeup_bytes = o->ring_bytes / 8;
		c->skel->rodata->wakeup_check_bytes =
			o->ring_bytes / 8 / (c->ncpus > 0 ? c->ncpus : 1);
		c->skel->rodata->ring_bytes = o->ring_bytes;
		c->skel->rodata->share_quiet = o->ring_bytes / 64;
		bpf_map__set_max_entries(c->skel->maps.events, o->ring_bytes);

		probe_signals(c, vmlinux);
		if ((err = pins_reuse(c)) < 0)
			return err;

		memset(&load_diag, 0, sizeof(load_diag));
		load_diag.loading = 1;
		err = process_bpf__load(c->skel);
		load_diag.loading = 0;
		if (!err)
			return 0;
		for (i = 0; i < SIG_COUNT; i++)
			if (!strcmp(load_diag.prog, bpf_program__name(signal_prog(c->skel, i))))
				break;
		if (!load_diag.reason[0])
			snprintf(load_diag.reason, sizeof(load_diag.reason), "%s", strerror(-err));
		if (i == SIG_COUNT || signal_info[i].required) {
			log_error("cannot load the BPF program %s%s%s: %s",
				  load_diag.prog[0] ? load_diag.prog : "object",
				  i < SIG_COUNT ? " of " : "",
				  i < SIG_COUNT ? signal_info[i].name : "", load_diag.reason);
			return err;
		}
		c->signals[i].available = 0;
		snprintf(c->signals[i].reason, sizeof(c->signals[i].reason), "%s",
			 load_diag.reason);
	}
	return -ELOOP;
}

int collector_open(struct collector **out, const struct collector_opts *o, collector_event_fn fn,
		   void *ctx)
{
	struct btf *vmlinux = NULL;
	struct collector *c;
	int err, i;

	if (!o->btf_path[0] && access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		log_error("this kernel has no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF): "
			  "set BtfPath to a BTF file for it (tracer.conf(5))");
		return -ENOENT;
	}
	/* parsed once: which tracepoints exist, on every try of the load */
	if (o->btf_path[0]) {
		vmlinux = btf__parse(o->btf_path, NULL);
		if (!vmlinux) {
			err = -errno;
			log_error("BtfPath %s: not a readable BTF file (%s): the BPF programs "
				  "cannot be "
				  "matched to this kernel",
				  o->btf_path,
				  err == -ENOENT ? "no such file" : "not BTF or ELF with .BTF");
			return err;
		}
	} else if (!(vmlinux = btf__load_vmlinux_btf())) {
		log_warn("kernel BTF not readable (%m): attaching every tracepoint blindly");
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		btf__free(vmlinux);
		return -ENOMEM;
	}
	c->fn = fn;
	c->ctx = ctx;
	c->ncpus = libbpf_num_possible_cpus();
	c->ring_bytes = o->ring_bytes;
	for (i = 0; i < PINNED_MAPS; i++)
		c->reuse_fds[i] = -1;
	snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", o->pin_dir ? o->pin_dir : "");
	pins_before_load(c);
	libbpf_set_print(libbpf_log);
	for (i = 0; i < SIG_COUNT; i++) {
		c->signals[i].name = signal_info[i].name;
		c->signals[i].provides = signal_info[i].provides;
		c->signals[i].available = 1;
	}

	err = load(c, o, vmlinux);
	btf__free(vmlinux);
	vmlinux = NULL;
	pins_reuse_done(c);
	if (err)
		goto fail;
	err = attach_signals(c);
	if (err)
		goto fail;
	c->skel->bss->have_switch = c->signals[SIG_SWITCH].available;
	c->skel->bss->have_net = c->signals[SIG_SEND].available && c->signals[SIG_RECV].available;
	probe_exit_mm(c);
	malloc_trim(0); /* parsing kernel BTF left ~10 MB of freed heap resident */
	err = ring_reader_open(&c->ring, bpf_map__fd(c->skel->maps.events));
	if (err)
		goto fail;
	pins_commit(c);
	*out = c;
	return 0;
fail:
	if (!c->took_over)
		c->unpin = 1; /* a set begun here is not left half made */
	collector_close(c);
	return err < 0 ? err : -EINVAL;
}

void collector_close(struct collector *c)
{
	int i;

	if (!c)
		return;
	ring_reader_close(c->ring);
	for (i = 0; i < SIG_COUNT; i++) {
		/* a pinned link stays attached: its fd alone goes */
		if (c->links[i] && c->pin_dir[0] && !c->unpin)
			bpf_link__disconnect(c->links[i]);
		bpf_link__destroy(c->links[i]);
	}
	pins_stop(c, c->unpin);
	pins_reuse_done(c);
	process_bpf__destroy(c->skel);
	free(c->subuids);
	free(c);
}

void collector_unpin_at_close(struct collector *c)
{
	c->unpin = 1;
}

const char *collector_pin_dir(const struct collector *c)
{
	return c && c->pin_dir[0] ? c->pin_dir : NULL;
}

int collector_took_over(const struct collector *c)
{
	return c && (c->took_over || c->retiring);
}

int collector_fd(const struct collector *c)
{
	return ring_reader_fd(c->ring);
}

void collector_release(struct collector *c)
{
	collector_release_to(c, UINT64_MAX);
}

uint64_t collector_mark(const struct collector *c)
{
	return c ? ring_reader_mark(c->ring) : 0;
}

void collector_release_to(struct collector *c, uint64_t mark)
{
	if (c)
		ring_reader_release(c->ring, mark, share_release, c);
}

int collector_held_much(const struct collector *c)
{
	return c && ring_reader_held(c->ring) > ring_reader_size(c->ring) / 4;
}

int collector_drain(struct collector *c)
{
	int n;

	drop_exit_group(c);
	c->drain_end_ns = clock_mono_ns() + COLLECTOR_DRAIN_BUDGET_MS * 1000000ULL;
	c->drained = 0;
	c->stopped = 0;
	n = ring_reader_read(c->ring, on_event, c);
	return n < 0 ? n : (int)c->drained;
}

int collector_drain_more(const struct collector *c)
{
	return c->stopped;
}

uint64_t collector_unit_lost(const struct collector *c, uint64_t unit)
{
	uint64_t n = 0;

	bpf_map__lookup_elem(c->skel->maps.unit_lost, &unit, sizeof(unit), &n, sizeof(n), 0);
	return n;
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
