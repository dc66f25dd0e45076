/* sym_ui -- symbols where the browser shows an IP (sym_ui.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "code.h"
#include "ctx.h"
#include "flow.h"
#include "imgopt.h"
#include "msg.h"
#include "pane_code.h"
#include "sym_ui.h"
#include "symfmt.h"
#include "ui.h"
#include "window.h"

/* A segment with more lines than this is cut: past them the status line
 * names no function (decoding it all would stall a key). */
#define SYM_UI_MAX_LINES 65536

/* Flow windows of the segments the cursor was in lately: a cursor going
 * back and forth over a PSB decodes each side once. */
#define SYM_UI_WINDOWS 4

/* The status line's flow window: a PSB segment, decoded once. */
struct sym_win {
	const struct trace *trace;
	const struct img *img;
	uint64_t size;
	int stream;
	uint64_t from, to;	/* [from, to): the segment asked for */
	int valid;
	struct flow_window w;
};

static struct sym_win sym_wins[SYM_UI_WINDOWS];
static unsigned sym_wins_next;	/* the one to replace next */

int sym_ui_on(const struct ui *ui)
{
	return !!(ui->pk_cols & UI_PK_SYM);
}

void sym_ui_reset(struct ui *ui)
{
	size_t i;

	(void)ui;
	for (i = 0; i < SYM_UI_WINDOWS; i++) {
		flow_window_free(&sym_wins[i].w);
		sym_wins[i].valid = 0;
	}
}

/* For a packet's own IP (no flow record names its space): the address
 * space of the code the packet at @off decided, as flow reads it; where
 * that is not known (a PSB, before its PSB+'s TSC), the task's that
 * ctx_at() takes from the TSC after it.  0 (the common one) without
 * sideband. */
static uint64_t sym_ui_asid(struct ui *ui, uint64_t off)
{
	uint64_t a = code_dec_asid(code_dec(ui), off);
	struct ctx_task t;

	if (!a && imgopt_sb(code_imgset(ui)) &&
	    !ctx_at(code_ctx(ui), ui->stream_no, off, &t))
		a = t.asid;
	return a;
}

int sym_ui_name(struct ui *ui, uint64_t asid, uint64_t ip, int width, char *buf,
		size_t size)
{
	struct symfmt *sf;
	struct symfmt_fn fn;
	char s[512];

	if (size)
		buf[0] = 0;
	if (width < 4 || !size || !code_imgset(ui))
		return 0;
	sf = code_symfmt(ui);
	if (!sf)
		return 0;
	if (symfmt_function(sf, asid, ip, &fn) < 0 || fn.kind == SYMFMT_NONE)
		return 0;
	symfmt_ip(sf, asid, ip, 0, s, sizeof(s));
	/* symfmt gives hex where nothing holds @ip */
	if (!strchr(s, '+') || symfmt_fit(s, width, buf, size) < 0)
		return 0;
	return 1;
}

int sym_ui_ip(struct ui *ui, uint64_t off, uint64_t ip, int width, char *buf,
	      size_t size)
{
	if (size)
		buf[0] = 0;
	if (!sym_ui_on(ui) || width < 4 || !size || !code_imgset(ui))
		return 0;
	/* a packet's IP: no record names its space, the packet's time does */
	return sym_ui_name(ui, sym_ui_asid(ui, off), ip, width, buf, size);
}

/* The flow window of the segment holding @off, decoded if it is not the
 * one kept.  Returns it, or NULL (no PSB before @off, no decoder). */
