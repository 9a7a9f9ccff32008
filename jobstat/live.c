/* --live: each refresh collects, builds the tree and draws it; keys change the view between
 * refreshes. What the refresh writes on stderr (collect's warnings) is kept out of the screen:
 * its first line shows in the status line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "live_draw.h"
#include "live_fetch.h"
#include "live_screen.h"

#define NS ((int64_t)1000000000)

struct live {
	const struct opts *o;
	const struct ident *id;
	struct daemons *d;
	struct live_history hist;
	struct report rep;
	struct live_tree tree, prev;
	struct live_view view;
	size_t *idx, n, cursor, top;
	double took_ms;
	char status[512];
	int err_fd, saved_err; /* stderr while the screen is up */
};

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

/* the nodes that did not answer, and stderr's first line of this refresh */
static void status_of(struct live *l)
{
	size_t at = 0;

	l->status[0] = 0;
	for (size_t i = 0; i < l->d->n && at + 80 < sizeof(l->status); i++)
		if (l->d->nodes[i].failed)
			at += (size_t)snprintf(l->status + at, sizeof(l->status) - at, "%s%s",
					       at ? "," : "no answer from ", l->d->nodes[i].name);
	if (l->err_fd >= 0) {
		char buf[256];
		ssize_t n = pread(l->err_fd, buf, sizeof(buf) - 1, 0);

		if (n > 0) {
			buf[n] = 0;
			buf[strcspn(buf, "\n")] = 0;
			snprintf(l->status + at, sizeof(l->status) - at, "%s%s", at ? "  " : "",
				 buf);
		}
		if (ftruncate(l->err_fd, 0) == 0)
			lseek(l->err_fd, 0, SEEK_SET);
	}
}

/* one refresh: collect, the tree, its rates against the last one */
static int refresh(struct live *l)
{
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	struct live_tree t;

	report_free(&l->rep);
	memset(&l->rep, 0, sizeof(l->rep));
	if (live_fetch(l->o, l->id, l->d, &l->hist, &l->rep) < 0)
		return -1;
	if (live_tree_build(&l->rep, clock_ns(CLOCK_REALTIME), &t) < 0)
		return -ENOMEM;
	live_tree_rates(&t, l->tree.n ? &l->tree : NULL);
	live_tree_free(&l->prev);
	l->prev = l->tree;
	l->tree = t;
	free(l->idx);
	if (!(l->idx = malloc((t.n + 1) * sizeof(*l->idx))))
		return -ENOMEM;
	l->took_ms = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	status_of(l);
	return 0;
}

/* the rows shown; the selection stays on its row's key */
static void layout(struct live *l, int body)
{
	l->n = live_tree_visible(&l->tree, &l->view, l->idx);
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->tree.rows[l->idx[i]].key, l->view.cursor) == 0)
			l->cursor = i;
	if (l->cursor >= l->n)
		l->cursor = l->n ? l->n - 1 : 0;
	if (l->n)
		snprintf(l->view.cursor, sizeof(l->view.cursor), "%s",
			 l->tree.rows[l->idx[l->cursor]].key);
	if (l->cursor < l->top)
		l->top = l->cursor;
	if (l->cursor >= l->top + (size_t)body)
		l->top = l->cursor - (size_t)body + 1;
}

static int draw(struct live *l, struct live_term *term, int paused, int help, const char *prompt)
{
	struct live_frame f = { .t = &l->tree,
				.v = &l->view,
				.rows = term->rows,
				.cols = term->cols,
				.paused = paused,
				.help = help,
				.colour = 1,
				.prompt = prompt,
				.status = l->status,
				.took_ms = l->took_ms,
				.refresh_ms = l->o->refresh_ns / 1000000 };
	char *buf;
	size_t len;
	int err;

	layout(l, live_draw_body_rows(term->rows));
	f.idx = l->idx;
	f.n = l->n;
	f.cursor = l->cursor;
	f.top = l->top;
	if ((err = live_draw(&f, &buf, &len)) < 0)
		return err;
	err = live_term_write(term, buf, len);
	free(buf);
	return err;
}

static void move(struct live *l, long by)
{
	long c = (long)l->cursor + by;

	c = c < 0 ? 0 : c >= (long)l->n ? (long)l->n - 1 : c;
	if (c < 0)
		return;
	l->cursor = (size_t)c;
	snprintf(l->view.cursor, sizeof(l->view.cursor), "%s", l->tree.rows[l->idx[c]].key);
}

/* a key typed into the filter prompt; returns 1 when the prompt ends */
static int prompt_key(struct live *l, char *typed, size_t len, int k)
{
	size_t n = strlen(typed);

	if (k == '\r' || k == '\n') {
		snprintf(l->view.filter, sizeof(l->view.filter), "%s", typed);
		return 1;
	}
	if (k == KEY_ESC) {
		l->view.filter[0] = 0;
		return 1;
	}
	if ((k == 0x7f || k == 0x08) && n)
		typed[n - 1] = 0;
	else if (k >= 0x20 && k < 0x7f && n + 1 < len)
		typed[n] = (char)k, typed[n + 1] = 0;
	return 0;
}

