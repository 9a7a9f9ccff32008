/* The writing connection's settings: store.c's, and bench/storerows.c's, which measures a row
 * as tracerd stores it. Depends on nothing but the preprocessor. */
#ifndef TRACER_STORE_PRAGMAS_H
#define TRACER_STORE_PRAGMAS_H

#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x) /* a number's #define as SQL text */

/* The writing connection's page cache: the indexes' pages that each insert walks stay in it,
 * instead of being read again from a store of gigabytes (on a busy disk, each such read
 * waited for the disk, on the loop). Held only as the store grows to need it. No larger: a
 * commit whose b-tree balance moved a page through its temporary number past the file's end
 * ends by scanning the whole cache (SQLite's truncation of it to the file's size), so each
 * cached page costs every such commit; 32 MiB made the committing thread 1.1-1.6x slower
 * (bench/agent-replay, stores of 20 000 to 1 000 000 processes). */
#define STORE_CACHE_KIB 8192
/* What the log file is truncated back to once checkpointed (journal_size_limit) */
#define STORE_WAL_LIMIT_BYTES 2097152

/* The log is truncated back to STORE_WAL_LIMIT_BYTES after a checkpoint, so that a burst of
 * writes does not leave the file large; and pruning does not zero every page it frees (as
 * builds with SQLITE_SECURE_DELETE would): that would write all it deletes through the log
 * again. Freed pages stay in the file, which is the daemon's alone, until they are reused. */
#define STORE_PRAGMA_CACHE "PRAGMA cache_size=-" STORE_STR(STORE_CACHE_KIB) ";"
#define STORE_PRAGMA_LOG_LIMIT "PRAGMA journal_size_limit=" STORE_STR(STORE_WAL_LIMIT_BYTES) ";"
#define STORE_PRAGMAS                                                              \
	"PRAGMA secure_delete=FAST;" STORE_PRAGMA_CACHE "PRAGMA journal_mode=WAL;" \
	"PRAGMA synchronous=NORMAL;" STORE_PRAGMA_LOG_LIMIT

#endif
