/* Subordinate uids: the ranges /etc/subuid grants users (newuidmap maps them into a user
 * namespace, as rootless Podman and Apptainer set up). A process of such a namespace reaches
 * tracerd with a uid of its owner's range, so per-user limits count that uid as its owner's
 * (struct peer's owner): MaxClientsPerUser, MaxUnitsPerUser and UnitRatePerUser, and the
 * store's eviction and shares (a unit's owner_uid). A user namespace does not multiply a
 * user's share. */
#ifndef TRACER_SUBUID_H
#define TRACER_SUBUID_H

#include <stdint.h>
#include <sys/types.h>

/* The most ranges read (more are left out, said in the log) and the largest file read. */
#define SUBUID_RANGES_MAX 65536
#define SUBUID_FILE_MAX (4u << 20)

struct subuid_range {
	uint32_t start, count;
	uid_t owner;   /* when looked > 0 */
	uint32_t name; /* the owner's name: its offset in the file's text */
	uint32_t line; /* the range's place in the file */
	int8_t looked; /* 1: owner known (a uid, or its name looked up), -1: no such user, 0:
			* not looked up yet */
};

/* A name is looked up (getpwnam, on LDAP a network round trip) only when a uid of its range
 * connects, once per range until the file changes; the file itself is read when it changed,
 * without a lookup. */
struct subuids {
	char path[4096];
	/* sorted by start, none overlapping: where lines overlap, the uids they share are the
	 * range's that starts first (of two that start together, the earlier line's) */
	struct subuid_range *r;
	size_t n;
	char *text; /* the file as read: the owners' names, NUL-terminated in it */
	/* the file as last read: read again when it changes, looked at once a second at most */
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns, ctime_ns;
	int64_t checked_ms;
	int missing;	     /* the file is absent or unreadable (said once) */
	uint64_t gen;	     /* counts changes of the ranges or of their owners known */
	size_t looked_below; /* the ranges before this one are all looked up */
};

/* Set up for the file at path (read at once; an absent file means no ranges). The file is read
 * only when it is root's and not writable by group or others, in a directory that is root's and
 * not writable by group or others (the file's, after links), below directories that are root's
 * and not so writable unless sticky (trust_parent). */
void subuids_init(struct subuids *s, const char *path);
void subuids_fini(struct subuids *s);
/* Who uid counts as: the owner of the range that holds it, else uid itself. The file is read
 * again first when it changed. */
uid_t subuids_owner(struct subuids *s, uid_t uid);
/* Read the file again when it changed, and look up the owners' names of up to lookups ranges
 * not looked up yet (the lowest first): for those who need every range's owner before any of
 * its uids connects (the kernel side's shares, subuid_map.h). Returns gen. */
uint64_t subuids_update(struct subuids *s, unsigned lookups);

#endif
