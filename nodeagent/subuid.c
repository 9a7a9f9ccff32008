/* Subordinate uid ranges, read from /etc/subuid (subuid.h). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "log.h"
#include "readfile.h"
#include "subuid.h"

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

/* "owner:start:count" (owner a user name or a uid); -EINVAL when malformed, -ENOENT for an
 * owner that no user has */
static int parse_line(const char *line, size_t len, struct subuid_range *r)
{
	const char *c1 = memchr(line, ':', len), *c2;
	char owner[OWNER_MAX];
	uint64_t start, count, id;
	struct passwd *pw;

	if (!c1 || !(c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line))))
		return -EINVAL;
	if (number(c1 + 1, (size_t)(c2 - c1 - 1), &start) ||
	    number(c2 + 1, len - (size_t)(c2 + 1 - line), &count) || !count ||
	    start + count > (uint64_t)UINT32_MAX + 1 || c1 == line ||
	    (size_t)(c1 - line) >= sizeof(owner))
		return -EINVAL;
	memcpy(owner, line, (size_t)(c1 - line));
	owner[c1 - line] = 0;
	if (number(owner, strlen(owner), &id) == 0) {
		r->owner = (uid_t)id;
	} else {
		/* read only when the file changes: a slow name service costs that once */
		if (!(pw = getpwnam(owner)))
			return -ENOENT;
		r->owner = pw->pw_uid;
	}
	r->start = (uint32_t)start;
	r->count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
	return 0;
}

/* Read the ranges of text (len bytes); *bad counts the lines left out. */
static int parse(const char *text, size_t len, struct subuid_range **out, size_t *n, unsigned *bad)
{
	struct subuid_range *r = NULL, one;
	size_t cap = 0;
	const char *p, *end = text + len, *eol;

	*n = 0;
	*bad = 0;
	for (p = text; p < end; p = eol + 1) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l;

		eol = nl ? nl : end;
		l = (size_t)(eol - p);
		if (l && p[l - 1] == '\r')
			l--;
		if (l && p[0] != '#') {
			if (parse_line(p, l, &one) < 0 || *n == SUBUID_RANGES_MAX) {
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
				r[(*n)++] = one;
			}
		}
	}
	*out = r;
	return 0;
}

static void load(struct subuids *s, const struct stat *st)
{
	struct subuid_range *r = NULL;
	char *text = NULL, err[512];
	size_t len = 0, n = 0;
	unsigned bad = 0;
	int rc;

	rc = readfile(s->path, SUBUID_FILE_MAX, 0, &text, &len, err, sizeof(err));
	/* whoever may write the file could charge their connections to another user */
	if (st->st_uid != 0 || (st->st_mode & 022)) {
		snprintf(err, sizeof(err), "%.400s: not root's, or writable by others: not read",
			 s->path);
		rc = -EPERM;
	}
	if (rc == 0)
		rc = parse(text, len, &r, &n, &bad);
	free(text);
	s->dev = st->st_dev; /* this version of the file is not read again */
	s->ino = st->st_ino;
	s->size = st->st_size;
	s->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	s->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
	s->missing = 0;
	if (rc < 0) {
		/* the ranges read before stay: a namespace set up from them still exists */
		log_warn("subordinate uids: %s; the %zu ranges read before stay in force",
			 rc == -ENOMEM ? "out of memory" : err, s->n);
		return;
	}
	free(s->r);
	s->r = r;
	s->n = n;
	log_info("subordinate uids: %zu ranges from %s, counted as their owners'", n, s->path);
	if (bad)
		log_warn("subordinate uids: %u lines of %s left out (malformed, an unknown user, "
			 "or beyond %u ranges)",
			 bad, s->path, SUBUID_RANGES_MAX);
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
	s->r = NULL;
	s->n = 0;
}

uid_t subuids_owner(struct subuids *s, uid_t uid)
{
	if ((int64_t)(clock_boot_ns() / 1000000) - s->checked_ms >= CHECK_MS)
		refresh(s);
	/* the first range that holds it: a file with overlapping ranges is the admin's to fix */
	for (size_t i = 0; i < s->n; i++)
		if (uid >= s->r[i].start && (uint64_t)uid < (uint64_t)s->r[i].start + s->r[i].count)
			return s->r[i].owner;
	return uid;
}
