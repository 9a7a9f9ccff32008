/* --live's terminal, plain ANSI over termios: the alternate screen with the cursor hidden and
 * keys read one by one while the view runs, all of it restored when it ends — on q, on
 * SIGINT, SIGTERM or SIGHUP, on an error, and at exit. SIGWINCH says the size changed. */
#ifndef JOBSTAT_LIVE_SCREEN_H
#define JOBSTAT_LIVE_SCREEN_H

#include <stddef.h>

/* keys beyond bytes */
enum { KEY_UP = 0x1000, KEY_DOWN, KEY_PGUP, KEY_PGDN, KEY_HOME, KEY_END, KEY_ESC };

struct live_term {
	int fd; /* the terminal (stdout) */
	int rows, cols;
	unsigned char in[64]; /* bytes read and not taken as keys yet (a paste, a sequence) */
	size_t nin;
};

/* Take the terminal (fd: stdin and stdout's). 0, or -errno (nothing changed then). */
int live_term_init(struct live_term *t);
/* Give it back as it was: the screen, cursor and modes. Safe to call twice. */
void live_term_fini(struct live_term *t);
/* Read the size into t; 1 when it changed since (SIGWINCH), else 0. */
int live_term_size(struct live_term *t);
/* A key within timeout_ms: the byte, a KEY_*, 0 on none; -EINTR when a signal asked to quit
 * or the size changed (check live_term_quit). */
int live_term_key(struct live_term *t, int timeout_ms);
/* Did SIGINT, SIGTERM or SIGHUP arrive? */
int live_term_quit(void);
/* Write the frame's bytes whole. 0 or -errno. */
int live_term_write(struct live_term *t, const char *buf, size_t len);

#endif
