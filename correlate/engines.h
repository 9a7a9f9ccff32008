/* Workflow engine detectors behind workflow_identify(). Internal header. */
#ifndef TRACER_CORRELATE_ENGINES_H
#define TRACER_CORRELATE_ENGINES_H

#include <stddef.h>

#include "words.h"
#include "workflow.h"

/* Each fills the empty fields of id from in and returns 1 when it recognised its engine
 * (engine then set), else 0 leaving id as it was. */
int snakemake_detect(const struct workflow_input *in, struct workflow_id *id);
int nextflow_detect(const struct workflow_input *in, struct workflow_id *id);

/* Set a field when it is still empty (the first source to know a value wins). */
#define SET_ONCE(field, s, len) do {                                                 \
                if (!(field)[0])                                                     \
                        field_set((field), sizeof(field), (s), (len));               \
        } while (0)

/* Call fn on each line of the script (at most WORKFLOW_SCRIPT_MAX bytes); stops when fn
 * returns nonzero and returns that value. */
int script_lines(const struct workflow_input *in, int (*fn)(struct word line, void *ctx), void *ctx);

/* The last path component of p[0..len) (trailing slashes ignored), and the path before it. */
struct word path_last(struct word p, struct word *dir);

#endif
