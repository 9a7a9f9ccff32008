/* What the daemon does on its own, on its timers: live samples of tracked processes (and,
 * from the same look at /proc, processes whose exit the kernel side could not report: closed so
 * that their units can end), a heartbeat in the store (a restart learns from it how long tracerd
 * was away), and pruning the store to StoreRetention and StoreMaxSize. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "agent_internal.h"
#include "engine_tools.h"
#include "export.h"
#include "log.h"
#include "procfs.h"
#include "units.h"

#define PRUNE_BATCH 200 /* units per round: a round stays short, the next tick goes on */
#define LOST_BATCH 256	/* processes closed per sample round */
#define GONE_ROUNDS 2	/* sample rounds a process must be missing from /proc before it is closed */
#define CLOCK_SET_NS 1000000 /* a wall clock set by less is not followed */
#define SAMPLE_IO_THREADS 64 /* threads whose I/O a process's sample reads at most */
/* Threads read beyond each process's first in one round, for one unit and for all: past
 * either, a process's sample reads its first thread's alone, so that wide processes neither
 * lengthen the loop's round without end nor take another job's share (the rest of their I/O
 * shows at their exit). Each thread's file costs about what a process's /proc/PID/io did
 * (bench/sample-io). */
#define SAMPLE_IO_UNIT_THREADS 512
#define SAMPLE_IO_ROUND_THREADS 4096

/* ---- live samples and lost exits */

struct sample_round {
	struct agent *a;
	uint64_t now_ns; /* one time for the whole round: samples of a round add up */
	long page_kb;
	struct proc *gone[LOST_BATCH];
	unsigned ngone;
	unsigned io_threads_left; /* of SAMPLE_IO_ROUND_THREADS */
};

/* How many of a process's threads its sample reads the I/O of, taken from its unit's share of
 * the round and from the round's (no unit: its first thread alone) */
static unsigned io_threads(struct sample_round *r, struct unit *u, uint32_t threads)
{
	unsigned n = threads < SAMPLE_IO_THREADS ? threads : SAMPLE_IO_THREADS;

	if (n <= 1 || !u || n - 1 > r->io_threads_left ||
	    n - 1 > SAMPLE_IO_UNIT_THREADS - u->round_io_threads)
		return 1;
	r->io_threads_left -= n - 1;
	u->round_io_threads += n - 1;
	return n;
}

/* srun and a workflow engine wait for the steps and jobs they started (other units), whose
 * work is their progress. Their tool is named once per command (see ELSEWHERE_*). */
static int works_elsewhere_now(struct sample_round *r, struct proc *p, const char *comm)
{
	struct tool_id tool;

	if (p->elsewhere == ELSEWHERE_UNKNOWN) {
		proctable_name_tool(r->a->rules, proctable_command_holder(&r->a->procs, p), comm,
				    &tool);
		p->elsewhere = works_elsewhere(comm, tool.name) ? ELSEWHERE_YES : ELSEWHERE_NO;
	}
	return p->elsewhere == ELSEWHERE_YES;
}

/* Progress is any of CPU, I/O or network moving, its own or that of the children it waited
 * for since (a shell whose short commands each end between two rounds); a process that shows
 * none for StallAfter is stalled until one moves again. */
static void check_stall(struct sample_round *r, struct unit *u, struct proc *p,
			const struct procfs_stat *st)
{
	uint64_t progress;

	/* a parent of live work, or one whose work runs elsewhere: theirs is its progress */
	if (p->child_seen_ns == r->now_ns || works_elsewhere_now(r, p, st->comm)) {
		stall_parent(&p->stall, r->now_ns);
		return;
	}
	progress = st->cpu_ticks + st->child_cpu_ticks + p->sample_chars +
		   p->sample_w.net_rx_bytes + p->sample_w.net_tx_bytes;
	if (!stall_sample(&p->stall, p->pid, progress, r->now_ns,
			  (uint64_t)r->a->cfg.stall_after_ms * 1000000))
		return;
	log_info("process %u (%s) of unit %llu stalled: no CPU, I/O or network for %u s (%s)",
		 p->pid, p->comm, (unsigned long long)p->unit, r->a->cfg.stall_after_ms / 1000,
		 p->stall.open_reason);
	if (u) /* its start, for the export (a key's process waits for its unit: not said) */
		units_store_stall_start(r->a, u, p);
}

