/* The collector's pin set, PinDir/NODE (pindir.h): what outlives tracerd, so that a restart,
 * an upgrade or a kill loses no process. The links keep the programs attached while no tracerd
 * runs; the maps keep the tracked processes' state, the counters and the ring, where events wait
 * and what does not fit is counted per unit (unit_lost) as when tracerd runs. A `layout` map
 * says which build's maps these are: a tracerd whose maps are laid out the same (and whose ring
 * is as large) takes the set over, another drains the old ring and starts a new set.
 *
 * A tracepoint's link cannot have its program replaced (the kernel's raw tracepoint and perf
 * links have no update): a program loaded again from the same build is the one attached already
 * (the same tag), and the pinned link is kept; one of another build is attached beside the old
 * one, which is detached right after.
 *
 * A set of another layout whose events read as ours is moved aside (RETIRED_DIR) with its
 * programs still attached: they go on tracking and filling their ring while this tracerd loads,
 * attaches its own and finds the running units again, so that no process falls in between.
 * Then collector_retire detaches them, records what their ring holds, adds what they counted
 * lost to the units' counts and removes the old set. Meanwhile both sets send the events of the
 * processes both track: tracerd ignores the repeats (finished.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector_internal.h"
#include "config.h"
#include "log.h"
#include "pin_layout.h"
#include "pinset.h"
#include "ring_reader.h"

#define LAYOUT_FILE "layout"
#define LINK_PREFIX "link_"
#define RETIRED_DIR PINSET_RETIRED /* an old set of another layout, until collector_retire */

/* The value of the one-entry `layout` map. Its own shape never changes. */
struct pin_layout {
	uint64_t maps;	     /* PIN_MAPS_LAYOUT of the build that made the maps */
	uint64_t events;     /* PIN_EVENTS_LAYOUT: whether its events read as ours */
	uint64_t ring_bytes; /* its ring's size */
	uint32_t pid;	     /* the tracerd that holds the set, or held it last */
	uint32_t stopped;    /* 1 once it stopped (SIGTERM), 0 while it runs or when it died */
};

#define MAP(name) offsetof(struct process_bpf, maps.name)
static const struct {
	const char *file;
	size_t map;
	enum bpf_map_type type; /* checked before the object is opened */
} pinned_maps[] = {
	{ "events", MAP(events), BPF_MAP_TYPE_RINGBUF },
	{ "task_marks", MAP(task_marks), BPF_MAP_TYPE_TASK_STORAGE },
	{ "procs", MAP(procs), BPF_MAP_TYPE_TASK_STORAGE },
	{ "exec_handover", MAP(exec_handover), BPF_MAP_TYPE_LRU_HASH },
	{ "tracked_cgroups", MAP(tracked_cgroups), BPF_MAP_TYPE_HASH },
	{ CONFIG_REGISTRY_FILE, MAP(task_registry), BPF_MAP_TYPE_TASK_STORAGE },
	{ "stats", MAP(stats), BPF_MAP_TYPE_PERCPU_ARRAY },
	{ "unit_lost", MAP(unit_lost), BPF_MAP_TYPE_LRU_HASH },
	{ "bss", MAP(bss), BPF_MAP_TYPE_ARRAY }, /* the flags the programs and tracerd share */
	{ "shares", MAP(data_shares), BPF_MAP_TYPE_ARRAY },
	{ "subuid_ranges", MAP(subuid_ranges), BPF_MAP_TYPE_ARRAY },
};
#undef MAP
#define NPINNED (sizeof(pinned_maps) / sizeof(*pinned_maps))
_Static_assert(NPINNED == PINNED_MAPS, "PINNED_MAPS counts pinned_maps");

static struct bpf_map *pinned_map(const struct collector *c, size_t i)
{
	return *(struct bpf_map *const *)((const char *)c->skel + pinned_maps[i].map);
}

static int pin_path(const struct collector *c, const char *file, char *out, size_t len)
{
	return (size_t)snprintf(out, len, "%s/%s", c->pin_dir, file) >= len ? -ENAMETOOLONG : 0;
}

