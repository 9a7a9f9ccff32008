/* Workflow identity: run the engine detectors, then let explicit values win. */
#include <errno.h>
#include <string.h>

#include "engines.h"
#include "words.h"

static int explicit_set(char *field, size_t size, const char *value)
{
	if (!value || !value[0])
		return 0;
	field_set(field, size, value, strlen(value));
	return 1;
}

int workflow_identify(const struct workflow_input *in, struct workflow_id *out)
{
	struct workflow_id id;
	int given = 0;

	if (!in || !out)
		return -EINVAL;
	memset(&id, 0, sizeof(id));
	if (!snakemake_detect(in, &id))
		nextflow_detect(in, &id);
	given |= explicit_set(id.pipeline, sizeof(id.pipeline), in->pipeline);
	given |= explicit_set(id.run, sizeof(id.run), in->run);
	given |= explicit_set(id.step, sizeof(id.step), in->step);
	if (given && !id.engine[0])
		strcpy(id.engine, "custom");
	*out = id;
	return 0;
}
