/* Tool identity: follow a command line through wrappers (env, srun, singularity exec, ...)
 * and interpreters (python3 x.py, java -jar x.jar, Rscript x.R) to the tool it runs, then
 * name its subcommand and whether exclude rules keep it out of tool tables.
 *
 * Choices (documented for users in etc/tools.rules):
 * - the program is argv[0]; exe (the path given to execve) stands in when argv is empty, when
 *   argv[0] is empty or holds blanks (a rewritten title), or when a name is cut short;
 * - a script is named by its file name ("train.py", "run.sh"), less the interpreter rule's
 *   strip-suffix ("x.R" -> "x" for Rscript); a script that its #! line ran is, even when no
 *   rule names its interpreter;
 * - `python -m pkg.mod` is named by the whole dotted module "pkg.mod" ("json.tool"), as the
 *   user typed it: a package's modules are different programs. "pkg.__main__" is "pkg";
 * - a jar without a jar rule is named by its file name less ".jar" and a version suffix
 *   ("picard-2.27.5.jar" -> "picard"); a main class without a class rule by its last part;
 * - for every keyword the last matching rule wins, so later lines override earlier ones. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "rules.h"

#define SPLIT_BUF 4096
#define SPLITS_MAX 8

enum hop_kind { HOP_PROGRAM, HOP_SCRIPT, HOP_MODULE, HOP_JAR, HOP_CLASS };

struct hop {
	struct word name; /* matched against rules */
	size_t args;	  /* index of its first argument */
	enum hop_kind kind;
	int cut; /* the name comes from a possibly truncated word */
};

struct ident {
	const struct tool_rules *r;
	struct words ws;
	size_t cut; /* index of a possibly cut word, or WORDS_MAX */
	size_t split_used;
	int splits;
	char interpreter[32];
	char split[SPLIT_BUF]; /* words of split-options values live here (last: not
				* cleared) */
};

/* How option scanning ended. */
struct scan {
	size_t pos;	    /* the first positional word (ws.n when none) */
	enum opt_role role; /* OPT_FLAG, or the role of the option that ended the scan */
	struct word value;  /* that option's value */
	size_t value_at;    /* the index of the word holding it (ws.n when missing) */
};

static int same_word(struct word a, struct word b)
{
	return a.s == b.s && a.len == b.len;
}

static const struct tool_rule *find_rule(const struct tool_rules *r, enum rule_kind kind,
					 struct word name)
{
	long i = r ? rules_index_last(r, RULE_BIT(kind), name) : -1;

	return i < 0 ? NULL : &r->v[i];
}

static const struct opt_spec *find_opt(const struct tool_rule *r, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < r->nopts; i++)
		if (strlen(r->opts[i].name) == len && memcmp(r->opts[i].name, s, len) == 0)
			return &r->opts[i];
	return NULL;
}

static int is_assignment(struct word w)
{
	size_t i;

	if (!w.len || !(w.s[0] == '_' || ((w.s[0] | 0x20) >= 'a' && (w.s[0] | 0x20) <= 'z')))
		return 0;
	for (i = 1; i < w.len; i++) {
		if (w.s[i] == '=')
			return 1;
		if (!(w.s[i] == '_' || (w.s[i] >= '0' && w.s[i] <= '9') ||
		      ((w.s[i] | 0x20) >= 'a' && (w.s[i] | 0x20) <= 'z')))
			return 0;
	}
	return 0;
}

static int is_option(const struct tool_rule *r, struct word w)
{
	if (w.len > 1 && w.s[0] == '-')
		return 1;
	return w.len > 1 && w.s[0] == '+' && find_opt(r, w.s, w.len);
}

/* Replace words [at, at + count) by the shell words of value (env -S 'python3 -u'). */
static void split_value(struct ident *id, size_t at, size_t count, struct word value)
{
	struct words sub = { .n = 0 };
	size_t i, end = id->split_used;

	if (id->splits++ < SPLITS_MAX && id->split_used < SPLIT_BUF) {
		words_from_shell(&sub, value.s, value.len, id->split + id->split_used,
				 SPLIT_BUF - id->split_used);
		for (i = 0; i < sub.n; i++)
			if ((size_t)(sub.w[i].s + sub.w[i].len - id->split) > end)
				end = (size_t)(sub.w[i].s + sub.w[i].len - id->split);
		id->split_used = end;
	}
	words_splice(&id->ws, at, count, &sub);
	if (id->cut >= WORDS_MAX || id->cut < at)
		return;
	if (id->cut >= at + count)
		id->cut = id->cut + sub.n - count;
	else /* the value itself was cut: so is its last word */
		id->cut = sub.n ? at + sub.n - 1 : WORDS_MAX;
}

