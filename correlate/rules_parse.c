/* The tools.rules parser. Line-based; etc/tools.rules documents the format for users:
 *
 *     KEYWORD NAME... [KEY=VALUE[,VALUE...]]...     # comment
 *
 * KEYWORD is include, exclude, interpreter, wrapper, jar or class; NAMEs are globs; a line
 * ending in '\' continues on the next. The whole text is parsed into a new rule set; any
 * error discards it, so the rules in force stay in force. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"
#include "rules.h"

/* Options each keyword accepts, as a bit set. */
enum {
	K_AS = 1 << 0,
	K_SUBCMD = 1 << 1,
	K_SUBCMDS = 1 << 2,
	K_VALUE = 1 << 3,
	K_ATTACHED = 1 << 4,
	K_CODE = 1 << 5,
	K_MODULE = 1 << 6,
	K_SCRIPT = 1 << 7,
	K_JAR = 1 << 8,
	K_SPLIT = 1 << 9,
	K_SUBCMD_OPTS = 1 << 10,
	K_SKIP = 1 << 11,
	K_UNTIL = 1 << 12,
	K_SUFFIX = 1 << 13,
	K_OPTIONS = 1 << 14,
	K_POSITIONAL = 1 << 15,
};

static const struct {
	const char *word;
	enum rule_kind kind;
	unsigned keys;
} keywords[] = {
	{ "include", RULE_INCLUDE,
	  K_AS | K_SUBCMD | K_SUBCMDS | K_SUBCMD_OPTS | K_VALUE | K_OPTIONS },
	{ "exclude", RULE_EXCLUDE, 0 },
	{ "interpreter", RULE_INTERPRETER,
	  K_VALUE | K_ATTACHED | K_CODE | K_MODULE | K_SCRIPT | K_JAR | K_SUFFIX | K_OPTIONS |
		  K_POSITIONAL },
	{ "wrapper", RULE_WRAPPER,
	  K_SUBCMDS | K_VALUE | K_ATTACHED | K_MODULE | K_SPLIT | K_SKIP | K_UNTIL | K_OPTIONS },
	{ "jar", RULE_JAR, K_AS | K_SUBCMD | K_SUBCMDS | K_SUBCMD_OPTS | K_VALUE | K_OPTIONS },
	{ "class", RULE_CLASS, K_AS | K_SUBCMD | K_SUBCMDS | K_SUBCMD_OPTS | K_VALUE | K_OPTIONS },
};

static const struct {
	const char *key;
	unsigned bit;
	enum opt_role role; /* for the option lists */
} keys[] = {
	{ "as", K_AS, OPT_FLAG },
	{ "subcommand", K_SUBCMD, OPT_FLAG },
	{ "subcommands", K_SUBCMDS, OPT_FLAG },
	{ "value-options", K_VALUE, OPT_VALUE },
	{ "attached-options", K_ATTACHED, OPT_ATTACHED },
	{ "code-options", K_CODE, OPT_CODE },
	{ "module-options", K_MODULE, OPT_MODULE },
	{ "script-options", K_SCRIPT, OPT_SCRIPT },
	{ "jar-options", K_JAR, OPT_JAR },
	{ "split-options", K_SPLIT, OPT_SPLIT },
	{ "subcommand-options", K_SUBCMD_OPTS, OPT_SUBCMD },
	{ "skip", K_SKIP, OPT_FLAG },
	{ "until", K_UNTIL, OPT_FLAG },
	{ "strip-suffix", K_SUFFIX, OPT_FLAG },
	{ "options", K_OPTIONS, OPT_FLAG },
	{ "positional", K_POSITIONAL, OPT_FLAG },
};

#define NELEM(a) (sizeof(a) / sizeof(*(a)))

struct parser {
	const char *name;
	int line;
	char *err;
	size_t errlen;
	struct tool_rules *set;
};

static int fail(struct parser *p, int rc, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!p->err || !p->errlen)
		return rc;
	n = (size_t)snprintf(p->err, p->errlen, "%s:%d: ", p->name, p->line);
	if (n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void rule_clear(struct tool_rule *r)
{
	size_t i;

	for (i = 0; i < r->nglobs; i++)
		free(r->globs[i].s);
	for (i = 0; i < r->nopts; i++)
		free(r->opts[i].name);
	for (i = 0; i < r->nsubcommands; i++)
		free(r->subcommands[i]);
	for (i = 0; i < r->nuntil; i++)
		free(r->until[i]);
	for (i = 0; i < r->nsuffixes; i++)
		free(r->suffixes[i]);
	free(r->globs);
	free(r->opts);
	free(r->subcommands);
	free(r->until);
	free(r->suffixes);
	free(r->as);
	memset(r, 0, sizeof(*r));
}

void tool_rules_free(struct tool_rules *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++)
		rule_clear(&set->v[i]);
	rules_index_free(set);
	free(set->v);
	free(set);
}

