/* Unit tests for util/config.c: every key, every error kind with its file:line, defaults,
 * and that a failed parse leaves the caller's config alone. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "config.h"
#include "testconfig.h"
#include "testlib.h"

/* ---- NodePorts: the port of each node's tracerd where several share a host */

static void test_node_ports(void **state)
{
	struct tracer_config c;

	(void)state;
	c = ok("ListenPort = 6830\nNodePorts = n1:17201,n2:17202\n");
	assert_int_equal(config_listen_port(&c, "n1"), 17201);
	assert_int_equal(config_listen_port(&c, "n2"), 17202);
	assert_int_equal(config_listen_port(&c, "n"), 6830); /* a prefix is another node */
	assert_int_equal(config_listen_port(&c, "n12"), 6830);
	assert_int_equal(config_listen_port(&c, ""), 6830);
	c = ok("NodePorts = a.b-c_d:1\n");
	assert_int_equal(config_listen_port(&c, "a.b-c_d"), 1);
	assert_int_equal(config_listen_port(&c, "x"), 0); /* no ListenPort: off */
	bad("NodePorts = n1\n",
	    "t.conf:1: NodePorts: bad value \"n1\": expected NODE:PORT[,NODE:PORT...]");
	bad("NodePorts = n1:0\n",
	    "t.conf:1: NodePorts: bad value \"n1:0\": each port must be a number from 1 to 65535");
	bad("NodePorts = n1:65536\n", "t.conf:1: NodePorts: bad value \"n1:65536\": each port must "
				      "be a number from 1 to 65535");
	bad("NodePorts = n1:12x\n", "t.conf:1: NodePorts: bad value \"n1:12x\": each port must be "
				    "a number from 1 to 65535");
	bad("NodePorts = n1:1,\n",
	    "t.conf:1: NodePorts: bad value \"n1:1,\": expected NODE:PORT after ','");
	bad("NodePorts = n1:1,n1:2\n",
	    "t.conf:1: NodePorts: bad value \"n1:1,n1:2\": a node is named twice");
	bad("NodePorts = a/b:1\n", "t.conf:1: NodePorts: bad value \"a/b:1\": a node name has "
				   "letters, digits, '.', '_' and '-' only");
}

/* ---- defaults */

static void test_defaults(void **state)
{
	struct tracer_config c;

	(void)state;
	memset(&c, 0xff, sizeof(c));
	config_defaults(&c);
	assert_string_equal(c.node_name, "");
	assert_string_equal(c.socket_dir, "/run/tracer");
	assert_string_equal(c.state_dir, "/var/lib/tracer");
	assert_string_equal(c.slurm_user, "slurm");
	assert_int_equal(c.sample_interval_ms, 10000);
	assert_int_equal(c.commit_interval_ms, 1000);
	assert_int_equal(c.ring_buffer_bytes, 4 * 1024 * 1024);
	assert_int_equal(c.max_clients, 64);
	assert_int_equal(c.log_level, LOG_LEVEL_INFO);
	assert_int_equal(c.nice, -10);
}

static void test_empty_and_comments_give_defaults(void **state)
{
	struct tracer_config d, c;

	(void)state;
	config_defaults(&d);
	c = ok("");
	assert_memory_equal(&c, &d, sizeof(c));
	c = ok("\n\n   \n\t\n# a comment\n   # indented comment\n#SocketDir = /x\n");
	assert_memory_equal(&c, &d, sizeof(c));
	/* NULL text with zero length is an empty file. */
	assert_int_equal(config_parse(NULL, 0, "t.conf", &c, err, sizeof(err)), 0);
	assert_memory_equal(&c, &d, sizeof(c));
}

static void test_parse_starts_from_defaults(void **state)
{
	struct tracer_config c;

	(void)state;
	/* Whatever *cfg held before, unspecified keys come back as defaults. */
	c = ok("LogLevel = debug\n");
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	assert_string_equal(c.socket_dir, "/run/tracer");
	assert_int_equal(c.max_clients, 64);
}

/* ---- every key */

static void test_all_keys(void **state)
{
	struct tracer_config c;

	(void)state;
	c = ok("NodeName = n1\n"
	       "SocketDir = /tmp/sock\n"
	       "StateDir = /srv/tracer/state\n"
	       "SlurmUser = slurm-admin_2.x\n"
	       "SampleInterval = 500ms\n"
	       "CommitInterval = 2s\n"
	       "RingBufferSize = 64M\n"
	       "MaxClients = 128\n"
	       "LogLevel = warning\n");
	assert_string_equal(c.node_name, "n1");
	assert_string_equal(c.socket_dir, "/tmp/sock");
	assert_string_equal(c.state_dir, "/srv/tracer/state");
	assert_string_equal(c.slurm_user, "slurm-admin_2.x");
	assert_int_equal(c.sample_interval_ms, 500);
	assert_int_equal(c.commit_interval_ms, 2000);
	assert_int_equal(c.ring_buffer_bytes, 64ull << 20);
	assert_int_equal(c.max_clients, 128);
	assert_int_equal(c.log_level, LOG_LEVEL_WARNING);
}

static void test_keys_case_insensitive(void **state)
{
	struct tracer_config c;

	(void)state;
	c = ok("nodename=a\nSOCKETDIR=/a\nstatedir=/b\nslurmUSER=u\nsampleinterval=1s\n"
	       "COMMITINTERVAL=20ms\nringbuffersize=128k\nmaxclients=2\nLOGLEVEL=DEBUG\n");
	assert_string_equal(c.node_name, "a");
	assert_string_equal(c.socket_dir, "/a");
	assert_string_equal(c.state_dir, "/b");
	assert_string_equal(c.slurm_user, "u");
	assert_int_equal(c.sample_interval_ms, 1000);
	assert_int_equal(c.commit_interval_ms, 20);
	assert_int_equal(c.ring_buffer_bytes, 128 * 1024);
	assert_int_equal(c.max_clients, 2);
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
}

