/* -j selectors as sacct reads them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "jobids.h"
#include "jobstat.h"
#include "protocol.h"
#include "slurm_ids.h"

static int add_range(void *ctx, uint32_t lo, uint32_t hi)
{
	struct jobsel *o = ctx;

	if (o->nranges == JOBSEL_RANGES)
		return -E2BIG;
	o->ranges[o->nranges].lo = lo;
	o->ranges[o->nranges].hi = hi;
	o->nranges++;
	return 0;
}

int jobsel_parse(const char *s, struct jobsel *o, char *err, size_t errlen)
{
	struct slurm_id id;

	memset(o, 0, sizeof(*o));
	if (!s || !*s || strlen(s) >= sizeof(o->text)) {
		proto_errf(err, errlen, "empty or too long job selector");
		return -EINVAL;
	}
	snprintf(o->text, sizeof(o->text), "%s", s);
	/* what does not read as a Slurm id is a name, or a run's id (rN), for tracerd to find:
	 * the one rule tracerctl run and tracerd refuse names by */
	if (!slurm_id_shaped(s) || s[0] == 'r')
		return 0;
	if (slurm_id_parse(s, &id, add_range, o) < 0) {
		proto_errf(err, errlen, "job id '%s' has more than %d task ranges", s,
			   JOBSEL_RANGES);
		return -EINVAL;
	}
	o->numeric = 1;
	o->job = id.job;
	o->has_tasks = id.has_tasks;
	o->has_step = id.has_step;
	o->step = id.step;
	return 0;
}

int jobsel_list(const char *list, struct jobsel **out, char *err, size_t errlen)
{
	struct jobsel *v = NULL;
	size_t n = 0, cap = 0;
	char buf[128];
	const char *p = list;

	if (!list || !*list) {
		proto_errf(err, errlen, "no job given");
		return -EINVAL;
	}
	while (*p) {
		size_t l = conv_item_len(p);

		if (l >= sizeof(buf)) {
			proto_errf(err, errlen, "job selector too long");
			free(v);
			return -EINVAL;
		}
		memcpy(buf, p, l);
		buf[l] = 0;
		p += l + (p[l] == ',');
		if (!l)
			continue;
		if (n == cap) {
			struct jobsel *nv = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		if (jobsel_parse(buf, &v[n], err, errlen) < 0) {
			free(v);
			return -EINVAL;
		}
		n++;
	}
	if (!n) {
		proto_errf(err, errlen, "no job given");
		free(v);
		return -EINVAL;
	}
	*out = v;
	return (int)n;
}

int jobsel_has_task(const struct jobsel *s, uint32_t t)
{
	if (!s->has_tasks)
		return 1;
	for (size_t i = 0; i < s->nranges; i++)
		if (t >= s->ranges[i].lo && t <= s->ranges[i].hi)
			return 1;
	return 0;
}
