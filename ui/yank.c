/* yank -- y: the cursor's row, offset, IP or symbol, or rows, to the
 * terminal's clipboard (OSC 52, tmux's buffer). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "flow.h"
#include "marks_ui.h"
#include "msg.h"
#include "osc52.h"
#include "pane_code.h"
#include "select.h"
#include "spawn.h"
#include "sym_ui.h"
#include "ui.h"
#include "yank.h"

/* Text being gathered from rows. */
struct yank_buf {
	char *p;
	size_t n, cap;
};

/* select_line_fn: a row and its newline; past YANK_MAX stops. */
static int yank_line(void *ctx, const char *line, size_t len)
{
	struct yank_buf *b = ctx;
	size_t want = b->n + len + 1;
	char *p;

	if (want > YANK_MAX)
		return -pte_nomem;
	if (want > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < want)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -pte_nomem;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, line, len);
	b->p[b->n + len] = '\n';
	b->n = want;
	return 0;
}

/* spawn_feed_fn: the text. */
static int yank_feed(void *ctx, int fd)
{
	const struct yank_buf *b = ctx;

	return spawn_write(fd, b->p, b->n);
}

/* Write @s to the terminal, past curses (its output is flushed after
 * every screen, so nothing of it is half written now). */
static int yank_term(const char *s, size_t n)
{
	return spawn_write(STDOUT_FILENO, s, n) < 0 ? -pte_io : 0;
}

int yank_clip(struct ui *ui, const char *text, size_t n, char *how, size_t howlen)
{
	static char *const lb_w[] = { "tmux", "load-buffer", "-w", "-", NULL };
	static char *const lb[] = { "tmux", "load-buffer", "-", NULL };
	struct yank_buf b = { (char *)text, n, n };
	const char *tmux = getenv("TMUX"), *sty = getenv("STY");
	char *osc = NULL;
	size_t len;
	int r, old = 0, screen = 0;

	if (!ui->headless && tmux && *tmux) {
		if (spawn_run(lb_w, SPAWN_QUIET, yank_feed, &b, NULL) == 0) {
			snprintf(how, howlen, "tmux's buffer and the clipboard");
			return 0;
		}
		/* tmux before 3.2 has no -w: its buffer, and the OSC 52
		 * through its passthrough. */
		old = spawn_run(lb, SPAWN_QUIET, yank_feed, &b, NULL) == 0;
	} else if (!ui->headless && sty && *sty) {
		screen = 1;	/* GNU screen's passthrough */
	}
	r = osc52_build(text, n, old ? OSC52_TMUX : screen ? OSC52_SCREEN : 0,
			&osc, &len);
	if (r < 0) {
		snprintf(how, howlen, "%s", pte_strerror(r));
		return r;
	}
	r = yank_term(osc, len);
	free(osc);
	if (r < 0)
		snprintf(how, howlen, "the terminal: %s", strerror(errno));
	else if (ui->headless)
		snprintf(how, howlen, "standard output (OSC 52, --script)");
	else
		snprintf(how, howlen, old ? "tmux's buffer and the clipboard" :
			 screen ? "the clipboard (OSC 52 through screen)" :
			 "the clipboard (OSC 52)");
	return r;
}

/* In the code view on one of a packet's lines: its IP ("ip") or
 * function+0xoff ("symbol"), the row's, not its packet's, into @buf.
 * Returns 0, -1 after saying why not, or 1 if the cursor is on no such
 * line (a packet row, or the view off: the packet's are taken). */
static int yank_code_word(struct ui *ui, const char *what, char *buf, size_t size)
{
	struct flow_rec r;
	uint64_t asid;

	if (pane_code_cursor_rec(ui, &r, &asid) < 0)
		return 1;
	/* an instruction, an error at code (FLOW_E_NOMAP), an event at one */
	if (r.kind == FLOW_EVENT ? (r.flags & FLOW_F_NOIP) != 0 : !r.ip) {
		msg_report(ui, UI_ERROR, "yank: no IP is known at the cursor's row");
		return -1;
	}
	if (!strcmp(what, "ip")) {
		snprintf(buf, size, "0x%" PRIx64, r.ip);
		return 0;
	}
	/* named as the row names it: where its code was read */
	if (sym_ui_name(ui, asid, r.ip, 1000, buf, size))
		return 0;
	msg_report(ui, UI_ERROR, "yank: no symbol for 0x%" PRIx64, r.ip);
	return -1;
}

/* The cursor row's offset, IP or symbol into @buf.  Returns 0, or -1
 * after saying why not. */
