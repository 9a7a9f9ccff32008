/* tracer.conf: the node daemon's and its clients' settings (key = value). */
#ifndef TRACER_CONFIG_H
#define TRACER_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "otlp_settings.h"

#define TRACER_CONF_DEFAULT "/etc/tracer/tracer.conf"
/* The variable that names the clients' tracer.conf in place of the default. */
#define TRACER_CONF_ENV "TRACER_CONF"
#define TRACER_TOOL_RULES_DEFAULT "/etc/tracer/tools.rules"
/* StallAfter's default, and the shortest idle window worth reporting when stalls are off */
#define STALL_AFTER_DEFAULT_MS (5 * 60 * 1000)

enum tracer_log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARNING, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

struct tracer_config {
	char node_name[64];	   /* NodeName: default empty = short hostname, -N overrides */
	char socket_dir[PATH_MAX]; /* SocketDir: /run/tracer */
	char state_dir[PATH_MAX];  /* StateDir: /var/lib/tracer */
	char pin_dir[PATH_MAX];	   /* PinDir: BPF objects pinned for the SPANK plugin (bpffs) */
	char slurm_user[64];	   /* SlurmUser: may register jobs besides root (default "slurm") */
	char cluster_name[64];	   /* ClusterName: slurm.conf's; empty = read from slurm.conf */
	uint32_t sample_interval_ms; /* SampleInterval: live sampling period; 0 disables (default
					10s) */
	uint32_t stall_after_ms; /* StallAfter: no CPU, I/O or network this long = stalled; 0 off
				    (STALL_AFTER_DEFAULT_MS) */
	uint32_t commit_interval_ms; /* CommitInterval: store batching period (default 1s) */
	uint32_t housekeeping_ms;    /* HousekeepingInterval: store pruning and the registry's
					sweep, at most this often (default 10s) */
	uint32_t orphan_after_ms;    /* OrphanAfter: a traced run with no process this long is ended
					LOST (default 10s) */
	uint64_t ring_buffer_bytes; /* RingBufferSize: kernel→daemon ring, power of two (default 4M)
				     */
	uint32_t max_clients;	    /* MaxClients: concurrent control connections (default 64) */
	uint32_t max_clients_per_user; /* MaxClientsPerUser: connections of one uid (default 8) */
	uint32_t reserved_clients; /* ReservedClients: slots only root and SlurmUser get (default 4)
				    */
	uint32_t client_idle_ms; /* ClientIdleTimeout: a silent local client is let go (default 60s)
				  */
	uint32_t client_line_ms; /* ClientRequestTimeout: a request line must be whole by then
				    (default 10s) */
	uint64_t client_buffer_bytes; /* ClientBufferSize: pending reply bytes per client (default
					 1M) */
	uint32_t listen_port;	      /* ListenPort: TCP port for other nodes' queries, 0 = off */
	char node_ports[1024];	   /* NodePorts: "NODE:PORT,..." ports of nodes that share a host */
	char metrics_listen[64];   /* MetricsListen: Prometheus endpoint, PORT (loopback) or
				      ADDR:PORT; empty = off */
	uint32_t metrics_retry_ms; /* MetricsRetryInterval: a taken MetricsListen address is
				      tried again this often (default 60s) */
	uint32_t otlp_metrics_interval_ms; /* OtlpMetricsInterval: running units' metrics sent
					      this often; 0 off (default 30s) */
	char munge_socket[PATH_MAX]; /* MungeSocket: munged's socket; empty = libmunge's default */
	char tool_rules[PATH_MAX];   /* ToolRules: how commands are named as tools */
	char btf_path[PATH_MAX];     /* BtfPath: kernel BTF for kernels without /sys/kernel/btf */
	uint64_t store_retention_ms; /* StoreRetention: finished units kept this long; 0 = for ever
				      */
	uint64_t store_max_bytes;    /* StoreMaxSize: store pages in use; 0 = no limit */
	uint64_t store_unit_max_bytes; /* StoreUnitMaxSize: one unit's stored rows before they are
					  folded into per-tool rows (default 256M; at most a
					  quarter of StoreMaxSize) */
	uint32_t max_units_per_user;   /* MaxUnitsPerUser: running traced runs of one user (64) */
	uint32_t unit_rate_per_user;   /* UnitRatePerUser: traced runs one user may begin per second
					  (20) */
	char slurmd_spool_dir[PATH_MAX]; /* SlurmdSpoolDir: where batch scripts may be read, %n =
					    node */
	char sub_uid_file[PATH_MAX]; /* SubUidFile: subordinate uids, counted as their owners' */
	enum tracer_log_level log_level; /* LogLevel: error|warning|info|debug (default info) */
	int32_t nice; /* Nice: tracerd's scheduling nice value, -20..19 (default -10) */
	/* OTLP export, off while no endpoint is set; unset values (empty, 0) leave the
	 * OTEL_EXPORTER_OTLP_* variables in force (nodeagent/export/export_config.c) */
	char otlp_endpoint[OTLP_URL_MAX];		/* OtlpEndpoint: base URL */
	enum otlp_protocol_setting otlp_protocol;	/* OtlpProtocol */
	char otlp_headers[OTLP_HEADERS_TEXT_MAX];	/* OtlpHeaders: k=v,k=v */
	enum otlp_compression_setting otlp_compression; /* OtlpCompression */
	char otlp_certificate[PATH_MAX];		/* OtlpCertificate: CA file */
	char otlp_client_certificate[PATH_MAX];		/* OtlpClientCertificate */
	char otlp_client_key[PATH_MAX];			/* OtlpClientKey */
	uint32_t otlp_timeout_ms;			/* OtlpTimeout */
	uint32_t otlp_backoff_max_ms; /* OtlpBackoffMax: the retries' longest backoff (no variable
					 sets it: OTLP_BACKOFF_MAX_DEFAULT_MS) */
};

