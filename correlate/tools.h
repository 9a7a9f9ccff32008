/* Tool identity: which tool a command line runs, seen through interpreters and wrappers, by
 * the rules of etc/tools.rules (format documented there and in rules_parse.c). Pure library:
 * no I/O except tool_rules_load() reading the rules file. */
#ifndef TRACER_CORRELATE_TOOLS_H
#define TRACER_CORRELATE_TOOLS_H

#include <stddef.h>

#define TOOL_RULES_MAX 4096	 /* rules in one file */
#define TOOL_RULES_LINE_MAX 4096 /* bytes in one (continued) line */
#define TOOL_RULES_FILE_MAX (1 << 20)
#define TOOL_RULES_LIST_MAX 128 /* names or values in one list */
#define TOOL_HOPS_MAX 16	/* wrappers/interpreters followed for one command */

struct tool_id {
	char name[64];	      /* the tool: "samtools", "multiqc", "picard", "train.py" */
	char subcommand[64];  /* "sort", "HaplotypeCaller", "" when none */
	char interpreter[32]; /* "python3", "java", "Rscript" when the tool ran through one */
	int excluded;	      /* 1: shell plumbing, kept out of tool tables (not out of listings) */
	int wrapper;	      /* 1: the process is a wrapper that ran the tool (env, time, srun,
			       * conda run, ...): its memory is its own (or, forked from a large
			       * parent, that parent's), not the tool's */
};

struct tool_rules;

/* Parse rules text (len bytes, need not be NUL-terminated); name is the file name used in
 * error messages. On success *out is a new rule set (free it with tool_rules_free). On error
 * returns -EINVAL (a bad line: err says "NAME:LINE: message"), -E2BIG (too many rules or too
 * long a line, also explained in err) or -ENOMEM, and *out is untouched: nothing is applied
 * partially, the caller keeps the rules in force. err may be NULL. */
int tool_rules_parse(const char *text, size_t len, const char *name, struct tool_rules **out,
		     char *err, size_t errlen);

/* Read and parse a rules file (a regular file of at most TOOL_RULES_FILE_MAX bytes). Errors as
 * for tool_rules_parse, plus the errno of open/read (err says "PATH: strerror") and -EINVAL
 * for what is not a regular file. */
int tool_rules_load(const char *path, struct tool_rules **out, char *err, size_t errlen);

/* The rules of etc/tools.rules as built into the program, parsed afresh into *out; errors
 * name "built-in tools.rules:LINE". Errors as for tool_rules_parse (in practice only
 * -ENOMEM: the unit tests parse the same text). */
int tool_rules_builtin(struct tool_rules **out, char *err, size_t errlen);

/* Put the rules of more after those of base: the last matching rule winning, they override
 * base's (a ToolRules file over the built-in rules). On success more is freed; on error
 * (-EINVAL for a NULL set, -ENOMEM) both are untouched. */
int tool_rules_append(struct tool_rules *base, struct tool_rules *more);

void tool_rules_free(struct tool_rules *r);

/* Number of rules in a set (for logs and `tracerctl status`). */
size_t tool_rules_count(const struct tool_rules *r);

#define TOOL_ARGV_TRUNCATED 0x1 /* the last argument may have been cut short */

/* Identify the tool of one exec: exe is the path given to execve (may be relative or a
 * script; may be NULL), argv the NUL-separated arguments as stored by tracer (argv_len
 * bytes, no trailing NUL needed; may be cut short). r may be NULL (no rules: the program's
 * own name). Returns 0, or -EINVAL when there is nothing to name (no argv and no exe) or
 * out is NULL; out is untouched on error. */
int tool_identify(const struct tool_rules *r, const char *exe, const char *argv, size_t argv_len,
		  struct tool_id *out);

/* The same, with flags: TOOL_ARGV_TRUNCATED makes a possibly cut last argument count as
 * unknown rather than as a tool or subcommand name. */
int tool_identify_flags(const struct tool_rules *r, const char *exe, const char *argv,
			size_t argv_len, unsigned flags, struct tool_id *out);

#endif