/* The round's first pass: each process marks its parent, if tracked, as having live work. */
static int note_parent(struct proc *p, void *ctx)
{
	struct sample_round *r = ctx;
	struct proc *parent = proctable_find_pid(&r->a->procs, p->ppid);

	if (parent && parent != p && parent->start_ns <= p->start_ns)
		parent->child_seen_ns = r->now_ns;
	return 0;
}

static void raise_to(uint64_t *held, uint64_t now)
{
	if (now > *held)
		*held = now;
}

static int sample_one(struct proc *p, void *ctx)
{
	struct sample_round *r = ctx;
	struct procfs_stat st;
	struct procfs_io io = {};
	uint64_t cpu, dcpu, iowait;
	struct unit *u;
	unsigned n;

	if (procfs_read_stat(p->pid, &st) < 0 || st.start_ticks != p->start_ns / r->a->tick_ns ||
	    st.state == 'Z' || st.state == 'X') {
		/* exited: its exit event is on its way, unless the kernel side could not send it */
		if (++p->gone_rounds >= GONE_ROUNDS && r->ngone < LOST_BATCH)
			r->gone[r->ngone++] = p;
		return 0;
	}
	p->gone_rounds = 0;
	u = units_find(r->a, p->unit);
	cpu = st.cpu_ticks * r->a->tick_ns;
	iowait = p->sample_w.iowait_ns;
	collector_proc_waits(r->a->collector, p->pid, p->start_ns, &p->sample_w);
	dcpu = cpu > p->sample_cpu_ns ? cpu - p->sample_cpu_ns : 0;
	if (u) {
		/* this round's sums, as the timeline sums a round's samples */
		if (p->sample_ns && r->now_ns > p->sample_ns) {
			u->round_busy += (double)dcpu / (double)(r->now_ns - p->sample_ns);
			u->round_pairs++;
		}
		u->round_rss_kb += (int64_t)(st.rss_pages * r->page_kb);
		u->round_samples++;
		/* its work since the last round, for the unit's idle windows */
		activity_add(&u->activity,
			     dcpu + (p->sample_w.iowait_ns > iowait ? p->sample_w.iowait_ns - iowait
								    : 0));
	}
	p->sample_cpu_ns = cpu;
	p->sample_ns = r->now_ns;
	p->sample_rss_kb = st.rss_pages * r->page_kb;
	/* its own I/O, never less than the last sample's: a thread that ended, or fewer threads
	 * read this round, leave the sum (the exit counts them), and a stall is no counter
	 * moving. Unreadable (gone meanwhile): the last sample's stand. */
	n = io_threads(r, u, st.threads);
	if (procfs_read_own_io(p->pid, n, n, &io) == 0) {
		raise_to(&p->sample_read_bytes, io.read_bytes);
		raise_to(&p->sample_write_bytes, io.write_bytes);
		raise_to(&p->sample_chars, io.rchar + io.wchar);
	}
	check_stall(r, u, p, &st);
	if (u || registry_hold(r->a, p->unit, store_sample_bytes()))
		units_store_sample(r->a, u, p, r->now_ns);
	return 0;
}

/* The end of the round for a running unit's idle windows. */
static int round_unit(struct unit *u, void *ctx)
{
	struct sample_round *r = ctx;

	if (u->state == UNIT_RUNNING)
		activity_round(&u->activity, r->now_ns, units_idle_min_ns(r->a));
	if (u->round_samples) {
		int64_t mcores = (int64_t)(u->round_busy * 1000.0 + 0.5);

		u->sample_rounds++;
		if (u->round_pairs && mcores > u->sample_peak_mcores)
			u->sample_peak_mcores = mcores;
		if (u->round_rss_kb > u->sample_peak_rss_kb)
			u->sample_peak_rss_kb = u->round_rss_kb;
		/* its row on the next tick (units_flush), so that a restart goes on from there */
		if (u->state == UNIT_RUNNING)
			u->dirty = 1;
	}
	u->round_busy = 0;
	u->round_rss_kb = 0;
	u->round_samples = 0;
	u->round_pairs = 0;
	u->round_io_threads = 0;
	return 0;
}

