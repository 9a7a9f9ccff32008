/* Subordinate uid ranges, read from /etc/subuid (subuid.h). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "readfile.h"
#include "subuid.h"
#include "trust.h"

#define CHECK_MS 1000 /* how often the file is looked at for a change */
#define OWNER_MAX 256 /* a user name, or a uid in digits */

/* A whole decimal number of 32 bits in [s, s + len) */
static int number(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 10)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "owner:start:count" (owner a user name or a uid) at line (len bytes, in text that may be
 * written); the name is ended in place and looked up later. -EINVAL when malformed. */
static int parse_line(char *text, char *line, size_t len, struct subuid_range *r)
{
	char *c1 = memchr(line, ':', len), *c2;
	uint64_t start, count, id;

	if (!c1 || !(c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line))))
		return -EINVAL;
	if (number(c1 + 1, (size_t)(c2 - c1 - 1), &start) ||
	    number(c2 + 1, len - (size_t)(c2 + 1 - line), &count) || !count ||
	    start + count > (uint64_t)UINT32_MAX + 1 || c1 == line ||
	    (size_t)(c1 - line) >= OWNER_MAX || memchr(line, 0, (size_t)(c1 - line)))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if (number(line, (size_t)(c1 - line), &id) == 0) {
		r->owner = (uid_t)id;
		r->looked = 1;
	}
	*c1 = 0;
	r->name = (uint32_t)(line - text);
	r->start = (uint32_t)start;
	r->count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct subuid_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sort the n ranges and make them disjoint: the uids two share stay with the one that starts
 * first (the earlier line's when they start together). Returns how many remain; *cut counts
 * the ranges cut or left out. */
static size_t disjoint(struct subuid_range *r, size_t n, unsigned *cut)
{
	uint64_t end = 0; /* past the last uid kept */
	size_t k = 0;

	qsort(r, n, sizeof(*r), by_start);
	for (size_t i = 0; i < n; i++) {
		uint64_t s = r[i].start, e = s + r[i].count;

		if (k && s < end) {
			(*cut)++;
			if (e <= end)
				continue;
			r[i].start = (uint32_t)end;
			r[i].count = (uint32_t)(e - end);
		}
		r[k++] = r[i];
		end = (uint64_t)r[k - 1].start + r[k - 1].count;
	}
	return k;
}

/* Read the ranges of text (len bytes, owners' names ended in it); *bad counts the lines left
 * out. */
static int parse(char *text, size_t len, struct subuid_range **out, size_t *n, unsigned *bad)
{
	struct subuid_range *r = NULL, one;
	size_t cap = 0;
	char *p, *end = text + len, *eol;

	*n = 0;
	*bad = 0;
	for (p = text; p < end; p = eol + 1) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l;

		eol = nl ? nl : end;
		l = (size_t)(eol - p);
		if (l && p[l - 1] == '\r')
			l--;
		if (l && p[0] != '#') {
			if (*n == SUBUID_RANGES_MAX || parse_line(text, p, l, &one) < 0) {
				(*bad)++;
			} else {
				if (*n == cap) {
					struct subuid_range *nr =
						realloc(r, (cap = cap ? 2 * cap : 64) * sizeof(*r));

					if (!nr) {
						free(r);
						return -ENOMEM;
					}
					r = nr;
				}
				one.line = (uint32_t)*n;
				r[(*n)++] = one;
			}
		}
	}
	*out = r;
	return 0;
}

/* Read the file into *text: only one root alone may have written, in a directory that only
 * root changes, as every one above it (trust.h); *st is the file read. */
static int read_trusted(const char *path, char **text, size_t *len, struct stat *st, char *err,
			size_t errlen)
{
	char real[PATH_MAX];
	int dfd, rc;

	if (!realpath(path, real)) {
		rc = -errno;
		snprintf(err, errlen, "%.400s: %s", path, strerror(errno));
		return rc;
	}
	if ((rc = trust_parent("file", path, real, &dfd, err, errlen)) < 0)
		return rc;
	/* the file opened is the one checked: no link followed from that directory on */
	rc = readfile_at(dfd, strrchr(real, '/') + 1, SUBUID_FILE_MAX, READFILE_NOFOLLOW, st, text,
			 len, err, errlen);
	close(dfd);
	if (rc == 0 && (st->st_uid != 0 || (st->st_mode & 022))) {
		snprintf(err, errlen, "%.400s: not root's, or writable by others: not read", path);
		free(*text);
		*text = NULL;
		rc = -EPERM;
	}
	return rc;
}

