/* libFuzzer target: tracerd's ring-buffer callback, agent_on_event, fed arbitrary event records
 * (a BPF program's output is trusted for layout, not for content: pids, units, lengths and
 * strings are whatever the traced processes made them). The agent is put together by hand
 * with what the callback touches (units, process table, store, tool rules), no BPF; the
 * store lives in a temporary directory.
 *
 * Input: records, each a 2-byte little-endian size then that many bytes (cut at the end of
 * the input), delivered in a heap block of exactly that size as the ring buffer would, with
 * clocks and CPU times kept to what a kernel can report (kernel_clocks). Units 1
 * (running) and 2 (ended, waiting for its last processes) exist; every input starts from an
 * empty process table.
 *
 * TRACER_FUZZ_AGENT_SEEDS=DIR build/fuzz/fuzz_agent writes the seed inputs into DIR and
 * exits: they are made from the real structs, so they follow bpf/process.h. */
#include <errno.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h" /* the agent is put together by hand */
#include "log.h"
#include "units.h"

#define TICK 10000000ull
#define SEC 1000000000ull
#define STORE_REOPEN 20000 /* inputs between fresh stores: keeps the file small */

static struct agent agent;
static char dir[64], store_dir[80];
static unsigned inputs;

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_dir(void)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void add_unit(uint64_t id, enum unit_state state)
{
	struct unit t = { .id = id, .state = state, .exit_status = -1 }, *u;

	snprintf(t.name, sizeof(t.name), "unit-%llu", (unsigned long long)id);
	snprintf(t.kind, sizeof(t.kind), "local");
	u = units_adopt(&agent, &t);
	if (!u)
		abort();
	u->live = state == UNIT_RUNNING ? 0 : 1;
}

static void free_units(void)
{
	units_free(&agent);
}

static void open_store(void)
{
	if (store_open(&agent.store, store_dir, agent.boot_id) != 0)
		abort();
}

/* ---- seeds */

struct out {
	uint8_t buf[1 << 16];
	size_t len;
};

static void put(struct out *o, const void *rec, size_t size)
{
	if (o->len + 2 + size > sizeof(o->buf))
		abort();
	o->buf[o->len++] = (uint8_t)size;
	o->buf[o->len++] = (uint8_t)(size >> 8);
	memcpy(o->buf + o->len, rec, size);
	o->len += size;
}

static struct event_header hdr(uint32_t type, uint32_t pid, uint64_t start, uint64_t unit)
{
	struct event_header h = {
		.type = type, .pid = pid, .start_ns = start, .unit = unit, .time_ns = start + SEC
	};
	return h;
}

static void put_fork(struct out *o, uint32_t pid, uint64_t start, uint64_t unit, uint32_t ppid,
		     uint64_t pstart)
{
	struct fork_event e;

	memset(&e, 0, sizeof(e));
	e.h = hdr(EVENT_FORK, pid, start, unit);
	e.ppid = ppid;
	e.uid = 1000;
	e.parent_start_ns = pstart;
	put(o, &e, sizeof(e));
}

static void put_exec(struct out *o, uint32_t pid, uint64_t start, uint64_t unit, uint32_t flags,
		     const char *path, const char *argv, size_t argv_len)
{
	static struct exec_event e;
	const char *base = strrchr(path, '/');

	memset(&e, 0, sizeof(e));
	e.h = hdr(EVENT_EXEC, pid, start, unit);
	e.ppid = 1;
	e.uid = 1000;
	e.gid = 1000;
	e.flags = flags;
	e.cgroup_id = 4242;
	e.base.runtime_ns = 1000000;
	e.base.minflt = 100;
	snprintf(e.comm, sizeof(e.comm), "%s", base ? base + 1 : path);
	snprintf(e.path, sizeof(e.path), "%s", path);
	e.argv_len = (uint32_t)argv_len;
	memcpy(e.argv, argv, argv_len);
	put(o, &e, offsetof(struct exec_event, argv) + argv_len); /* only argv_len travels */
}

