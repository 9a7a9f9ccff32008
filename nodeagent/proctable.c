/* Chained hash of live processes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctable.h"

#define INITIAL_BUCKETS 1024

static size_t bucket_of(const struct proctable *t, uint32_t pid)
{
	return (pid * 2654435761u) & (t->nbuckets - 1);
}

int proctable_init(struct proctable *t, uint64_t tick_ns)
{
	memset(t, 0, sizeof(*t));
	t->buckets = calloc(INITIAL_BUCKETS, sizeof(*t->buckets));
	if (!t->buckets)
		return -ENOMEM;
	t->nbuckets = INITIAL_BUCKETS;
	t->tick_ns = tick_ns ? tick_ns : 10000000;
	return 0;
}

static void proc_free(struct proc *p)
{
	free(p->exe);
	free(p->argv);
	free(p);
}

void proctable_free(struct proctable *t)
{
	size_t i;

	for (i = 0; t->buckets && i < t->nbuckets; i++) {
		struct proc *p = t->buckets[i], *next;

		for (; p; p = next) {
			next = p->next;
			proc_free(p);
		}
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

static int same_start(const struct proctable *t, const struct proc *p, uint64_t start_ns)
{
	if (p->start_ns == start_ns)
		return 1;
	return (p->flags & PROC_REDISCOVERED) && p->start_ns / t->tick_ns == start_ns / t->tick_ns;
}

struct proc *proctable_find(struct proctable *t, uint32_t pid, uint64_t start_ns)
{
	struct proc *p;

	for (p = t->buckets[bucket_of(t, pid)]; p; p = p->next)
		if (p->pid == pid && same_start(t, p, start_ns))
			return p;
	return NULL;
}

struct proc *proctable_find_pid(struct proctable *t, uint32_t pid)
{
	struct proc *p, *best = NULL;

	for (p = t->buckets[bucket_of(t, pid)]; p; p = p->next)
		if (p->pid == pid && (!best || p->start_ns > best->start_ns))
			best = p;
	return best;
}

/* A process runs a command of its own once it exec'd, or once its parent's was copied to it
 * (proctable_inherit_command: the program it was forked in, even if the parent exec'd since). */
static int own_command(const struct proc *p)
{
	return (p->flags & PROC_EXECED) || (p->exe && p->argv);
}

const struct proc *proctable_command_holder(struct proctable *t, const struct proc *p)
{
	const struct proc *parent;

	if (own_command(p))
		return p;
	parent = proctable_find_pid(t, p->ppid);
	return parent && parent != p ? parent : p;
}

void proctable_inherit_command(struct proc *p, const struct proc *parent)
{
	if (own_command(p) || !parent || parent == p)
		return;
	if (parent->exe && !p->exe)
		p->exe = strdup(parent->exe);
	if (parent->argv && !p->argv) {
		p->argv = malloc(parent->argv_len + 1);
		if (p->argv) {
			memcpy(p->argv, parent->argv, parent->argv_len + 1);
			p->argv_len = parent->argv_len;
			p->flags |= parent->flags & PROC_ARGV_TRUNCATED;
		}
	}
	p->elsewhere = ELSEWHERE_UNKNOWN; /* its command changed */
}

void proctable_name_tool(const struct tool_rules *rules, const struct proc *cmd, const char *comm,
			 struct tool_id *out)
{
	if (tool_identify_flags(rules, cmd->exe, cmd->argv, cmd->argv_len,
				cmd->flags & PROC_ARGV_TRUNCATED ? TOOL_ARGV_TRUNCATED : 0,
				out) < 0)
		snprintf(out->name, sizeof(out->name), "%s", comm);
}

/* Double the buckets when the table gets dense; failure to grow only costs speed. */
static void maybe_grow(struct proctable *t)
{
	struct proc **nb;
	size_t i, n = t->nbuckets * 2;

	if (t->count < t->nbuckets)
		return;
	nb = calloc(n, sizeof(*nb));
	if (!nb)
		return;
	for (i = 0; i < t->nbuckets; i++) {
		struct proc *p = t->buckets[i], *next;

		for (; p; p = next) {
			size_t b = (p->pid * 2654435761u) & (n - 1);

			next = p->next;
			p->next = nb[b];
			nb[b] = p;
		}
	}
	free(t->buckets);
	t->buckets = nb;
	t->nbuckets = n;
}

int proctable_get(struct proctable *t, uint32_t pid, uint64_t start_ns, struct proc **out,
		  int *created)
{
	struct proc *p = proctable_find(t, pid, start_ns);
	size_t b;

	*created = 0;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		p->start_ns = start_ns;
		b = bucket_of(t, pid);
		p->next = t->buckets[b];
		t->buckets[b] = p;
		t->count++;
		*created = 1;
		maybe_grow(t);
	}
	*out = p;
	return 0;
}

void proctable_remove(struct proctable *t, struct proc *p)
{
	struct proc **pp = &t->buckets[bucket_of(t, p->pid)];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			t->count--;
			proc_free(p);
			return;
		}
	}
}

int proctable_foreach(struct proctable *t, int (*fn)(struct proc *p, void *ctx), void *ctx)
{
	size_t i;
	int r;

	for (i = 0; i < t->nbuckets; i++) {
		struct proc *p = t->buckets[i], *next;

		for (; p; p = next) {
			next = p->next; /* fn may remove p */
			r = fn(p, ctx);
			if (r)
				return r;
		}
	}
	return 0;
}
