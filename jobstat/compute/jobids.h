/* -j JOBID[,...]: Slurm job ids, array tasks, steps, or names of traced runs. Pure. */
#ifndef JOBSTAT_JOBIDS_H
#define JOBSTAT_JOBIDS_H

#include <stddef.h>
#include <stdint.h>

#define JOBSEL_RANGES 64

struct jobsel {
	char text[128]; /* as given */
	int numeric;	/* a job id form; else text is a unit name */
	uint32_t job;	/* the job id, or the array's job id */
	int has_tasks;	/* "J_T" or "J_[a-b,c]": only these array tasks */
	size_t nranges;
	struct {
		uint32_t lo, hi;
	} ranges[JOBSEL_RANGES];
	int has_step; /* "J.S": only this step */
	uint32_t step;
};

/* Parse one selector. Returns 0, or -EINVAL with a message in err (empty or too long). What
 * does not read as an id (slurm_id_shaped) is a name, "1000genomes" too; "rN" is a run's id,
 * for tracerd to find. */
int jobsel_parse(const char *s, struct jobsel *out, char *err, size_t errlen);
/* Split a comma-separated list (commas inside [...] belong to the array ranges) and parse
 * each. Returns the number of selectors (*out: caller frees) or -EINVAL/-ENOMEM. */
int jobsel_list(const char *list, struct jobsel **out, char *err, size_t errlen);
/* Does the selector take array task t? (always, without has_tasks) */
int jobsel_has_task(const struct jobsel *s, uint32_t t);

#endif
