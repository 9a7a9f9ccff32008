/* Text that others wrote (process names and arguments, run and job names, a daemon's messages)
 * made safe to print on a terminal, in a table, in -P output or in JSON: the one escaping that
 * tracer's clients use for every string they show.
 *
 * Kept as they are: printable ASCII and valid UTF-8. Escaped visibly: C0 controls and DEL
 * (tab and newline too: a value never breaks a line) and every byte of invalid UTF-8 (overlong
 * forms, surrogates, beyond U+10FFFF, a cut sequence, and so the raw C1 bytes 0x80-0x9f) as
 * "\xHH"; the C1 controls encoded in UTF-8 (U+0080-U+009F), the bidi overrides, embeddings and
 * isolates (U+202A-U+202E, U+2066-U+2069), the directional marks (U+200E, U+200F, U+061C),
 * the line and paragraph separators (U+2028, U+2029) and the characters that show as nothing
 * (U+200B-U+200D, U+2060-U+2064, U+FEFF) as "\uHHHH"; the tag characters (U+E0000-U+E007F)
 * as "\U000HHHHH" (8 hex digits, never read as a 4-digit escape and a digit). A backslash is
 * kept: the result only needs to be harmless, and escaping the result again changes nothing.
 * The escaped text is at most 4 bytes per byte in. */
#ifndef TRACER_SAFETEXT_H
#define TRACER_SAFETEXT_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

/* Escape the n bytes at s into out (len bytes, NUL-terminated when len > 0). What does not fit
 * is left out whole: never half an escape or half a character. Returns the length written. */
size_t safe_text(char *out, size_t len, const char *s, size_t n);
/* The same, with the bytes of s escaped (not left out) in *read. */
size_t safe_text_cut(char *out, size_t len, const char *s, size_t n, size_t *read);
/* The same for a NUL-terminated string in a buffer of len bytes, in place. */
void safe_text_inplace(char *buf, size_t len);
/* Write s escaped to f, however long. */
void safe_text_fputs(const char *s, FILE *f);
/* fmt's message (at most 1 KiB) on f, escaped as safe_text_fputs does, and a newline: for
 * messages that carry what a user, a job or Slurm chose. */
void safe_text_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void safe_text_vfprintf(FILE *f, const char *fmt, va_list ap);
/* Escape every string value and key of a JSON document in place, so that what json-c writes
 * is valid UTF-8 with nothing a terminal acts on. Returns 0 or -ENOMEM. */
int safe_text_json(struct json_object *o);

/* The length of the valid UTF-8 character at s (n bytes left) and its code point in *cp; 0 when
 * there is none (n is 0, a stray or cut byte, an overlong form, a surrogate, beyond U+10FFFF).
 * The one UTF-8 decoder: what counts as valid here counts as valid everywhere. */
size_t safe_text_char(const char *s, size_t n, uint32_t *cp);

/* For aligned columns of escaped (valid UTF-8) text: the terminal columns s takes (2 for East
 * Asian wide and fullwidth characters and emoji, none for combining marks), and the bytes of
 * its longest prefix of at most cols columns (its columns in *width unless NULL). */
size_t safe_text_width(const char *s);
size_t safe_text_prefix(const char *s, size_t cols, size_t *width);

#endif