/* the screen's loop: 0 on q or a signal, < 0 on an error */
static int screen_loop(struct live *l, struct live_term *term)
{
	int64_t next = 0, period = l->o->refresh_ns;
	int paused = 0, help = 0, err = 0, body;
	char typed[128] = "";
	int prompting = 0;

	while (!live_term_quit()) {
		int64_t now = clock_ns(CLOCK_MONOTONIC);
		int k;

		if (!paused && now >= next) {
			if ((err = refresh(l)) < 0)
				return err;
			next = now + period;
		}
		if ((err = draw(l, term, paused, help, prompting ? typed : NULL)) < 0)
			return err;
		now = clock_ns(CLOCK_MONOTONIC);
		k = live_term_key(term,
				  paused ? 1000 : (int)((next > now ? next - now : 0) / 1000000));
		if (k == -EINTR) {
			live_term_size(term);
			continue;
		}
		if (k < 0)
			return k;
		body = live_draw_body_rows(term->rows);
		if (prompting) {
			prompting = !prompt_key(l, typed, sizeof(typed), k);
			continue;
		}
		if (help && k) {
			help = 0;
			continue;
		}
		switch (k) {
		case 'q':
		case 'Q':
			return 0;
		case 's':
			l->view.sort = (l->view.sort + 1) % LS_COUNT;
			break;
		case 'p':
			paused = !paused;
			next = 0;
			break;
		case '?':
		case 'h':
			help = 1;
			break;
		case '/':
			prompting = 1;
			snprintf(typed, sizeof(typed), "%s", l->view.filter);
			break;
		case '\r':
		case '\n':
		case ' ':
		case '+':
		case '-':
			if (l->n &&
			    live_view_toggle(&l->view, l->tree.rows[l->idx[l->cursor]].key) < 0)
				return -ENOMEM;
			break;
		case KEY_UP:
		case 'k':
			move(l, -1);
			break;
		case KEY_DOWN:
		case 'j':
			move(l, 1);
			break;
		case KEY_PGUP:
			move(l, -body);
			break;
		case KEY_PGDN:
			move(l, body);
			break;
		case KEY_HOME:
			move(l, -(long)l->n);
			break;
		case KEY_END:
			move(l, (long)l->n);
			break;
		default:
			break;
		}
	}
	return 0;
}

/* stderr into a file of its own while the screen is up */
static void stderr_aside(struct live *l)
{
	l->err_fd = memfd_create("tracer-jobstat-stderr", MFD_CLOEXEC);
	l->saved_err = l->err_fd >= 0 ? dup(STDERR_FILENO) : -1;
	if (l->saved_err < 0 || dup2(l->err_fd, STDERR_FILENO) < 0) {
		if (l->err_fd >= 0)
			close(l->err_fd);
		if (l->saved_err >= 0)
			close(l->saved_err);
		l->err_fd = l->saved_err = -1;
	}
}

static void stderr_back(struct live *l)
{
	char buf[4096];
	ssize_t n;

	if (l->saved_err < 0)
		return;
	fflush(stderr);
	dup2(l->saved_err, STDERR_FILENO);
	/* what the last refresh said, when the view ends on it */
	if ((n = pread(l->err_fd, buf, sizeof(buf), 0)) > 0)
		fwrite(buf, 1, (size_t)n, stderr);
	close(l->saved_err);
	close(l->err_fd);
	l->err_fd = l->saved_err = -1;
}

/* not a terminal: one snapshot, every row open */
static int snapshot(struct live *l)
{
	if (refresh(l) < 0)
		return 1;
	l->view.all_open = 1; /* what a script reads is whole: no tool folded */
	l->n = live_tree_visible(&l->tree, &l->view, l->idx);
	if (live_snapshot(stdout, &l->tree, l->idx, l->n, l->o->parsable != P_NONE, l->o->delim,
			  l->o->noheader, l->o->json) < 0) {
		fprintf(stderr, JS_PROG ": out of memory\n");
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

int live_run(const struct opts *o, const struct ident *id, struct daemons *d)
{
	struct live l = { .o = o, .id = id, .d = d, .err_fd = -1, .saved_err = -1 };
	struct live_term term;
	int ret, err;

	d->quiet = 1;
	d->timeout_ms = LIVE_NODE_TIMEOUT_MS;
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		ret = snapshot(&l);
		goto out;
	}
	if ((err = live_term_init(&term)) < 0) {
		fprintf(stderr, JS_PROG ": cannot set up the terminal: %s\n", strerror(-err));
		ret = 1;
		goto out;
	}
	stderr_aside(&l);
	err = screen_loop(&l, &term);
	stderr_back(&l);
	live_term_fini(&term);
	if (err < 0 && err != -1)
		fprintf(stderr, JS_PROG ": --live: %s\n", strerror(-err));
	ret = err < 0 ? 1 : 0;
out:
	free(l.idx);
	live_tree_free(&l.tree);
	live_tree_free(&l.prev);
	live_view_free(&l.view);
	report_free(&l.rep);
	live_history_free(&l.hist);
	return ret;
}
