/* Command-line words for the correlate library: argv as tracer stores it (NUL-separated) or
 * one line of shell text, as a bounded array of (pointer, length) views. Internal header. */
#ifndef TRACER_CORRELATE_WORDS_H
#define TRACER_CORRELATE_WORDS_H

#include <stddef.h>

#define WORDS_MAX 256	  /* words kept from one command line; the rest is ignored */
#define WORD_NAME_MAX 256 /* longest word copied out to match a name or glob against */

struct word {
	const char *s; /* not NUL-terminated */
	size_t len;
};

struct words {
	struct word w[WORDS_MAX];
	size_t n;
};

/* Split len bytes of NUL-separated arguments into ws (no trailing NUL needed; an empty
 * argument between two NULs is kept as an empty word). Never fails: extra words are dropped. */
void words_from_argv(struct words *ws, const char *argv, size_t len);

/* Split one line of shell text into words the way sh would (blanks and the operators
 * ; & | < > ( ) separate; '...' literal; "..." and backslash escapes; no expansion). The
 * unquoted bytes are written to buf, which the words point into. Stops after an unquoted
 * newline, or at a '#' that starts a word (a comment). Returns the number of bytes of text
 * consumed (the newline included): words that do not fit in buf or ws are dropped. */
size_t words_from_shell(struct words *ws, const char *text, size_t len, char *buf, size_t buflen);

/* Replace the count words at index at by the words of src (bounded by WORDS_MAX). */
void words_splice(struct words *ws, size_t at, size_t count, const struct words *src);

int word_eq(struct word w, const char *s);
int word_has_prefix(struct word w, const char *prefix);

/* The part after the last '/' (the whole word when that part is empty). */
struct word word_basename(struct word w);

/* Copy w into buf (size WORD_NAME_MAX or more), NUL-terminated; returns buf. Control
 * characters become '?', and an over-long word is cut. */
char *word_copy(struct word w, char *buf, size_t size);

/* fnmatch(3) of a glob against a word; globs without wildcards compare exactly. */
int glob_match(const char *glob, struct word w);

/* Copy a word or C string into a fixed-size output field, cut to fit, control characters
 * replaced by '?'. */
void field_set(char *dst, size_t size, const char *s, size_t len);

#endif