size_t tool_rules_count(const struct tool_rules *set)
{
	return set ? set->n : 0;
}

static char *dup_word(struct word w)
{
	char *s = malloc(w.len + 1);

	if (s) {
		memcpy(s, w.s, w.len);
		s[w.len] = 0;
	}
	return s;
}

/* Append a copy of w to a string array of n entries. */
static int push_str(char ***v, size_t *n, struct word w)
{
	char **nv, *s;

	if (!(s = dup_word(w)))
		return -ENOMEM;
	if (!(nv = realloc(*v, (*n + 1) * sizeof(**v)))) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

static int push_glob(struct tool_rule *r, struct word w)
{
	struct rule_glob *nv;
	char *s;

	if (!(s = dup_word(w)))
		return -ENOMEM;
	if (!(nv = realloc(r->globs, (r->nglobs + 1) * sizeof(*nv)))) {
		free(s);
		return -ENOMEM;
	}
	nv[r->nglobs++] =
		(struct rule_glob){ s, w.len, strpbrk(s, "*?[") != NULL, strcspn(s, "*?[\\") };
	r->globs = nv;
	return 0;
}

static int push_opt(struct tool_rule *r, struct word w, enum opt_role role, unsigned nvals)
{
	struct opt_spec *nv;
	char *s;

	if (!(s = dup_word(w)))
		return -ENOMEM;
	if (!(nv = realloc(r->opts, (r->nopts + 1) * sizeof(*nv)))) {
		free(s);
		return -ENOMEM;
	}
	nv[r->nopts].name = s;
	nv[r->nopts].role = (unsigned char)role;
	nv[r->nopts].nvals = (unsigned char)nvals;
	r->nopts++;
	r->opts = nv;
	return 0;
}

/* Split a comma-separated value into items; none may be empty. */
static int split_list(struct parser *p, const char *key, struct word v, struct word *items,
		      size_t *n)
{
	size_t i = 0, start;

	*n = 0;
	for (;;) {
		start = i;
		while (i < v.len && v.s[i] != ',')
			i++;
		if (i == start)
			return fail(p, -EINVAL, "empty item in the list of '%s'", key);
		if (*n == TOOL_RULES_LIST_MAX)
			return fail(p, -E2BIG, "more than %d items in '%s'", TOOL_RULES_LIST_MAX,
				    key);
		items[*n].s = v.s + start;
		items[(*n)++].len = i - start;
		if (i == v.len)
			return 0;
		i++;
	}
}

/* An option list item: "-o", "--output", "+O", or "--mca:2" (an option taking 2 words). */
static int add_option(struct parser *p, struct tool_rule *r, const char *key, struct word it,
		      enum opt_role role)
{
	unsigned nvals = 1;
	const char *colon = memchr(it.s, ':', it.len);

	if (colon && role == OPT_VALUE && it.s + it.len - colon == 2 && colon[1] >= '1' &&
	    colon[1] <= '4') {
		nvals = (unsigned)(colon[1] - '0');
		it.len = (size_t)(colon - it.s);
	} else if (colon) {
		return fail(p, -EINVAL,
			    "bad option '%.*s' in '%s' (NAME:N takes N = 1..4, "
			    "in value-options only)",
			    (int)it.len, it.s, key);
	}
	if (it.len < 2 || (it.s[0] != '-' && it.s[0] != '+'))
		return fail(p, -EINVAL, "'%.*s' in '%s' is not an option (they start with - or +)",
			    (int)it.len, it.s, key);
	if (role == OPT_ATTACHED && (it.len != 2 || it.s[0] != '-'))
		return fail(p, -EINVAL,
			    "'%.*s' in '%s': attached options are single letters "
			    "like -M",
			    (int)it.len, it.s, key);
	return push_opt(r, it, role, nvals) ? fail(p, -ENOMEM, "out of memory") : 0;
}

static int parse_int(struct word v, int max, int *out)
{
	int n = 0;
	size_t i;

	if (!v.len || v.len > 3)
		return -1;
	for (i = 0; i < v.len; i++) {
		if (v.s[i] < '0' || v.s[i] > '9')
			return -1;
		n = n * 10 + (v.s[i] - '0');
	}
	if (n > max)
		return -1;
	*out = n;
	return 0;
}

static int parse_key(struct parser *p, struct tool_rule *r, unsigned allowed, unsigned *seen,
		     const char *kw, struct word w)
{
	struct word items[TOOL_RULES_LIST_MAX];
	const char *eq = memchr(w.s, '=', w.len);
	struct word k = { w.s, (size_t)(eq - w.s) }, v = { eq + 1, w.len - k.len - 1 };
	size_t i, n, ki;
	int rc;

	for (ki = 0; ki < NELEM(keys); ki++)
		if (word_eq(k, keys[ki].key))
			break;
	if (ki == NELEM(keys) || !(allowed & keys[ki].bit))
		return fail(p, -EINVAL, "unknown option '%.*s' for %s", (int)k.len, k.s, kw);
	if (*seen & keys[ki].bit)
		return fail(p, -EINVAL, "option '%s' given twice", keys[ki].key);
	*seen |= keys[ki].bit;
	if (!v.len)
		return fail(p, -EINVAL, "option '%s' needs a value", keys[ki].key);
	switch (keys[ki].bit) {
	case K_AS:
		if (v.len >= sizeof(((struct tool_id *)0)->name) || memchr(v.s, '/', v.len))
			return fail(p, -EINVAL, "bad tool name '%.*s' (at most 63 bytes, no '/')",
				    (int)v.len, v.s);
		return (r->as = dup_word(v)) ? 0 : fail(p, -ENOMEM, "out of memory");
	case K_SUBCMD:
		if (!word_eq(v, "first") && !word_eq(v, "none"))
			return fail(p, -EINVAL, "subcommand must be 'first' or 'none'");
		r->subcmd_first = word_eq(v, "first");
		return 0;
	case K_OPTIONS:
		if (!word_eq(v, "getopt") && !word_eq(v, "whole"))
			return fail(p, -EINVAL, "options must be 'getopt' or 'whole'");
		r->whole = word_eq(v, "whole");
		return 0;
	case K_POSITIONAL:
		if (word_eq(v, "script"))
			r->positional = POS_SCRIPT;
		else if (word_eq(v, "class"))
			r->positional = POS_CLASS;
		else if (word_eq(v, "none"))
			r->positional = POS_NONE;
		else
			return fail(p, -EINVAL, "positional must be 'script', 'class' or 'none'");
		return 0;
	case K_SKIP:
		if (parse_int(v, TOOL_HOPS_MAX, &r->skip) < 0)
			return fail(p, -EINVAL, "skip must be a number from 0 to %d",
				    TOOL_HOPS_MAX);
		return 0;
	}
	if ((rc = split_list(p, keys[ki].key, v, items, &n)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		if (keys[ki].role != OPT_FLAG)
			rc = add_option(p, r, keys[ki].key, items[i], keys[ki].role);
		else if (keys[ki].bit == K_SUBCMDS)
			rc = push_str(&r->subcommands, &r->nsubcommands, items[i]);
		else if (keys[ki].bit == K_UNTIL)
			rc = push_str(&r->until, &r->nuntil, items[i]);
		else
			rc = push_str(&r->suffixes, &r->nsuffixes, items[i]);
		if (rc == -ENOMEM)
			return fail(p, rc, "out of memory");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One logical line, comments and continuations already removed. */
static int parse_line(struct parser *p, const char *text, size_t len)
{
	struct words ws;
	struct tool_rule r;
	struct tool_rule *nv;
	size_t i, k;
	unsigned seen = 0;
	int rc = 0;

	/* no quotes in this format: split on blanks only */
	ws.n = 0;
	for (i = 0; i < len;) {
		while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
			i++;
		if (i == len)
			break;
		if (ws.n == WORDS_MAX)
			return fail(p, -E2BIG, "more than %d words", WORDS_MAX);
		ws.w[ws.n].s = text + i;
		while (i < len && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
			i++;
		ws.w[ws.n].len = (size_t)(text + i - ws.w[ws.n].s);
		ws.n++;
	}
	if (!ws.n)
		return 0;
	for (k = 0; k < NELEM(keywords); k++)
		if (word_eq(ws.w[0], keywords[k].word))
			break;
	if (k == NELEM(keywords))
		return fail(p, -EINVAL,
			    "unknown keyword '%.*s' (include, exclude, interpreter, "
			    "wrapper, jar or class)",
			    (int)ws.w[0].len, ws.w[0].s);
	if (p->set->n == TOOL_RULES_MAX)
		return fail(p, -E2BIG, "more than %d rules", TOOL_RULES_MAX);
	memset(&r, 0, sizeof(r));
	r.kind = keywords[k].kind;
	r.line = p->line;
	for (i = 1; i < ws.n && rc == 0; i++) {
		if (memchr(ws.w[i].s, '=', ws.w[i].len)) {
			rc = parse_key(p, &r, keywords[k].keys, &seen, keywords[k].word, ws.w[i]);
		} else if (seen) {
			rc = fail(p, -EINVAL, "name '%.*s' after the options", (int)ws.w[i].len,
				  ws.w[i].s);
		} else if (r.nglobs == TOOL_RULES_LIST_MAX) {
			rc = fail(p, -E2BIG, "more than %d names", TOOL_RULES_LIST_MAX);
		} else if (ws.w[i].len >= WORD_NAME_MAX) {
			rc = fail(p, -EINVAL, "name longer than %d bytes", WORD_NAME_MAX - 1);
		} else if (push_glob(&r, ws.w[i]) < 0) {
			rc = fail(p, -ENOMEM, "out of memory");
		}
	}
	if (!rc && !r.nglobs)
		rc = fail(p, -EINVAL, "%s needs at least one name", keywords[k].word);
	if (!rc && r.kind == RULE_INCLUDE && r.nsubcommands && (seen & K_SUBCMD) && !r.subcmd_first)
		rc = fail(p, -EINVAL, "subcommand=none contradicts subcommands=");
	if (rc) {
		rule_clear(&r);
		return rc;
	}
	if (!(nv = realloc(p->set->v, (p->set->n + 1) * sizeof(*nv)))) {
		rule_clear(&r);
		return fail(p, -ENOMEM, "out of memory");
	}
	nv[p->set->n++] = r;
	p->set->v = nv;
	return 0;
}

int tool_rules_parse(const char *text, size_t len, const char *name, struct tool_rules **out,
		     char *err, size_t errlen)
{
	char logical[TOOL_RULES_LINE_MAX + 1];
	struct parser p = { name ? name : "rules", 0, err, errlen, NULL };
	size_t i = 0, n = 0, end, cut;
	int rc = 0, line = 0, first = 0, cont;

	if (!out || (!text && len))
		return -EINVAL;
	if (err && errlen)
		err[0] = 0;
	if (!(p.set = calloc(1, sizeof(*p.set))))
		return -ENOMEM;
	while (i < len && rc == 0) {
		p.line = ++line;
		if (!n)
			first = line;
		for (end = i; end < len && text[end] != '\n'; end++)
			if (!text[end])
				break;
		if (end < len && !text[end]) {
			rc = fail(&p, -EINVAL, "NUL byte in the line");
			break;
		}
		/* a comment: '#' at the start of the line or after a blank */
		for (cut = i; cut < end; cut++)
			if (text[cut] == '#' &&
			    (cut == i || text[cut - 1] == ' ' || text[cut - 1] == '\t'))
				break;
		while (cut > i &&
		       (text[cut - 1] == ' ' || text[cut - 1] == '\t' || text[cut - 1] == '\r'))
			cut--;
		cont = cut > i && text[cut - 1] == '\\';
		if (cont)
			cut--;
		if (n + (cut - i) + 1 > TOOL_RULES_LINE_MAX) {
			rc = fail(&p, -E2BIG, "line longer than %d bytes", TOOL_RULES_LINE_MAX);
			break;
		}
		memcpy(logical + n, text + i, cut - i);
		n += cut - i;
		logical[n++] = ' ';
		i = end + 1;
		if (cont && i < len)
			continue;
		p.line = first; /* errors name the line a rule starts on */
		rc = parse_line(&p, logical, n);
		n = 0;
	}
	if (!rc && rules_index_build(p.set) < 0)
		rc = fail(&p, -ENOMEM, "out of memory");
	if (rc) {
		tool_rules_free(p.set);
		return rc;
	}
	*out = p.set;
	return 0;
}

int tool_rules_builtin(struct tool_rules **out, char *err, size_t errlen)
{
	return tool_rules_parse(tool_rules_builtin_text, tool_rules_builtin_len,
				"built-in tools.rules", out, err, errlen);
}

int tool_rules_append(struct tool_rules *base, struct tool_rules *more)
{
	struct tool_rule *nv;

	struct tool_rules all;

	if (!base || !more)
		return -EINVAL;
	if (more->n) {
		if (!(nv = realloc(base->v, (base->n + more->n) * sizeof(*nv))))
			return -ENOMEM;
		memcpy(nv + base->n, more->v, more->n * sizeof(*nv));
		all = (struct tool_rules){ nv, base->n + more->n, NULL };
		if (rules_index_build(&all) < 0) { /* base stays as it was, its v moved */
			base->v = nv;
			return -ENOMEM;
		}
		rules_index_free(base);
		*base = all;
	}
	rules_index_free(more);
	free(more->v); /* the rules themselves now belong to base */
	free(more);
	return 0;
}

int tool_rules_load(const char *path, struct tool_rules **out, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int rc;

	if (!path || !out)
		return -EINVAL;
	rc = readfile(path, TOOL_RULES_FILE_MAX, 0, &buf, &len, err, errlen);
	if (rc < 0)
		return rc == -EFBIG ? -E2BIG : rc; /* as tool_rules_parse says of a text too long */
	rc = tool_rules_parse(buf, len, path, out, err, errlen);
	free(buf);
	return rc;
}