/* The set's layout map, its path into path: the fd, or -errno */
static int layout_open(const struct collector *c, char *path, size_t len)
{
	int fd, err;

	if ((err = pin_path(c, LAYOUT_FILE, path, len)) < 0)
		return err;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

static int layout_read(const struct collector *c, struct pin_layout *out)
{
	char path[PATH_MAX];
	uint32_t zero = 0;
	int fd, err;

	if ((fd = layout_open(c, path, sizeof(path))) < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &zero, out) < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* The set's layout record, written whole (stopped: see struct pin_layout). */
static int layout_write(struct collector *c, uint32_t stopped)
{
	struct pin_layout l = { PIN_MAPS_LAYOUT, PIN_EVENTS_LAYOUT, c->ring_bytes,
				(uint32_t)getpid(), stopped };
	char path[PATH_MAX];
	uint32_t zero = 0;
	int fd, err;

	fd = layout_open(c, path, sizeof(path));
	if (fd == -ENOENT) {
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "tracer_layout", sizeof(zero), sizeof(l), 1,
				    NULL);
		if (fd < 0)
			return -errno;
		if (bpf_obj_pin(fd, path) < 0) {
			err = -errno;
			close(fd);
			return err;
		}
	}
	if (fd < 0)
		return fd;
	err = bpf_map_update_elem(fd, &zero, &l, BPF_ANY) < 0 ? -errno : 0;
	close(fd);
	return err;
}

static int has_pins(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int found = 0;

	while (d && !found && (e = readdir(d)))
		found = e->d_type != DT_DIR;
	if (d)
		closedir(d);
	return found;
}

static void clear_set(const struct collector *c)
{
	pinset_clear_dir(c->pin_dir, NULL);
}

/* An old set moved aside and never retired (tracerd stopped in between): its programs go. */
static void clear_retired(const struct collector *c)
{
	char dir[PATH_MAX];

	if (pin_path(c, RETIRED_DIR, dir, sizeof(dir)) < 0 || access(dir, F_OK) != 0)
		return;
	pinset_clear_dir(dir, NULL);
	if (rmdir(dir) == 0)
		log_warn(
			"pin set %s: an older set left aside by an upgrade that did not finish was "
			"removed; what its ring held is lost",
			c->pin_dir);
}

/* The set moved into RETIRED_DIR, its links and all: they stay attached. */
static int move_aside(struct collector *c)
{
	char dir[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int err = 0;

	if ((err = pin_path(c, RETIRED_DIR, dir, sizeof(dir))) < 0)
		return err;
	if (mkdir(dir, 0700) < 0)
		return -errno;
	if (!(d = opendir(c->pin_dir)))
		return -errno;
	while (!err && (e = readdir(d))) {
		if (e->d_type == DT_DIR)
			continue;
		if ((err = pin_path(c, e->d_name, from, sizeof(from))) == 0 &&
		    (size_t)snprintf(to, sizeof(to), "%s/%s", dir, e->d_name) >= sizeof(to))
			err = -ENAMETOOLONG;
		if (!err && rename(from, to) < 0)
			err = -errno;
	}
	closedir(d);
	if (err < 0) {
		log_warn("pin set %s: cannot move it aside (%s)", c->pin_dir, strerror(-err));
		pinset_clear_dir(dir, NULL);
		rmdir(dir);
	}
	return err;
}

static int count_event(void *ctx, const void *data, size_t size)
{
	(void)ctx, (void)data, (void)size;
	return 0;
}

/* What an old set's ring still holds: handed to tracerd when its events read as ours, else
 * counted (they are lost). Returns the count. */
static int drain_old_ring(struct collector *c, const char *dir, int events_ok)
{
	struct ring_reader *r = NULL;
	char path[PATH_MAX];
	int fd, n, total = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, pinned_maps[0].file) >=
		    sizeof(path) ||
	    (fd = bpf_obj_get(path)) < 0)
		return 0;
	if (ring_reader_open(&r, fd) == 0) {
		while ((n = ring_reader_read(r, events_ok ? c->fn : count_event, c->ctx)) > 0)
			total += n;
		ring_reader_close(r);
	}
	close(fd);
	return total;
}

/* Are all the maps pinned, and of the kinds ours are? Their fds into fds[]. */
static int open_maps(struct collector *c, int fds[NPINNED])
{
	char path[PATH_MAX];
	size_t i;
	int err = 0;

	for (i = 0; i < NPINNED; i++)
		fds[i] = -1;
	for (i = 0; i < NPINNED && !err; i++) {
		struct bpf_map_info info = {};
		uint32_t len = sizeof(info);

		if ((err = pin_path(c, pinned_maps[i].file, path, sizeof(path))) < 0)
			break;
		fds[i] = bpf_obj_get(path);
		if (fds[i] < 0 || bpf_obj_get_info_by_fd(fds[i], &info, &len) < 0)
			err = -errno;
		else if (info.type != pinned_maps[i].type)
			err = -EINVAL;
	}
	return err;
}

