/* -j selectors as sacct reads them. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "jobids.h"
#include "jobstat.h"
#include "protocol.h"

static int parse_u32(const char *s, char **end, uint32_t *out)
{
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || v > 0xfffffff0ull)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int64_t jobsel_step_parse(const char *s)
{
	uint32_t v;
	char *end;

	if (slurm_step_by_name(s, &v) == 0)
		return v;
	if (parse_u32(s, &end, &v) == 0 && !*end)
		return v;
	return -1;
}

/* "[1-3,5]" or "4" after the underscore; returns chars consumed or -EINVAL */
static int parse_tasks(const char *s, struct jobsel *o)
{
	const char *p = s;
	int bracket = *p == '[';
	char *end;

	if (bracket)
		p++;
	for (;;) {
		uint32_t lo, hi;

		if (o->nranges == JOBSEL_RANGES || parse_u32(p, &end, &lo))
			return -EINVAL;
		hi = lo;
		if (bracket && *end == '-' && parse_u32(end + 1, &end, &hi))
			return -EINVAL;
		if (hi < lo)
			return -EINVAL;
		o->ranges[o->nranges].lo = lo;
		o->ranges[o->nranges].hi = hi;
		o->nranges++;
		p = end;
		if (!bracket)
			break;
		if (*p == '%') { /* a throttle, as sbatch --array takes it: not a selection */
			uint32_t ignore;

			if (parse_u32(p + 1, &end, &ignore))
				return -EINVAL;
			p = end;
		}
		if (*p == ']') {
			p++;
			break;
		}
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	o->has_tasks = 1;
	return (int)(p - s);
}

int jobsel_parse(const char *s, struct jobsel *o, char *err, size_t errlen)
{
	const char *p;
	char *end;
	int n;

	memset(o, 0, sizeof(*o));
	if (!s || !*s || strlen(s) >= sizeof(o->text)) {
		proto_errf(err, errlen, "empty or too long job selector");
		return -EINVAL;
	}
	snprintf(o->text, sizeof(o->text), "%s", s);
	if (!isdigit((unsigned char)*s))
		return 0; /* a name */
	o->numeric = 1;
	if (parse_u32(s, &end, &o->job) || o->job == 0)
		goto bad;
	p = end;
	if (*p == '_') {
		n = parse_tasks(p + 1, o);
		if (n < 0)
			goto bad;
		p += 1 + n;
	}
	if (*p == '.') {
		int64_t st = jobsel_step_parse(p + 1);

		if (st < 0)
			goto bad;
		o->has_step = 1;
		o->step = (uint32_t)st;
		p += strlen(p);
	}
	if (*p)
		goto bad;
	return 0;
bad:
	proto_errf(err, errlen,
		   "invalid job id '%s' (JOBID, JOBID_TASK, JOBID_[A-B,C] or JOBID.STEP)", s);
	return -EINVAL;
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
