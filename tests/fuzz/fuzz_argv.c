/* libFuzzer target: arbitrary bytes as a NUL-separated command line to mask. Besides "no crash",
 * checks the masker's promises: the output is NUL-terminated, within the size it allocated
 * for, and has as many arguments as the input (less a trailing empty one). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"

/* Arguments in the input: a trailing NUL ends the last one (as in /proc/PID/cmdline). */
static size_t args_in(const char *s, size_t len)
{
        size_t n = 1, i;

        if (len == 0 || (len == 1 && !s[0]))
                return 0;
        for (i = 0; i < len; i++)
                n += !s[i];
        return n - !s[len - 1];
}

/* Arguments in the output: NUL-separated, no terminator of its own. */
static size_t args_out(const char *s, size_t len)
{
        size_t n = 1, i;

        if (len == 0)
                return 0;
        for (i = 0; i < len; i++)
                n += !s[i];
        return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *in = malloc(size ? size : 1), *out = NULL;
        size_t outlen = 0;

        if (!in)
                return 0;
        memcpy(in, data, size);
        if (argv_redact(in, size, &out, &outlen) == 0) {
                if (out[outlen] != 0 || outlen > size + size / 2 * sizeof(ARGV_MASK) + sizeof(ARGV_MASK))
                        abort();
                /* one empty argument and none read the same */
                if (args_out(out, outlen) != args_in(in, size) && !(args_in(in, size) == 1 && outlen == 0))
                        abort();
                free(out);
        }
        free(in);
        return 0;
}