int agent_sample(struct agent *a)
{
	struct sample_round r = { a, clock_boot_ns(), sysconf(_SC_PAGESIZE) / 1024,
				  .io_threads_left = SAMPLE_IO_ROUND_THREADS };
	unsigned i;
	int err;

	collector_drain(a->collector); /* exits already reported are handled first */
	proctable_foreach(&a->procs, note_parent, &r);
	err = proctable_foreach(&a->procs, sample_one, &r);
	units_foreach(a, round_unit, &r);
	for (i = 0; i < r.ngone; i++) {
		log_warn("process %u (%s) of unit %llu ended without an exit event: recorded from "
			 "its last sample",
			 r.gone[i]->pid, r.gone[i]->comm, (unsigned long long)r.gone[i]->unit);
		agent_close_lost(a, r.gone[i]);
	}
	return err;
}

/* ---- heartbeat and pruning */

/* A round handed to the store's thread (with neither limit, it counts the shares status shows
 * all the same). Returns whether it waits for the next tick: a commit was running, or the last
 * round pruned a full batch and more may be waiting. */
static int prune(struct agent *a, int64_t now)
{
	int64_t before =
		a->cfg.store_retention_ms ? now - (int64_t)a->cfg.store_retention_ms * 1000000 : 0;

	if (store_prune_async(a->store, before, a->cfg.store_max_bytes, PRUNE_BATCH) == -EBUSY)
		return 1;
	return 0;
}

/* A `tracerctl run` that was killed never sends run_end: once its unit has had no process for
 * OrphanAfter (its client ends it within milliseconds of its command's end), it is ended LOST. */
struct orphan_check {
	struct agent *a;
	int64_t now;
};

static int end_orphan(struct unit *u, void *ctx)
{
	struct orphan_check *c = ctx;

	if (u->state != UNIT_RUNNING || u->live || strcmp(u->kind, UNIT_KIND_LOCAL) ||
	    c->now - u->idle_since_ns < (int64_t)c->a->cfg.orphan_after_ms * 1000000)
		return 0;
	log_warn("unit %llu (%s): no process left and no word from its tracerctl for %g s: "
		 "ended as LOST",
		 (unsigned long long)u->id, u->name, c->a->cfg.orphan_after_ms / 1e3);
	units_end(c->a, u, -1, UNIT_LOST);
	units_drop(c->a, u);
	return 0;
}

/* The wall clock set (an NTP step once the node has booted, a virtual machine's clock brought
 * up to date): kernel times are turned into unix times as it now reads, not as it read when
 * tracerd started. A reading the scheduler cut in two is left for the next tick. */
static void follow_wall_clock(struct agent *a)
{
	int64_t offset, moved;

	if (clock_unix_offset(&offset) < 0)
		return;
	moved = offset - a->offset_ns;
	if (moved > -CLOCK_SET_NS && moved < CLOCK_SET_NS)
		return;
	log_info("the wall clock was set %+.3f s: times from now on follow it", moved / 1e9);
	a->offset_ns = offset;
}

void agent_tick(struct agent *a)
{
	struct orphan_check orphans = { a, clock_unix_ns() };
	int64_t now = orphans.now;

	follow_wall_clock(a);

	store_set_alive(a->store, now);
	units_flush(a);
	units_foreach(a, end_orphan, &orphans);
	/* and as soon as a flood of writes may have filled an eighth of StoreMaxSize: the file
	 * then stays near it, whatever a user writes in a housekeeping period */
	if (a->prune_backlog || store_prune_backlog(a->store) ||
	    now - a->housekept_ns >= (int64_t)a->cfg.housekeeping_ms * 1000000 ||
	    (a->cfg.store_max_bytes &&
	     store_written(a->store) - a->pruned_written >= a->cfg.store_max_bytes / 8)) {
		a->housekept_ns = now;
		registry_sweep(a);
		a->pruned_written = store_written(a->store);
		/* what the export has not delivered yet waits for it (StoreRetention) */
		store_set_export_floor(a->store, exporter_floor(a->exporter));
		a->prune_backlog = prune(a, now);
	}
	store_checkpoint(a->store); /* commits, then checkpoints a long log */
	log_flush(); /* what a flood of lines held back, said once its window is over */
}
