/* Render: --live's frames and its snapshot. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "format.h"
#include "jobstat.h"
#include "live_draw.h"
#include "safetext.h"

#define NS ((int64_t)1000000000)
#define HEADER_ROWS 3 /* title, status, column names */
#define SGR_DIM "\033[2m"
#define SGR_RED "\033[31m"
#define SGR_YELLOW "\033[33m"
#define SGR_REVERSE "\033[7m"
#define SGR_OFF "\033[0m"

enum { C_STATE, C_CPU, C_RSS, C_MEM, C_READ, C_WRITE, C_CPUW, C_IOW, C_ELAPSED, C_USUAL, C_N };
static const struct {
	const char *name;
	int width;
} cols[C_N] = {
	{ "State", 9 },	  { "CPU%", 6 },  { "RSS", 8 },	 { "Mem%", 5 },	    { "Read/s", 8 },
	{ "Write/s", 8 }, { "CPUw%", 6 }, { "IOw%", 5 }, { "Elapsed", 10 }, { "Usual", 9 }
};

/* a growing buffer: what a frame writes */
struct buf {
	char *p;
	size_t n, cap;
	int err;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *nv = realloc(b->p, cap);

		if (!nv) {
			b->err = -ENOMEM;
			return;
		}
		b->p = nv;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void puts_b(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* ---- cells */

static void percent(char *out, size_t len, double share)
{
	if (share < 0)
		snprintf(out, len, "%s", JS_UNKNOWN);
	else
		snprintf(out, len, "%.0f", share * 100);
}

static void size_kb(char *out, size_t len, int64_t kb)
{
	if (kb == JS_NONE || kb < 0)
		snprintf(out, len, "%s", JS_UNKNOWN);
	else
		fmt_size(out, len, (double)kb, U_K, -1, 0);
}

static void per_second(char *out, size_t len, double bytes)
{
	if (bytes < 0)
		snprintf(out, len, "%s", JS_UNKNOWN);
	else
		fmt_size(out, len, bytes, U_NONE, -1, 0);
}

/* what the row's State says: RUNNING, or how it ended */
static void state_of(const struct live_row *r, char *out, size_t len)
{
	int64_t s = r->exit_status;

	if (r->running)
		snprintf(out, len, "%s",
			 r->level == LV_PROC && r->stalled_since_ns != JS_NONE ? "STALLED"
									       : "RUNNING");
	else if (r->noom)
		snprintf(out, len, "OOM");
	else if (r->level != LV_PROC)
		snprintf(out, len, "%s", r->nfailed ? "FAILED" : r->nprocs ? "ENDED" : "");
	else if (s == JS_NONE)
		snprintf(out, len, "ENDED");
	else if (WIFSIGNALED((int)s))
		snprintf(out, len, "SIG%d", WTERMSIG((int)s));
	else
		snprintf(out, len, "EXIT %d", WEXITSTATUS((int)s));
}

static void cells_of(const struct live_row *r, int64_t now_ns, char c[C_N][32])
{
	int64_t end = r->running || r->end_ns == JS_NONE ? now_ns : r->end_ns;

	state_of(r, c[C_STATE], sizeof(c[0]));
	percent(c[C_CPU], sizeof(c[0]), r->cpu_share);
	size_kb(c[C_RSS], sizeof(c[0]), r->running ? r->rss_kb : JS_NONE);
	if (r->running && r->mem_kb > 0)
		snprintf(c[C_MEM], sizeof(c[0]), "%.0f",
			 100.0 * (double)r->rss_kb / (double)r->mem_kb);
	else
		snprintf(c[C_MEM], sizeof(c[0]), "%s", JS_UNKNOWN);
	per_second(c[C_READ], sizeof(c[0]), r->read_rate);
	per_second(c[C_WRITE], sizeof(c[0]), r->write_rate);
	percent(c[C_CPUW], sizeof(c[0]), r->cpu_wait_share);
	percent(c[C_IOW], sizeof(c[0]), r->iowait_share);
	fmt_elapsed(c[C_ELAPSED], sizeof(c[0]),
		    r->start_ns == JS_NONE || end < r->start_ns ? -1 : (end - r->start_ns) / NS);
	fmt_elapsed(c[C_USUAL], sizeof(c[0]), r->usual_ns == JS_NONE ? -1 : r->usual_ns / NS);
}

/* the flags: a stall under way, failures and OOM kills below it, slower than usual, nodes
 * that did not answer (raw: escaped where shown) */
static void flags_of(const struct live_tree *t, const struct live_row *r, char *out, size_t len)
{
	int64_t now_ns = t->now_ns;
	size_t at = 0;

#define ADD(...)                                                                       \
	do {                                                                           \
		int w_ = snprintf(out + at, len - at, __VA_ARGS__);                    \
		at = w_ < 0 ? at : at + (size_t)w_ >= len ? len - 1 : at + (size_t)w_; \
	} while (0)
	out[0] = 0;
	if (r->stalled_since_ns != JS_NONE && now_ns > r->stalled_since_ns)
		ADD("stalled %" PRId64 "s%s%s%s ", (int64_t)((now_ns - r->stalled_since_ns) / NS),
		    r->stall_reason[0] ? " (" : "", r->stall_reason, r->stall_reason[0] ? ")" : "");
	if (r->idle_since_ns != JS_NONE && now_ns > r->idle_since_ns)
		ADD("idle %" PRId64 "s ", (int64_t)((now_ns - r->idle_since_ns) / NS));
	if (r->noom)
		ADD("OOM-killed %" PRId64 " ", r->noom);
	if (r->level != LV_PROC && r->nfailed)
		ADD("failed %" PRId64 " ", r->nfailed);
	if (r->slower)
		ADD("slower than usual ");
	if (r->missing[0])
		ADD("no answer from %s ", r->missing);
	if (r->level == LV_PROC && r->node[0] && t->multinode)
		ADD("on %s", r->node);
#undef ADD
}

/* the name column: indented by depth, a fold mark, the name escaped */
static void name_of(const struct live_row *r, char *out, size_t len)
{
	char shown[1024];
	int ind = r->depth * 2;

	safe_text(shown, sizeof(shown), r->name, strlen(r->name));
	if (r->level == LV_PROC) { /* its pid first: the command may be cut */
		snprintf(out, len, "%*s  %" PRId64 " %s", ind, "", r->pid, shown);
		return;
	}
	snprintf(out, len, "%*s%s%s", ind, "",
		 r->level == LV_PROC		   ? "  "
		 : r->nprocs || r->level < LV_TOOL ? (r->open ? "- " : "+ ")
						   : "  ",
		 shown);
}

/* s (escaped text) in exactly w columns: cut, or padded */
static void fit(struct buf *b, const char *s, size_t w, int right)
{
	size_t width, bytes = safe_text_prefix(s, w, &width);

	for (size_t i = width; right && i < w; i++)
		put(b, " ", 1);
	put(b, s, bytes);
	for (size_t i = width; !right && i < w; i++)
		put(b, " ", 1);
}

#define SNAPSHOT_NAME_WIDTH 48

/* one line of columns into b: cut to total columns, or (total 0: the snapshot) with the name
 * in SNAPSHOT_NAME_WIDTH and the flags whole */
static void line(struct buf *b, const char *name, char c[C_N][32], const char *flags, int total)
{
	struct buf l = { 0 };
	int fixed = 0, namew = SNAPSHOT_NAME_WIDTH;

	for (int i = 0; i < C_N; i++)
		fixed += cols[i].width + 1;
	if (total > 0) {
		namew = total - fixed - 1;
		namew -= namew * 2 / 5; /* the rest for the flags */
		if (namew < 16)
			namew = 16;
	}
	fit(&l, name, (size_t)namew, 0);
	for (int i = 0; i < C_N; i++) {
		put(&l, " ", 1);
		fit(&l, c[i], (size_t)cols[i].width, i != C_STATE);
	}
	if (total <= 0) {
		put(&l, " ", 1);
		puts_b(&l, flags);
	} else if (total > namew + fixed + 1) {
		put(&l, " ", 1);
		fit(&l, flags, (size_t)(total - namew - fixed - 1), 0);
	}
	if (l.err) {
		b->err = l.err;
	} else if (l.p) {
		/* never wider than the terminal (a narrow one cuts the columns too) */
		size_t n = l.n;

		while (n && l.p[n - 1] == ' ')
			n--;
		l.p[n] = 0;
		put(b, l.p, total > 0 ? safe_text_prefix(l.p, (size_t)total, NULL) : n);
	}
	free(l.p);
}

static void header_cells(char c[C_N][32])
{
	for (int i = 0; i < C_N; i++)
		snprintf(c[i], sizeof(c[i]), "%s", cols[i].name);
}

/* ---- the frame */

int live_draw_body_rows(int rows)
{
	return rows > HEADER_ROWS + 1 ? rows - HEADER_ROWS - 1 : 1;
}

static void text_line(struct buf *b, int cols, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void text_line(struct buf *b, int cols, const char *fmt, ...)
{
	char raw[1024], shown[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	safe_text(shown, sizeof(shown), raw, strlen(raw));
	fit(b, shown, (size_t)cols, 0);
	puts_b(b, "\033[K\r\n");
}

static const char *const help[] = {
	"tracer-jobstat --live: keys",
	"  Up/Down, j/k, PgUp/PgDn, Home/End   move the selection",
	"  Enter, space, +/-                   open or fold the selected row",
	"  s                                   sort by start, CPU, RSS, I/O, name",
	"  /                                   filter by name, node or pid (Enter: keep, Esc: "
	"clear)",
	"  p                                   pause refreshing (again: go on)",
	"  ? or h                              this help (any key: back)",
	"  q                                   quit",
	"",
	"CPU%: share of the allocation's CPUs since the refresh before; CPUw%, IOw%: time waiting",
	"for a CPU and for I/O in that time; Mem%: resident memory against --mem; Usual: the "
	"step's",
	"median time over its earlier runs. Ended rows are dim, failures and OOM kills red,",
	"stalls yellow.",
};

int live_draw(const struct live_frame *f, char **out, size_t *len)
{
	struct buf b = { 0 };
	char c[C_N][32], name[1200], flags[512];
	int body = live_draw_body_rows(f->rows), cols = f->cols;

	puts_b(&b, "\033[H");
	text_line(&b, cols,
		  "tracer-jobstat --live  every %.1fs  refresh took %.0f ms  sort: %s%s%s%s",
		  (double)f->refresh_ms / 1000, f->took_ms, live_sort_name(f->v->sort),
		  f->v->filter[0] ? "  filter: " : "", f->v->filter, f->paused ? "  PAUSED" : "");
	if (f->prompt)
		text_line(&b, cols, "filter: %s_", f->prompt);
	else
		text_line(&b, cols, "%zu rows  %s", f->n,
			  f->status[0] ? f->status : "? help  q quit");
	header_cells(c);
	line(&b, "Name", c, "Flags", cols);
	puts_b(&b, "\033[K\r\n");
	for (int i = 0; i < body; i++) {
		size_t k = f->top + (size_t)i;
		const struct live_row *r;

		if (f->help) {
			if ((size_t)i < sizeof(help) / sizeof(*help))
				text_line(&b, cols, "%s", help[i]);
			else
				puts_b(&b, "\033[K\r\n");
			continue;
		}
		if (k >= f->n) {
			puts_b(&b, "\033[K\r\n");
			continue;
		}
		r = &f->t->rows[f->idx[k]];
		name_of(r, name, sizeof(name));
		cells_of(r, f->t->now_ns, c);
		flags_of(f->t, r, flags, sizeof(flags));
		{
			char shown[2048];

			safe_text(shown, sizeof(shown), flags, strlen(flags));
			if (f->colour)
				puts_b(&b, k == f->cursor		    ? SGR_REVERSE
					   : r->noom || r->nfailed	    ? SGR_RED
					   : r->stalled_since_ns != JS_NONE ? SGR_YELLOW
					   : !r->running		    ? SGR_DIM
									    : "");
			line(&b, name, c, shown, cols);
			if (f->colour)
				puts_b(&b, SGR_OFF);
		}
		puts_b(&b, "\033[K\r\n");
	}
	puts_b(&b, "\033[J");
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

/* ---- the snapshot */

static void json_num(struct json_object *o, const char *key, int64_t v)
{
	if (v != JS_NONE)
		json_object_object_add(o, key, json_object_new_int64(v));
}

static void json_share(struct json_object *o, const char *key, double v)
{
	if (v >= 0)
		json_object_object_add(o, key, json_object_new_double(v));
}

static struct json_object *row_json(const struct live_row *r, int64_t now_ns)
{
	struct json_object *o = json_object_new_object();
	char state[32];

	if (!o)
		return NULL;
	state_of(r, state, sizeof(state));
	json_object_object_add(o, "level", json_object_new_string(live_level_name(r->level)));
	json_object_object_add(o, "depth", json_object_new_int(r->depth));
	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "running", json_object_new_boolean(r->running));
	if (r->node[0])
		json_object_object_add(o, "node", json_object_new_string(r->node));
	json_num(o, "pid", r->pid);
	json_num(o, "nprocs", r->nprocs);
	json_num(o, "nrunning", r->nrunning);
	json_num(o, "failed", r->nfailed);
	json_num(o, "oom_kills", r->noom);
	json_num(o, "exit_status", r->exit_status);
	json_num(o, "cpu_ns", r->c.cpu_ns);
	json_share(o, "cpu_share", r->cpu_share);
	json_num(o, "rss_kb", r->running ? r->rss_kb : JS_NONE);
	json_num(o, "mem_kb", r->mem_kb);
	json_share(o, "read_rate", r->read_rate);
	json_share(o, "write_rate", r->write_rate);
	json_share(o, "cpu_wait_share", r->cpu_wait_share);
	json_share(o, "iowait_share", r->iowait_share);
	json_num(o, "start_ns", r->start_ns);
	json_num(o, "end_ns", r->end_ns);
	json_num(o, "usual_ns", r->usual_ns);
	if (r->idle_since_ns != JS_NONE)
		json_num(o, "idle_s", (now_ns - r->idle_since_ns) / NS);
	if (r->stalled_since_ns != JS_NONE) {
		json_num(o, "stalled_s", (now_ns - r->stalled_since_ns) / NS);
		json_object_object_add(o, "stall_reason", json_object_new_string(r->stall_reason));
	}
	if (r->missing[0])
		json_object_object_add(o, "missing_nodes", json_object_new_string(r->missing));
	return o;
}

static int snapshot_json(FILE *out, const struct live_tree *t, const size_t *idx, size_t n)
{
	struct json_object *top = json_object_new_object(), *rows = json_object_new_array();
	int err = top && rows ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !err; i++) {
		struct json_object *o = row_json(&t->rows[idx[i]], t->now_ns);

		if (!o || json_object_array_add(rows, o) < 0) {
			json_object_put(o);
			err = -ENOMEM;
		}
	}
	if (!err) {
		json_object_object_add(top, "v", json_object_new_int(1));
		json_object_object_add(top, "rows", rows);
		rows = NULL;
		err = safe_text_json(top); /* nothing a terminal acts on */
	}
	if (!err)
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(
				top, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(rows);
	json_object_put(top);
	return err;
}

int live_snapshot(FILE *out, const struct live_tree *t, const size_t *idx, size_t n, int parsable,
		  const char *delim, int noheader, int json)
{
	char c[C_N][32], name[1200], flags[512], shown[2048];
	struct buf b = { 0 };

	if (json)
		return snapshot_json(out, t, idx, n);
	if (!noheader) {
		header_cells(c);
		if (parsable) {
			fprintf(out, "Level%sName", delim);
			for (int i = 0; i < C_N; i++)
				fprintf(out, "%s%s", delim, c[i]);
			fprintf(out, "%sFlags\n", delim);
		} else {
			line(&b, "Name", c, "Flags", 0);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct live_row *r = &t->rows[idx[i]];

		cells_of(r, t->now_ns, c);
		flags_of(t, r, flags, sizeof(flags));
		safe_text(shown, sizeof(shown), flags, strlen(flags));
		if (parsable) {
			safe_text(name, sizeof(name), r->name, strlen(r->name));
			fprintf(out, "%s%s%s", live_level_name(r->level), delim, name);
			for (int k = 0; k < C_N; k++)
				fprintf(out, "%s%s", delim, c[k]);
			fprintf(out, "%s%s\n", delim, shown);
			continue;
		}
		if (b.n)
			puts_b(&b, "\n");
		name_of(r, name, sizeof(name));
		line(&b, name, c, shown, 0);
	}
	if (b.err) {
		free(b.p);
		return b.err;
	}
	if (b.n)
		fprintf(out, "%s\n", b.p);
	free(b.p);
	return 0;
}
