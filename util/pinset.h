/* A node's pin set on bpffs (PinDir/NODE: tracerd's links, maps and ring), removed: what
 * tracerd does at `tracerctl shutdown --unpin`, and what tracerctl does when no tracerd runs. */
#ifndef TRACER_PINSET_H
#define TRACER_PINSET_H

#define PINSET_RETIRED "retired" /* an old set of another layout, kept aside during an upgrade */

/* Every pin in dir goes (only those whose name begins with prefix, when given); a link's
 * program is detached when its last pin and fd are gone. */
void pinset_clear_dir(const char *dir, const char *prefix);
/* The whole set at dir, its retired set too, and dir itself: 0, or -errno (-ENOENT: none). */
int pinset_remove(const char *dir);

#endif