/* Scan options from word index i with the option lists of r, up to the first positional word
 * or an option that says where the program is (code, module, script, jar, subcommand). */
static void scan_options(struct ident *id, const struct tool_rule *r, size_t i, struct scan *sc)
{
	const struct opt_spec *o;
	struct word w, value;
	size_t nvals, j;
	int attached;

	memset(sc, 0, sizeof(*sc));
	while (i < id->ws.n) {
		w = id->ws.w[i];
		if (word_eq(w, "--")) {
			i++;
			break;
		}
		if (r->kind == RULE_WRAPPER && is_assignment(w)) {
			i++;
			continue;
		}
		if (!is_option(r, w))
			break;
		attached = 0;
		value.s = NULL;
		value.len = 0;
		if (w.len > 2 && w.s[0] == '-' && w.s[1] == '-') {
			const char *eq = memchr(w.s, '=', w.len);

			o = find_opt(r, w.s, eq ? (size_t)(eq - w.s) : w.len);
			if (eq) {
				attached = 1;
				value.s = eq + 1;
				value.len = w.len - (size_t)(eq + 1 - w.s);
			}
		} else if (!(o = find_opt(r, w.s, w.len)) && !r->whole && w.s[0] == '-') {
			/* a getopt cluster: -xvf FILE, -ofile, -Wignore, -MData::Dumper */
			for (j = 1; j < w.len; j++) {
				char two[2] = { '-', w.s[j] };

				o = find_opt(r, two, 2);
				if (o && o->role != OPT_FLAG) {
					if (j + 1 < w.len) {
						attached = 1;
						value.s = w.s + j + 1;
						value.len = w.len - j - 1;
					}
					break;
				}
				o = NULL;
			}
		}
		if (!o || o->role == OPT_FLAG || o->role == OPT_ATTACHED) {
			i++;
			continue;
		}
		nvals = o->role == OPT_VALUE ? o->nvals : 1;
		if (attached) {
			sc->value_at = i;
			nvals = 0;
		} else if (i + 1 < id->ws.n) {
			value = id->ws.w[i + 1];
			sc->value_at = i + 1;
		} else {
			sc->value_at = id->ws.n;
		}
		if (o->role == OPT_VALUE) {
			i += 1 + nvals;
			continue;
		}
		if (o->role == OPT_SPLIT) {
			split_value(id, i, attached ? 1 : 2, value);
			continue;
		}
		sc->role = (enum opt_role)o->role;
		sc->value = value;
		sc->pos = id->ws.n;
		return;
	}
	sc->pos = i < id->ws.n ? i : id->ws.n;
	sc->role = OPT_FLAG;
}

static int in_list(char *const *v, size_t n, struct word w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (glob_match(v[i], w))
			return 1;
	return 0;
}

/* A word that can name a subcommand: "sort", "HaplotypeCaller", "+fill-tags"; not a file. */
static int plain_word(struct word w)
{
	size_t i;

	if (!w.len || w.len > 63 || w.s[0] == '-')
		return 0;
	for (i = 0; i < w.len; i++) {
		char c = w.s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '+'))
			return 0;
	}
	return 1;
}

static int has_subcommand_rule(const struct tool_rule *r)
{
	size_t i;

	if (!r)
		return 0;
	if (r->subcmd_first || r->nsubcommands)
		return 1;
	for (i = 0; i < r->nopts; i++)
		if (r->opts[i].role == OPT_SUBCMD)
			return 1;
	return 0;
}

/* The subcommand of a tool whose arguments start at word index from, by rule r. */
static struct word find_subcommand(struct ident *id, const struct tool_rule *r, size_t from)
{
	struct word none = { "", 0 }, w;
	struct scan sc;
	size_t i = from;
	int first = 1;

