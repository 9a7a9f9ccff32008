/* Unit tests for the tool rules in force in tracerd: the built-in rules (etc/tools.rules,
 * compiled in), a ToolRules file added after them (agent_load_rules, tool_rules_append), a
 * missing file (the built-in rules alone) and a bad one (the rules in force stay). Run from
 * the repository root (make unit), or set TRACER_SRCDIR. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "agent_internal.h" /* agent_load_rules on an agent of its own */
#include "rules.h"

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_agent_rules.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/tools.rules", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void write_rules(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The tool of one command line, "name" or "name sub", "!" appended when excluded. */
static const char *tool(const struct tool_rules *r, const char *exe, const char *argv, size_t len)
{
	static char out[160];
	struct tool_id id;

	assert_int_equal(tool_identify(r, exe, argv, len, &id), 0);
	snprintf(out, sizeof(out), "%s%s%s%s", id.name, id.subcommand[0] ? " " : "", id.subcommand,
		 id.excluded ? "!" : "");
	return out;
}

#define TOOL(r, exe, argv) tool(r, exe, argv, sizeof(argv) - 1)

/* The built-in rules are etc/tools.rules byte for byte: one source, no copy kept by hand. */
static void test_builtin_is_the_file(void **state)
{
	char file[4096], err[512];
	struct tool_rules *b = NULL, *f = NULL;
	char *text = malloc(TOOL_RULES_FILE_MAX);
	size_t n;
	FILE *in;

	(void)state;
	assert_non_null(text);
	snprintf(file, sizeof(file), "%s/etc/tools.rules",
		 getenv("TRACER_SRCDIR") && getenv("TRACER_SRCDIR")[0] ? getenv("TRACER_SRCDIR")
								       : ".");
	assert_non_null(in = fopen(file, "rb"));
	n = fread(text, 1, TOOL_RULES_FILE_MAX, in);
	fclose(in);
	assert_int_equal(n, tool_rules_builtin_len);
	assert_memory_equal(text, tool_rules_builtin_text, n);
	assert_int_equal(tool_rules_builtin(&b, err, sizeof(err)), 0);
	assert_int_equal(tool_rules_load(file, &f, err, sizeof(err)), 0);
	assert_int_equal(tool_rules_count(b), tool_rules_count(f));
	assert_true(tool_rules_count(b) > 50);
	tool_rules_free(b);
	tool_rules_free(f);
	free(text);
}

/* A file's rules come after the built-in ones: they add rules, and override built-in ones. */
static void test_append(void **state)
{
	static const char local[] =
		"include mytool subcommand=first\n"
		"exclude sort\n"		     /* the built-ins keep sort in */
		"interpreter perl positional=none\n" /* perl no longer runs scripts */
		"wrapper mywrap skip=1\n";
	struct tool_rules *b = NULL, *l = NULL, *empty = NULL;
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(tool_rules_builtin(&b, err, sizeof(err)), 0);
	n = tool_rules_count(b);
	assert_string_equal(TOOL(b, NULL, "sort\0x"), "sort");
	assert_string_equal(TOOL(b, NULL, "perl\0x.pl"), "x.pl");
	assert_int_equal(tool_rules_parse(local, sizeof(local) - 1, "local", &l, err, sizeof(err)),
			 0);
	assert_int_equal(tool_rules_append(b, l), 0);
	assert_int_equal(tool_rules_count(b), n + 4);
	assert_string_equal(TOOL(b, NULL, "mytool\0go\0x"), "mytool go");
	assert_string_equal(TOOL(b, NULL, "sort\0x"), "sort!");
	assert_string_equal(TOOL(b, NULL, "perl\0x.pl"), "perl");
	assert_string_equal(TOOL(b, NULL, "mywrap\0arg\0env\0samtools\0sort"), "samtools sort");
	/* the built-in rules the file does not touch still apply */
	assert_string_equal(
		TOOL(b, "/usr/bin/cwltool", "/usr/bin/python3\0/usr/bin/cwltool\0wf.cwl"),
		"cwltool");
	assert_int_equal(tool_rules_parse("", 0, "empty", &empty, err, sizeof(err)), 0);
	assert_int_equal(tool_rules_append(b, empty), 0);
	assert_int_equal(tool_rules_count(b), n + 4);
	assert_int_equal(tool_rules_append(b, NULL), -EINVAL);
	assert_int_equal(tool_rules_append(NULL, b), -EINVAL);
	tool_rules_free(b);
	/* with no rules at all, a script its #! line ran is still named by its file name */
	assert_string_equal(TOOL(NULL, "./pytool", "/usr/bin/python3\0./pytool"), "pytool");
	assert_string_equal(TOOL(NULL, NULL, "/usr/bin/python3\0./pytool"), "python3");
}

/* agent_load_rules: what tracerd does at start and on SIGHUP. */
static void test_agent_load(void **state)
{
	struct agent a;
	const struct tool_rules *before;
	size_t builtin;

	(void)state;
	memset(&a, 0, sizeof(a));
	/* no file: the built-in rules alone; scripts are named by their file name */
	assert_int_equal(agent_load_rules(&a, path), 0);
	assert_non_null(a.rules);
	builtin = tool_rules_count(a.rules);
	assert_string_equal(TOOL(a.rules, "./pytool", "/usr/bin/python3\0./pytool"), "pytool");
	assert_string_equal(TOOL(a.rules, "./pltool", "/usr/bin/perl\0./pltool"), "pltool");
	assert_string_equal(TOOL(a.rules, NULL, "python3\0-m\0json.tool"), "json.tool");
	assert_string_equal(TOOL(a.rules, NULL, "mytool\0go"), "mytool");

	/* a file adds to them */
	write_rules("include mytool subcommand=first\n");
	assert_int_equal(agent_load_rules(&a, path), 0);
	assert_int_equal(tool_rules_count(a.rules), builtin + 1);
	assert_string_equal(TOOL(a.rules, NULL, "mytool\0go"), "mytool go");
	assert_string_equal(TOOL(a.rules, NULL, "samtools\0sort"), "samtools sort");

	/* a bad file is refused as a whole: the rules in force stay */
	before = a.rules;
	write_rules("include mytool\nfrobnicate x\n");
	assert_int_equal(agent_load_rules(&a, path), -EINVAL);
	assert_ptr_equal(a.rules, before);
	assert_string_equal(TOOL(a.rules, NULL, "mytool\0go"), "mytool go");

	/* an unreadable one too (a directory) */
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_true(agent_load_rules(&a, path) < 0);
	assert_ptr_equal(a.rules, before);
	assert_int_equal(rmdir(path), 0);

	/* the file removed: back to the built-in rules alone */
	assert_int_equal(agent_load_rules(&a, path), 0);
	assert_int_equal(tool_rules_count(a.rules), builtin);
	assert_string_equal(TOOL(a.rules, NULL, "mytool\0go"), "mytool");
	tool_rules_free(a.rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_is_the_file),
		cmocka_unit_test(test_append),
		cmocka_unit_test_setup_teardown(test_agent_load, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
