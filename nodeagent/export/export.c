/* The exporter as the loop sees it: start, stop, the floor for pruning and the numbers for
 * status (export.h). The thread's side is export_run.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <curl/curl.h>

#include "clock.h"
#include "cursor.h"
#include "export_internal.h"
#include "metrics.h"
#include "otlp_settings.h"
#include "log.h"
#include "slurm_conf.h"
#include "version.h"

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* The Slurm cluster the node is part of: ClusterName of tracer.conf, else of slurm.conf (read
 * once, at the start: what a unit's registration says is the job's word, not the node's).
 * Left empty, and the attribute out, when neither says it. */
static void find_cluster(struct exporter *e, const struct tracer_config *cfg)
{
	int r;

	if (cfg->cluster_name[0]) {
		snprintf(e->cluster, sizeof(e->cluster), "%s", cfg->cluster_name);
		return;
	}
	r = slurm_conf_cluster_read(e->cluster, sizeof(e->cluster));
	if (r < 0) {
		e->cluster[0] = 0;
		log_info(
			"export: no Slurm cluster name for the resource (ClusterName of slurm.conf:"
			" %s); set ClusterName in tracer.conf",
			strerror(-r));
	}
}

/* service.name, service.version, host.name, the node tracerd serves and its cluster */
static void set_resource(struct exporter *e)
{
	static const char *const keys[EXPORT_RESOURCE_ATTRS] = { "service.name", "service.version",
								 "host.name", "slurm.node.name",
								 "slurm.cluster" };
	const char *values[EXPORT_RESOURCE_ATTRS] = { "tracer", TRACER_VERSION, e->host, e->node,
						      e->cluster };
	int n = 0;

	for (int i = 0; i < EXPORT_RESOURCE_ATTRS; i++)
		if (values[i][0])
			e->res_attrs[n++] = (struct otlp_attr){ .key = keys[i],
								.type = OTLP_STR,
								.s = values[i] };
	e->res.attrs = e->res_attrs;
	e->res.nattrs = n;
}

static int load_cursors(struct exporter *e, int64_t head)
{
	int64_t seq[EXPORT_SIGNALS] = { 0 };
	char dir[PATH_MAX], url[EXPORT_SIGNALS][CURSOR_URL_MAX];
	int r, begun = 0;

	snprintf(dir, sizeof(dir), "%s", e->store_path);
	if ((size_t)snprintf(e->cursor_path, sizeof(e->cursor_path), "%s/" CURSOR_FILE,
			     dirname(dir)) >= sizeof(e->cursor_path))
		return -ENAMETOOLONG;
	r = cursor_load(e->cursor_path, seq, url);
	if (r < 0 && r != -ENOENT) /* at least once: from the start, rather than nothing */
		log_warn("export: %s unusable: everything the store holds will be sent again",
			 e->cursor_path);
	/* A collector that was never delivered to takes what is recorded from now on, not the
	 * store's history: it begins at head, the store's latest record before the loop runs. */
	for (int sig = 0; sig < EXPORT_SIGNALS; sig++)
		otlp_url_shown(e->set.sig[sig].url, e->cursor_url[sig], sizeof(e->cursor_url[sig]));
	for (int sig = 0; sig < EXPORT_SIGNALS; sig++) {
		int moved = r == 0 && url[sig][0] && strcmp(url[sig], e->cursor_url[sig]);

		begun |= r == -ENOENT || moved;
		e->st[sig].cursor = r == -ENOENT || moved ? head : seq[sig];
		if ((r == -ENOENT || moved) && e->set.sig[sig].url[0])
			log_info("export: %s to %s begin with the records written from now on"
				 " (the store's export sequence is at %" PRId64 ")%s%s",
				 export_signal_names[sig], e->cursor_url[sig], head,
				 moved ? "; delivered before to " : "", moved ? url[sig] : "");
	}
	/* where it begins is kept at once: a restart before the first delivery goes on from it */
	if (begun) {
		const char *urls[EXPORT_SIGNALS];

		for (int sig = 0; sig < EXPORT_SIGNALS; sig++) {
			seq[sig] = e->st[sig].cursor;
			urls[sig] = e->cursor_url[sig];
		}
		cursor_save(e->cursor_path, seq, urls);
	}
	return 0;
}

/* A file that TLS will need, named by key: a readable regular file now, or refused at start
 * with its path (libcurl says only "Problem with the SSL CA cert (path? access rights?)", and
 * only at the first delivery) */
static int check_file(const char *path, const char *key)
{
	struct stat st;
	int fd, err = 0;

	if (!path[0])
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	if (fd >= 0)
		close(fd);
	if (err)
		log_error("export: %s (or its OTEL_EXPORTER_OTLP_* variable) %s: %s", key, path,
			  err == -EINVAL ? "not a regular file" : strerror(-err));
	return err;
}

