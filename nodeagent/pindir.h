/* PinDir/NODE, where tracerd pins what outlives it (the collector's programs' links, its maps
 * and ring, the SPANK plugin's registry): one place for the rules a path must pass before
 * anything is pinned there or taken from it. */
#ifndef TRACER_PINDIR_H
#define TRACER_PINDIR_H

#include <stddef.h>

#include "config.h"

/* Make PinDir and PinDir/NODE (the latter into dir) root's own directories, 0700, the second
 * on a BPF filesystem (mounted at /sys/fs/bpf when it is not and PinDir is under it); one that
 * is not root's, or not a directory (a symbolic link), is refused: nothing a user could have
 * planted is used. On failure, -errno and why (for the log and status). */
int pindir_open(const struct tracer_config *cfg, const char *node, char *dir, size_t len, char *why,
		size_t whylen);
/* Remove PinDir/NODE, then PinDir, each if empty. */
void pindir_remove(const struct tracer_config *cfg, const char *node);

#endif
