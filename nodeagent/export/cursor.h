/* The export cursors: for each signal, the store's export sequence up to which a collector has
 * taken everything. Kept in a file of their own in the node's state directory, next to the
 * store, and not in the store's meta table: the event loop is the store's only writer and holds
 * its write transaction open for up to CommitInterval, so a second writer (the export thread)
 * would either wait on it or make the loop's commits wait, and neither may happen. A small file
 * is written whole (temporary file, fsync, rename), so that a crash or kill -9 leaves the old
 * cursors or the new ones, never a mix: at worst a batch is sent again, which the backend
 * takes as the same items (their ids are deterministic). */
#ifndef TRACER_EXPORT_CURSOR_H
#define TRACER_EXPORT_CURSOR_H

#include <stdint.h>

#include "otlp_settings.h"
#include "source.h"

#define CURSOR_FILE "export.cursor"

/* A cursor belongs to the endpoint it was delivered to: each signal's line names it, as shown
 * (credentials and query masked, as tracerctl status shows it), and a
 * collector of another address starts from the records written from then on (export.c). */
#define CURSOR_URL_MAX OTLP_URL_MAX

/* The cursors in path into seq, and their endpoints into url (empty: not named): 0, -ENOENT
 * (no file: nothing was delivered, seq all 0), or -EINVAL for a file that does not read as one
 * (seq untouched, said in the log). */
int cursor_load(const char *path, int64_t seq[EXPORT_SIGNALS],
		char url[EXPORT_SIGNALS][CURSOR_URL_MAX]);
/* Write them: 0 or -errno (said). */
int cursor_save(const char *path, const int64_t seq[EXPORT_SIGNALS],
		const char *const url[EXPORT_SIGNALS]);

#endif
