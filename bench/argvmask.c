/* The cost of masking one exec's arguments (argv_redact), as tracerd pays it for every process
 * it records: two 4000-byte arguments, as tests/integration/progs/storm.c passes them, N times.
 * Prints microseconds per argv. Linked against a build's libtracer-agent.a (bench/argvmask). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int argv_redact(const char *argv, size_t len, char **out, size_t *outlen);

#define ARG_BYTES 4000

int main(int argc, char **argv)
{
	static char buf[2 * ARG_BYTES + 16];
	int i, n = argc > 1 ? atoi(argv[1]) : 1000;
	size_t len = sizeof("true"), outlen;
	struct timespec a, b;
	char *out;

	memcpy(buf, "true", len);
	memset(buf + len, 'a', ARG_BYTES - 1);
	len += ARG_BYTES;
	memset(buf + len, 'b', ARG_BYTES - 1);
	len += ARG_BYTES;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		out = NULL;
		if (argv_redact(buf, len, &out, &outlen) < 0)
			return 1;
		free(out);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1000);
	return 0;
}
