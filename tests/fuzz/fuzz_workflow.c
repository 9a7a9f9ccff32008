/* libFuzzer target: workflow identity (Snakemake and Nextflow) from what a job registration
 * brings: job name, comment, working directory, argv and the batch script, all chosen by the
 * user who submits the job. Input: byte 0 holds flags, then up to five fields separated by
 * "\x01\x02": job name, comment, cwd, argv (NUL-separated), script (the rest, markers and
 * all). Flags: bits 0-2 give explicit pipeline/run/step (the job name's text), bit 3 drops the
 * script, bit 4 the argv. Both engines are also asked directly, so that Nextflow's parser runs
 * on inputs Snakemake claims. Checks that every field of the result is NUL-terminated and
 * clean, and that the engine is one of the known names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "fuzz_check.h"

#define SEP "\x01\x02"

static void check_id(const struct workflow_id *id)
{
	fuzz_check_field(id->engine, sizeof(id->engine));
	fuzz_check_field(id->pipeline, sizeof(id->pipeline));
	fuzz_check_field(id->run, sizeof(id->run));
	fuzz_check_field(id->step, sizeof(id->step));
	fuzz_check_field(id->job, sizeof(id->job));
	fuzz_check_field(id->wildcards, sizeof(id->wildcards));
	fuzz_check_field(id->tag, sizeof(id->tag));
	fuzz_check_field(id->task_hash, sizeof(id->task_hash));
	if (id->engine[0] && strcmp(id->engine, "snakemake") && strcmp(id->engine, "nextflow") &&
	    strcmp(id->engine, "custom"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	char *field[5] = { NULL }; /* each in a heap block of its own size, for ASan */
	size_t flen[5] = { 0 };
	struct workflow_input in;
	struct workflow_id id;
	unsigned flags;
	int n, rc;

	if (size < 1)
		return 0;
	flags = data[0];
	for (n = 0; n < 5 && p <= end; n++) {
		const char *sep = n < 4 ? memmem(p, (size_t)(end - p), SEP, 2) : NULL;
		size_t len = (size_t)((sep ? sep : end) - p);

		/* names are C strings; argv and script are bytes with a length */
		field[n] = malloc(n < 3 ? len + 1 : len ? len : 1);
		if (!field[n])
			goto out;
		memcpy(field[n], p, len);
		if (n < 3)
			field[n][len] = 0;
		flen[n] = len;
		if (!sep)
			break;
		p = sep + 2;
	}
	memset(&in, 0, sizeof(in));
	in.job_name = field[0];
	in.job_comment = field[1];
	in.cwd = field[2];
	if (field[3] && !(flags & 16)) {
		in.argv = field[3];
		in.argv_len = flen[3];
	}
	if (field[4] && !(flags & 8)) {
		in.script = field[4];
		in.script_len = flen[4];
	}
	if (flags & 1)
		in.pipeline = field[0];
	if (flags & 2)
		in.run = field[0];
	if (flags & 4)
		in.step = field[0];

	if (workflow_identify(&in, &id) != 0)
		abort();
	check_id(&id);
	memset(&id, 0, sizeof(id));
	rc = snakemake_detect(&in, &id);
	if (rc != (id.engine[0] != 0))
		abort();
	check_id(&id);
	memset(&id, 0, sizeof(id));
	rc = nextflow_detect(&in, &id);
	if (rc != (id.engine[0] != 0))
		abort();
	check_id(&id);
out:
	for (int i = 0; i < 5; i++)
		free(field[i]);
	return 0;
}
