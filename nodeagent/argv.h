/* Command lines as tracer keeps them: NUL-separated arguments with secrets masked. */
#ifndef TRACER_ARGV_H
#define TRACER_ARGV_H

#include <stddef.h>

#define ARGV_MASK "***"

/* Copy argv (len bytes, NUL-separated, no trailing NUL needed) into a new buffer with the
 * values of secret-looking arguments replaced by ARGV_MASK: `--password=x`, `token=x`,
 * `--api-key x`, `https://user:pass@host`. Returns 0 and *out (caller frees, NUL-terminated,
 * *outlen excludes the final NUL) or -ENOMEM. */
int argv_redact(const char *argv, size_t len, char **out, size_t *outlen);

/* Is this argument (or option name) one whose value is a secret? */
int argv_is_secret_name(const char *arg, size_t len);

#endif
