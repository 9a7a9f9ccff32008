/* Secret masking for command lines: metadata only, never credentials. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "argv.h"

static const char *const secret_words[] = {
        "password", "passwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key",
        "access_key", "access-key", "private_key", "private-key", "credential", "auth", "pwd",
};

int argv_is_secret_name(const char *arg, size_t len)
{
        size_t i, w, wl;

        for (i = 0; i < sizeof(secret_words) / sizeof(*secret_words); i++) {
                wl = strlen(secret_words[i]);
                for (w = 0; w + wl <= len; w++)
                        if (strncasecmp(arg + w, secret_words[i], wl) == 0)
                                return 1;
        }
        return 0;
}

/* Is this argument an option (starts with '-') naming a secret, with no '=value'? */
static int is_secret_flag(const char *arg, size_t len)
{
        return len > 1 && arg[0] == '-' && !memchr(arg, '=', len) && argv_is_secret_name(arg, len);
}

/* The '=' that starts a secret value: the first one after the first secret word (so the key
 * before it looks secret, as in `token=x` or `--conf=a.password=x`), or NULL. */
static const char *secret_eq(const char *arg, size_t len)
{
        size_t i, w, wl, end = 0;

        for (i = 0; i < sizeof(secret_words) / sizeof(*secret_words); i++) {
                wl = strlen(secret_words[i]);
                for (w = 0; w + wl <= len && (!end || w + wl < end); w++) {
                        if (strncasecmp(arg + w, secret_words[i], wl) == 0) {
                                end = w + wl;
                                break;
                        }
                }
        }
        return end ? memchr(arg + end, '=', len - end) : NULL;
}

static void append(char *dst, size_t *at, const char *src, size_t n)
{
        memcpy(dst + *at, src, n);
        *at += n;
}

/* Mask "scheme://user:PASS@host": only the password part. */
static int url_password(const char *arg, size_t len, size_t *from, size_t *to)
{
        const char *scheme = memmem(arg, len, "://", 3), *at, *colon;
        size_t start;

        if (!scheme)
                return 0;
        start = scheme + 3 - arg;
        at = memchr(arg + start, '@', len - start);
        if (!at)
                return 0;
        colon = memchr(arg + start, ':', at - (arg + start));
        if (!colon || memchr(arg + start, '/', at - (arg + start)))
                return 0;
        *from = colon + 1 - arg;
        *to = at - arg;
        return *to > *from;
}

int argv_redact(const char *argv, size_t len, char **out, size_t *outlen)
{
        size_t at = 0, pos = 0, from, to;
        int mask_next = 0;
        char *dst;

        /* masking grows an argument by at most two ARGV_MASK (URL password and value) */
        dst = malloc(len + len / 2 * sizeof(ARGV_MASK) + sizeof(ARGV_MASK) + 1);
        if (!dst)
                return -ENOMEM;
        while (pos < len) {
                const char *arg = argv + pos;
                size_t alen = strnlen(arg, len - pos);
                const char *eq = secret_eq(arg, alen);
                size_t keep = eq ? (size_t)(eq - arg) + 1 : alen; /* shown, less URL passwords */

                if (pos)
                        dst[at++] = 0;
                if (mask_next && alen) {
                        append(dst, &at, ARGV_MASK, strlen(ARGV_MASK));
                        mask_next = 0;
                } else {
                        if (url_password(arg, keep, &from, &to)) {
                                append(dst, &at, arg, from);
                                append(dst, &at, ARGV_MASK, strlen(ARGV_MASK));
                                append(dst, &at, arg + to, keep - to);
                        } else {
                                append(dst, &at, arg, keep);
                        }
                        if (eq)
                                append(dst, &at, ARGV_MASK, strlen(ARGV_MASK));
                        mask_next = !eq && is_secret_flag(arg, alen);
                }
                pos += alen + 1;
        }
        dst[at] = 0;
        *out = dst;
        *outlen = at;
        return 0;
}
