/* Tool rules in memory: what rules_parse.c builds and tools.c reads. Internal header. */
#ifndef TRACER_CORRELATE_RULES_H
#define TRACER_CORRELATE_RULES_H

#include <stddef.h>

#include "tools.h"
#include "words.h"

enum rule_kind { RULE_INCLUDE, RULE_EXCLUDE, RULE_INTERPRETER, RULE_WRAPPER, RULE_JAR, RULE_CLASS };

/* What an option does to the words after it. */
enum opt_role {
	OPT_FLAG = 0, /* not listed: takes no value */
	OPT_VALUE,    /* value-options: skip its value(s) */
	OPT_ATTACHED, /* attached-options: the rest of a -xVALUE cluster, never the next word */
	OPT_CODE,     /* code-options: inline code follows, no script (python -c, bash -c) */
	OPT_MODULE,   /* module-options: its value is a module to run (python -m) */
	OPT_SCRIPT,   /* script-options: its value is the script (R --file=x.R) */
	OPT_JAR,      /* jar-options: its value is a jar to run (java -jar) */
	OPT_SPLIT,    /* split-options: its value is more words (env -S 'python3 -u') */
	OPT_SUBCMD,   /* subcommand-options: its value is the subcommand (GATK3 -T) */
};

enum positional { POS_SCRIPT, POS_CLASS, POS_NONE };

struct opt_spec {
	char *name;	     /* "-o", "--output", "+O" */
	unsigned char role;  /* enum opt_role */
	unsigned char nvals; /* words taken by an OPT_VALUE option (name:N), 1 by default */
};

/* A name of a rule, told once whether it is a pattern: most are plain names, which
 * rules_index.c finds by a binary search; a pattern is matched only by a word that begins with
 * its literal prefix. */
struct rule_glob {
	char *s;
	size_t len;
	int pattern;   /* holds * ? or [: matched by glob_match */
	size_t prefix; /* a pattern's bytes before its first * ? [ or backslash */
};

struct tool_rule {
	enum rule_kind kind;
	int line;
	struct rule_glob *globs; /* program names (or jar file names, or main classes) */
	size_t nglobs;
	char *as; /* the tool name to report instead */
	struct opt_spec *opts;
	size_t nopts;
	char **subcommands; /* include/jar/class: accepted subcommands; wrapper: its verbs */
	size_t nsubcommands;
	char **until; /* wrapper: the command is the first word matching one of these */
	size_t nuntil;
	char **suffixes; /* interpreter: stripped from script names */
	size_t nsuffixes;
	int subcmd_first; /* subcommand=first: the first plain positional word */
	int skip;	  /* wrapper: positional words between its options and the command */
	int whole;	  /* options=whole: no getopt clusters (java -Xmx4g, -cp) */
	enum positional positional;
};

struct tool_rules {
	struct tool_rule *v;
	size_t n;
	struct rule_index *index; /* rules_index.c: built by the parse and the append */
};

#define RULE_BIT(kind) (1u << (kind))

/* (Re)build set's index of names; -ENOMEM leaves the old one. */
int rules_index_build(struct tool_rules *set);
void rules_index_free(struct tool_rules *set);
/* The index of the last rule of kinds (RULE_BIT()s) with a name matching w, or -1. */
long rules_index_last(const struct tool_rules *set, unsigned kinds, struct word w);

/* etc/tools.rules byte for byte, generated at build time by scripts/embed-rules. */
extern const char tool_rules_builtin_text[];
extern const size_t tool_rules_builtin_len;

#endif
