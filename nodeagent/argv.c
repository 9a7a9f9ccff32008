/* Secret masking for command lines: metadata only, never credentials. Besides secret-looking
 * names (`--password=x`, `token=x`, `--api-key x`), the shapes that common tools give
 * credentials: `mysql -pX`, `sshpass -p X`, `curl -u user:X`, `openssl … pass:X` and
 * `openssl enc -k X`, HTTP headers such as `-H "Authorization: Bearer X"`, and URLs with
 * `user:X@` or a bare `TOKEN@` before the host. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "argv.h"

static const char *const secret_words[] = {
	"password",    "passwd",      "passphrase", "secret",	  "token",
	"apikey",      "api_key",     "api-key",    "access_key", "access-key",
	"private_key", "private-key", "credential", "auth",	  "pwd",
};

/* Where secret word i first ends in arg[0..len), or 0. Its first letter is compared before the
 * whole word: a long argument is mostly letters no secret word starts with. */
static size_t word_end(const char *arg, size_t len, size_t i)
{
	const char *word = secret_words[i];
	size_t w, wl = strlen(word);

	for (w = 0; w + wl <= len; w++)
		if (tolower((unsigned char)arg[w]) == word[0] &&
		    strncasecmp(arg + w, word, wl) == 0)
			return w + wl;
	return 0;
}

int argv_is_secret_name(const char *arg, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(secret_words) / sizeof(*secret_words); i++)
		if (word_end(arg, len, i))
			return 1;
	return 0;
}

/* Is this argument an option (starts with '-') naming a secret, with no '=value'? */
static int is_secret_flag(const char *arg, size_t len)
{
	return len > 1 && arg[0] == '-' && !memchr(arg, '=', len) && argv_is_secret_name(arg, len);
}

/* The '=' that starts a secret value: the first one after the first secret word (so the key
 * before it looks secret, as in `token=x` or `--conf=a.password=x`), or NULL. */
static const char *secret_eq(const char *arg, size_t len)
{
	const char *last = memrchr(arg, '=', len);
	size_t i, e, end = 0;

	/* a word after the last '=' has no value: only what comes before it is searched */
	for (i = 0; last && i < sizeof(secret_words) / sizeof(*secret_words); i++) {
		e = word_end(arg, end ? end - 1 : (size_t)(last - arg), i);
		if (e && (!end || e < end))
			end = e;
	}
	return end ? memchr(arg + end, '=', len - end) : NULL;
}

static void append(char *dst, size_t *at, const char *src, size_t n)
{
	memcpy(dst + *at, src, n);
	*at += n;
}

static void append_mask(char *dst, size_t *at)
{
	append(dst, at, ARGV_MASK, strlen(ARGV_MASK));
}

/* An argument is not NUL-terminated when it ends the buffer: compare by length. */
static int is(const char *arg, size_t len, const char *word)
{
	return len == strlen(word) && memcmp(arg, word, len) == 0;
}

static int has_prefix(const char *arg, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(arg, prefix, n) == 0;
}

/* Schemes whose user part is a login name, never a credential (ssh has no passwords in URLs). */
static int login_scheme(const char *scheme, size_t len)
{
	static const char *const names[] = { "ssh", "sftp", "git+ssh", "ssh+git", "scp" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strlen(names[i]) == len && strncasecmp(scheme, names[i], len) == 0)
			return 1;
	return 0;
}

/* The credential in "scheme://user:PASS@host" (the password) or "scheme://TOKEN@host" (the
 * whole user part, unless the scheme's user part is a login name). */
