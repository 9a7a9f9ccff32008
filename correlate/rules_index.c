/* Which rule names a word: the plain names of all rules sorted once, so that naming a process
 * is a binary search, and only the few patterns are matched one by one. Every exec is named
 * against hundreds of include, exclude, wrapper and interpreter names; compared one by one,
 * that was most of what naming cost. The answer is the one a scan from the last rule back
 * gives: the last rule of the kinds asked with a name matching the word. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

struct rule_ref {
	const struct rule_glob *g;
	size_t rule;
};

struct rule_index {
	struct rule_ref *plain; /* sorted by length, bytes, then rule */
	size_t nplain;
	struct rule_ref *patterns; /* in rule order */
	size_t npatterns;
};

static int cmp_word(const struct rule_glob *g, const char *s, size_t len)
{
	if (g->len != len)
		return g->len < len ? -1 : 1;
	return memcmp(g->s, s, len);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rule_ref *x = a, *y = b;
	int c = cmp_word(x->g, y->g->s, y->g->len);

	if (c)
		return c;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

void rules_index_free(struct tool_rules *set)
{
	if (!set->index)
		return;
	free(set->index->plain);
	free(set->index->patterns);
	free(set->index);
	set->index = NULL;
}

int rules_index_build(struct tool_rules *set)
{
	struct rule_index *x = calloc(1, sizeof(*x));
	size_t i, g, n = 0;

	if (!x)
		return -ENOMEM;
	for (i = 0; i < set->n; i++)
		n += set->v[i].nglobs;
	x->plain = calloc(n ? n : 1, sizeof(*x->plain));
	x->patterns = calloc(n ? n : 1, sizeof(*x->patterns));
	if (!x->plain || !x->patterns) {
		free(x->plain);
		free(x->patterns);
		free(x);
		return -ENOMEM;
	}
	for (i = 0; i < set->n; i++)
		for (g = 0; g < set->v[i].nglobs; g++) {
			struct rule_ref ref = { &set->v[i].globs[g], i };

			if (ref.g->pattern)
				x->patterns[x->npatterns++] = ref;
			else
				x->plain[x->nplain++] = ref;
		}
	qsort(x->plain, x->nplain, sizeof(*x->plain), cmp_ref);
	rules_index_free(set);
	set->index = x;
	return 0;
}

long rules_index_last(const struct tool_rules *set, unsigned kinds, struct word w)
{
	const struct rule_index *x = set->index;
	size_t lo = 0, hi, i;
	long best = -1;

	if (!x)
		return -1;
	hi = x->nplain;
	while (lo < hi) { /* the first plain name not below w */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_word(x->plain[mid].g, w.s, w.len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < x->nplain && cmp_word(x->plain[i].g, w.s, w.len) == 0; i++)
		if (kinds & RULE_BIT(set->v[x->plain[i].rule].kind))
			best = (long)x->plain[i].rule; /* rules ascend: the last is the highest */
	for (i = x->npatterns; i-- > 0 && (long)x->patterns[i].rule > best;) {
		const struct rule_glob *g = x->patterns[i].g;

		if (!(kinds & RULE_BIT(set->v[x->patterns[i].rule].kind)) || w.len < g->prefix ||
		    memcmp(w.s, g->s, g->prefix)) /* fnmatch(3) is slow: most fail here */
			continue;
		if (glob_match(g->s, w))
			return (long)x->patterns[i].rule;
	}
	return best;
}
