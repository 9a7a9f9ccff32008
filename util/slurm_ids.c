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

int slurm_id_shaped(const char *s)
{
	if (isdigit((unsigned char)s[0]))
		return 1;
	return s[0] == 'r' && s[1] && strspn(s + 1, "0123456789") == strlen(s + 1);
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