static int check_files(const struct export_settings *set)
{
	int r;

	for (int sig = 0; sig < EXPORT_TARGETS; sig++) {
		const struct export_target *t = &set->sig[sig];

		if (!t->url[0])
			continue;
		if ((r = check_file(t->ca_file, "OtlpCertificate")) ||
		    (r = check_file(t->cert_file, "OtlpClientCertificate")) ||
		    (r = check_file(t->key_file, "OtlpClientKey")))
			return r;
	}
	return 0;
}

void exporter_check_conf(const char *path, const struct tracer_config *cfg)
{
	struct stat st;

	if (!export_conf_has_secret(cfg) || stat(path, &st) < 0 || !(st.st_mode & S_IROTH))
		return;
	log_warn("export: %s is readable by every user and holds %s: put credentials in "
		 "tracerd's environment instead (OTEL_EXPORTER_OTLP_HEADERS or the endpoint, in a "
		 "root-only EnvironmentFile: see tracer.conf(5))",
		 path, cfg->otlp_headers[0] ? "OtlpHeaders" : "an OtlpEndpoint with credentials");
}

static void exporter_free(struct exporter *e)
{
	metrics_box_free(e->metrics);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->wake);
	free(e);
}

int exporter_start(struct exporter **out, const struct tracer_config *cfg, const char *node,
		   const char *store_path, int64_t head)
{
	struct export_settings set;
	struct exporter *e;
	pthread_condattr_t ca;
	char err[512], url[OTLP_URL_MAX];
	int r;

	*out = NULL;
	if (export_settings_resolve(cfg, env_get, &set, err, sizeof(err))) {
		log_error("export: %s", err);
		return -EINVAL;
	}
	if (!export_settings_on(&set))
		return 0;
	if (check_files(&set))
		return -EINVAL;
	if (!(e = calloc(1, sizeof(*e))))
		return -ENOMEM;
	e->set = set;
	e->head = -1;
	snprintf(e->store_path, sizeof(e->store_path), "%s", store_path);
	snprintf(e->node, sizeof(e->node), "%s", node);
	if (gethostname(e->host, sizeof(e->host) - 1) < 0)
		snprintf(e->host, sizeof(e->host), "%s", node);
	find_cluster(e, cfg);
	set_resource(e);
	pthread_mutex_init(&e->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (set.sig[EXPORT_METRICS].url[0] && (r = metrics_box_new(&e->metrics)) < 0) {
		exporter_free(e);
		return r;
	}
	if ((r = load_cursors(e, head)) < 0) {
		log_error("export: cannot read the cursors: %s", strerror(-r));
		exporter_free(e);
		return r;
	}
	/* before any thread: libcurl's global state is set up once */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_error("export: libcurl cannot start");
		exporter_free(e);
		return -EIO;
	}
	if ((r = pthread_create(&e->thread, NULL, export_run, e))) {
		log_error("export: cannot start its thread: %s", strerror(r));
		curl_global_cleanup();
		exporter_free(e);
		return -r;
	}
	pthread_setname_np(e->thread, "tracerd-export"); /* ps -L, top -H, perf tell it apart */
	for (int sig = 0; sig < EXPORT_TARGETS; sig++) {
		if (!set.sig[sig].url[0])
			continue;
		otlp_url_shown(set.sig[sig].url, url, sizeof(url));
		if (sig == EXPORT_METRICS)
			log_info("export: metrics to %s (%s%s), every %u ms", url,
				 set.sig[sig].format == OTLP_JSON ? "http/json" : "http/protobuf",
				 set.sig[sig].gzip ? ", gzip" : "", cfg->otlp_metrics_interval_ms);
		else
			log_info("export: %s to %s (%s%s), from store record %" PRId64 " on",
				 export_signal_names[sig], url,
				 set.sig[sig].format == OTLP_JSON ? "http/json" : "http/protobuf",
				 set.sig[sig].gzip ? ", gzip" : "", e->st[sig].cursor);
	}
	*out = e;
	return 0;
}

