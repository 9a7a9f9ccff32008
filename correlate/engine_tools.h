/* Which tools are workflow engines: the processes of Snakemake and Nextflow themselves, as
 * etc/tools.rules names them. An engine's work is the jobs and steps it starts, measured
 * there (srun's step, sbatch's jobs: other units, often other nodes): it is never a job's
 * Tool when another tool ran, and its waiting for that work is never a stall. Pure. */
#ifndef TRACER_CORRELATE_ENGINE_TOOLS_H
#define TRACER_CORRELATE_ENGINE_TOOLS_H

/* 1 when tool (a tool name, with its subcommand or not; NULL allowed) is a workflow engine's
 * own process, else 0. */
int engine_tool(const char *tool);
/* 1 when a process (its comm, and its tool name: NULL allowed) starts work that is measured in
 * other units and waits for it: a workflow engine, or an srun client (its step is a unit of
 * its own, whatever command srun runs and is named after). Its waiting is not a stall. */
int works_elsewhere(const char *comm, const char *tool);

#endif