static void load(struct subuids *s, const struct stat *seen)
{
	struct subuid_range *r = NULL;
	char *text = NULL, err[512];
	size_t len = 0, n = 0;
	unsigned bad = 0, cut = 0;
	struct stat st = *seen;
	int rc;

	/* whoever may write the file could charge their connections to another user */
	rc = read_trusted(s->path, &text, &len, &st, err, sizeof(err));
	if (rc == 0 && (rc = parse(text, len, &r, &n, &bad)) == 0)
		n = disjoint(r, n, &cut);
	if (rc < 0 || !S_ISREG(st.st_mode))
		st = *seen; /* not read: the version looked at is the one not read again */
	s->dev = st.st_dev; /* this version of the file is not read again */
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	s->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	s->missing = 0;
	if (rc < 0) {
		free(text);
		/* the ranges read before stay: a namespace set up from them still exists */
		log_warn("subordinate uids: %s; the %zu ranges read before stay in force",
			 rc == -ENOMEM ? "out of memory" : err, s->n);
		return;
	}
	free(s->r);
	free(s->text);
	s->r = r;
	s->n = n;
	s->text = text;
	s->gen++;
	s->looked_below = 0;
	log_info("subordinate uids: %zu ranges from %s, counted as their owners'", n, s->path);
	if (bad)
		log_warn("subordinate uids: %u lines of %s left out (malformed, or beyond %u "
			 "ranges)",
			 bad, s->path, SUBUID_RANGES_MAX);
	if (cut)
		log_warn("subordinate uids: %u ranges of %s overlap one that starts before: the "
			 "uids they share count as that one's owner's",
			 cut, s->path);
}

/* Read the file again when it changed since it was last read. */
static void refresh(struct subuids *s)
{
	struct stat st;

	s->checked_ms = (int64_t)(clock_boot_ns() / 1000000);
	if (stat(s->path, &st) < 0) {
		/* as for a bad file, ranges read before stay: namespaces made from them may */
		if (s->missing != 1)
			log_info("subordinate uids: %s: %m (%zu ranges read before stay)", s->path,
				 s->n);
		s->missing = 1;
		return;
	}
	if (!s->missing && st.st_dev == s->dev && st.st_ino == s->ino && st.st_size == s->size &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec == s->mtime_ns &&
	    (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec == s->ctime_ns)
		return;
	load(s, &st);
}

void subuids_init(struct subuids *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->missing = -1; /* neither read nor said missing yet */
	refresh(s);
}

void subuids_fini(struct subuids *s)
{
	free(s->r);
	free(s->text);
	s->r = NULL;
	s->text = NULL;
	s->n = 0;
}

/* The owner of r, by its name: once per range until the file changes, whatever the answer. */
static void look_up(struct subuids *s, struct subuid_range *r)
{
	struct passwd *pw = getpwnam(s->text + r->name);

	r->looked = pw ? 1 : -1;
	if (pw)
		r->owner = pw->pw_uid;
	else
		log_warn("subordinate uids: %s: no user '%s': its range %u-%u counts as its own "
			 "uids",
			 s->path, s->text + r->name, r->start, r->start + (r->count - 1));
	s->gen++;
}

uid_t subuids_owner(struct subuids *s, uid_t uid)
{
	size_t lo = 0, hi;
	struct subuid_range *r;

	if ((int64_t)(clock_boot_ns() / 1000000) - s->checked_ms >= CHECK_MS)
		refresh(s);
	/* the last range that starts at or before uid: the ranges are disjoint */
	for (hi = s->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].start <= uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return uid;
	r = &s->r[lo - 1];
	if ((uint64_t)uid >= (uint64_t)r->start + r->count)
		return uid;
	if (!r->looked)
		look_up(s, r);
	return r->looked > 0 ? r->owner : uid;
}

uint64_t subuids_update(struct subuids *s, unsigned lookups)
{
	size_t i;

	if ((int64_t)(clock_boot_ns() / 1000000) - s->checked_ms >= CHECK_MS)
		refresh(s);
	for (i = s->looked_below; i < s->n && lookups; i++)
		if (!s->r[i].looked) {
			look_up(s, &s->r[i]);
			lookups--;
		}
	s->looked_below = i;
	return s->gen;
}
