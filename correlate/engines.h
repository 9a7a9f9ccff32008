/* Workflow engine detectors behind workflow_identify(). Internal header; what they share
 * is in engine_input.h. */
#ifndef TRACER_CORRELATE_ENGINES_H
#define TRACER_CORRELATE_ENGINES_H

#include "workflow.h"

/* Each fills the empty fields of id from in and returns 1 when it recognised its engine
 * (engine then set), else 0 leaving id as it was. */
int snakemake_detect(const struct workflow_input *in, struct workflow_id *id);
int nextflow_detect(const struct workflow_input *in, struct workflow_id *id);

#endif