	if (!has_subcommand_rule(r))
		return none;
	while (i < id->ws.n) {
		scan_options(id, r, i, &sc);
		if (sc.role == OPT_SUBCMD)
			return sc.value_at == id->cut || !plain_word(sc.value) ? none : sc.value;
		if (sc.role != OPT_FLAG || sc.pos >= id->ws.n)
			break;
		w = id->ws.w[sc.pos];
		if (first && (r->subcmd_first || r->nsubcommands) && sc.pos != id->cut &&
		    plain_word(w) &&
		    (!r->nsubcommands || in_list(r->subcommands, r->nsubcommands, w)))
			return w;
		first = 0;
		i = sc.pos + 1;
	}
	return none;
}

/* "picard-2.27.5.jar" -> "picard"; "VarScan.v2.4.4.jar" -> "VarScan". */
static struct word jar_stem(struct word w)
{
	size_t k;

	if (w.len > 4 && memcmp(w.s + w.len - 4, ".jar", 4) == 0)
		w.len -= 4;
	for (k = 1; k + 1 < w.len; k++) {
		char n = w.s[k + 1];

		if (!strchr("-_.", w.s[k]))
			continue;
		if ((n >= '0' && n <= '9') || ((n == 'v' || n == 'V') && k + 2 < w.len &&
					       w.s[k + 2] >= '0' && w.s[k + 2] <= '9')) {
			w.len = k;
			break;
		}
	}
	return w;
}

static struct word class_stem(struct word w)
{
	size_t i = w.len;

	while (i > 0 && w.s[i - 1] != '.')
		i--;
	if (i < w.len) {
		w.s += i;
		w.len -= i;
	}
	return w;
}

static struct word cstr_word(const char *s)
{
	struct word w = { s, strlen(s) };

	return w;
}

/* Is the last include/exclude rule matching either name an exclude rule? */
static int excluded(const struct tool_rules *r, struct word raw, struct word name)
{
	unsigned kinds = RULE_BIT(RULE_INCLUDE) | RULE_BIT(RULE_EXCLUDE);
	long i, j;

	if (!r)
		return 0;
	i = rules_index_last(r, kinds, raw);
	j = same_word(raw, name) ? -1 : rules_index_last(r, kinds, name);
	if (j > i)
		i = j;
	return i >= 0 && r->v[i].kind == RULE_EXCLUDE;
}

/* Name the tool at hop h and fill out. */
static void finish(struct ident *id, const struct hop *h, struct tool_id *out)
{
	const struct tool_rule *spec = NULL, *inc;
	struct word raw = h->name, name = h->name, sub;

	if (h->kind == HOP_JAR || h->kind == HOP_CLASS) {
		spec = find_rule(id->r, h->kind == HOP_JAR ? RULE_JAR : RULE_CLASS, raw);
		if (spec && spec->as)
			name = cstr_word(spec->as);
		else
			name = h->kind == HOP_JAR ? jar_stem(raw) : class_stem(raw);
	}
	if (h->kind == HOP_MODULE && raw.len > 9 && !memcmp(raw.s + raw.len - 9, ".__main__", 9))
		raw.len -= 9;
	if (h->kind == HOP_MODULE)
		name = raw;
	inc = find_rule(id->r, RULE_INCLUDE, raw);
	if (!inc && !same_word(raw, name))
		inc = find_rule(id->r, RULE_INCLUDE, name);
	if (inc && inc->as)
		name = cstr_word(inc->as);
	sub = find_subcommand(id, has_subcommand_rule(spec) ? spec : inc, h->args);
	memset(out, 0, sizeof(*out));
	field_set(out->name, sizeof(out->name), name.s, name.len);
	field_set(out->subcommand, sizeof(out->subcommand), sub.s, sub.len);
	field_set(out->interpreter, sizeof(out->interpreter), id->interpreter,
		  strlen(id->interpreter));
	out->excluded = excluded(id->r, raw, name);
}

/* See through wrapper w at hop h: 1 and *next when it runs a command, else 0 and *verb set
 * when it was used with another subcommand (singularity pull). */
static int see_through(struct ident *id, const struct tool_rule *w, const struct hop *h,
		       struct hop *next, struct word *verb)
{
	struct scan sc;
	size_t i = h->args, p, j;

