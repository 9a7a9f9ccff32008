/* `tracerctl status`: the lines of what tracerd gives out, the OTLP export and the Prometheus
 * endpoint (status_export.h). Strings in the reply were
 * escaped once for printing (tracerctl.c's printable()). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "format.h"
#include "status_export.h"

/* "12:03:04 (5m ago)", or "never" */
static void when(char *out, size_t len, int64_t unix_ns)
{
	time_t t = (time_t)(unix_ns / 1000000000), now = time(NULL);
	char hms[16], ago[32];
	struct tm tm;

	if (unix_ns <= 0) {
		snprintf(out, len, "never");
		return;
	}
	strftime(hms, sizeof(hms), "%H:%M:%S", localtime_r(&t, &tm));
	fmt_elapsed(ago, sizeof(ago), now > t ? (int64_t)(now - t) : 0);
	snprintf(out, len, "%s (%s ago)", hms, ago);
}

static void print_signal(struct json_object *s)
{
	struct json_object *idle;
	int nothing = json_object_object_get_ex(s, "nothing_to_send", &idle) &&
		      json_object_get_boolean(idle);
	int64_t behind = reply_int(s, "behind", -1), oldest = reply_int(s, "oldest_ns", 0),
		retry = reply_int(s, "retry_in_ms", 0);
	char ok[64], err[64], age[64];

	when(ok, sizeof(ok), reply_int(s, "last_success_ns", 0));
	printf("    %-7s to %s\n", reply_str(s, "signal", "?"), reply_str(s, "endpoint", "?"));
	if (oldest > 0) {
		when(age, sizeof(age), oldest);
		printf("            backlog: ");
		if (behind >= 0)
			printf("%" PRId64 " store records, ", behind);
		printf("oldest written %s\n", age);
	} else {
		printf("            backlog: none\n");
	}
	if (nothing && reply_int(s, "last_success_ns", 0) <= 0)
		snprintf(ok, sizeof(ok), "none: nothing to send (no unit runs)");
	else if (nothing)
		snprintf(ok + strlen(ok), sizeof(ok) - strlen(ok), ", nothing to send now");
	printf("            last delivery %s; sent %" PRId64 " in %" PRId64
	       " requests, retries %" PRId64 " (%" PRId64 " items resent), refused %" PRId64
	       ", rejected %" PRId64 "\n",
	       ok, reply_int(s, "sent", 0), reply_int(s, "batches", 0), reply_int(s, "retries", 0),
	       reply_int(s, "resent", 0), reply_int(s, "refused", 0), reply_int(s, "rejected", 0));
	if (reply_int(s, "last_error_ns", 0) > 0) {
		when(err, sizeof(err), reply_int(s, "last_error_ns", 0));
		printf("            last error %s: %s\n", err, reply_str(s, "last_error", "?"));
	}
	if (retry > 0)
		printf("            next try in %" PRId64 ".%01" PRId64 " s\n", retry / 1000,
		       retry % 1000 / 100);
}

void print_export(struct json_object *reply)
{
	struct json_object *ex, *sigs, *en;
	size_t i;

	if (!json_object_object_get_ex(reply, "export", &ex))
		return;
	if (!json_object_object_get_ex(ex, "enabled", &en) || !json_object_get_boolean(en)) {
		printf("  export            off (no OtlpEndpoint)\n");
		return;
	}
	printf("  export            OTLP/HTTP");
	if (reply_int(ex, "dropped", 0) > 0)
		printf("; %" PRId64 " records pruned (StoreMaxSize) before they were exported",
		       reply_int(ex, "dropped", 0));
	printf("\n");
	if (!json_object_object_get_ex(ex, "signals", &sigs))
		return;
	for (i = 0; i < json_object_array_length(sigs); i++)
		print_signal(json_object_array_get_idx(sigs, i));
}

void print_metrics(struct json_object *reply)
{
	struct json_object *m, *on;
	int64_t retry;

	if (!json_object_object_get_ex(reply, "metrics", &m))
		return;
	if (!json_object_object_get_ex(m, "enabled", &on) || !json_object_get_boolean(on)) {
		printf("  prometheus        off (no MetricsListen)\n");
		return;
	}
	if (reply_int(m, "listening", 0)) {
		printf("  prometheus        listening on %s\n", reply_str(m, "listen", "?"));
		return;
	}
	retry = reply_int(m, "retry_in_ms", 0);
	printf("  prometheus        NOT listening on %s: %s (%" PRId64 " tries); next try in "
	       "%" PRId64 " s\n",
	       reply_str(m, "listen", "?"), reply_str(m, "error", "?"), reply_int(m, "tries", 0),
	       (retry + 999) / 1000);
}
