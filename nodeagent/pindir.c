/* PinDir/NODE's trust rules: see pindir.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "pindir.h"

#define BPF_FS_MAGIC 0xcafe4a11
#define BPF_FS_ROOT "/sys/fs/bpf"

static int on_bpffs(const char *path)
{
	struct statfs f;

	return statfs(path, &f) == 0 && f.f_type == BPF_FS_MAGIC;
}

/* A directory of root's that only root may enter: made if missing, refused if another's. */
static int root_dir(const char *path)
{
	struct stat sb;

	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(path, &sb) < 0)
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	if (sb.st_uid != 0)
		return -EPERM;
	if ((sb.st_mode & 077) && chmod(path, 0700) < 0)
		return -errno;
	return 0;
}

int pindir_open(const struct tracer_config *cfg, const char *node, char *dir, size_t len, char *why,
		size_t whylen)
{
	char d[PATH_MAX];
	int err;

	if ((err = config_pin_path(cfg, node, NULL, d, sizeof(d))) < 0) {
		snprintf(why, whylen, "PinDir %s: %s", cfg->pin_dir, strerror(-err));
		return err;
	}
	/* systemd mounts it; a node without systemd, or a container, may not have */
	if (strncmp(cfg->pin_dir, BPF_FS_ROOT "/", sizeof(BPF_FS_ROOT)) == 0 &&
	    !on_bpffs(BPF_FS_ROOT) && mount("bpf", BPF_FS_ROOT, "bpf", 0, "mode=0700") < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot mount the BPF filesystem at %s: %s", BPF_FS_ROOT,
			 strerror(-err));
		return err;
	}
	if ((err = root_dir(cfg->pin_dir)) < 0) {
		snprintf(why, whylen, "PinDir %s: %s", cfg->pin_dir, strerror(-err));
		return err;
	}
	if ((err = root_dir(d)) < 0 || (!on_bpffs(d) && (err = -EXDEV))) {
		snprintf(why, whylen, "%s: %s", d,
			 err == -EXDEV ? "not on a BPF filesystem" : strerror(-err));
		return err;
	}
	if ((size_t)snprintf(dir, len, "%s", d) >= len)
		return -ENAMETOOLONG;
	return 0;
}

void pindir_remove(const struct tracer_config *cfg, const char *node)
{
	char d[PATH_MAX];

	if (config_pin_path(cfg, node, NULL, d, sizeof(d)) == 0)
		rmdir(d);
	rmdir(cfg->pin_dir);
}
