/* Which tools are workflow engines: see engine_tools.h. */
#include <string.h>

#include "engine_tools.h"

/* the names etc/tools.rules gives them ("include snakemake", "... as=nextflow"), and the
 * engines that run CWL on Slurm */
static const char *const engines[] = { "snakemake", "nextflow", "cromwell",
				       "cwltool",   "toil",	"toil-cwl-runner" };

int engine_tool(const char *tool)
{
	/* "nextflow run": the tool with its subcommand */
	size_t n = tool ? strcspn(tool, " ") : 0;

	for (size_t i = 0; tool && i < sizeof(engines) / sizeof(engines[0]); i++)
		if (strlen(engines[i]) == n && !strncmp(tool, engines[i], n))
			return 1;
	return 0;
}

int works_elsewhere(const char *comm, const char *tool)
{
	return (comm && !strcmp(comm, "srun")) || engine_tool(tool);
}
