/* libFuzzer target: a process's exe and argv bytes, as the kernel reports them, named with the
 * built-in tool rules (what tracerd does at every exit). Input: byte 0 holds flags (bit 0: argv
 * truncated, bit 1: no exe), then the exe up to the first NUL, then the argv. Besides "no crash",
 * checks that every field of the result is NUL-terminated and free of control characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tool_rules *builtin;
	const char *text = (const char *)data + 1, *nul, *argv;
	char err[256], *exe = NULL;
	size_t len, argv_len;
	struct tool_id id;

	if (!builtin && tool_rules_builtin(&builtin, err, sizeof(err)) != 0)
		abort();
	if (size < 1)
		return 0;
	len = size - 1;
	nul = memchr(text, 0, len);
	argv = nul ? nul + 1 : text + len;
	argv_len = (size_t)(text + len - argv);
	if (!(data[0] & 2)) {
		exe = strndup(text, (size_t)(argv - text));
		if (!exe)
			return 0;
	}
	/* argv in a buffer of its own size, as tracerd holds it, so ASan sees any overread */
	char *copy = malloc(argv_len ? argv_len : 1);
	if (!copy) {
		free(exe);
		return 0;
	}
	memcpy(copy, argv, argv_len);
	if (tool_identify_flags(builtin, exe, copy, argv_len, data[0] & 1 ? TOOL_ARGV_TRUNCATED : 0,
				&id) == 0) {
		fuzz_check_field(id.name, sizeof(id.name));
		fuzz_check_field(id.subcommand, sizeof(id.subcommand));
		fuzz_check_field(id.interpreter, sizeof(id.interpreter));
		if ((id.excluded & ~1) || (id.wrapper & ~1))
			abort();
	}
	free(copy);
	free(exe);
	return 0;
}
