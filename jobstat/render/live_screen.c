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
	t->nin = 0;
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

/* the first key of the bytes read, taken from t->in: a byte, or an escape sequence's key
 * (arrows, pages, home and end; 0 for one not used here), a lone ESC */
static int take_key(struct live_term *t)
{
	const unsigned char *b = t->in;
	size_t used = 1;
	int k = b[0];

	if (b[0] == 0x1b && t->nin == 1) {
		k = KEY_ESC;
	} else if (b[0] == 0x1b && (b[1] == '[' || b[1] == 'O')) {
		/* CSI or SS3: up to its final byte */
		for (used = 2; used < t->nin && (b[used] < 0x40 || b[used] > 0x7e); used++)
			;
		used = used < t->nin ? used + 1 : t->nin;
		switch (b[2]) {
		case 'A':
			k = KEY_UP;
			break;
		case 'B':
			k = KEY_DOWN;
			break;
		case 'H':
		case '1':
			k = KEY_HOME;
			break;
		case 'F':
		case '4':
			k = KEY_END;
			break;
		case '5':
			k = KEY_PGUP;
			break;
		case '6':
			k = KEY_PGDN;
			break;
		default:
			k = 0;
			break;
		}
	} else if (b[0] == 0x1b) {
		k = KEY_ESC; /* ESC and a key typed after it: the ESC alone */
	}
	memmove(t->in, t->in + used, t->nin - used);
	t->nin -= used;
	return k;
}

int live_term_key(struct live_term *t, int timeout_ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	ssize_t n;
	int r;

	if (quit_asked || resized)
		return -EINTR;
	if (t->nin)
		return take_key(t);
	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
		quit_asked = 1; /* the terminal went away */
		return -EINTR;
	}
	n = read(STDIN_FILENO, t->in, sizeof(t->in));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		quit_asked = 1;
		return -EINTR;
	}
	t->nin = (size_t)n;
	return take_key(t);
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