int pins_before_load(struct collector *c)
{
	struct pin_layout l;
	int err, n, fds[NPINNED];
	size_t i;

	if (!c->pin_dir[0])
		return 0;
	clear_retired(c);
	err = layout_read(c, &l);
	if (err == -ENOENT) {
		/* none, a set half made, or a build's before pinned programs (its registry alone):
		 * nothing to take over */
		if (has_pins(c->pin_dir))
			log_warn("pin set %s holds no layout (left by a build without pinned "
				 "programs, or half made): cleared, loaded afresh",
				 c->pin_dir);
		clear_set(c);
		return 0;
	}
	if (err < 0) {
		log_warn("pin set %s: its layout cannot be read (%s): cleared, loaded afresh",
			 c->pin_dir, strerror(-err));
		clear_set(c);
		return 0;
	}
	if (l.maps == PIN_MAPS_LAYOUT && l.ring_bytes == c->ring_bytes) {
		if ((err = open_maps(c, fds)) == 0) {
			for (i = 0; i < NPINNED; i++)
				c->reuse_fds[i] = fds[i];
			c->took_over = 1;
			log_info("pin set %s, left by tracerd pid %u (%s), taken over: its "
				 "programs stayed attached and its ring kept what they sent",
				 c->pin_dir, l.pid,
				 l.stopped ? "stopped" : "killed, or died without stopping");
			return 0;
		}
		for (i = 0; i < NPINNED; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		log_warn("pin set %s, left by tracerd pid %u: a map is missing or not ours (%s): "
			 "cleared, loaded afresh",
			 c->pin_dir, l.pid, strerror(-err));
		clear_set(c);
		return 0;
	}
	if (l.events == PIN_EVENTS_LAYOUT && move_aside(c) == 0) {
		c->retiring = 1;
		log_info("pin set %s, left by tracerd pid %u (%s), is of another build or "
			 "RingBufferSize (maps layout %016llx, ring %llu bytes; this tracerd's "
			 "%016llx, %llu): its programs stay attached beside this tracerd's until "
			 "the "
			 "running units are found again, then its ring is recorded and it is "
			 "removed",
			 c->pin_dir, l.pid,
			 l.stopped ? "stopped" : "killed, or died without stopping",
			 (unsigned long long)l.maps, (unsigned long long)l.ring_bytes,
			 (unsigned long long)PIN_MAPS_LAYOUT, (unsigned long long)c->ring_bytes);
		return 0;
	}
	n = drain_old_ring(c, c->pin_dir, l.events == PIN_EVENTS_LAYOUT);
	clear_set(c);
	log_warn("pin set %s, left by tracerd pid %u (%s), is of another build or RingBufferSize "
		 "(maps layout %016llx, ring %llu bytes; this tracerd's %016llx, %llu): its ring's "
		 "%d events %s, the set cleared and loaded afresh",
		 c->pin_dir, l.pid, l.stopped ? "stopped" : "killed, or died without stopping",
		 (unsigned long long)l.maps, (unsigned long long)l.ring_bytes,
		 (unsigned long long)PIN_MAPS_LAYOUT, (unsigned long long)c->ring_bytes, n,
		 l.events == PIN_EVENTS_LAYOUT ? "were recorded" : "read as another build's: lost");
	return 0;
}

int pins_reuse(struct collector *c)
{
	size_t i;
	int err;

	if (!c->took_over)
		return 0;
	for (i = 0; i < NPINNED; i++)
		if ((err = bpf_map__reuse_fd(pinned_map(c, i), c->reuse_fds[i])) < 0) {
			log_error("pin set %s: cannot take over its map %s: %s", c->pin_dir,
				  pinned_maps[i].file, strerror(-err));
			return err;
		}
	return 0;
}

void pins_reuse_done(struct collector *c)
{
	size_t i;

	for (i = 0; i < NPINNED; i++) {
		if (c->reuse_fds[i] >= 0)
			close(c->reuse_fds[i]); /* libbpf holds its own copy */
		c->reuse_fds[i] = -1;
	}
}

static int prog_tag(int prog_fd, uint8_t tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) < 0)
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

/* The program a pinned link runs is prog's very code? */
static int runs_same(struct bpf_link *link, const struct bpf_program *prog)
{
	struct bpf_link_info info = {};
	uint32_t len = sizeof(info);
	uint8_t a[BPF_TAG_SIZE], b[BPF_TAG_SIZE];
	int fd, same = 0;

	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len) < 0)
		return 0;
	fd = bpf_prog_get_fd_by_id(info.prog_id);
	if (fd < 0)
		return 0;
	same = !prog_tag(fd, a) && !prog_tag(bpf_program__fd(prog), b) && !memcmp(a, b, sizeof(a));
	close(fd);
	return same;
}

