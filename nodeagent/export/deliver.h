/* One POST of a request body to a collector with libcurl, bounded every way a backend could
 * make it cost: connect and total timeouts, no redirect followed, http and https only, at
 * most DELIVER_REPLY_MAX bytes of the reply read (the rest abandoned), no reply decompressed,
 * and a stop flag checked while it waits. Called from the export thread only. */
#ifndef TRACER_EXPORT_DELIVER_H
#define TRACER_EXPORT_DELIVER_H

#include <stddef.h>
#include <stdint.h>

#include "export_config.h"

#define DELIVER_REPLY_MAX (64 * 1024)
#define DELIVER_CONNECT_MAX_MS 5000 /* connecting takes no longer, whatever OtlpTimeout */

struct deliver;

struct deliver_result {
	long http;	     /* the reply's status; 0: none came */
	char error[512];     /* why no reply came (a TLS failure names the files), or "" */
	int has_retry_after; /* the reply said when to come back */
	uint32_t retry_after_ms;
	const char *body; /* the reply's first DELIVER_REPLY_MAX bytes (the deliver's) */
	size_t body_len;
	int body_cut; /* the reply was longer: not read further */
};

/* A connection to t's collector (kept alive between posts). stop: set by another thread to
 * abandon a post at once. 0 or -errno (said). */
int deliver_new(struct deliver **out, const struct export_target *t, const volatile int *stop);
void deliver_free(struct deliver *d);
/* POST body (of t's format, gzip-compressed when t says so) to t's URL: 0 with *res filled
 * (whatever the status), or -ENOMEM. */
int deliver_post(struct deliver *d, const char *body, size_t len, struct deliver_result *res);

#endif