static int url_secret(const char *arg, size_t len, size_t *from, size_t *to)
{
	const char *scheme = memmem(arg, len, "://", 3), *at, *colon, *s;
	size_t start;

	if (!scheme)
		return 0;
	start = scheme + 3 - arg;
	at = memchr(arg + start, '@', len - start);
	if (!at || memchr(arg + start, '/', at - (arg + start)))
		return 0;
	colon = memchr(arg + start, ':', at - (arg + start));
	if (colon) {
		*from = colon + 1 - arg;
	} else {
		for (s = scheme; s > arg && (isalnum((unsigned char)s[-1]) || strchr("+-.", s[-1]));
		     s--)
			;
		if (login_scheme(s, scheme - s))
			return 0;
		*from = start;
	}
	*to = at - arg;
	return *to > *from;
}

/* Programs that take credentials in their own shapes; the family holds from the program's
 * name on, so `srun mysql -pX` is seen too. */
enum family { F_NONE, F_MYSQL, F_SSHPASS, F_CURL, F_OPENSSL };

static enum family family_of(const char *arg, size_t len)
{
	const char *base = arg, *slash;

	if (!len || arg[0] == '-')
		return F_NONE;
	while ((slash = memchr(base, '/', len - (base - arg))))
		base = slash + 1;
	len -= base - arg;
	if (has_prefix(base, len, "mysql") || has_prefix(base, len, "mariadb"))
		return F_MYSQL;
	if (is(base, len, "sshpass"))
		return F_SSHPASS;
	if (is(base, len, "curl"))
		return F_CURL;
	if (is(base, len, "openssl"))
		return F_OPENSSL;
	return F_NONE;
}

/* What the argument after an option is. */
enum next { N_PLAIN, N_SECRET, N_HEADER, N_USERPASS };

/* "Name: value" where the name is a secret one (Authorization, X-Api-Key, PRIVATE-TOKEN,
 * Cookie): the start of what to mask, keeping a scheme word ("Bearer ***"), or 0. */
static size_t header_secret(const char *arg, size_t len)
{
	size_t n = 0, v, w;

	while (n < len && (isalnum((unsigned char)arg[n]) || arg[n] == '-' || arg[n] == '_'))
		n++;
	if (!n || n == len || arg[n] != ':')
		return 0;
	if (!argv_is_secret_name(arg, n) && !(n >= 6 && strncasecmp(arg + n - 6, "cookie", 6) == 0))
		return 0;
	for (v = n + 1; v < len && arg[v] == ' '; v++)
		;
	for (w = v; w < len && isalpha((unsigned char)arg[w]); w++)
		;
	if (w < len && arg[w] == ' ' && w > v) /* "Bearer X", "Basic X", "token X" */
		for (v = w; v < len && arg[v] == ' '; v++)
			;
	return v < len ? v : 0;
}

/* "user:PASS" (curl -u): the start of the password, or 0. */
static size_t userpass_secret(const char *arg, size_t len)
{
	const char *colon = memchr(arg, ':', len);

	return colon && (size_t)(colon - arg) + 1 < len ? (size_t)(colon - arg) + 1 : 0;
}

/* Mask arg[from..len) if from is set; returns whether it did. */
static int mask_from(char *dst, size_t *at, const char *arg, size_t from)
{
	if (!from)
		return 0;
	append(dst, at, arg, from);
	append_mask(dst, at);
	return 1;
}

/* The tool-specific shapes; returns 1 when the argument is written out, setting *next for the
 * argument after it. */
static int tool_shape(enum family *fam, const char *arg, size_t len, char *dst, size_t *at,
		      enum next *next)
{
	size_t hs = has_prefix(arg, len, "--header=")	    ? 9
		    : has_prefix(arg, len, "-H") && len > 2 ? 2
							    : 0;

