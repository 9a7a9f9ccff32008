/* Slurm step ids by name, and names by id. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slurm_ids.h"

static const struct {
	uint32_t id;
	const char *name;
	int runs; /* a step with processes: one a user may select by name */
} steps[] = {
	{ STEP_BATCH, "batch", 1 },
	{ STEP_EXTERN, "extern", 1 },
	{ STEP_INTERACTIVE, "interactive", 1 },
	{ STEP_PENDING, "pending", 0 },
};

const char *slurm_step_name(uint32_t step, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i].id == step)
			return steps[i].name;
	snprintf(buf, len, "%u", step);
	return buf;
}

/* A decimal number at *p of at most 0xfffffff0 (above are Slurm's special ids), *p moved past
 * it; -EINVAL when there is none */
static int number(const char **p, uint32_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (uint64_t)(*s - '0')) > 0xfffffff0u)
			return -EINVAL;
	*p = s;
	*out = (uint32_t)v;
	return 0;
}

int64_t slurm_step_parse(const char *s)
{
	uint32_t v;

	if (slurm_step_by_name(s, &v) == 0)
		return v;
	if (number(&s, &v) == 0 && !*s)
		return v;
	return -1;
}

/* "[1-3,5%2]" or "4" after the underscore at *p, *p moved past it */
static int tasks(const char **p, int (*task)(void *ctx, uint32_t lo, uint32_t hi), void *ctx)
{
	int bracket = **p == '[', rc;
	uint32_t lo, hi, throttle;

	if (bracket)
		(*p)++;
	for (;;) {
		if (number(p, &lo))
			return -EINVAL;
		hi = lo;
		if (bracket && **p == '-' && (++*p, number(p, &hi)))
			return -EINVAL;
		if (hi < lo)
			return -EINVAL;
		if (task && (rc = task(ctx, lo, hi)) < 0)
			return rc;
		if (!bracket)
			return 0;
		if (**p == '%' && (++*p, number(p, &throttle)))
			return -EINVAL;
		if (**p == ']') {
			(*p)++;
			return 0;
		}
		if (**p != ',')
			return -EINVAL;
		(*p)++;
	}
}

int slurm_id_parse(const char *s, struct slurm_id *id,
		   int (*task)(void *ctx, uint32_t lo, uint32_t hi), void *ctx)
{
	struct slurm_id one = { 0 };
	int64_t step;
	int rc;

	if (!s || number(&s, &one.job) || !one.job)
		return -EINVAL;
	if (*s == '_') {
		s++;
		if ((rc = tasks(&s, task, ctx)) < 0)
			return rc;
		one.has_tasks = 1;
	}
	if (*s == '.') {
		if ((step = slurm_step_parse(s + 1)) < 0)
			return -EINVAL;
		one.has_step = 1;
		one.step = (uint32_t)step;
		s += strlen(s);
	}
	if (*s)
		return -EINVAL;
	if (id)
		*id = one;
	return 0;
}

int slurm_id_shaped(const char *s)
{
	if (s[0] == 'r')
		return s[1] && strspn(s + 1, "0123456789") == strlen(s + 1);
	return slurm_id_parse(s, NULL, NULL, NULL) == 0;
}

int slurm_step_by_name(const char *name, uint32_t *step)
{
	size_t i;

	for (i = 0; name && i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i].runs && strcmp(steps[i].name, name) == 0) {
			*step = steps[i].id;
			return 0;
		}
	return -EINVAL;
}