	if (w->nsubcommands) {
		scan_options(id, w, i, &sc);
		if (sc.role != OPT_FLAG || sc.pos >= id->ws.n)
			return 0;
		if (!in_list(w->subcommands, w->nsubcommands, id->ws.w[sc.pos])) {
			if (plain_word(id->ws.w[sc.pos]) && sc.pos != id->cut)
				*verb = id->ws.w[sc.pos];
			return 0;
		}
		i = sc.pos + 1;
	}
	scan_options(id, w, i, &sc);
	if (sc.role == OPT_MODULE) {
		if (!sc.value.len || sc.value_at >= id->ws.n)
			return 0;
		next->name = sc.value;
		next->args = sc.value_at + 1;
		next->kind = HOP_MODULE;
		next->cut = sc.value_at == id->cut;
		return 1;
	}
	if (sc.role != OPT_FLAG)
		return 0;
	p = sc.pos + (size_t)w->skip;
	if (p >= id->ws.n)
		return 0;
	if (w->nuntil && !in_list(w->until, w->nuntil, word_basename(id->ws.w[p])))
		for (j = p + 1; j < id->ws.n; j++)
			if (!is_option(w, id->ws.w[j]) &&
			    in_list(w->until, w->nuntil, word_basename(id->ws.w[j]))) {
				p = j;
				break;
			}
	next->name = word_basename(id->ws.w[p]);
	next->args = p + 1;
	next->kind = HOP_PROGRAM;
	next->cut = p == id->cut;
	return next->name.len > 0;
}

static struct word strip_suffix(const struct tool_rule *r, struct word w)
{
	size_t i, l;

	for (i = 0; i < r->nsuffixes; i++) {
		l = strlen(r->suffixes[i]);
		if (w.len > l && memcmp(w.s + w.len - l, r->suffixes[i], l) == 0) {
			w.len -= l;
			break;
		}
	}
	return w;
}

/* Follow interpreter r at hop h: 1 and *next for the script, module, jar or class it runs;
 * 0 when it runs inline code or nothing named (the interpreter is then the tool). */
static int interpret(struct ident *id, const struct tool_rule *r, const struct hop *h,
		     struct hop *next)
{
	struct scan sc;
	struct word v;
	size_t at;

	scan_options(id, r, h->args, &sc);
	switch (sc.role) {
	case OPT_MODULE:
	case OPT_SCRIPT:
	case OPT_JAR:
		v = sc.value;
		at = sc.value_at;
		next->kind = sc.role == OPT_MODULE ? HOP_MODULE
			     : sc.role == OPT_JAR  ? HOP_JAR
						   : HOP_SCRIPT;
		break;
	case OPT_FLAG:
		if (sc.pos >= id->ws.n || r->positional == POS_NONE)
			return 0;
		v = id->ws.w[sc.pos];
		at = sc.pos;
		next->kind = r->positional == POS_CLASS ? HOP_CLASS : HOP_SCRIPT;
		break;
	default:
		return 0;
	}
	if (!v.len || word_eq(v, "-"))
		return 0;
	if (next->kind != HOP_MODULE && next->kind != HOP_CLASS)
		v = word_basename(v);
	if (next->kind == HOP_SCRIPT)
		v = strip_suffix(r, v);
	next->name = v;
	next->args = at < id->ws.n ? at + 1 : id->ws.n;
	next->cut = at == id->cut;
	word_copy(h->name, id->interpreter, sizeof(id->interpreter));
	return 1;
}

static int has_blank(struct word w)
{
	size_t i;

	for (i = 0; i < w.len; i++)
		if (w.s[i] == ' ' || w.s[i] == '\t' || w.s[i] == '\n')
			return 1;
	return 0;
}

/* The index of the script in argv when the kernel ran exe by its #! line: its argv is then
 * "interpreter [one argument] exe ...", exe as given to execve. 0 when it is not. */
static size_t shebang_script(const struct ident *id, struct word exe)
{
	size_t i;

	for (i = 1; i <= 2 && i < id->ws.n; i++)
		if (i != id->cut && id->ws.w[i].len == exe.len &&
		    !memcmp(id->ws.w[i].s, exe.s, exe.len))
			return i;
	return 0;
}