/* Fill *cfg with defaults. */
void config_defaults(struct tracer_config *cfg);

/* Parse a whole config text. On success returns 0 and *cfg holds defaults overlaid with the
 * text's settings. On error returns -EINVAL, leaves *cfg untouched and writes
 * "NAME:LINE: message" into err. */
int config_parse(const char *text, size_t len, const char *name, struct tracer_config *cfg,
		 char *err, size_t errlen);

/* Read and parse a file. A missing file at the default path is not an error (defaults);
 * any other read error is (-errno, message in err). */
int config_load(const char *path, int path_is_default, struct tracer_config *cfg, char *err,
		size_t errlen);

/* The tracer.conf of a client: path (its -c), else $TRACER_CONF, else the default. */
int config_load_client(const char *path, struct tracer_config *cfg, char *err, size_t errlen);

/* The node a program speaks for: given (-N, SLURMD_NODENAME; NULL or empty for none), else
 * NodeName, else the short host name. Returns 0, or -errno. */
int config_node(const struct tracer_config *cfg, const char *given, char *out, size_t outlen);

/* The control socket path for this config and node (resolved as config_node does):
 * SocketDir/tracerd-NODE.sock. */
int config_socket_path(const struct tracer_config *cfg, const char *node, char *out, size_t outlen);
/* The node whose control socket is named file (a name in SocketDir), into node[len]: 0, or
 * -1 when file is no tracerd socket. */
int config_socket_node(const char *file, char *node, size_t len);
/* StateDir/NODE.lock: the flock that says which tracerd serves the node. 0 or -errno. */
int config_lock_path(const struct tracer_config *cfg, const char *node, char *out, size_t outlen);
/* Where tracerd pins the map of tasks registered in the kernel (struct task_registration):
 * PinDir/NODE/task_registry; PinDir/NODE is the directory. */
#define CONFIG_REGISTRY_FILE "task_registry"
int config_pin_path(const struct tracer_config *cfg, const char *node, const char *file, char *out,
		    size_t outlen);

/* The TCP port of node's tracerd: its NodePorts entry, else ListenPort (0: none). */
uint32_t config_listen_port(const struct tracer_config *cfg, const char *node);

/* MetricsListen's address: "PORT" is 127.0.0.1:PORT, "A.B.C.D:PORT" and "[V6]:PORT" that
 * address. 0 with *out and *len filled, -ENOENT when off (empty), -EINVAL when malformed. */
struct sockaddr_storage;
int config_metrics_addr(const char *v, struct sockaddr_storage *out, unsigned *len);
/* Why MetricsListen's value v is refused (a host name, an IPv6 address out of brackets, or no
 * such form), NULL when it is an address or empty */
const char *config_metrics_check(const char *v);

/* The i-th key tracer.conf knows, NULL past the last: for checks that each is documented. */
const char *config_key_name(size_t i);

/* Short host name (up to the first dot), the default node name. */
int config_default_node(char *out, size_t outlen);

#endif