int pins_attach(struct collector *c, struct bpf_program *prog, struct bpf_link **out)
{
	struct bpf_link *old = NULL, *link;
	char path[PATH_MAX], file[128];
	int err;

	snprintf(file, sizeof(file), LINK_PREFIX "%s", bpf_program__name(prog));
	if (c->pin_dir[0] && (err = pin_path(c, file, path, sizeof(path))) < 0)
		return err;
	if (c->took_over && access(path, F_OK) == 0 && (old = bpf_link__open(path))) {
		if (runs_same(old, prog)) {
			*out = old;
			return 0;
		}
	}
	link = bpf_program__attach(prog);
	if (!link) {
		err = -errno;
		if (old)
			bpf_link__disconnect(old); /* the old program goes on */
		bpf_link__destroy(old);
		return err;
	}
	if (old) { /* detached now, the new one in its place */
		bpf_link__unpin(old);
		bpf_link__destroy(old);
		log_info("%s: the program of another build replaced", bpf_program__name(prog));
	}
	if (c->pin_dir[0] && (err = bpf_link__pin(link, path)) < 0) {
		bpf_link__destroy(link);
		return err;
	}
	*out = link;
	return 0;
}

void pins_detach(struct collector *c, struct bpf_program *prog)
{
	char path[PATH_MAX], file[128];

	snprintf(file, sizeof(file), LINK_PREFIX "%s", bpf_program__name(prog));
	if (c->pin_dir[0] && pin_path(c, file, path, sizeof(path)) == 0)
		unlink(path);
}

int pins_commit(struct collector *c)
{
	char path[PATH_MAX];
	size_t i;
	int err;

	if (!c->pin_dir[0])
		return 0;
	for (i = 0; i < NPINNED && !c->took_over; i++) {
		if ((err = pin_path(c, pinned_maps[i].file, path, sizeof(path))) < 0 ||
		    (err = bpf_map__pin(pinned_map(c, i), path)) < 0)
			goto fail;
	}
	if ((err = layout_write(c, 0)) < 0)
		goto fail;
	c->pinned = 1;
	return 0;
fail:
	log_warn("pin set %s: cannot pin (%s): nothing pinned, and what tracerd does not see "
		 "while it is away is not recorded",
		 c->pin_dir, strerror(-err));
	clear_set(c);
	c->pin_dir[0] = 0;
	return err;
}

void pins_stop(struct collector *c, int unpin)
{
	if (!c->pin_dir[0])
		return;
	if (unpin) {
		clear_set(c);
		if (c->pinned)
			log_info("pin set %s removed: tracer's programs are detached", c->pin_dir);
	} else if (c->pinned && layout_write(c, 1) == 0) {
		log_info("pin set %s kept: the programs stay attached until tracerd is back",
			 c->pin_dir);
	}
}

/* The old set's counts of events its ring could not hold, added to this set's, per unit. */
static unsigned merge_unit_lost(struct collector *c, const char *dir, uint64_t *events)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	uint64_t key, next, n, had;
	char path[PATH_MAX];
	unsigned units = 0;
	int fd, more;

	if ((size_t)snprintf(path, sizeof(path), "%s/unit_lost", dir) >= sizeof(path) ||
	    (fd = bpf_obj_get(path)) < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.key_size == sizeof(key) &&
	    info.value_size == sizeof(n)) {
		for (more = bpf_map_get_next_key(fd, NULL, &next) == 0; more;
		     more = bpf_map_get_next_key(fd, &key, &next) == 0) {
			key = next;
			if (bpf_map_lookup_elem(fd, &key, &n) < 0 || !n)
				continue;
			had = 0;
			bpf_map__lookup_elem(c->skel->maps.unit_lost, &key, sizeof(key), &had,
					     sizeof(had), 0);
			had += n;
			if (bpf_map__update_elem(c->skel->maps.unit_lost, &key, sizeof(key), &had,
						 sizeof(had), BPF_ANY) == 0) {
				*events += n;
				units++;
			}
		}
	}
	close(fd);
	return units;
}

int collector_retire(struct collector *c, void (*commit)(void *ctx), void *ctx)
{
	char dir[PATH_MAX];
	uint64_t lost = 0;
	unsigned units;
	int n;

	if (!c || !c->retiring)
		return 0;
	c->retiring = 0;
	if (pin_path(c, RETIRED_DIR, dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	pinset_clear_dir(dir, LINK_PREFIX); /* its programs detached: its ring is complete */
	n = drain_old_ring(c, dir, 1);
	units = merge_unit_lost(c, dir, &lost);
	commit(ctx); /* recorded before the ring goes */
	pinset_clear_dir(dir, NULL);
	rmdir(dir);
	log_info("pin set %s: the older set's programs detached; its ring's %d events recorded "
		 "(those this tracerd's programs also sent, once), %llu events it could not hold "
		 "counted lost to %u units; the older set removed",
		 c->pin_dir, n, (unsigned long long)lost, units);
	return n;
}