static const struct flow_window *sym_ui_window(struct ui *ui, uint64_t off)
{
	struct flow_wopts o;
	struct code_dec *d;
	struct sym_win *sw;
	uint64_t from, to;
	size_t i;

	/* the code view has it (or will, for its rows): decode it once */
	if (pane_code_on(ui))
		return pane_code_window(ui, off);
	if (win_psb_at_or_before(ui->wc, off, &from) < 0)
		return NULL;
	if (win_psb_after(ui->wc, off, &to) < 0)
		to = UINT64_MAX;
	for (i = 0; i < SYM_UI_WINDOWS; i++) {
		sw = &sym_wins[i];
		if (sw->valid && sw->trace == ui->trace && sw->img == ui->img &&
		    sw->size == ui->img->size && sw->stream == ui->stream_no &&
		    sw->from == from && sw->to == to)
			return &sw->w;
	}
	sw = &sym_wins[sym_wins_next++ % SYM_UI_WINDOWS];
	sw->valid = 0;
	d = code_dec(ui);
	if (!d || !code_dec_flow(d))
		return NULL;
	memset(&o, 0, sizeof(o));
	o.tm = &ui->tmcfg;
	o.max_lines = SYM_UI_MAX_LINES;
	if (flow_window(code_dec_flow(d), from, to, &o, &sw->w) < 0)
		return NULL;
	sw->trace = ui->trace;
	sw->img = ui->img;
	sw->size = ui->img->size;
	sw->stream = ui->stream_no;
	sw->from = from;
	sw->to = to;
	sw->valid = 1;
	return &sw->w;
}

/* Whether line @l breaks the flow (the code before it is not running
 * after it). */
static int sym_ui_breaks(const struct flow_line *l)
{
	if (l->r.kind == FLOW_ERROR)
		return 1;
	return l->r.kind == FLOW_EVENT &&
	       (l->r.ev == FLOW_EV_DISABLED || l->r.ev == FLOW_EV_ASYNC_DISABLED ||
		l->r.ev == FLOW_EV_OVERFLOW || l->r.ev == FLOW_EV_STOP);
}

/* The instruction running at the packet at @off: the first one it
 * decided, else the last one decided before it with nothing breaking the
 * flow since, else (in a PSB+, before any in the segment) the first one
 * after it, unless tracing is enabled only then.  Returns 0 with *@ip and
 * *@asid (the address space its code was read in: flow_rec.asid, what
 * flow and the code view name it by), or -1 if the flow does not say. */
static int sym_ui_insn_at(struct ui *ui, uint64_t off, uint64_t *ip, uint64_t *asid)
{
	const struct flow_window *w = sym_ui_window(ui, off);
	size_t i, j;

	if (!w || !w->nlines)
		return -1;
	i = flow_window_line_at(w, off);
	for (j = i; j < w->nlines && w->lines[j].r.offset == off; j++)
		if (w->lines[j].r.kind == FLOW_INSN)
			goto found;
	/* cut short before @off: what runs there is not decoded */
	if (i == w->nlines && w->truncated)
		return -1;
	for (j = i; j-- > 0;) {
		if (w->lines[j].r.kind == FLOW_INSN)
			goto found;
		if (sym_ui_breaks(&w->lines[j]))
			return -1;
	}
	for (j = i; j < w->nlines; j++) {
		const struct flow_rec *r = &w->lines[j].r;

		if (r->kind == FLOW_INSN)
			goto found;
		if (sym_ui_breaks(&w->lines[j]) ||
		    (r->kind == FLOW_EVENT && r->ev == FLOW_EV_ENABLED &&
		     !(r->flags & FLOW_F_STATUS)))
			return -1;
	}
	return -1;
found:
	*ip = w->lines[j].r.ip;
	*asid = code_dec_rec_asid(code_dec(ui), &w->lines[j].r);
	return 0;
}

/* Append " @s" (two blanks before it) to @buf at *@len if it fits in
 * @room columns: a field shows whole or not at all.  @room may be
 * negative (what is left after a field that does not fit either).
 * Returns 1 if it did. */
static int sym_ui_add(char *buf, size_t size, size_t *len, int room, const char *s)
{
	size_t n = strlen(s);

	if (!n || room < 0 || *len + 2 + n > (size_t)room || *len + 2 + n >= size)
		return 0;
	*len += (size_t)snprintf(buf + *len, size - *len, "  %s", s);
	return 1;
}

