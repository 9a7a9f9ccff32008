/* Which tools are workflow engines: see engine_tools.h. */
#include <string.h>

#include "engine_tools.h"

/* the names etc/tools.rules gives them ("include snakemake", "... as=nextflow") */
static const char *const engines[] = { "snakemake", "nextflow" };

int engine_tool(const char *tool)
{
	for (size_t i = 0; tool && i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(tool, engines[i]))
			return 1;
	return 0;
}

int works_elsewhere(const char *comm, const char *tool)
{
	return (comm && !strcmp(comm, "srun")) || engine_tool(tool);
}
