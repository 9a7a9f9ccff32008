/* libFuzzer target: arbitrary bytes as tracer.conf text. Besides "no crash", checks the parser's
 * promises: a success yields only in-range settings, a failure leaves *cfg untouched and says
 * "name:line: ...". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static int name_ok(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracer_config cfg, before;
	char err[256], path[128];
	int ret;

	memset(&cfg, 0x5c, sizeof(cfg));
	before = cfg;
	err[0] = '\0';
	ret = config_parse((const char *)data, size, "fuzz.conf", &cfg, err, sizeof(err));
	if (ret == 0) {
		if (!name_ok(cfg.node_name, sizeof(cfg.node_name)) ||
		    !name_ok(cfg.slurm_user, sizeof(cfg.slurm_user)) || !cfg.slurm_user[0])
			abort();
		if (cfg.socket_dir[0] != '/' || cfg.state_dir[0] != '/' ||
		    strnlen(cfg.socket_dir, sizeof(cfg.socket_dir)) == sizeof(cfg.socket_dir) ||
		    strnlen(cfg.state_dir, sizeof(cfg.state_dir)) == sizeof(cfg.state_dir))
			abort();
		if (cfg.sample_interval_ms != 0 &&
		    (cfg.sample_interval_ms < 100 || cfg.sample_interval_ms > 86400000))
			abort();
		if (cfg.commit_interval_ms < 10 || cfg.commit_interval_ms > 60000)
			abort();
		if (cfg.ring_buffer_bytes < 65536 || cfg.ring_buffer_bytes > (1u << 30) ||
		    (cfg.ring_buffer_bytes & (cfg.ring_buffer_bytes - 1)))
			abort();
		if (cfg.max_clients < 1 || cfg.max_clients > 4096)
			abort();
		if ((int)cfg.log_level < LOG_LEVEL_ERROR || cfg.log_level > LOG_LEVEL_DEBUG)
			abort();
		/* Whatever was configured must give a socket path or a clean error. */
		if (config_socket_path(&cfg, NULL, path, sizeof(path)) == 0 && path[0] != '/')
			abort();
	} else {
		if (ret != -22 /* -EINVAL */ || memcmp(&cfg, &before, sizeof(cfg)) != 0 ||
		    strncmp(err, "fuzz.conf:", 10) != 0 || strchr(err, '\n'))
			abort();
	}
	return 0;
}