int tool_identify_flags(const struct tool_rules *r, const char *exe, const char *argv,
			size_t argv_len, unsigned flags, struct tool_id *out)
{
	struct ident local, *id = &local;
	const struct tool_rule *rule;
	struct hop h, next, prev;
	struct word exe_w = { exe, exe ? strlen(exe) : 0 }, verb, script = { "", 0 };
	size_t at;
	int hops, wrapper = 0;

	if (!out)
		return -EINVAL;
	memset(id, 0, offsetof(struct ident, split));
	id->r = r;
	words_from_argv(&id->ws, argv, argv ? argv_len : 0);
	id->cut = (flags & TOOL_ARGV_TRUNCATED) && id->ws.n ? id->ws.n - 1 : WORDS_MAX;
	if (!id->ws.n || !id->ws.w[0].len || has_blank(id->ws.w[0]) || id->cut == 0) {
		if (!exe_w.len) {
			if (!id->ws.n || !id->ws.w[0].len)
				return -EINVAL;
		} else {
			if (!id->ws.n)
				id->ws.n = 1;
			id->ws.w[0] = exe_w;
			if (id->cut == 0)
				id->cut = WORDS_MAX;
		}
	}
	/* exe is not argv[0]'s program nor a wrapper or interpreter: a script its #! line ran */
	if (exe_w.len) {
		script = word_basename(exe_w);
		if (word_eq(script, "") ||
		    (script.len == word_basename(id->ws.w[0]).len &&
		     !memcmp(script.s, word_basename(id->ws.w[0]).s, script.len)) ||
		    find_rule(r, RULE_WRAPPER, script) || find_rule(r, RULE_INTERPRETER, script))
			script.len = 0;
	}
	h.name = word_basename(id->ws.w[0]);
	while (h.name.len > 1 && h.name.s[0] == '-') { /* a login shell: -bash */
		h.name.s++;
		h.name.len--;
	}
	h.args = 1;
	h.kind = HOP_PROGRAM;
	h.cut = 0;
	prev = h;
	for (hops = 0; hops < TOOL_HOPS_MAX; hops++) {
		if (h.cut) { /* the name may be cut short: name what ran it instead */
			if (script.len) {
				h.name = script;
				h.kind = HOP_SCRIPT;
			} else {
				h = prev;
				if (h.kind == HOP_PROGRAM)
					id->interpreter[0] = 0;
			}
			h.args = id->ws.n;
			h.cut = 0;
			break;
		}
		verb.s = "";
		verb.len = 0;
		if (h.kind == HOP_PROGRAM || h.kind == HOP_SCRIPT || h.kind == HOP_MODULE) {
			if ((rule = find_rule(r, RULE_WRAPPER, h.name))) {
				if (!see_through(id, rule, &h, &next, &verb))
					break;
				wrapper |= hops == 0;
				prev = h;
				h = next;
				continue;
			}
		}
		if (h.kind == HOP_PROGRAM || h.kind == HOP_SCRIPT) {
			if ((rule = find_rule(r, RULE_INTERPRETER, h.name))) {
				if (!interpret(id, rule, &h, &next)) {
					id->interpreter[0] = 0; /* it is the tool itself */
					break;
				}
				prev = h;
				h = next;
				continue;
			}
		}
		break;
	}
	/* a script run by its #! line with an interpreter that no rule looked into (awk -f,
	 * tclsh, any rules or none): the script is the tool */
	if (hops == 0 && h.kind == HOP_PROGRAM && script.len && !id->interpreter[0] &&
	    (at = shebang_script(id, exe_w))) {
		word_copy(h.name, id->interpreter, sizeof(id->interpreter));
		h.name = script;
		h.kind = HOP_SCRIPT;
		h.args = at + 1;
	}
	finish(id, &h, out);
	out->wrapper = wrapper;
	if (verb.len && hops < TOOL_HOPS_MAX && !out->subcommand[0])
		field_set(out->subcommand, sizeof(out->subcommand), verb.s, verb.len);
	return 0;
}

int tool_identify(const struct tool_rules *r, const char *exe, const char *argv, size_t argv_len,
		  struct tool_id *out)
{
	return tool_identify_flags(r, exe, argv, argv_len, 0, out);
}
