/* Render: --live's terminal. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "live_screen.h"

#define ENTER_SCREEN "\033[?1049h\033[?25l\033[H\033[2J"
#define LEAVE_SCREEN "\033[0m\033[?25h\033[?1049l"

static volatile sig_atomic_t quit_asked, resized;
/* what to restore, for the signal and exit paths too */
static struct termios saved;
static int saved_fd = -1;
static struct sigaction old_int, old_term, old_hup, old_winch;

static void on_quit(int sig)
{
	(void)sig;
	quit_asked = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void restore(void)
{
	if (saved_fd < 0)
		return;
	write_all(saved_fd, LEAVE_SCREEN, strlen(LEAVE_SCREEN));
	tcsetattr(saved_fd, TCSAFLUSH, &saved);
	saved_fd = -1;
}

int live_term_init(struct live_term *t)
{
	static int registered;
	struct sigaction sa = { 0 };
	struct termios raw;

	t->fd = STDOUT_FILENO;
	if (tcgetattr(t->fd, &saved) < 0)
		return -errno;
	raw = saved;
	/* bytes as typed, no echo; ^C still a SIGINT (restored by its handler's path), ^Z off:
	 * a stopped view would leave the screen taken */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
	raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	raw.c_cc[VSUSP] = _POSIX_VDISABLE;
	if (tcsetattr(t->fd, TCSAFLUSH, &raw) < 0)
		return -errno;
	saved_fd = t->fd;
	if (!registered && atexit(restore) == 0)
		registered = 1;
	sa.sa_handler = on_quit;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, &old_winch);
	write_all(t->fd, ENTER_SCREEN, strlen(ENTER_SCREEN));
	live_term_size(t);
	return 0;
}

void live_term_fini(struct live_term *t)
{
	(void)t;
	if (saved_fd < 0)
		return;
	restore();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGWINCH, &old_winch, NULL);
}

int live_term_size(struct live_term *t)
{
	struct winsize ws;
	int was = resized;

	resized = 0;
	if (ioctl(t->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col;
	} else {
		t->rows = 24;
		t->cols = 80;
	}
	return was;
}

int live_term_quit(void)
{
	return quit_asked;
}

/* an escape sequence's key: arrows, pages, home and end; a lone ESC */
static int escape_key(const unsigned char *b, ssize_t n)
{
	if (n == 1)
		return KEY_ESC;
	if (n >= 3 && (b[1] == '[' || b[1] == 'O')) {
		switch (b[2]) {
		case 'A':
			return KEY_UP;
		case 'B':
			return KEY_DOWN;
		case 'H':
			return KEY_HOME;
		case 'F':
			return KEY_END;
		case '5':
			return KEY_PGUP;
		case '6':
			return KEY_PGDN;
		default:
			break;
		}
	}
	return 0; /* one not used here */
}

int live_term_key(struct live_term *t, int timeout_ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char b[16];
	ssize_t n;
	int r;

	(void)t;
	if (quit_asked || resized)
		return -EINTR;
	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
		quit_asked = 1; /* the terminal went away */
		return -EINTR;
	}
	n = read(STDIN_FILENO, b, sizeof(b));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		quit_asked = 1;
		return -EINTR;
	}
	return b[0] == 0x1b ? escape_key(b, n) : b[0];
}

int live_term_write(struct live_term *t, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(t->fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}