static void put_exit(struct out *o, uint32_t pid, uint64_t start, uint64_t unit, int32_t status)
{
	struct exit_event e;

	memset(&e, 0, sizeof(e));
	e.h = hdr(EVENT_EXIT, pid, start, unit);
	e.h.time_ns = start + 3 * SEC;
	e.ppid = 1;
	e.status = status;
	e.utime_ns = 2 * SEC;
	e.runtime_ns = 2 * SEC;
	e.peak_rss_kb = 1024;
	e.read_bytes = 4096;
	e.threads = 1;
	snprintf(e.comm, sizeof(e.comm), "exitcomm");
	put(o, &e, sizeof(e));
}

static void put_oom(struct out *o, uint32_t victim, uint64_t unit)
{
	struct oom_event e;

	memset(&e, 0, sizeof(e));
	e.h = hdr(EVENT_OOM, 0, 0, unit);
	e.victim_tid = victim;
	e.anon_rss_kb = 1 << 20;
	put(o, &e, sizeof(e));
}

#define ARGV(s) s, sizeof(s) - 1

static void write_seed(const char *to, const char *name, const struct out *o)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", to, name);
	f = fopen(path, "wb");
	if (!f || fwrite(o->buf, 1, o->len, f) != o->len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void write_seeds(const char *to)
{
	static struct out o;

	/* a shell runs a pipeline: fork, exec, exit in unit 1 */
	o.len = 0;
	put_exec(&o, 100, 10 * SEC, 1, 0, "/bin/bash", ARGV("bash\0-c\0samtools sort x | wc"));
	put_fork(&o, 101, 11 * SEC, 1, 100, 10 * SEC);
	put_exec(&o, 101, 11 * SEC, 1, 0, "/usr/bin/samtools",
		 ARGV("samtools\0sort\0-o\0x.bam\0in.bam"));
	put_fork(&o, 102, 11 * SEC, 1, 100, 10 * SEC);
	put_exit(&o, 102, 11 * SEC, 1, 0); /* never exec'd: named after its parent */
	put_exit(&o, 101, 11 * SEC, 1, 0);
	put_exit(&o, 100, 10 * SEC, 1, 256);
	write_seed(to, "pipeline", &o);

	/* secrets on the command line, a cut argv, an interpreter */
	o.len = 0;
	put_exec(&o, 200, 20 * SEC, 1, 0, "/usr/bin/python3",
		 ARGV("python3\0/opt/train.py\0--password=hunter2\0--token\0abc\0https://u:p@host/"
		      "x"));
	put_exec(&o, 201, 21 * SEC, 1, EXEC_ARGV_TRUNCATED, "/usr/bin/java",
		 ARGV("java\0-Xmx4g\0-jar\0picard-2.27.5.jar\0SortSam\0I=in.bam\0O=ou"));
	put_exit(&o, 201, 21 * SEC, 1, 0);
	put_exit(&o, 200, 20 * SEC, 1, 9);
	write_seed(to, "secrets-truncated", &o);

	/* the last process of an ended unit; a pid reused with a new start; an OOM kill */
	o.len = 0;
	put_fork(&o, 300, 30 * SEC, 2, 1, 0);
	put_exec(&o, 300, 30 * SEC, 2, 0, "/usr/bin/sleep", ARGV("sleep\0001"));
	put_oom(&o, 300, 2);
	put_exit(&o, 300, 30 * SEC, 2, 9);
	put_fork(&o, 300, 40 * SEC, 1, 1, 0);
	put_exit(&o, 300, 40 * SEC, 1, 0);
	put_exit(&o, 301, 41 * SEC, 7, 0); /* a unit not in memory */
	write_seed(to, "ended-reuse-oom", &o);

	/* records cut short, an unknown type, an argv_len past the record */
	o.len = 0;
	{
		struct event_header h = hdr(9, 400, 50 * SEC, 1);
		struct fork_event f;
		struct exec_event *e = calloc(1, sizeof(*e));

		if (!e)
			abort();
		put(&o, &h, sizeof(h));
		put(&o, &h, sizeof(h) - 1);
		memset(&f, 0, sizeof(f));
		f.h = hdr(EVENT_FORK, 400, 50 * SEC, 1);
		put(&o, &f, sizeof(f) - 4);
		e->h = hdr(EVENT_EXEC, 400, 50 * SEC, 1);
		e->argv_len = 64;
		memcpy(e->argv, "ls", 2);
		put(&o, e, offsetof(struct exec_event, argv) + 8);
		memset(e->path, 'p', sizeof(e->path)); /* no NUL in path or comm */
		memset(e->comm, 'c', sizeof(e->comm));
		e->argv_len = 8;
		put(&o, e, offsetof(struct exec_event, argv) + 8);
		free(e);
		put_exit(&o, 400, 50 * SEC, 1, 0);
	}
	write_seed(to, "malformed", &o);
}

/* ---- the target */

/* Clocks and CPU times are the kernel's own counts, never a process's choice: keep them below
 * 2^62 ns (146 years), as the kernel does, so that only what a user can steer is arbitrary. */
#define KERNEL_NS_MAX ((1ull << 62) - 1)

static void kernel_clocks(void *rec, size_t n)
{
	struct event_header *h = rec;

	if (n < sizeof(*h))
		return;
	h->start_ns &= KERNEL_NS_MAX;
	h->time_ns &= KERNEL_NS_MAX;
	if (h->type == EVENT_FORK && n >= sizeof(struct fork_event)) {
		((struct fork_event *)rec)->parent_start_ns &= KERNEL_NS_MAX;
	} else if (h->type == EVENT_EXIT && n >= sizeof(struct exit_event)) {
		struct exit_event *x = rec;

		x->utime_ns &= KERNEL_NS_MAX;
		x->stime_ns &= KERNEL_NS_MAX;
		x->runtime_ns &= KERNEL_NS_MAX;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("TRACER_FUZZ_AGENT_SEEDS");
	char err[256];

	(void)argc;
	(void)argv;
	if (seeds) {
		write_seeds(seeds);
		exit(0);
	}
	log_open("fuzz_agent", 1,
		 LOG_LEVEL_ERROR); /* a warning per malformed record is noise here */
	snprintf(dir, sizeof(dir), "/tmp/fuzz_agent.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	atexit(remove_dir);
	snprintf(store_dir, sizeof(store_dir), "%s/node", dir);
	snprintf(agent.boot_id, sizeof(agent.boot_id), "5e1f7e57-0000-4000-8000-000000000001");
	snprintf(agent.node, sizeof(agent.node), "node");
	agent.tick_ns = TICK;
	agent.offset_ns = 1700000000000000000ll;
	agent.slurm_uid = (uid_t)-1;
	if (tool_rules_builtin(&agent.rules, err, sizeof(err)) != 0)
		abort();
	open_store();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 0;

	if (proctable_init(&agent.procs, agent.tick_ns) != 0)
		abort();
	add_unit(1, UNIT_RUNNING);
	add_unit(2, UNIT_COMPLETED);
	while (pos + 2 <= size) {
		size_t n = data[pos] | (size_t)data[pos + 1] << 8;
		void *rec;

		pos += 2;
		if (n > size - pos)
			n = size - pos;
		rec = malloc(n ? n : 1);
		if (!rec)
			abort();
		memcpy(rec, data + pos, n);
		kernel_clocks(rec, n);
		if (agent_on_event(&agent, rec, n) != 0)
			abort(); /* the loop never stops on a record */
		free(rec);
		pos += n;
	}
	proctable_free(&agent.procs);
	free_units();
	if (++inputs % 1024 == 0)
		store_commit(agent.store);
	if (inputs % STORE_REOPEN == 0) {
		store_close(agent.store);
		remove_dir();
		if (mkdir(dir, 0700) != 0)
			abort();
		open_store();
	}
	return 0;
}
