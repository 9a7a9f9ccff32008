/* libFuzzer target: secret masking of command lines (argv_redact), which every exec event and
 * every process found again after a restart goes through. Checks the promises around it: the
 * output is NUL-terminated at outlen, has as many arguments as the input, and each argument
 * is the input's own unless a mask was put into it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"

/* The next argument of buf[0..len) at *pos, as argv_redact splits them. */
static int next_arg(const char *buf, size_t len, size_t *pos, const char **arg, size_t *alen)
{
	if (*pos >= len)
		return 0;
	*arg = buf + *pos;
	*alen = strnlen(*arg, len - *pos);
	*pos += *alen + 1;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size ? size : 1), *out = NULL;
	size_t outlen = 0, ip = 0, op = 0, il, ol;
	const char *ia, *oa;

	if (!in)
		return 0;
	memcpy(in, data, size);
	if (argv_redact(in, size, &out, &outlen) != 0)
		abort();
	if (out[outlen] != 0)
		abort();
	/* The output's last argument ends at its final NUL: read it with that NUL, so that an
	 * empty last argument counts on both sides. */
	while (size && next_arg(in, size, &ip, &ia, &il)) {
		if (!next_arg(out, outlen + 1, &op, &oa, &ol))
			abort(); /* an argument went missing */
		if ((il != ol || memcmp(ia, oa, il) != 0) &&
		    !memmem(oa, ol, ARGV_MASK, strlen(ARGV_MASK)))
			abort(); /* changed, but not masked */
	}
	if (size && op < outlen + 1)
		abort(); /* an argument was made up */
	free(out);
	free(in);
	return 0;
}
