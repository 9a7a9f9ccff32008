/* What every workflow engine detector (snakemake.c, nextflow.c) reads a workflow_input with:
 * the batch script line by line, paths by their parts, and fields set by the first source
 * that knows them. Internal header: workflow.c calls the detectors, the detectors call these,
 * and these call nothing back. */
#ifndef TRACER_CORRELATE_ENGINE_INPUT_H
#define TRACER_CORRELATE_ENGINE_INPUT_H

#include <stddef.h>

#include "words.h"
#include "workflow.h"

/* Set a field when it is still empty (the first source to know a value wins). */
#define SET_ONCE(field, s, len)                                        \
	do {                                                           \
		if (!(field)[0])                                       \
			field_set((field), sizeof(field), (s), (len)); \
	} while (0)

/* Call fn on each line of the script (at most WORKFLOW_SCRIPT_MAX bytes); stops when fn
 * returns nonzero and returns that value. */
int script_lines(const struct workflow_input *in, int (*fn)(struct word line, void *ctx),
		 void *ctx);

/* The last path component of p[0..len) (trailing slashes ignored), and the path before it. */
struct word path_last(struct word p, struct word *dir);

#endif