static int yank_word(struct ui *ui, const char *what, char *buf, size_t size)
{
	struct win_iter it = { 0 };
	const struct win_row *row;
	int r = -1;

	if (!strcmp(what, "offset")) {
		snprintf(buf, size, "0x%" PRIx64, ui->cursor);
		return 0;
	}
	r = yank_code_word(ui, what, buf, size);
	if (r <= 0)
		return r;
	r = -1;
	if (win_seek(&it, ui->wc, ui->cursor)) {
		msg_report(ui, UI_ERROR, "yank: no row at the cursor");
		goto out_release;
	}
	row = win_row(&it);
	if (!(row->flags & WIN_F_HAVE_IP) || row->ip_bits < 64) {
		msg_report(ui, UI_ERROR, "yank: no IP is known at the cursor");
		goto out_release;
	}
	if (!strcmp(what, "ip")) {
		snprintf(buf, size, "0x%" PRIx64, row->ip);
		r = 0;
	} else if (sym_ui_ip(ui, row->pkt.offset, row->ip, 1000, buf, size)) {
		r = 0;
	} else {
		msg_report(ui, UI_ERROR, "yank: no symbol for 0x%" PRIx64 "%s", row->ip,
			   sym_ui_on(ui) ? "" : " (symbols are off: x turns them on)");
	}
out_release:
	win_iter_release(&it);
	return r;
}

/* Rows (@region's, the selection, a count's, the cursor's) as text. */
static int yank_rows(struct ui *ui, const struct cmd_args *a, const char *region)
{
	struct select_span s;
	struct yank_buf b = { 0 };
	char how[128];
	int64_t n;

	if (!region && !marks_ui_visual(ui) && pane_code_on(ui)) {
		/* the code view's rows from the cursor's, as it shows them */
		uint64_t k = a->has_count && a->count ? a->count : 1;

		snprintf(s.what, sizeof(s.what), "%" PRIu64 " row%s", k, k == 1 ? "" : "s");
		n = pane_code_rows_text(ui, (unsigned long)k, yank_line, &b);
	} else if (select_pick(ui, region, a->has_count, a->count, SELECT_CURSOR,
			       &s) < 0) {
		return UI_DRAW_ALL;
	} else {
		n = select_text(ui, &s, yank_line, &b);
	}
	if (n == -pte_nomem)
		msg_report(ui, UI_ERROR, "yank: %s is over %u MiB (| pipes any size)",
			   s.what, YANK_MAX >> 20);
	else if (n <= 0)
		msg_report(ui, UI_ERROR, "yank: no rows in %s", s.what);
	else if (yank_clip(ui, b.p, b.n, how, sizeof(how)) < 0)
		msg_report(ui, UI_ERROR, "yank: %s", how);
	else
		msg_report(ui, UI_INFO, "yanked %" PRId64 " row%s (%zu bytes) to %s", n,
			   n == 1 ? "" : "s", b.n, how);
	free(b.p);
	return UI_DRAW_ALL;
}

/* The word for the key after y: y (or r) rows, o, i, s; NULL if none. */
static const char *yank_key_word(int key)
{
	switch (key) {
	case 'y': case 'Y': case 'r': return "row";
	case 'o': return "offset";
	case 'i': return "ip";
	case 's': return "symbol";
	default: return NULL;
	}
}

/* Whether the first word is the count (":yank 5" as 5yy), not a name. */
static int yank_counted(const struct cmd_args *a)
{
	return a->argc > 1 && a->has_count && isdigit((unsigned char)a->argv[1][0]);
}

/* yank [row|offset|ip|symbol]; y{key}: yy (3yy), yo, yi, ys. */
static int yank_cmd(struct ui *ui, const struct cmd_args *a)
{
	const char *what = yank_counted(a) ? "row" : a->argc > 1 ? a->argv[1] :
			   a->key >= 0 ? yank_key_word(a->key) : "row";
	char word[1100], how[128];

	if (!what || (strcmp(what, "row") && strcmp(what, "rows") &&
		      strcmp(what, "offset") && strcmp(what, "ip") &&
		      strcmp(what, "symbol"))) {
		msg_report(ui, UI_ERROR, "yank: yy the row (3yy: rows), yo the offset, "
			   "yi the IP, ys its symbol");
		return UI_DRAW_STATUS;
	}
	if (what[0] == 'r')
		return yank_rows(ui, a, NULL);
	if (yank_word(ui, what, word, sizeof(word)) < 0)
		return UI_DRAW_STATUS;
	if (yank_clip(ui, word, strlen(word), how, sizeof(how)) < 0)
		msg_report(ui, UI_ERROR, "yank: %s", how);
	else
		msg_report(ui, UI_INFO, "yanked %s %.200s (%zu bytes) to %s", what, word,
			   strlen(word), how);
	return UI_DRAW_STATUS;
}

/* yank-rows [REGION] (visual y, M-w). */
static int yank_rows_cmd(struct ui *ui, const struct cmd_args *a)
{
	return yank_rows(ui, a, a->argc > 1 && !yank_counted(a) ? a->argv[1] : NULL);
}

static const struct cmd_row yank_rows_tab[] = {
	{ ACTION_YANK, yank_cmd, CMD_WORDS, 1, 0 },
	{ ACTION_YANK_ROWS, yank_rows_cmd, CMD_WORDS, 1, 0 },
};

CMD_TABLE(yank_cmds, yank_rows_tab);
