/* The helpers engine detectors share: lines of a batch script, parts of a path. */
#include "engine_input.h"

int script_lines(const struct workflow_input *in, int (*fn)(struct word line, void *ctx), void *ctx)
{
	size_t len = in->script ? in->script_len : 0, i = 0, end;
	struct word line;
	int rc;

	if (len > WORKFLOW_SCRIPT_MAX)
		len = WORKFLOW_SCRIPT_MAX;
	while (i < len) {
		for (end = i; end < len && in->script[end] != '\n' && in->script[end]; end++)
			;
		line.s = in->script + i;
		line.len = end - i;
		if (line.len && line.s[line.len - 1] == '\r')
			line.len--;
		if ((rc = fn(line, ctx)))
			return rc;
		if (end < len && !in->script[end])
			break; /* text ends at a NUL */
		i = end + 1;
	}
	return 0;
}

struct word path_last(struct word p, struct word *dir)
{
	struct word last;
	size_t i;

	while (p.len > 1 && p.s[p.len - 1] == '/')
		p.len--;
	for (i = p.len; i > 0 && p.s[i - 1] != '/'; i--)
		;
	last.s = p.s + i;
	last.len = p.len - i;
	if (dir) {
		dir->s = p.s;
		dir->len = i > 1 ? i - 1 : i; /* "/a" -> "/", "a" -> "" */
	}
	return last;
}