void exporter_stop(struct exporter *e)
{
	struct timespec until;
	int r;

	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	__atomic_store_n(&e->stop, 1, __ATOMIC_SEQ_CST);
	pthread_cond_signal(&e->wake);
	pthread_mutex_unlock(&e->lock);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += EXPORTER_STOP_MS / 1000;
	until.tv_nsec += (EXPORTER_STOP_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	r = pthread_timedjoin_np(e->thread, NULL, &until);
	if (r) {
		/* still in a call that does not see the stop: the exit ends it */
		log_warn("export: its thread did not stop within %d ms (%s): left to the exit",
			 EXPORTER_STOP_MS, strerror(r));
		return;
	}
	curl_global_cleanup();
	exporter_free(e);
}

void exporter_reload(struct exporter *e, const struct tracer_config *cfg)
{
	struct export_settings set;
	char err[512];

	if (export_settings_resolve(cfg, env_get, &set, err, sizeof(err))) {
		log_warn("export: %s (the settings in force stay)", err);
		return;
	}
	if (e ? memcmp(&set, &e->set, sizeof(set)) != 0 : export_settings_on(&set))
		log_warn("export: Otlp* settings change at restart only");
}

int exporter_metrics_on(const struct exporter *e)
{
	return e && e->metrics;
}

void exporter_put_metrics(struct exporter *e, struct metrics_snapshot *s)
{
	if (!exporter_metrics_on(e)) {
		metrics_snapshot_free(s);
		return;
	}
	metrics_box_put(e->metrics, s);
	pthread_mutex_lock(&e->lock); /* the thread sends it now, not at its next look */
	pthread_cond_signal(&e->wake);
	pthread_mutex_unlock(&e->lock);
}

void exporter_set_head(struct exporter *e, int64_t head)
{
	if (e)
		__atomic_store_n(&e->head, head, __ATOMIC_RELAXED);
}

int64_t exporter_floor(struct exporter *e)
{
	int64_t floor = -1;

	if (!e)
		return -1;
	pthread_mutex_lock(&e->lock);
	for (int sig = 0; sig < EXPORT_SIGNALS; sig++)
		if (e->set.sig[sig].url[0] && (floor < 0 || e->st[sig].cursor < floor))
			floor = e->st[sig].cursor;
	pthread_mutex_unlock(&e->lock);
	return floor;
}

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static struct json_object *signal_json(const struct exporter *e, int sig,
				       const struct export_signal_status *s)
{
	struct json_object *o = json_object_new_object();
	int64_t now = clock_mono_ms();
	char url[OTLP_URL_MAX];

	otlp_url_shown(e->set.sig[sig].url, url, sizeof(url));
	json_object_object_add(o, "signal", json_object_new_string(export_signal_names[sig]));
	json_object_object_add(o, "endpoint", json_object_new_string(url));
	add_int(o, "cursor", s->cursor);
	add_int(o, "behind", s->behind);
	add_int(o, "oldest_ns", (int64_t)s->oldest_ns);
	add_int(o, "last_success_ns", s->last_success_ns);
	json_object_object_add(o, "last_error", json_object_new_string(s->last_error));
	add_int(o, "last_error_ns", s->last_error_ns);
	add_int(o, "retry_in_ms", s->retry_at_ms > now ? s->retry_at_ms - now : 0);
	if (sig == EXPORT_METRICS)
		json_object_object_add(o, "nothing_to_send", json_object_new_boolean(s->idle));
	add_int(o, "sent", (int64_t)s->sent);
	add_int(o, "batches", (int64_t)s->batches);
	add_int(o, "retries", (int64_t)s->retries);
	add_int(o, "resent", (int64_t)s->resent);
	add_int(o, "refused", (int64_t)s->refused);
	add_int(o, "rejected", (int64_t)s->rejected);
	return o;
}

struct json_object *exporter_status_json(struct exporter *e)
{
	struct export_signal_status st[EXPORT_TARGETS];
	struct json_object *o = json_object_new_object(), *sigs;

	json_object_object_add(o, "enabled", json_object_new_boolean(e != NULL));
	if (!e)
		return o;
	pthread_mutex_lock(&e->lock);
	memcpy(st, e->st, sizeof(st));
	pthread_mutex_unlock(&e->lock);
	sigs = json_object_new_array();
	for (int sig = 0; sig < EXPORT_TARGETS; sig++)
		if (e->set.sig[sig].url[0])
			json_object_array_add(sigs, signal_json(e, sig, &st[sig]));
	json_object_object_add(o, "signals", sigs);
	return o;
}

size_t exporter_metrics(void *ctx, struct metrics_export *out, size_t max)
{
	struct exporter *e = ctx;
	struct export_signal_status st[EXPORT_TARGETS];
	size_t n = 0;

	pthread_mutex_lock(&e->lock);
	memcpy(st, e->st, sizeof(st));
	pthread_mutex_unlock(&e->lock);
	for (int sig = 0; sig < EXPORT_TARGETS && n < max; sig++) {
		if (!e->set.sig[sig].url[0])
			continue;
		out[n++] = (struct metrics_export){
			.signal = export_signal_names[sig],
			.backlog = st[sig].behind > 0 ? (uint64_t)st[sig].behind : 0,
			.oldest_unix_ns = (int64_t)st[sig].oldest_ns,
			.last_success_unix_ns = st[sig].last_success_ns,
			.failures = st[sig].retries + st[sig].refused,
		};
	}
	return n;
}