size_t sym_ui_status(struct ui *ui, const struct win_row *row, char *buf,
		     size_t size, int room)
{
	char fn[512] = "", fnfit[512], src[256] = "", task[256] = "";
	struct ctx_task t;
	struct ctx *c;
	struct flow_rec r;
	uint64_t ip = 0, asid = 0;
	size_t len = 0;
	int have_ip = 0, keep;

	if (!size)
		return 0;
	buf[0] = 0;
	if (room > (int)size - 1)
		room = (int)size - 1;
	if (room < 8 || !code_imgset(ui))
		return 0;
	/* The code: the code view's instruction row at the cursor, else the
	 * flow's at the cursor's packet where there is code, else an IP
	 * packet's. */
	if (!pane_code_cursor_rec(ui, &r, &asid) && r.kind == FLOW_INSN)
		ip = r.ip, have_ip = 1;
	else if (!code_why(ui) && !sym_ui_insn_at(ui, row->pkt.offset, &ip, &asid))
		have_ip = 1;
	else if (code_why(ui) && (row->flags & WIN_F_HAVE_IP) && row->ip_bits == 64)
		ip = row->ip, asid = sym_ui_asid(ui, row->pkt.offset), have_ip = 1;
	if (have_ip && code_symfmt(ui)) {
		struct symfmt *sf = code_symfmt(ui);
		struct symfmt_fn f;

		if (!symfmt_function(sf, asid, ip, &f) && f.kind != SYMFMT_NONE) {
			symfmt_ip(sf, asid, ip, 0, fn, sizeof(fn));
			symfmt_srcline(sf, asid, ip, 1, src, sizeof(src));
		}
	}
	/* who ran: only a perf.data's sideband knows */
	c = imgopt_sb(code_imgset(ui)) ? code_ctx(ui) : NULL;
	if (c && !ctx_at(c, ui->stream_no, row->pkt.offset, &t) &&
	    (t.flags & CTX_F_SIDEBAND) && (t.pid >= 0 || t.tid >= 0))
		ctx_format(&t, task, sizeof(task));
	/* The function first, shortened to what is left after the task and
	 * the source line would fit. */
	if (fn[0] && strchr(fn, '+')) {
		int want = (int)strlen(fn), left = room - 2;

		if (task[0] && left - want >= (int)strlen(task) + 2)
			left -= (int)strlen(task) + 2;
		if (src[0] && left - want >= (int)strlen(src) + 2)
			left -= (int)strlen(src) + 2;
		if (left >= 8 && !symfmt_fit(fn, left, fnfit, sizeof(fnfit)))
			sym_ui_add(buf, size, &len, room, fnfit);
	}
	/* the source line in what the task leaves, if the task fits at all */
	keep = task[0] && (int)(len + 2 + strlen(task)) <= room ?
	       (int)strlen(task) + 2 : 0;
	if (len && src[0] && !sym_ui_add(buf, size, &len, room - keep, src))
		src[0] = 0;
	sym_ui_add(buf, size, &len, room, task);
	return len;
}

int sym_ui_set(struct ui *ui, int on)
{
	const char *why;

	ui->pk_cols = on ? ui->pk_cols | UI_PK_SYM : ui->pk_cols & ~UI_PK_SYM;
	if (!on) {
		msg_report(ui, UI_INFO, "IPs in hex");
		return UI_DRAW_ALL;
	}
	why = code_imgset(ui) ? code_why(ui) : "the code context could not be loaded";
	if (why)
		msg_report(ui, UI_INFO, "IPs as symbols where known (%s)", why);
	else
		msg_report(ui, UI_INFO, "IPs as symbols where known");
	return UI_DRAW_ALL;
}

static int sym_ui_toggle(struct ui *ui, const struct cmd_args *a)
{
	(void)a;
	return sym_ui_set(ui, !sym_ui_on(ui));
}

static const struct cmd_row sym_ui_rows[] = {
	{ ACTION_TOGGLE_SYMBOLS, sym_ui_toggle, CMD_NONE, 0, 0 },
};

CMD_TABLE(sym_ui_cmds, sym_ui_rows);
