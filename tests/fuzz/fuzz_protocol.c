/* libFuzzer target: bytes arriving on a control connection. They are fed to the line reader in
 * chunk sizes drawn from the input itself, every complete line goes through
 * proto_parse_request and the typed getters, and accepted requests are re-serialised. Checks
 * the framer's promises along the way (no line over TRACER_MSG_MAX, nothing invented). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* Input layout: byte 0 seeds the chunk sizes (and, with its top bit set, a small per-reader
 * line limit of 1..64); the rest is the stream. If byte 1 >= 0xf0, the
 * stream is rest + filler + rest, where the filler is TRACER_MSG_MAX - 8 + (byte1 & 15) copies
 * of rest's first byte (never '\n'): small inputs thus probe the 64 KiB line limit from both
 * sides, and one filler line costs one parse, not thousands. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void use_request(struct json_object *o)
{
	static const char *const str_keys[] = { "op", "name", "user", "node", "cmd" };
	static const char *const int_keys[] = { "v", "job_id", "step_id", "pid", "uid" };
	char err[128];
	const char *s;
	int64_t x;
	size_t n;
	char *line;

	for (size_t i = 0; i < sizeof(str_keys) / sizeof(str_keys[0]); i++) {
		int ret = proto_get_string(o, str_keys[i], 256, &s, err, sizeof(err));
		if (ret == 0 && strlen(s) > 256)
			abort();
		if (ret != 0 && ret != -ENOENT && ret != -EINVAL)
			abort();
	}
	for (size_t i = 0; i < sizeof(int_keys) / sizeof(int_keys[0]); i++) {
		int ret = proto_get_int64(o, int_keys[i], -1, 4194304, &x, err, sizeof(err));
		if (ret == 0 && (x < -1 || x > 4194304))
			abort();
		if (ret != 0 && ret != -ENOENT && ret != -EINVAL)
			abort();
	}
	/* A serialised message is exactly one line. */
	line = proto_serialize(o, &n);
	if (line) {
		if (!n || line[n - 1] != '\n' || memchr(line, '\n', n - 1))
			abort();
		free(line);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct line_reader r;
	uint32_t seed;
	size_t total, fed = 0, taken = 0;
	char *stream;
	int failed = 0;

	if (size < 3)
		return 0;
	seed = 0x9e3779b9u ^ ((uint32_t)data[0] << 8 | data[0]);
	if (data[1] >= 0xf0) {
		size_t rest = size - 2, fill = TRACER_MSG_MAX - 8 + (data[1] & 0x0f);
		char c = data[2] == '\n' ? 'x' : (char)data[2];

		total = 2 * rest + fill;
		stream = malloc(total);
		if (!stream)
			return 0;
		memcpy(stream, data + 2, rest);
		memset(stream + rest, c, fill);
		memcpy(stream + rest + fill, data + 2, rest);
	} else {
		total = size - 2;
		stream = malloc(total);
		if (!stream)
			return 0;
		memcpy(stream, data + 2, total);
	}

	line_reader_init(&r);
	if (data[0] & 0x80) /* a per-reader limit, as clients set for long replies */
		r.max = 1 + (data[0] & 0x3f);
	while (fed < total && !failed) {
		/* Tiny, medium and large chunks, so every split point gets exercised. */
		uint32_t k = next_rand(&seed);
		size_t chunk = 1 + (k >> 8) % ((k & 3) == 0 ? 4 : (k & 3) == 3 ? 70000 : 256);
		char *line;
		size_t len;
		int ret;

		if (chunk > total - fed)
			chunk = total - fed;
		ret = line_reader_feed(&r, stream + fed, chunk);
		if (ret == -EMSGSIZE) {
			if (!r.overflow)
				abort();
			break;
		}
		if (ret < 0)
			abort();
		fed += chunk;
		while ((ret = line_reader_next(&r, &line, &len)) == 1) {
			struct json_object *o = NULL;
			char err[256];

			if (len > (r.max ? r.max : TRACER_MSG_MAX) || line[len] != '\0')
				abort();
			taken += len + 1;
			if (taken > fed)
				abort(); /* more bytes out than in */
			ret = proto_parse_request(line, len, &o, err, sizeof(err));
			if (ret == 0) {
				use_request(o);
				json_object_put(o);
			} else if ((ret != -EINVAL && ret != -EPROTO) || !err[0]) {
				abort();
			}
			free(line);
		}
		if (ret < 0)
			failed = 1;
	}
	line_reader_free(&r);
	free(stream);
	return 0;
}