	if (is(arg, len, "-H") || (*fam == F_SSHPASS && is(arg, len, "-p")) ||
	    (*fam == F_CURL && (is(arg, len, "-u") || is(arg, len, "-U"))) ||
	    (*fam == F_OPENSSL && is(arg, len, "-k"))) {
		*next = arg[1] == 'H'			 ? N_HEADER
			: arg[1] == 'p' || arg[1] == 'k' ? N_SECRET
							 : N_USERPASS;
		if (*fam == F_SSHPASS) /* the command it runs has its own -p */
			*fam = F_NONE;
		append(dst, at, arg, len);
		return 1;
	}
	if (is(arg, len, "--header")) {
		*next = N_HEADER;
		append(dst, at, arg, len);
		return 1;
	}
	if (*fam == F_CURL && (is(arg, len, "--user") || is(arg, len, "--proxy-user"))) {
		*next = N_USERPASS;
		append(dst, at, arg, len);
		return 1;
	}
	if (hs && header_secret(arg + hs, len - hs))
		return mask_from(dst, at, arg, hs + header_secret(arg + hs, len - hs));
	if (header_secret(arg, len))
		return mask_from(dst, at, arg, header_secret(arg, len));
	if (has_prefix(arg, len, "pass:") && len > 5) /* openssl's -passin/-passout/-pass */
		return mask_from(dst, at, arg, 5);
	if ((*fam == F_MYSQL || *fam == F_SSHPASS) && len > 2 && arg[0] == '-' && arg[1] == 'p') {
		if (*fam == F_SSHPASS)
			*fam = F_NONE;
		return mask_from(dst, at, arg, 2);
	}
	if (*fam == F_CURL && len > 2 && arg[0] == '-' && (arg[1] == 'u' || arg[1] == 'U')) {
		size_t from = userpass_secret(arg + 2, len - 2);

		if (!mask_from(dst, at, arg, from ? from + 2 : 0))
			append(dst, at, arg, len);
		return 1;
	}
	return 0;
}

/* The argument after an option that takes a secret; returns 0 when it is to be read as any
 * other argument (a URL given to -u is a URL). */
static int after_option(enum next next, const char *arg, size_t len, char *dst, size_t *at)
{
	size_t from = next == N_HEADER	   ? header_secret(arg, len)
		      : next == N_USERPASS ? userpass_secret(arg, len)
					   : 0;

	if (next == N_USERPASS && memmem(arg, len, "://", 3))
		return 0;
	if (next == N_SECRET)
		append_mask(dst, at);
	else if (!mask_from(dst, at, arg, from))
		append(dst, at, arg, len);
	return 1;
}

int argv_redact(const char *argv, size_t len, char **out, size_t *outlen)
{
	size_t at = 0, pos = 0, from, to;
	enum family fam = F_NONE, f;
	enum next next = N_PLAIN;
	char *dst;

	/* masking grows an argument by at most two ARGV_MASK (URL secret and value) */
	dst = malloc(len + len / 2 * sizeof(ARGV_MASK) + sizeof(ARGV_MASK) + 1);
	if (!dst)
		return -ENOMEM;
	while (pos < len) {
		const char *arg = argv + pos;
		size_t alen = strnlen(arg, len - pos);
		const char *eq = secret_eq(arg, alen);
		size_t keep = eq ? (size_t)(eq - arg) + 1 : alen; /* shown, less URL secrets */
		enum next after = N_PLAIN;

		if (pos)
			dst[at++] = 0;
		if (next != N_PLAIN && alen && after_option(next, arg, alen, dst, &at)) {
			/* written */
		} else if (!tool_shape(&fam, arg, alen, dst, &at, &after)) {
			if ((f = family_of(arg, alen)) != F_NONE)
				fam = f;
			if (url_secret(arg, keep, &from, &to)) {
				append(dst, &at, arg, from);
				append_mask(dst, &at);
				append(dst, &at, arg + to, keep - to);
			} else {
				append(dst, &at, arg, keep);
			}
			if (eq)
				append_mask(dst, &at);
			if (!eq && is_secret_flag(arg, alen))
				after = N_SECRET;
		}
		next = after; /* an empty value is kept as it is, and ends the option */
		pos += alen + 1;
	}
	dst[at] = 0;
	*out = dst;
	*outlen = at;
	return 0;
}