static void test_spacing_and_comments(void **state)
{
	struct tracer_config c;

	(void)state;
	assert_int_equal(ok("LogLevel=debug").log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(ok("LogLevel =debug\n").log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(ok("LogLevel= debug\n").log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(ok("\t LogLevel\t=\tdebug \t\n").log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(ok("LogLevel = debug # trailing comment\n").log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(ok("LogLevel=debug#no space\n").log_level, LOG_LEVEL_DEBUG);
	/* CRLF files and a last line without newline. */
	c = ok("MaxClients = 7\r\nLogLevel = error\r\n");
	assert_int_equal(c.max_clients, 7);
	assert_int_equal(c.log_level, LOG_LEVEL_ERROR);
	assert_int_equal(ok("# x\nMaxClients = 9").max_clients, 9);
	/* A UTF-8 byte-order mark does not glue onto the first key. */
	assert_int_equal(ok("\xef\xbb\xbfMaxClients = 3\n").max_clients, 3);
}

static void test_quoted_values(void **state)
{
	struct tracer_config c;

	(void)state;
	c = ok("SocketDir = \"/run/with space\"\n");
	assert_string_equal(c.socket_dir, "/run/with space");
	c = ok("StateDir=\"/var/lib/a#b\" # comment\n");
	assert_string_equal(c.state_dir, "/var/lib/a#b");
	c = ok("LogLevel = \"debug\"   \n");
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	c = ok("SampleInterval = \"0\"\n");
	assert_int_equal(c.sample_interval_ms, 0);
}

static void test_durations(void **state)
{
	(void)state;
	assert_int_equal(ok("SampleInterval = 0\n").sample_interval_ms, 0);
	assert_int_equal(ok("SampleInterval = 0ms\n").sample_interval_ms, 0);
	assert_int_equal(ok("SampleInterval = 0s\n").sample_interval_ms, 0);
	assert_int_equal(ok("SampleInterval = 100ms\n").sample_interval_ms, 100);
	assert_int_equal(ok("SampleInterval = 30\n").sample_interval_ms, 30000);
	assert_int_equal(ok("SampleInterval = 30s\n").sample_interval_ms, 30000);
	assert_int_equal(ok("SampleInterval = 5m\n").sample_interval_ms, 300000);
	assert_int_equal(ok("SampleInterval = 2S\n").sample_interval_ms, 2000);
	assert_int_equal(ok("SampleInterval = 1440m\n").sample_interval_ms, 86400000);
	assert_int_equal(ok("CommitInterval = 10ms\n").commit_interval_ms, 10);
	assert_int_equal(ok("CommitInterval = 60s\n").commit_interval_ms, 60000);
	assert_int_equal(ok("CommitInterval = 1m\n").commit_interval_ms, 60000);
	assert_int_equal(ok("CommitInterval = 60000ms\n").commit_interval_ms, 60000);
	assert_int_equal(ok("CommitInterval = 007\n").commit_interval_ms, 7000);

	assert_int_equal(ok("").otlp_metrics_interval_ms, 30000);
	assert_int_equal(ok("OtlpMetricsInterval = 1s\n").otlp_metrics_interval_ms, 1000);
	assert_int_equal(ok("OtlpMetricsInterval = 0\n").otlp_metrics_interval_ms, 0);
	bad("OtlpMetricsInterval = 500ms\n", "t.conf:1: OtlpMetricsInterval: bad value \"500ms\": "
					     "must be 0 (off) or between 1s and 24h");
	bad("SampleInterval = 99ms\n", "t.conf:1: SampleInterval: bad value \"99ms\": must be 0 "
				       "(off) or between 100ms and 24h");
	bad("SampleInterval = 1441m\n", "t.conf:1: SampleInterval: bad value \"1441m\": must be 0 "
					"(off) or between 100ms and 24h");
	assert_int_equal(ok("SampleInterval = 2h\n").sample_interval_ms, 2 * 3600 * 1000);
	bad("SampleInterval = 25h\n", "t.conf:1: SampleInterval: bad value \"25h\": must be 0 "
				      "(off) or between 100ms and 24h");
	bad("SampleInterval = 10y\n", "t.conf:1: SampleInterval: bad value \"10y\": unknown "
				      "duration unit (use ms, s, m, h or d)");
	assert_int_equal(ok("StoreRetention = 180d\n").store_retention_ms,
			 180ull * 24 * 3600 * 1000);
	assert_int_equal(ok("StoreRetention = 0\n").store_retention_ms, 0);
	assert_int_equal(ok("").store_retention_ms, 180ull * 24 * 3600 * 1000);
	bad("StoreRetention = 30s\n", "t.conf:1: StoreRetention: bad value \"30s\": must be 0 "
				      "(keep for ever) or at least 1m");
	assert_int_equal(ok("StoreMaxSize = 2G\n").store_max_bytes, 2ull << 30);
	assert_int_equal(ok("StoreMaxSize = 0\n").store_max_bytes, 0);
	bad("StoreMaxSize = 100K\n",
	    "t.conf:1: StoreMaxSize: bad value \"100K\": must be 0 (no limit) or at least 1M");
	/* a unit's share of the store, and how many runs a user may have and begin */
	assert_int_equal(ok("").store_unit_max_bytes, 256ull << 20);
	assert_int_equal(ok("StoreUnitMaxSize = 64K\n").store_unit_max_bytes, 64ull << 10);
	bad("StoreUnitMaxSize = 0\n",
	    "t.conf:1: StoreUnitMaxSize: bad value \"0\": must be at least 64K");
	assert_int_equal(ok("").max_units_per_user, 64);
	assert_int_equal(ok("MaxUnitsPerUser = 1\n").max_units_per_user, 1);
	bad("MaxUnitsPerUser = 0\n",
	    "t.conf:1: MaxUnitsPerUser: bad value \"0\": must be between 1 and 4096");
	assert_int_equal(ok("").unit_rate_per_user, 20);
	assert_int_equal(ok("UnitRatePerUser = 10000\n").unit_rate_per_user, 10000);
	bad("UnitRatePerUser = 10001\n",
	    "t.conf:1: UnitRatePerUser: bad value \"10001\": must be between 1 and 10000");
	bad("UnitRatePerUser = 2x\n",
	    "t.conf:1: UnitRatePerUser: bad value \"2x\": expected a number");
	bad("SampleInterval = -1\n", "t.conf:1: SampleInterval: bad value \"-1\": expected a "
				     "duration like 500ms, 10s or 5m");
	bad("SampleInterval = 1.5s\n", "t.conf:1: SampleInterval: bad value \"1.5s\": unknown "
				       "duration unit (use ms, s, m, h or d)");
	bad("SampleInterval = 10 s\n", "t.conf:1: SampleInterval: bad value \"10 s\": unknown "
				       "duration unit (use ms, s, m, h or d)");
	bad("SampleInterval = s\n",
	    "t.conf:1: SampleInterval: bad value \"s\": expected a duration like 500ms, 10s or 5m");
	bad("SampleInterval = +5s\n", "t.conf:1: SampleInterval: bad value \"+5s\": expected a "
				      "duration like 500ms, 10s or 5m");
	bad("SampleInterval = 99999999999999999999999\n",
	    "t.conf:1: SampleInterval: bad value \"99999999999999999999999\": expected a duration "
	    "like 500ms, 10s or 5m");
	bad("SampleInterval = 18446744073709551615m\n",
	    "t.conf:1: SampleInterval: bad value \"18446744073709551615m\": duration too large");
	bad("SampleInterval = 4294967296ms\n",
	    "t.conf:1: SampleInterval: bad value \"4294967296ms\": must be 0 (off) or between "
	    "100ms and 24h");
	bad("CommitInterval = 9ms\n",
	    "t.conf:1: CommitInterval: bad value \"9ms\": must be between 10ms and 60s");
	bad("CommitInterval = 0\n",
	    "t.conf:1: CommitInterval: bad value \"0\": must be between 10ms and 60s");
	bad("CommitInterval = 61s\n",
	    "t.conf:1: CommitInterval: bad value \"61s\": must be between 10ms and 60s");
	bad("CommitInterval = 2m\n",
	    "t.conf:1: CommitInterval: bad value \"2m\": must be between 10ms and 60s");
}

static void test_metrics_listen(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	unsigned len;
	char text[64];
	const char *why = "t.conf:1: MetricsListen: bad value \"%s\": expected PORT, ADDRESS:PORT "
			  "or [IPv6 ADDRESS]:PORT (1-65535)";
	const char *refused[] = { "0", "65536", "x", "1.2.3.4:", "[::1]", "[::1]80", "-1", ":80" };
	const char *numeric = "t.conf:1: MetricsListen: bad value \"%s\": ADDRESS must be numeric, "
			      "a host name (localhost) is never looked up: 127.0.0.1:PORT, or an "
			      "IPv6 address in brackets, [::1]:PORT";
	const char *named[] = { "localhost:9464", "node1.example.org:80", "1.2.3:80", "[zz]:80" };

	(void)state;
	assert_string_equal(ok("").metrics_listen, ""); /* off by default */
	assert_int_equal(config_metrics_addr("", &ss, &len), -ENOENT);
	assert_string_equal(ok("MetricsListen = 9464\n").metrics_listen, "9464");
	assert_int_equal(config_metrics_addr("9464", &ss, &len), 0);
	assert_int_equal(a4->sin_family, AF_INET); /* a port alone: loopback */
	assert_int_equal(ntohl(a4->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(ntohs(a4->sin_port), 9464);
	assert_int_equal(config_metrics_addr("10.1.2.3:80", &ss, &len), 0);
	assert_int_equal(ntohl(a4->sin_addr.s_addr), 0x0a010203);
	assert_int_equal(config_metrics_addr("[::1]:9464", &ss, &len), 0);
	assert_int_equal(a6->sin6_family, AF_INET6);
	assert_int_equal(len, sizeof(*a6));
	assert_int_equal(ntohs(a6->sin6_port), 9464);
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		char want[256];

		snprintf(text, sizeof(text), "MetricsListen = %s\n", refused[i]);
		snprintf(want, sizeof(want), why, refused[i]);
		bad(text, want);
	}
	/* a host name, or an address that is no address: said so, with what to give instead */
	for (size_t i = 0; i < sizeof(named) / sizeof(*named); i++) {
		char want[256];

		snprintf(text, sizeof(text), "MetricsListen = %s\n", named[i]);
		snprintf(want, sizeof(want), numeric, named[i]);
		bad(text, want);
	}
	bad("MetricsListen = ::1:9464\n", "t.conf:1: MetricsListen: bad value \"::1:9464\": an "
					  "IPv6 address goes in brackets: [::1]:PORT");
}

static void test_nice(void **state)
{
	(void)state;
	assert_int_equal(ok("Nice = -20\n").nice, -20);
	assert_int_equal(ok("Nice = 0\n").nice, 0);
	assert_int_equal(ok("Nice = 19\n").nice, 19);
	bad("Nice = -21\n", "t.conf:1: Nice: bad value \"-21\": must be between -20 and 19");
	bad("Nice = 20\n", "t.conf:1: Nice: bad value \"20\": must be between -20 and 19");
	bad("Nice = --1\n", "t.conf:1: Nice: bad value \"--1\": expected a number");
	bad("Nice = -\n", "t.conf:1: Nice: bad value \"-\": expected a number");
	bad("Nice = 5x\n", "t.conf:1: Nice: bad value \"5x\": expected a number");
	assert_int_equal(ok("Nice = -0\n").nice, 0);
	bad("Nice = -9223372036854775808\n",
	    "t.conf:1: Nice: bad value \"-9223372036854775808\": must be between -20 and 19");
	bad("Nice = 99999999999999999999\n",
	    "t.conf:1: Nice: bad value \"99999999999999999999\": expected a number");
	/* a minus sign is taken only where the range goes below 0 */
	bad("ReservedClients = -0\n",
	    "t.conf:1: ReservedClients: bad value \"-0\": expected a number");
	bad("MaxClients = -1\n", "t.conf:1: MaxClients: bad value \"-1\": expected a number");
}

static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(ok("RingBufferSize = 64K\n").ring_buffer_bytes, 65536);
	assert_int_equal(ok("RingBufferSize = 65536\n").ring_buffer_bytes, 65536);
	assert_int_equal(ok("RingBufferSize = 1M\n").ring_buffer_bytes, 1 << 20);
	assert_int_equal(ok("RingBufferSize = 16m\n").ring_buffer_bytes, 16 << 20);
	assert_int_equal(ok("RingBufferSize = 1G\n").ring_buffer_bytes, 1ull << 30);
	assert_int_equal(ok("RingBufferSize = 1024M\n").ring_buffer_bytes, 1ull << 30);
	assert_int_equal(ok("RingBufferSize = 1073741824\n").ring_buffer_bytes, 1ull << 30);

	bad("RingBufferSize = 32K\n", "t.conf:1: RingBufferSize: bad value \"32K\": must be a "
				      "power of two between 64K and 1G");
	bad("RingBufferSize = 2G\n", "t.conf:1: RingBufferSize: bad value \"2G\": must be a power "
				     "of two between 64K and 1G");
	bad("RingBufferSize = 3M\n", "t.conf:1: RingBufferSize: bad value \"3M\": must be a power "
				     "of two between 64K and 1G");
	bad("RingBufferSize = 65537\n", "t.conf:1: RingBufferSize: bad value \"65537\": must be a "
					"power of two between 64K and 1G");
	bad("RingBufferSize = 0\n",
	    "t.conf:1: RingBufferSize: bad value \"0\": must be a power of two between 64K and 1G");
	bad("RingBufferSize = 16MB\n",
	    "t.conf:1: RingBufferSize: bad value \"16MB\": unknown size unit (use K, M or G)");
	bad("RingBufferSize = 16T\n",
	    "t.conf:1: RingBufferSize: bad value \"16T\": unknown size unit (use K, M or G)");
	bad("RingBufferSize = big\n",
	    "t.conf:1: RingBufferSize: bad value \"big\": expected a size like 64K, 16M or 1G");
	bad("RingBufferSize = 17179869184G\n",
	    "t.conf:1: RingBufferSize: bad value \"17179869184G\": size too large");
}

static void test_max_clients(void **state)
{
	(void)state;
	assert_int_equal(ok("MaxClients = 1\n").max_clients, 1);
	assert_int_equal(ok("MaxClients = 4096\n").max_clients, 4096);
	bad("MaxClients = 0\n",
	    "t.conf:1: MaxClients: bad value \"0\": must be between 1 and 4096");
	bad("MaxClients = 4097\n",
	    "t.conf:1: MaxClients: bad value \"4097\": must be between 1 and 4096");
	bad("MaxClients = 12x\n", "t.conf:1: MaxClients: bad value \"12x\": expected a number");
	bad("MaxClients = -3\n", "t.conf:1: MaxClients: bad value \"-3\": expected a number");
	bad("MaxClients = 99999999999999999999999999\n",
	    "t.conf:1: MaxClients: bad value \"99999999999999999999999999\": expected a number");
}

static void test_client_limits(void **state)
{
	struct tracer_config c;

	(void)state;
	c = ok("");
	assert_int_equal(c.max_clients_per_user, 8);
	assert_int_equal(c.reserved_clients, 4);
	assert_int_equal(c.client_idle_ms, 60000);
	assert_int_equal(c.client_line_ms, 10000);
	assert_int_equal(c.client_buffer_bytes, 1 << 20);
	assert_string_equal(c.slurmd_spool_dir, "/var/spool/slurmd");
	assert_string_equal(c.sub_uid_file, "/etc/subuid");
	c = ok("MaxClientsPerUser = 2\nReservedClients = 0\nClientIdleTimeout = 5m\n"
	       "ClientRequestTimeout = 1500ms\nClientBufferSize = 64K\nSlurmdSpoolDir = /s/%n/\n"
	       "SubUidFile = /srv/subuid\n");
	assert_string_equal(c.sub_uid_file, "/srv/subuid");
	assert_int_equal(c.max_clients_per_user, 2);
	assert_int_equal(c.reserved_clients, 0);
	assert_int_equal(c.client_idle_ms, 300000);
	assert_int_equal(c.client_line_ms, 1500);
	assert_int_equal(c.client_buffer_bytes, 65536);
	assert_string_equal(c.slurmd_spool_dir, "/s/%n");
	bad("MaxClientsPerUser = 0\n",
	    "t.conf:1: MaxClientsPerUser: bad value \"0\": must be between 1 and 4096");
	bad("ReservedClients = 4097\n",
	    "t.conf:1: ReservedClients: bad value \"4097\": must be between 0 and 4096");
	bad("ClientIdleTimeout = 500ms\n",
	    "t.conf:1: ClientIdleTimeout: bad value \"500ms\": must be between 1s and 24h");
	bad("ClientRequestTimeout = soon\n", "t.conf:1: ClientRequestTimeout: bad value \"soon\": "
					     "expected a duration like 500ms, 10s or 5m");
	bad("ClientBufferSize = 1K\n",
	    "t.conf:1: ClientBufferSize: bad value \"1K\": must be between 64K and 1G");
	bad("SlurmdSpoolDir = spool\n",
	    "t.conf:1: SlurmdSpoolDir: bad value \"spool\": must be an absolute path");
}

static void test_log_levels(void **state)
{
	(void)state;
	assert_int_equal(ok("LogLevel = error\n").log_level, LOG_LEVEL_ERROR);
	assert_int_equal(ok("LogLevel = warning\n").log_level, LOG_LEVEL_WARNING);
	assert_int_equal(ok("LogLevel = warn\n").log_level, LOG_LEVEL_WARNING);
	assert_int_equal(ok("LogLevel = Info\n").log_level, LOG_LEVEL_INFO);
	assert_int_equal(ok("LogLevel = DEBUG\n").log_level, LOG_LEVEL_DEBUG);
	bad("LogLevel = verbose\n",
	    "t.conf:1: LogLevel: bad value \"verbose\": must be error, warning, info or debug");
	bad("LogLevel = 3\n",
	    "t.conf:1: LogLevel: bad value \"3\": must be error, warning, info or debug");
}

static void test_names(void **state)
{
	char text[200], want[300];
	char n63[64];

	(void)state;
	memset(n63, 'a', 63);
	n63[63] = '\0';
	snprintf(text, sizeof(text), "NodeName = %s\n", n63);
	assert_string_equal(ok(text).node_name, n63);
	snprintf(text, sizeof(text), "SlurmUser = %s\n", n63);
	assert_string_equal(ok(text).slurm_user, n63);
	snprintf(text, sizeof(text), "NodeName = %sb\n", n63);
	snprintf(want, sizeof(want),
		 "t.conf:1: NodeName: bad value \"%sb\": too long (at most 63 characters)", n63);
	bad(text, want);
	snprintf(text, sizeof(text), "SlurmUser = %sb\n", n63);
	snprintf(want, sizeof(want),
		 "t.conf:1: SlurmUser: bad value \"%sb\": too long (at most 63 characters)", n63);
	bad(text, want);
	bad("NodeName = a/b\n", "t.conf:1: NodeName: bad value \"a/b\": only letters, digits, '.', "
				"'_' and '-' are allowed");
	bad("NodeName = \"a b\"\n", "t.conf:1: NodeName: bad value \"a b\": only letters, digits, "
				    "'.', '_' and '-' are allowed");
	bad("SlurmUser = r\xc3\xa9my\n", "t.conf:1: SlurmUser: bad value \"r\xc3\xa9my\": only "
					 "letters, digits, '.', '_' and '-' are allowed");
	bad("NodeName = ..\n", "t.conf:1: NodeName: bad value \"..\": not a usable name");
	bad("NodeName = \"\"\n", "t.conf:1: NodeName: bad value: empty");
	bad("NodeName =\n", "t.conf:1: NodeName: bad value: empty");
	bad("SlurmUser = # nothing\n", "t.conf:1: SlurmUser: bad value: empty");
}

static void test_paths(void **state)
{
	static char text[PATH_MAX + 64], want[PATH_MAX + 128];
	char p[PATH_MAX + 1];

	(void)state;
	assert_string_equal(ok("SocketDir = /\n").socket_dir, "/");
	assert_string_equal(ok("SocketDir = /run/tracer/\n").socket_dir, "/run/tracer");
	assert_string_equal(ok("StateDir = /var/lib/tracer///\n").state_dir, "/var/lib/tracer");
	assert_string_equal(ok("StateDir = ///\n").state_dir, "/");
	bad("SocketDir = run/tracer\n",
	    "t.conf:1: SocketDir: bad value \"run/tracer\": must be an absolute path");
	bad("StateDir = ~/x\n", "t.conf:1: StateDir: bad value \"~/x\": must be an absolute path");

	/* The longest path a 4096-byte line can carry is accepted; a longer line is refused
	 * as a line, before the path is considered. */
	p[0] = '/';
	memset(p + 1, 'x', 4096 - 10);
	p[4096 - 9] = '\0';
	snprintf(text, sizeof(text), "StateDir=%s\n", p);
	assert_int_equal(strlen(text), 4097);
	assert_string_equal(ok(text).state_dir, p);
	snprintf(text, sizeof(text), "StateDir=%sx\n", p);
	bad(text, "t.conf:1: line too long (more than 4096 bytes)");
	/* Values are shown truncated in messages. */
	memset(p + 1, 'y', 100);
	p[101] = '\0';
	snprintf(text, sizeof(text), "StateDir=%s\nMaxClients=1\nSocketDir=%s\n", p, p + 1);
	snprintf(want, sizeof(want),
		 "t.conf:3: SocketDir: bad value \"%.76s...\": must be an absolute path", p + 1);
	bad(text, want);
	/* A control character (here a vertical tab) is refused and shown escaped, as the tools
	 * show all text others wrote: C1, invalid UTF-8 and bidi controls too. */
	bad("SocketDir = /run/a\vb\n",
	    "t.conf:1: SocketDir: bad value \"/run/a\\x0bb\": control character");
	bad("SocketDir = /run/\xc2\x9b\xff\xe2\x80\xae\v\n",
	    "t.conf:1: SocketDir: bad value \"/run/\\u009b\\xff\\u202e\\x0b\": control "
	    "character");
	bad("SocketDir\xe2\x80\xae = /run\n", "t.conf:1: unknown key 'SocketDir\\u202e'");
	/* cut whole, never in an escape, with "..." */
	memset(p + 1, 0x1b, 100);
	snprintf(text, sizeof(text), "SocketDir=%s\n", p + 1);
	snprintf(want, sizeof(want), "t.conf:1: SocketDir: bad value \"");
	for (int i = 0; i < 19; i++)
		strcat(want, "\\x1b");
	strcat(want, "...\": control character");
	bad(text, want);
}

/* ---- errors: each kind, with its line number */

static void test_error_unknown_key(void **state)
{
	(void)state;
	bad("# header\n\nLogLevel = info\nFrobnicate = 3\n", "t.conf:4: unknown key 'Frobnicate'");
	bad("Log_Level = info\n", "t.conf:1: unknown key 'Log_Level'");
	bad("Node-Name=x\n", "t.conf:1: unknown key 'Node-Name'");
}

static void test_error_missing_equals(void **state)
{
	(void)state;
	bad("LogLevel = info\nSocketDir /run\n", "t.conf:2: missing '=' after 'SocketDir'");
	bad("\n\njust words here\n", "t.conf:3: missing '=' after 'just'");
	bad("LogLevel", "t.conf:1: missing '=' after 'LogLevel'");
	bad("LogLevel : debug\n", "t.conf:1: missing '=' after 'LogLevel'");
	bad("= debug\n", "t.conf:1: missing key before '='");
	bad("  =\n", "t.conf:1: missing key before '='");
}

static void test_error_bad_value_line(void **state)
{
	(void)state;
	bad("LogLevel = info\nMaxClients = 64\n\n# c\nCommitInterval = forever\n",
	    "t.conf:5: CommitInterval: bad value \"forever\": expected a duration like 500ms, 10s "
	    "or 5m");
	bad("SocketDir = \"/run/x\n", "t.conf:1: SocketDir: bad value: missing closing '\"'");
	bad("SocketDir = \"/run/x\" trailing\n",
	    "t.conf:1: SocketDir: bad value: unexpected text after closing '\"'");
	bad("SocketDir = \"/run/x\"\"/y\"\n",
	    "t.conf:1: SocketDir: bad value: unexpected text after closing '\"'");
}

static void test_error_duplicate(void **state)
{
	(void)state;
	bad("LogLevel = info\nMaxClients = 3\nloglevel = debug\n",
	    "t.conf:3: duplicate key LogLevel (first set on line 1)");
	bad("\n\nSocketDir=/a\n\nSOCKETDIR=/a\n",
	    "t.conf:5: duplicate key SocketDir (first set on line 3)");
}

static void test_error_line_too_long(void **state)
{
	static char text[8192];
	struct tracer_config c;
	size_t n;

	(void)state;
	/* A 4096-byte line is fine (comment or value)... */
	n = (size_t)snprintf(text, sizeof(text), "LogLevel = info\n");
	text[n] = '#';
	memset(text + n + 1, 'x', 4095);
	n += 4096;
	memcpy(text + n, "\nMaxClients = 5\n", 17);
	c = ok(text);
	assert_int_equal(c.max_clients, 5);
	/* ...and its CRLF does not count... */
	memcpy(text + n, "\r\nMaxClients = 5\n", 18);
	assert_int_equal(ok(text).max_clients, 5);
	/* ...but 4097 bytes is an error at that line, even as a comment or as the last line. */
	memcpy(text + n, "x\nMaxClients = 5\n", 18);
	bad(text, "t.conf:2: line too long (more than 4096 bytes)");
	text[n + 1] = '\0';
	bad(text, "t.conf:2: line too long (more than 4096 bytes)");
}

static void test_error_nul_byte(void **state)
{
	static const char t1[] = "LogLevel = info\nMaxClients = 6\0 4\n";
	static const char t2[] = "# c\n\n#\0\n";
	static const char t3[] = "\0";

	(void)state;
	bad_n(t1, sizeof(t1) - 1, "t.conf:2: NUL byte in text");
	bad_n(t2, sizeof(t2) - 1, "t.conf:3: NUL byte in text");
	bad_n(t3, sizeof(t3) - 1, "t.conf:1: NUL byte in text");
}

static void test_error_first_error_wins_and_untouched(void **state)
{
	struct tracer_config c, before;

	(void)state;
	/* Good lines before the error are not applied to *cfg. */
	config_defaults(&c);
	strcpy(c.node_name, "keep");
	before = c;
	{
		const char *t = "NodeName = other\nLogLevel = debug\nBogus = 1\nAlso = bad\n";
		assert_int_equal(config_parse(t, strlen(t), "f", &c, err, sizeof(err)), -EINVAL);
	}
	assert_string_equal(err, "f:3: unknown key 'Bogus'");
	assert_memory_equal(&c, &before, sizeof(c));
}

static void test_error_buffer_handling(void **state)
{
	struct tracer_config c;
	char small[8];

	(void)state;
	/* No error buffer at all. */
	assert_int_equal(config_parse("x", 1, "t.conf", &c, NULL, 0), -EINVAL);
	/* Truncated, but terminated. */
	memset(small, 'Z', sizeof(small));
	assert_int_equal(config_parse("x", 1, "t.conf", &c, small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "t.conf:");
	/* No name: a placeholder. */
	assert_int_equal(config_parse("x", 1, NULL, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "(config):1: missing '=' after 'x'");
	/* Hostile text in a message is bounded and made printable. */
	bad("\x1b[31mKey = 1\n", "t.conf:1: unknown key '\\x1b[31mKey'");
}

/* ---- config_load */

static char tmpdir[64];

static int setup_tmp(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/test_config.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void write_str(const char *path, const char *s)
{
	write_file(path, s, strlen(s));
}

static void test_load_file(void **state)
{
	char path[128], want[256];
	struct tracer_config c, before;

	(void)state;
	snprintf(path, sizeof(path), "%s/tracer.conf", tmpdir);
	write_str(path, "NodeName = n7\nSampleInterval = 0\n");
	assert_int_equal(config_load(path, 0, &c, err, sizeof(err)), 0);
	assert_string_equal(c.node_name, "n7");
	assert_int_equal(c.sample_interval_ms, 0);
	assert_string_equal(c.socket_dir, "/run/tracer");

	/* Parse errors name the file. */
	write_str(path, "NodeName = n7\nSampleInterval = 1ms\n");
	memset(&c, 0x11, sizeof(c));
	before = c;
	assert_int_equal(config_load(path, 0, &c, err, sizeof(err)), -EINVAL);
	snprintf(
		want, sizeof(want),
		"%s:2: SampleInterval: bad value \"1ms\": must be 0 (off) or between 100ms and 24h",
		path);
	assert_string_equal(err, want);
	assert_memory_equal(&c, &before, sizeof(c));
}

static void test_load_missing(void **state)
{
	char path[128], want[256];
	struct tracer_config c, d, before;

	(void)state;
	snprintf(path, sizeof(path), "%s/absent.conf", tmpdir);
	/* At the default path: defaults. */
	memset(&c, 0x33, sizeof(c));
	assert_int_equal(config_load(path, 1, &c, err, sizeof(err)), 0);
	config_defaults(&d);
	assert_memory_equal(&c, &d, sizeof(c));
	/* Named explicitly: an error, untouched. */
	memset(&c, 0x33, sizeof(c));
	before = c;
	assert_int_equal(config_load(path, 0, &c, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
	assert_memory_equal(&c, &before, sizeof(c));
	/* Only a missing file is excused at the default path: ENOTDIR is not. */
	snprintf(path, sizeof(path), "%s/file", tmpdir);
	write_str(path, "");
	snprintf(path, sizeof(path), "%s/file/tracer.conf", tmpdir);
	assert_int_equal(config_load(path, 1, &c, err, sizeof(err)), -ENOTDIR);
	snprintf(want, sizeof(want), "%s: Not a directory", path);
	assert_string_equal(err, want);
	assert_memory_equal(&c, &before, sizeof(c));
}

static void test_load_not_regular_and_too_big(void **state)
{
	char path[128], want[256];
	struct tracer_config c, before;
	char *big;

	(void)state;
	memset(&c, 0x44, sizeof(c));
	before = c;
	/* A directory, even at the default path, is an error. */
	assert_int_equal(config_load(tmpdir, 1, &c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file", tmpdir);
	assert_string_equal(err, want);
	assert_memory_equal(&c, &before, sizeof(c));

	/* 1 MiB of comments is fine, one byte more is not. */
	big = malloc(1024 * 1024 + 1);
	assert_non_null(big);
	memset(big, '\n', 1024 * 1024 + 1);
	big[0] = '#';
	snprintf(path, sizeof(path), "%s/big.conf", tmpdir);
	write_file(path, big, 1024 * 1024);
	assert_int_equal(config_load(path, 0, &c, err, sizeof(err)), 0);
	write_file(path, big, 1024 * 1024 + 1);
	memset(&c, 0x44, sizeof(c));
	assert_int_equal(config_load(path, 0, &c, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: larger than 1048576 bytes", path);
	assert_string_equal(err, want);
	assert_memory_equal(&c, &before, sizeof(c));
	free(big);
}

static void test_load_unreadable(void **state)
{
	char path[128];
	struct tracer_config c;

	(void)state;
	if (geteuid() == 0)
		skip(); /* root reads anything */
	snprintf(path, sizeof(path), "%s/secret.conf", tmpdir);
	write_str(path, "LogLevel = info\n");
	assert_int_equal(chmod(path, 0), 0);
	assert_int_equal(config_load(path, 1, &c, err, sizeof(err)), -EACCES);
}

/* ---- socket path and node name */

static void test_default_node(void **state)
{
	char host[256], node[64], *dot;
	char tiny[2];

	(void)state;
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	if ((dot = strchr(host, '.')))
		*dot = '\0';
	assert_int_equal(config_default_node(node, sizeof(node)), 0);
	assert_string_equal(node, host);
	if (strlen(host) >= sizeof(tiny)) {
		strcpy(tiny, "k");
		assert_int_equal(config_default_node(tiny, sizeof(tiny)), -ENAMETOOLONG);
		assert_string_equal(tiny, "k");
	}
	assert_int_equal(config_default_node(NULL, 0), -EINVAL);
}

/* One resolution for every program: the given node, else NodeName, else the host's name. */
static void test_node(void **state)
{
	static const struct {
		const char *node_name, *given, *want; /* want NULL: the host's name */
	} cases[] = {
		{ "", NULL, NULL },	      { "cfgnode", NULL, "cfgnode" },
		{ "cfgnode", "", "cfgnode" }, { "cfgnode", "given", "given" },
		{ "", "given", "given" },
	};
	struct tracer_config c;
	char node[64], host[64], tiny[4];

	(void)state;
	config_defaults(&c);
	assert_int_equal(config_default_node(host, sizeof(host)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		snprintf(c.node_name, sizeof(c.node_name), "%s", cases[i].node_name);
		assert_int_equal(config_node(&c, cases[i].given, node, sizeof(node)), 0);
		assert_string_equal(node, cases[i].want ? cases[i].want : host);
	}
	assert_int_equal(config_node(&c, "longer", tiny, sizeof(tiny)), -ENAMETOOLONG);
}

/* A socket's file name gives back its node; other files are none. */
static void test_socket_node(void **state)
{
	struct tracer_config c;
	char path[108], node[64], small[3];

	(void)state;
	config_defaults(&c);
	assert_int_equal(config_socket_path(&c, "n-1.a", path, sizeof(path)), 0);
	assert_int_equal(config_socket_node(strrchr(path, '/') + 1, node, sizeof(node)), 0);
	assert_string_equal(node, "n-1.a");
	assert_int_equal(config_socket_node("tracerd-.sock", node, sizeof(node)), -1);
	assert_int_equal(config_socket_node("tracerd-x.lock", node, sizeof(node)), -1);
	assert_int_equal(config_socket_node("other-x.sock", node, sizeof(node)), -1);
	assert_int_equal(config_socket_node("tracerd-abc.sock", small, sizeof(small)), -1);
}

/* A client's tracer.conf: the one given, else the environment's, else the default. */
static void test_load_client(void **state)
{
	struct tracer_config c;
	char dir[] = "/tmp/test_config_client.XXXXXX", path[64], err[256];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("NodeName = fromenv\n", f);
	fclose(f);
	setenv(TRACER_CONF_ENV, path, 1);
	assert_int_equal(config_load_client(NULL, &c, err, sizeof(err)), 0);
	assert_string_equal(c.node_name, "fromenv");
	/* the given file wins, and one missing is an error, not the defaults */
	assert_true(config_load_client("/nonexistent/t.conf", &c, err, sizeof(err)) < 0);
	unsetenv(TRACER_CONF_ENV);
	setenv(TRACER_CONF_ENV, "/nonexistent/t.conf", 1);
	assert_true(config_load_client(NULL, &c, err, sizeof(err)) < 0);
	unsetenv(TRACER_CONF_ENV);
	assert_int_equal(tl_rmtree(dir), 0);
}

static void test_socket_path(void **state)
{
	struct tracer_config c;
	char out[108], host[64], want[200];
	char small[20];

	(void)state;
	config_defaults(&c);
	assert_int_equal(config_socket_path(&c, "n1", out, sizeof(out)), 0);
	assert_string_equal(out, "/run/tracer/tracerd-n1.sock");

	/* Configured node name when no override. */
	strcpy(c.node_name, "cfgnode");
	assert_int_equal(config_socket_path(&c, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "/run/tracer/tracerd-cfgnode.sock");
	assert_int_equal(config_socket_path(&c, "", out, sizeof(out)), 0);
	assert_string_equal(out, "/run/tracer/tracerd-cfgnode.sock");
	assert_int_equal(config_socket_path(&c, "over", out, sizeof(out)), 0);
	assert_string_equal(out, "/run/tracer/tracerd-over.sock");

	/* Neither: the short host name. */
	c.node_name[0] = '\0';
	assert_int_equal(config_default_node(host, sizeof(host)), 0);
	snprintf(want, sizeof(want), "/run/tracer/tracerd-%s.sock", host);
	assert_int_equal(config_socket_path(&c, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, want);

	/* Errors leave out alone. */
	strcpy(small, "keep");
	assert_int_equal(config_socket_path(&c, "n1", small, sizeof(small)), -ENAMETOOLONG);
	assert_string_equal(small, "keep");
	strcpy(out, "keep");
	assert_int_equal(config_socket_path(&c, "../etc", out, sizeof(out)), -EINVAL);
	assert_int_equal(config_socket_path(&c, "a b", out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "keep");
	/* Longer than a unix socket address can hold, whatever the buffer size. */
	memset(c.socket_dir, 'd', 100);
	c.socket_dir[0] = '/';
	c.socket_dir[100] = '\0';
	{
		char huge[PATH_MAX];
		assert_int_equal(config_socket_path(&c, "n1", huge, sizeof(huge)), -ENAMETOOLONG);
	}
}

/* Every key is documented where admins look: the sample tracer.conf (commented, "#Key =") and
 * tracer.conf(5) (".BI Key"). The sample, every line uncommented, is a valid file. */
static char *slurp(const char *rel)
{
	static char path[PATH_MAX];
	char *buf = calloc(1, 1 << 20);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", srcdir(), rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_every_key_documented(void **state)
{
	char *sample = slurp("etc/tracer.conf"), *man = slurp("man/tracer.conf.5"), *text, *p;
	char want[96];
	struct tracer_config c;
	const char *k;
	size_t i;
	(void)state;

	for (i = 0; (k = config_key_name(i)); i++) {
		snprintf(want, sizeof(want), "\n#%s =", k);
		if (!strstr(sample, want))
			fail_msg("%s is not in etc/tracer.conf", k);
		snprintf(want, sizeof(want), "\n.BI %s ", k);
		if (!strstr(man, want))
			fail_msg("%s is not in tracer.conf(5)", k);
	}
	assert_true(i > 20);
	/* uncommented, the sample's settings are all valid (empty values left out) */
	text = calloc(1, strlen(sample) + 1);
	assert_non_null(text);
	for (p = sample; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		size_t len = strcspn(p, "\n");

		if (p[0] == '#' && p[1] >= 'A' && p[1] <= 'Z' && p[len - 1] != '=' &&
		    p[len - 1] != ' ')
			strncat(text, p + 1, len - 1), strcat(text, "\n");
	}
	config_defaults(&c);
	if (config_parse(text, strlen(text), "sample", &c, err, sizeof(err)) != 0)
		fail_msg("the sample tracer.conf, uncommented: %s", err);
	free(text);
	free(sample);
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_empty_and_comments_give_defaults),
		cmocka_unit_test(test_parse_starts_from_defaults),
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_node_ports),
		cmocka_unit_test(test_keys_case_insensitive),
		cmocka_unit_test(test_spacing_and_comments),
		cmocka_unit_test(test_quoted_values),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_metrics_listen),
		cmocka_unit_test(test_nice),
		cmocka_unit_test(test_max_clients),
		cmocka_unit_test(test_client_limits),
		cmocka_unit_test(test_log_levels),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_error_unknown_key),
		cmocka_unit_test(test_error_missing_equals),
		cmocka_unit_test(test_error_bad_value_line),
		cmocka_unit_test(test_error_duplicate),
		cmocka_unit_test(test_error_line_too_long),
		cmocka_unit_test(test_error_nul_byte),
		cmocka_unit_test(test_error_first_error_wins_and_untouched),
		cmocka_unit_test(test_error_buffer_handling),
		cmocka_unit_test_setup_teardown(test_load_file, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_load_missing, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_load_not_regular_and_too_big, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_load_unreadable, setup_tmp, teardown_tmp),
		cmocka_unit_test(test_default_node),
		cmocka_unit_test(test_socket_path),
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_socket_node),
		cmocka_unit_test(test_load_client),
		cmocka_unit_test(test_every_key_documented),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
