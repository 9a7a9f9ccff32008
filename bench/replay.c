/* bench/replay N BATCH: tracerd's own CPU per process, without the kernel. N processes of one
 * unit, each a fork, an exec (bwa mem with five arguments) and an exit as the BPF side sends them,
 * are handed to the agent as its loop hands them over from the ring (agent_on_event, in place),
 * into a store in a scratch directory; a commit starts every BATCH processes (a 4 MiB ring's
 * quarter holds about 1 600), and is settled when the committing thread is done, as the loop
 * does. Then the OTLP export's reading of the stored rows: both signals, EXPORT_BATCH_ITEMS
 * rows per read transaction of a connection of its own, each batch encoded in protobuf (no
 * post). Prints the microseconds of CPU per process of the loop's thread, of the committing
 * thread and of the export's reading and encoding. No fork, no exec, no BPF program runs: what
 * varies from run to run is the daemon's alone, not a storm's, so two builds' figures compare
 * closely (bench/agent-replay). The export's reads here find the store still between batches;
 * in tracerd each batch follows commits, which empty the reader's page cache. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_internal.h" /* the agent is put together by hand, as the unit tests do */
#include "export_internal.h"
#include "source.h"
#include "stmt.h"
#include "store_internal.h" /* store_reader_open, the export's own connection */
#include "testagent.h"
#include "units.h"

#define BOOT "5e1f7e57-0000-4000-8000-0000000000b1"
#define SEC 1000000000ull
#define ROOT_PID 4000000

static const char argv_bwa[] = "bwa\0mem\0-t\0008\0ref.fa\0reads_1.fq\0reads_2.fq";

static double cpu_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct event_header header(uint32_t type, uint32_t pid, uint64_t start, uint64_t time)
{
	return (struct event_header){
		.type = type, .pid = pid, .start_ns = start, .unit = 1, .time_ns = time
	};
}

/* An event handed over as the ring's reader does, settled when a full batch stopped it */
static void hand(struct agent *a, const void *ev, size_t size)
{
	while (agent_on_event(a, ev, size) == -EBUSY)
		store_settle(a->store);
}

/* The loop's turn, every TURN processes (its epoll wakes it seldom): a commit that is over
 * settled (its eventfd readable), then the next one started once BATCH processes wait. */
#define TURN 64
static void turn(struct agent *a, unsigned *waiting, unsigned batch)
{
	struct pollfd p = { .fd = store_commit_fd(a->store), .events = POLLIN };

	if (*waiting % TURN)
		return;
	if (store_busy(a->store) && poll(&p, 1, 0) > 0)
		store_settle(a->store);
	if (*waiting >= batch && !store_busy(a->store)) {
		store_commit_start(a->store);
		*waiting = 0;
	}
}

/* The export thread's reading of every stored row, signal by signal, batch by batch, as its
 * read_batch and step do up to the post: CPU seconds of this thread, or a negative on error */
static double export_all(struct agent *a)
{
	const struct otlp_attr attr = { .key = "service.name", .type = OTLP_STR, .s = "tracer" };
	const struct otlp_resource res = { &attr, 1 };
	struct export_batch *b = NULL;
	struct otlp_buf body = { 0 };
	uint64_t written;
	int64_t cursor, next, oldest, latest;
	double t0 = cpu_s(CLOCK_THREAD_CPUTIME_ID), t = -1;
	sqlite3 *db = NULL;
	int err = 0;

	if (export_batch_new(&b, "replay") || store_reader_open(a->store, &db))
		goto out;
	for (int sig = 0; sig < EXPORT_SIGNALS && !err; sig++)
		for (cursor = 0;; cursor = next) {
			sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
			err = export_source_read(db, sig, cursor, EXPORT_BATCH_ITEMS, b, &next);
			if (!err)
				err = export_source_oldest(db, sig, cursor, &oldest, &written);
			if (!err)
				err = store_export_latest(db, &latest);
			sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
			body.len = 0;
			if (!err && export_batch_count(b))
				err = export_batch_encode(b, OTLP_PROTOBUF, &res, &body);
			if (err || next <= cursor)
				break;
		}
	if (!err)
		t = cpu_s(CLOCK_THREAD_CPUTIME_ID) - t0;
out:
	stmt_close_db(db);
	export_batch_free(b);
	free(body.data);
	return t;
}

int main(int argc, char **argv)
{
	static struct exec_event x; /* 4 KiB of argv room: the ring's record is its used part */
	struct unit t = { .id = 1, .state = UNIT_RUNNING, .exit_status = -1, .uid = 1000 };
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	unsigned batch = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0, waiting = 0;
	struct fork_event f;
	struct exit_event e;
	struct agent *a;
	double main0, all0, main1, all1, export_s;
	char dir[64];

	if (!n || !batch) {
		fprintf(stderr, "usage: replay N BATCH\n");
		return 2;
	}
	a = ta_agent_new("replay", BOOT, dir);
	if (!a)
		return 1;
	snprintf(t.name, sizeof(t.name), "replay");
	snprintf(t.kind, sizeof(t.kind), "local");
	if (!units_adopt(a, &t) || store_commit(a->store))
		return 1;
	memset(&f, 0, sizeof(f));
	memset(&e, 0, sizeof(e));
	f.ppid = ROOT_PID;
	f.uid = 1000;
	f.parent_start_ns = SEC;
	x.ppid = ROOT_PID;
	x.uid = 1000;
	x.gid = 1000;
	x.cgroup_id = 4242;
	snprintf(x.comm, sizeof(x.comm), "bwa");
	snprintf(x.path, sizeof(x.path), "/usr/bin/bwa");
	x.argv_len = sizeof(argv_bwa);
	memcpy(x.argv, argv_bwa, sizeof(argv_bwa));
	e.ppid = ROOT_PID;
	e.runtime_ns = 2 * SEC / 1000;
	e.utime_ns = 3;
	e.stime_ns = 1;
	e.peak_rss_kb = 5120;
	e.ru_maxrss_kb = 6144;
	e.rchar = 1 << 20;
	e.wchar = 4096;
	e.read_bytes = 1 << 20;
	e.threads = 1;
	snprintf(e.comm, sizeof(e.comm), "bwa");

	main0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
	all0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
	for (unsigned long i = 0; i < n; i++) {
		uint32_t pid = 100000 + (uint32_t)(i % 3000000);
		uint64_t start = 10 * SEC + i * 1000;

		f.h = header(EVENT_FORK, pid, start, start);
		hand(a, &f, sizeof(f));
		x.h = header(EVENT_EXEC, pid, start, start + 100);
		hand(a, &x, offsetof(struct exec_event, argv) + x.argv_len);
		e.h = header(EVENT_EXIT, pid, start, start + 500);
		hand(a, &e, sizeof(e));
		waiting++;
		turn(a, &waiting, batch);
	}
	if (store_commit(a->store)) /* the last batch too, waited for */
		return 1;
	main1 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
	all1 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
	if ((export_s = export_all(a)) < 0)
		return 1;
	printf("%.3f %.3f %.3f\n", (main1 - main0) * 1e6 / (double)n,
	       ((all1 - all0) - (main1 - main0)) * 1e6 / (double)n, export_s * 1e6 / (double)n);
	return ta_agent_free(a, dir) ? 1 : 0;
}
