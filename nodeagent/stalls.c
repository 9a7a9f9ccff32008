/* Stalls of tracked processes: see stalls.h. */
#include <stdio.h>
#include <string.h>

#include "procfs.h"
#include "stalls.h"

#define THREADS_LOOKED_AT 64 /* a blocked thread among the first this many names the stall */

/* Kernel wait channels, by prefix, in the words a user reads. */
static const struct {
	const char *prefix, *words;
} channels[] = {
	{ "do_wait", NULL }, /* waiting for a child: the child's stall, if any, is the stall */
	{ "kernel_wait", NULL },
	{ "pipe_", "waiting on a pipe or FIFO" },
	{ "anon_pipe_", "waiting on a pipe or FIFO" }, /* Linux 6.16 on */
	{ "fifo_pipe_", "waiting on a pipe or FIFO" },
	{ "wait_for_partner", "waiting on a pipe or FIFO" },
	{ "futex", "waiting on a lock" },
	{ "hrtimer_nanosleep", "sleeping" },
	{ "do_nanosleep", "sleeping" },
	{ "clock_nanosleep", "sleeping" },
	{ "do_select", "waiting in select/poll" },
	{ "core_sys_select", "waiting in select/poll" },
	{ "do_sys_poll", "waiting in select/poll" },
	{ "ep_poll", "waiting in epoll" },
	{ "sk_wait_data", "waiting on the network" },
	{ "inet_csk_accept", "waiting for a connection" },
	{ "__skb_wait_for_more_packets", "waiting on the network" },
	{ "unix_stream", "waiting on a socket" },
	{ "wait_woken", "waiting on a socket or terminal" },
	{ "n_tty_read", "waiting for terminal input" },
	{ "io_schedule", "blocked on I/O" },
	{ "folio_wait", "blocked on I/O" },
	{ "rpc_wait", "blocked on NFS" },
	{ "nfs", "blocked on NFS" },
};

const char *stall_words(char state, const char *wchan, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(channels) / sizeof(channels[0]); i++)
		if (!strncmp(wchan, channels[i].prefix, strlen(channels[i].prefix)))
			return channels[i].words;
	if (state == 'D')
		return "blocked on I/O";
	if (state == 'T' || state == 't')
		return "stopped";
	if (!wchan[0] || !strcmp(wchan, "0"))
		return "no CPU, I/O or network";
	snprintf(buf, len, "asleep in %.32s", wchan);
	return buf;
}

const char *stall_reason(pid_t pid, char *buf, size_t len)
{
	char wchan[64] = "";
	struct procfs_stat st;
	char state = 0;

	if (procfs_thread_in_state(pid, 'D', THREADS_LOOKED_AT) == 1)
		state = 'D';
	else if (procfs_read_stat(pid, &st) == 0)
		state = st.state;
	if (procfs_read_wchan(pid, wchan, sizeof(wchan)) < 0)
		wchan[0] = 0;
	/* a thread in D names the stall whatever the leader waits in (often a join or a lock) */
	if (state == 'D' && strncmp(wchan, "do_wait", 7) && strncmp(wchan, "kernel_wait", 11))
		return "blocked on I/O";
	return stall_words(state, wchan, buf, len);
}

void stall_close(struct stall *s, uint64_t end_ns)
{
	uint64_t ns;

	if (!s->open_start_ns)
		return;
	ns = end_ns > s->open_start_ns ? end_ns - s->open_start_ns : 0;
	if (ns > s->ns) {
		s->start_ns = s->open_start_ns;
		s->ns = ns;
		memcpy(s->reason, s->open_reason, sizeof(s->reason));
	}
	s->open_start_ns = 0;
}

void stall_parent(struct stall *s, uint64_t now_ns)
{
	stall_close(s, now_ns);
	s->since_ns = now_ns;
}

int stall_sample(struct stall *s, pid_t pid, uint64_t progress, uint64_t now_ns, uint64_t after_ns)
{
	char buf[STALL_REASON_MAX];
	const char *why;

	if (!s->since_ns || progress != s->progress) {
		stall_close(s, now_ns);
		s->progress = progress;
		s->since_ns = now_ns;
		return 0;
	}
	if (s->open_start_ns || !after_ns || now_ns - s->since_ns < after_ns)
		return 0;
	why = stall_reason(pid, buf, sizeof(buf));
	if (!why) { /* waiting for its children: their progress is its own */
		s->since_ns = now_ns;
		return 0;
	}
	s->open_start_ns = s->since_ns;
	snprintf(s->open_reason, sizeof(s->open_reason), "%s", why);
	return 1;
}
