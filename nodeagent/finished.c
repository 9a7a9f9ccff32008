/* Recently finished processes: see finished.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "finished.h"

#define SLOTS (2 * FINISHED_GEN) /* a power of two */

static unsigned slot_of(uint32_t pid, uint64_t start_ns)
{
	uint64_t h = (start_ns ^ ((uint64_t)pid << 32 | pid)) * 0x9e3779b97f4a7c15ULL;

	return (unsigned)(h >> 40) & (SLOTS - 1);
}

static int gen_has(const struct finished_key *g, uint32_t pid, uint64_t start_ns)
{
	unsigned i;

	for (i = slot_of(pid, start_ns); g[i].start_ns; i = (i + 1) & (SLOTS - 1))
		if (g[i].start_ns == start_ns && g[i].pid == pid)
			return 1;
	return 0;
}

int finished_init(struct finished *f)
{
	memset(f, 0, sizeof(*f));
	f->gen[0] = malloc(SLOTS * sizeof(*f->gen[0]));
	f->gen[1] = malloc(SLOTS * sizeof(*f->gen[1]));
	if (!f->gen[0] || !f->gen[1]) {
		finished_free(f);
		return -ENOMEM;
	}
	/* written now, not at the first exits of a storm, page by page (calloc leaves fresh
	 * pages untouched) */
	memset(f->gen[0], 0, SLOTS * sizeof(*f->gen[0]));
	memset(f->gen[1], 0, SLOTS * sizeof(*f->gen[1]));
	return 0;
}

void finished_free(struct finished *f)
{
	free(f->gen[0]);
	free(f->gen[1]);
	memset(f, 0, sizeof(*f));
}

void finished_add(struct finished *f, uint32_t pid, uint64_t start_ns)
{
	struct finished_key *g;
	unsigned i;

	/* the only caller adds what the table held, which is no key: a key twice would only
	 * take one slot more */
	if (!f->gen[0] || !start_ns)
		return;
	if (f->n[f->cur] >= FINISHED_GEN) { /* the older generation is forgotten */
		f->cur ^= 1;
		memset(f->gen[f->cur], 0, SLOTS * sizeof(*f->gen[f->cur]));
		f->n[f->cur] = 0;
	}
	g = f->gen[f->cur];
	for (i = slot_of(pid, start_ns); g[i].start_ns; i = (i + 1) & (SLOTS - 1))
		;
	g[i].start_ns = start_ns;
	g[i].pid = pid;
	f->n[f->cur]++;
	if (start_ns > f->newest)
		f->newest = start_ns;
}

void finished_prefetch(const struct finished *f, uint32_t pid, uint64_t start_ns)
{
	if (f->gen[0])
		__builtin_prefetch(&f->gen[f->cur][slot_of(pid, start_ns)], 1);
}

int finished_has(const struct finished *f, uint32_t pid, uint64_t start_ns)
{
	return f->gen[0] && start_ns && start_ns <= f->newest &&
	       (gen_has(f->gen[0], pid, start_ns) || gen_has(f->gen[1], pid, start_ns));
}
