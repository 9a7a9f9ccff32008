/* libFuzzer target: arbitrary bytes as a tools.rules file, and as a command line to name.
 * Besides "no crash", checks the parser's promises: a failure leaves *out untouched and says
 * "name:line: ..." on one line; a success gives a rule set that names fixed command lines and
 * the input itself (as NUL-separated argv) with bounded, NUL-terminated fields, alone and
 * after the built-in rules. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

static struct tool_rules *builtin;

static const struct {
	const char *exe, *argv;
	size_t len;
} cmds[] = {
#define C(exe, a)                     \
	{                             \
		exe, a, sizeof(a) - 1 \
	}
	C(NULL, "samtools\0sort\0-o\0x.bam"),
	C("/usr/bin/cwltool", "/usr/bin/python3\0/usr/bin/cwltool\0--no-container\0wf.cwl"),
	C(NULL, "python3\0-m\0json.tool\0x"),
	C(NULL, "env\0A=1\0-S\0python3 -u\0x.py"),
	C(NULL, "srun\0-n1\0time\0-v\0java\0-jar\0picard-2.27.5.jar\0SortSam"),
	C(NULL, "singularity\0exec\0img.sif\0bash\0-c\0true"),
#undef C
};

static void check_id(const struct tool_id *id)
{
	if (!memchr(id->name, 0, sizeof(id->name)) ||
	    !memchr(id->subcommand, 0, sizeof(id->subcommand)) ||
	    !memchr(id->interpreter, 0, sizeof(id->interpreter)) || (id->excluded & ~1) ||
	    (id->wrapper & ~1))
		abort();
}

static void name_all(const struct tool_rules *r, const uint8_t *data, size_t size)
{
	struct tool_id id;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		if (tool_identify(r, cmds[i].exe, cmds[i].argv, cmds[i].len, &id) != 0)
			abort();
		check_id(&id);
	}
	rc = tool_identify_flags(r, "./x", (const char *)data, size, TOOL_ARGV_TRUNCATED, &id);
	if (rc != 0)
		abort();
	check_id(&id);
	rc = tool_identify(r, NULL, (const char *)data, size, &id);
	if (rc == 0)
		check_id(&id);
	else if (rc != -EINVAL)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tool_rules *r = (struct tool_rules *)0x1, *all = NULL;
	char err[256];
	int rc;

	if (!builtin && tool_rules_builtin(&builtin, err, sizeof(err)) != 0)
		abort();
	err[0] = 0;
	rc = tool_rules_parse((const char *)data, size, "fuzz.rules", &r, err, sizeof(err));
	if (rc != 0) {
		if ((rc != -EINVAL && rc != -E2BIG) || r != (struct tool_rules *)0x1 ||
		    strncmp(err, "fuzz.rules:", 11) != 0 || strchr(err, '\n'))
			abort();
		name_all(builtin, data, size);
		return 0;
	}
	if (tool_rules_count(r) > TOOL_RULES_MAX)
		abort();
	name_all(r, data, size);
	/* the same rules as a ToolRules file over the built-in ones */
	if (tool_rules_builtin(&all, err, sizeof(err)) != 0 || tool_rules_append(all, r) != 0)
		abort();
	name_all(all, data, size);
	tool_rules_free(all);
	return 0;
}
