/* pane_code -- the code view: each packet's instructions under it. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "cmd.h"
#include "code.h"
#include "dump_fmt.h"
#include "esc.h"
#include "flow.h"
#include "imgopt.h"
#include "marks.h"
#include "marks_ui.h"
#include "memimg.h"
#include "msg.h"
#include "nav.h"
#include "pane_code.h"
#include "screen.h"
#include "search_ui.h"
#include "symfmt.h"
#include "ui.h"

/* PSB segments kept decoded, and the lines one may have: a longer one is
 * cut there, and its rows after the cut say so. */
#define PC_NSEG 6
#define PC_MAX_LINES 200000
/* Rows a move steps one by one; further, it moves by packets. */
#define PC_FAR 100000

/* A decoded PSB segment [psb, end). */
struct pc_seg {
	uint64_t psb, end;
	struct flow_window w;
	uint32_t *shown;	/* the lines that are rows, in order */
	size_t nshown, shown_cap;
	int32_t mindepth;	/* the least depth (indentation's zero) */
	uint64_t used;		/* LRU tick */
	int valid;
};

/* A row: packet @off's row (sub 0) or its sub-th line under it. */
struct pc_pos {
	uint64_t off;
	uint32_t sub;
};

/* What the code pane drew, for the cycle pane's rows. */
struct pc_drawn {
	struct pc_seg *seg;	/* NULL: a packet row */
	uint32_t line;		/* the line in seg->w */
	uint64_t off;
	int cursor;
};

static struct {
	int on;
	struct pc_seg seg[PC_NSEG];
	uint64_t tick;
	const struct code_dec *dec;	/* what the segments were decoded by */
	const struct img *img;
	uint64_t size;
	uint64_t cur_off, top_off;	/* ui->cursor and ui->top the subs
					 * belong to */
	uint32_t cur_sub, top_sub;
	struct pc_drawn *drawn;
	int ndrawn, cap;
	ZydisDecoder zd[4];
	ZydisFormatter fmt;
	int zinit;
	/* a search hit whose row is not placed yet (pane_code_place()) */
	pane_code_match_fn *place_match;
	void *place_ctx;
	uint64_t place_off;
} pc;

int pane_code_on(const struct ui *ui)
{
	return pc.on;
}

static void pc_seg_free(struct pc_seg *s)
{
	flow_window_free(&s->w);
	free(s->shown);
	memset(s, 0, sizeof(*s));
}

/* Forget what @s holds but keep its memory for the next segment: a
 * segment's lines are megabytes, and fresh memory costs a page fault per
 * page (a tenth of opening the view). */
static void pc_seg_drop(struct pc_seg *s)
{
	s->valid = 0;
	s->nshown = 0;
	s->used = 0;
}

/* Forget the segments if they were decoded for another stream or code. */
static void pc_check(struct ui *ui, const struct code_dec *dec)
{
	size_t i;

	if (pc.dec == dec && pc.img == ui->img && pc.size == ui->img->size)
		return;
	for (i = 0; i < PC_NSEG; i++)
		pc_seg_drop(&pc.seg[i]);
	pc.dec = dec;
	pc.img = ui->img;
	pc.size = ui->img->size;
}

/* Whether line @l is a row: instructions, errors and the events flow
 * prints (not status updates but the exec mode, not cbr or mnt). */
static int pc_shown(const struct flow_line *l)
{
	if (l->r.kind != FLOW_EVENT)
		return 1;
	if (l->r.ev == FLOW_EV_EXEC_MODE)
		return 1;
	if (l->r.ev == FLOW_EV_CBR || l->r.ev == FLOW_EV_MNT)
		return 0;
	return !(l->r.flags & FLOW_F_STATUS);
}

/* Sort @s->shown by the deciding packet's offset, keeping flow's order
 * among lines of one packet (an insertion sort: lines are in order but for
 * a few at a PSB). */
static void pc_sort_lines(struct pc_seg *s)
{
	size_t i, j;

	for (i = 1; i < s->nshown; i++) {
		uint32_t v = s->shown[i];
		uint64_t off = s->w.lines[v].r.offset;

		for (j = i; j > 0 && s->w.lines[s->shown[j - 1]].r.offset > off; j--)
			s->shown[j] = s->shown[j - 1];
		s->shown[j] = v;
	}
}

/* The time model's state at @psb from the index (cycles then count from
 * the stream's start, as the cycle pane's).  Returns 0 if known. */
static int pc_carry(struct ui *ui, uint64_t psb, struct tm_carry *c)
{
	struct idx_seek sk;
	size_t i;

	if (!ui->idx || idx_find(ui->idx, psb, &i) || idx_seek(ui->idx, i, &sk) ||
	    sk.offset != psb)
		return -1;
	return idx_seek_carry(ui->idx, i, c) ? -1 : 0;
}

/* Decode the segment starting at @psb into @s. */
static int pc_decode(struct ui *ui, struct code_dec *dec, uint64_t psb,
		     struct pc_seg *s)
{
	struct flow_wopts o = { 0 };
	struct tm_carry carry;
	uint64_t end;
	size_t i;

	if (win_psb_after(ui->wc, psb, &end) < 0)
		end = ui->img->size;
	o.tm = &ui->tmcfg;
	o.carry = pc_carry(ui, psb, &carry) ? NULL : &carry;
	o.max_lines = PC_MAX_LINES;
	/* Rows must not depend on what was shown before: each segment is
	 * decoded as `flow TRACE:PSB-NEXT` decodes it (code.h). */
	if (code_dec_restart(dec) < 0 || end <= psb || flow_window(code_dec_flow(dec), psb, end, &o, &s->w) < 0) {
		pc_seg_free(s);
		return -1;
	}
	if (s->shown_cap < s->w.nlines || !s->shown) {
		free(s->shown);
		s->shown_cap = s->w.nlines ? s->w.nlines : 1;
		s->shown = malloc(s->shown_cap * sizeof(*s->shown));
	}
	if (!s->shown) {
		pc_seg_free(s);
		return -1;
	}
	s->nshown = 0;
	s->mindepth = 0;
	for (i = 0; i < s->w.nlines; i++) {
		if (!pc_shown(&s->w.lines[i]))
			continue;
		if (!s->nshown || s->w.lines[i].depth < s->mindepth)
			s->mindepth = s->w.lines[i].depth;
		s->shown[s->nshown++] = (uint32_t)i;
	}
	/* Rows go under the packet that decided them, in flow's order among
	 * one packet's: a PSB+'s status events come before the instructions
	 * its FUP decided (the PSB's), so order by packet, stably. */
	pc_sort_lines(s);
	s->psb = psb;
	s->end = end;
	s->valid = 1;
	return 0;
}

/* The decoded segment holding packet @off, or NULL (no PSB before it, no
 * memory). */
static struct pc_seg *pc_seg_at(struct ui *ui, uint64_t off)
{
	struct code_dec *dec = code_dec(ui);
	struct pc_seg *s, *lru = &pc.seg[0];
	uint64_t psb;
	size_t i;

	if (!dec || win_psb_at_or_before(ui->wc, off, &psb) < 0)
		return NULL;
	pc_check(ui, dec);
	for (i = 0; i < PC_NSEG; i++) {
		s = &pc.seg[i];
		if (s->valid && s->psb == psb) {
			s->used = ++pc.tick;
			return s;
		}
		if (!s->valid || s->used < lru->used)
			lru = s;
	}
	pc_seg_drop(lru);
	if (pc_decode(ui, dec, psb, lru) < 0)
		return NULL;
	lru->used = ++pc.tick;
	return lru;
}

const struct flow_window *pane_code_window(struct ui *ui, uint64_t off)
{
	struct pc_seg *s = pc.on ? pc_seg_at(ui, off) : NULL;

	return s ? &s->w : NULL;
}

/* The rows under packet @off: *@first into seg->shown and their number.
 * Returns the segment, or NULL if there are none. */
static struct pc_seg *pc_lines(struct ui *ui, uint64_t off, size_t *first, uint32_t *n)
{
	struct pc_seg *s = pc_seg_at(ui, off);
	size_t lo = 0, hi, k;

	*n = 0;
	*first = 0;
	if (!s)
		return NULL;
	hi = s->nshown;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->w.lines[s->shown[mid]].r.offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < s->nshown && s->w.lines[s->shown[k]].r.offset == off; k++)
		;
	*first = lo;
	*n = (uint32_t)(k - lo);
	/* a segment cut short: its last decoded packet says so */
	if (s->w.truncated && k == s->nshown && *n)
		(*n)++;
	return *n ? s : NULL;
}

static uint32_t pc_nrows(struct ui *ui, uint64_t off)
{
	size_t first;
	uint32_t n;

	pc_lines(ui, off, &first, &n);
	return n;
}

/* The cursor (at pc.cur_off) on the first row under its packet that the
 * search hit kept (pane_code_place()) takes, else on the packet's row;
 * the hit is done with. */
static void pc_place_sub(struct ui *ui)
{
	pane_code_match_fn *match = pc.place_match;
	struct pc_seg *s;
	size_t first;
	uint32_t n, k;

	pc.place_match = NULL;
	pc.cur_sub = 0;
	if (!match || pc.cur_off != pc.place_off)
		return;
	s = pc_lines(ui, pc.cur_off, &first, &n);
	for (k = 0; s && k < n && first + k < s->nshown; k++) {
		if (match(pc.place_ctx, &s->w, s->shown[first + k])) {
			pc.cur_sub = k + 1;
			return;
		}
	}
}

/* The subs follow ui->cursor and ui->top: moved by anything else, they
 * go back to the packet row (to a search hit's row where the cursor
 * lands on the hit: a jump placed once its segment is walked). */
static void pc_sync(struct ui *ui)
{
	if (ui->cursor != pc.cur_off) {
		pc.cur_off = ui->cursor;
		pc.cur_sub = 0;
		if (pc.on && pc.place_match && ui->cursor == pc.place_off)
			pc_place_sub(ui);
	}
	if (ui->top != pc.top_off) {
		pc.top_off = ui->top;
		pc.top_sub = 0;
	}
}

/* Move @p @n rows (negative: up).  Returns the rows moved. */
static long pc_step(struct ui *ui, struct pc_pos *p, long n)
{
	struct win_iter it = { 0 };
	long done = 0;

	if (win_seek(&it, ui->wc, p->off))
		goto out;
	p->off = win_row(&it)->pkt.offset;
	while (n > 0) {
		if (p->sub < pc_nrows(ui, p->off)) {
			p->sub++;
		} else {
			if (win_next(&it))
				break;
			p->off = win_row(&it)->pkt.offset;
			p->sub = 0;
		}
		n--, done++;
	}
	while (n < 0) {
		if (p->sub > 0) {
			p->sub--;
		} else {
			if (win_prev(&it))
				break;
			p->off = win_row(&it)->pkt.offset;
			p->sub = pc_nrows(ui, p->off);
		}
		n++, done--;
	}
out:
	win_iter_release(&it);
	return done;
}

static int pc_before(const struct pc_pos *a, const struct pc_pos *b)
{
	return a->off < b->off || (a->off == b->off && a->sub < b->sub);
}

static void pc_store(struct ui *ui, const struct pc_pos *cur, const struct pc_pos *top)
{
	ui->cursor = pc.cur_off = cur->off;
	pc.cur_sub = cur->sub;
	ui->top = pc.top_off = top->off;
	pc.top_sub = top->sub;
}

/* The rows from @a forward to @b, counted up to @max (more: @max + 1). */
static long pc_distance(struct ui *ui, struct pc_pos a, const struct pc_pos *b, long max)
{
	long k;

	for (k = 0; k <= max && pc_before(&a, b); k++)
		if (pc_step(ui, &a, 1) != 1)
			return max + 1;
	return k;
}

/* Keep the cursor inside the view: a step past an edge scrolls by what
 * it went past; anything further puts it a third down. */
static void pc_fix_view(struct ui *ui)
{
	int h = nav_view_rows(ui);
	struct pc_pos cur, top;
	long k;

	pc_sync(ui);
	cur = (struct pc_pos){ ui->cursor, pc.cur_sub };
	top = (struct pc_pos){ ui->top, pc.top_sub };
	if (cur.sub > pc_nrows(ui, cur.off))
		cur.sub = 0;
	if (pc_before(&cur, &top)) {
		k = pc_distance(ui, cur, &top, h);
		top = cur;
		if (k > h)
			pc_step(ui, &top, -(h / 3));
	} else {
		k = pc_distance(ui, top, &cur, 2 * h);
		if (k >= h) {
			top = cur;
			pc_step(ui, &top, k < 2 * h ? -(h - 1) : -(h / 3));
		}
	}
	pc_store(ui, &cur, &top);
}

int pane_code_move(struct ui *ui, long n, int page, int scroll)
{
	struct pc_pos cur, top;
	int h = nav_view_rows(ui);

	pc_sync(ui);
	pc.place_match = NULL;	/* moved off the hit: its row is done */
	if (n > PC_FAR || n < -PC_FAR) {
		/* far: by packets, as the packet view moves */
		pc.cur_sub = pc.top_sub = 0;
		return page ? nav_page(ui, n) : nav_lines(ui, n);
	}
	cur = (struct pc_pos){ ui->cursor, pc.cur_sub };
	top = (struct pc_pos){ ui->top, pc.top_sub };
	if (scroll || page) {
		long moved = pc_step(ui, &top, n);

		if (page)
			pc_step(ui, &cur, moved ? moved : n);
		else if (pc_before(&cur, &top))
			cur = top;
		else {
			struct pc_pos last = top;

			pc_step(ui, &last, h - 1);
			if (pc_before(&last, &cur))
				cur = last;
		}
	} else {
		pc_step(ui, &cur, n);
	}
	ui->dir = n < 0 ? -1 : 1;
	pc_store(ui, &cur, &top);
	pc_fix_view(ui);
	return UI_DRAW_ALL;
}

uint64_t pane_code_view_end(struct ui *ui)
{
	struct win_iter it = { 0 };
	struct pc_pos pos;
	uint64_t end = ui->img->size;

	if (!pc.on)
		return end;
	pc_fix_view(ui);
	pos = (struct pc_pos){ ui->top, pc.top_sub };
	/* the last row shown: a packet's, or one of its lines */
	pc_step(ui, &pos, nav_view_rows(ui) - 1);
	if (!win_seek(&it, ui->wc, pos.off) && !win_next(&it))
		end = win_row(&it)->pkt.offset;
	win_iter_release(&it);
	return end;
}

int pane_code_click(struct ui *ui, int k)
{
	struct pc_pos p;

	pc_sync(ui);
	pc.place_match = NULL;
	p = (struct pc_pos){ ui->top, pc.top_sub };
	if (pc_step(ui, &p, k) != k)
		return UI_DRAW_NONE;
	ui->cursor = pc.cur_off = p.off;
	pc.cur_sub = p.sub;
	ui->focus = UI_PANE_PACKETS;
	return UI_DRAW_ALL;
}

/* The Intel-syntax text of instruction @r (in address space @asid), as
 * flow prints it, into @buf. */
static void pc_disasm(struct ui *ui, uint64_t asid, const struct flow_rec *r,
		      char *buf, size_t len)
{
	ZydisDecodedInstruction z;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint8_t code[ZYDIS_MAX_INSTRUCTION_LENGTH];
	const struct imgset *set = code_imgset(ui);
	int n = set ? mi_read(imgopt_mi(set), asid, r->ip, code, r->size) : -1;

	if (!pc.zinit) {
		ZydisDecoderInit(&pc.zd[FLOW_MODE_16], ZYDIS_MACHINE_MODE_LEGACY_16,
				 ZYDIS_STACK_WIDTH_16);
		ZydisDecoderInit(&pc.zd[FLOW_MODE_32], ZYDIS_MACHINE_MODE_LEGACY_32,
				 ZYDIS_STACK_WIDTH_32);
		ZydisDecoderInit(&pc.zd[FLOW_MODE_64], ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
		ZydisFormatterInit(&pc.fmt, ZYDIS_FORMATTER_STYLE_INTEL);
		pc.zinit = 1;
	}
	if (n < r->size || r->mode < FLOW_MODE_16 || r->mode > FLOW_MODE_64 ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&pc.zd[r->mode], code, (ZyanUSize)n,
						 &z, ops)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&pc.fmt, &z, ops,
							 z.operand_count_visible,
							 buf, len, r->ip, NULL)))
		snprintf(buf, len, "(bad)");
}

/* The instruction columns a narrow code view keeps before it cuts the
 * function's name (its middle: symfmt_fit()), and the fewest columns of
 * the name. */
#define PC_INSN_COLS 24
/* A view narrower than this is narrow (a line with its IP, a function's
 * name and an instruction is about as wide). */
#define PC_NARROW 80
#define PC_SYM_MIN 12

/* "function+0xoff" @sym fitted beside instruction @text in @cols columns
 * of a narrow view (after @lead columns of indentation and call mark)
 * into @out.  The instruction is what a narrow screen is for: the name
 * gives way first, down to PC_SYM_MIN columns. */
static void pc_fit_sym(const char *sym, const char *text, int cols, int lead,
		       char *out, size_t size)
{
	int t = screen_cols(text), room;

	room = cols - lead - 2 - (t < PC_INSN_COLS ? t : PC_INSN_COLS);
	if (room < PC_SYM_MIN)
		room = PC_SYM_MIN;
	if (screen_cols(sym) <= room || symfmt_fit(sym, room, out, size))
		snprintf(out, size, "%s", sym);
}

/* The text of line @li of @s (an instruction, event or error) into @buf;
 * @li past the lines: the note of a segment cut short.  @cols > 0: a
 * narrow view of that many columns, without the IP column (the function
 * names the place), the function's name fitted to leave the instruction
 * room. */
static void pc_line_text(struct ui *ui, struct pc_seg *s, size_t k, char *buf,
			 size_t size, int cols)
{
	const struct flow_line *l;
	struct code_dec *dec = code_dec(ui);
	char sym[160], esym[4 * sizeof(sym)], fit[sizeof(sym)], text[256], why[512];
	const char *call = "  ", *nocode, *ipcol = cols > 0 ? "" : "                  ";
	uint64_t asid;
	int ind;

	if (k >= s->nshown) {
		snprintf(buf, size, "[not decoded: more than %d lines in this PSB segment]",
			 PC_MAX_LINES);
		return;
	}
	l = &s->w.lines[s->shown[k]];
	asid = code_dec_rec_asid(dec, &l->r);
	ind = 2 * (l->depth - s->mindepth);
	if (ind > 40)
		ind = 40;
	if (cols > 0 && ind > cols / 4)
		ind = cols / 4;
	if (l->r.kind == FLOW_EVENT) {
		snprintf(buf, size, "%s%*s[%s]", ipcol, ind, "",
			 flow_event_str(&l->r, text, sizeof(text)));
		return;
	}
	if (l->r.kind == FLOW_ERROR) {
		/* (the address with no code is what the user looks for in
		 * the images given, whatever explains it) */
		nocode = l->r.err == -FLOW_E_NOMAP ? code_nocode(ui, asid, l->r.ip) : NULL;
		if (l->r.err == -FLOW_E_NOMAP && !nocode)
			nocode = "not in any image given";
		if (nocode)
			snprintf(buf, size, "%s%*s[error: %s: %016" PRIx64 ": %s]", ipcol,
				 ind, "", flow_strerror(l->r.err), l->r.ip,
				 esc_str(why, sizeof(why), nocode));
		else
			snprintf(buf, size, "%s%*s[error: %s]", ipcol, ind, "",
				 flow_strerror(l->r.err));
		return;
	}
	if (l->r.iclass == FLOW_IC_CALL || l->r.iclass == FLOW_IC_FAR_CALL)
		call = screen_glyph(ui, "→ ", "> ");
	else if (l->r.iclass == FLOW_IC_RETURN || l->r.iclass == FLOW_IC_FAR_RETURN)
		call = screen_glyph(ui, "← ", "< ");
	pc_disasm(ui, asid, &l->r, text, sizeof(text));
	symfmt_ip(code_symfmt(ui), asid, l->r.ip, 0, sym, sizeof(sym));
	if (cols > 0 && sym[0]) {
		pc_fit_sym(sym, text, cols, ind + 2, fit, sizeof(fit));
		snprintf(buf, size, "%*s%s%s  %s", ind, "", call,
			 esc_str(esym, sizeof(esym), fit), text);
		return;
	}
	snprintf(buf, size, "%016" PRIx64 "  %*s%s%s  %s", l->r.ip, ind, "", call,
		 esc_str(esym, sizeof(esym), sym), text);
}

/* The payload of packet row @row as the packet pane has it: an IP
 * packet's function with symbols on ("3: main+0x0"), in its 20 columns
 * (pane_packets.c's rule; this pane's own symbols, the address space its
 * decoder gives the packet), else ptdump's words.  Fitted by cutting the
 * name's middle (symfmt_fit()): a cut end lost the offset, and what was
 * left read as another address. */
static void pc_payload(struct ui *ui, const struct win_row *row, char *buf,
		       size_t size)
{
	int t = row->pkt.type;
	char s[512], sym[18];

	if ((t == PKT_TIP || t == PKT_TIP_PGE || t == PKT_TIP_PGD || t == PKT_FUP) &&
	    (ui->pk_cols & UI_PK_SYM) && (row->flags & WIN_F_HAVE_IP) &&
	    row->ip_bits == 64 && row->pkt.u.ip.ipc != PKT_IPC_SUPPRESSED &&
	    symfmt_ip(code_symfmt(ui), code_dec_asid(code_dec(ui), row->pkt.offset),
		      row->ip, 0, s, sizeof(s))[0] &&
	    !symfmt_fit(s, 17, sym, sizeof(sym))) {
		snprintf(buf, size, "%c: %s", '0' + (row->pkt.u.ip.ipc & 7), sym);
		return;
	}
	dump_fmt_payload(buf, size, &row->pkt);
}

/* The text of packet row @row, its payload as the packet pane has it. */
static void pc_packet_text(struct ui *ui, const struct win_row *row,
			   char *buf, size_t size)
{
	char payload[DUMP_PAYLOAD_MAX + 8] = "";

	if (row->flags & WIN_F_ERROR) {
		snprintf(buf, size, "0x%08" PRIx64 "  %-10s %s", row->pkt.offset,
			 row->err == -pte_gap ? "gap" : "error", pte_strerror(row->err));
		return;
	}
	pc_payload(ui, row, payload, sizeof(payload));
	snprintf(buf, size, "0x%08" PRIx64 "  %-10s %s", row->pkt.offset,
		 pkt_type_name(row->pkt.type), payload);
}

int pane_code_cursor_rec(struct ui *ui, struct flow_rec *r, uint64_t *asid)
{
	struct pc_seg *s;
	size_t first;
	uint32_t n;

	if (!pc.on)
		return -1;
	pc_sync(ui);
	if (!pc.cur_sub)
		return -1;
	s = pc_lines(ui, ui->cursor, &first, &n);
	if (!s || pc.cur_sub > n || first + pc.cur_sub - 1 >= s->nshown)
		return -1;
	*r = s->w.lines[s->shown[first + pc.cur_sub - 1]].r;
	*asid = code_dec_rec_asid(code_dec(ui), r);
	return 0;
}

long pane_code_rows_text(struct ui *ui, unsigned long n, pane_code_line_fn *fn,
			 void *ctx)
{
	struct win_iter it = { 0 };
	struct pc_pos pos;
	char text[1024];
	long k = 0;
	int e = 0;

	if (!pc.on)
		return -1;
	pc_sync(ui);
	pos = (struct pc_pos){ ui->cursor, pc.cur_sub };
	if (win_seek(&it, ui->wc, pos.off))
		goto out;
	while ((unsigned long)k < n) {
		if (pos.sub == 0) {
			pc_packet_text(ui, win_row(&it), text, sizeof(text));
		} else {
			size_t first;
			uint32_t nl;
			struct pc_seg *s = pc_lines(ui, pos.off, &first, &nl);

			if (!s)
				break;
			pc_line_text(ui, s, first + pos.sub - 1, text, sizeof(text), 0);
		}
		e = fn(ctx, text, strlen(text));
		if (e < 0)
			break;
		k++;
		/* the next row, as the view draws them */
		if (pos.sub < pc_nrows(ui, pos.off)) {
			pos.sub++;
		} else if (!win_next(&it)) {
			pos.off = win_row(&it)->pkt.offset;
			pos.sub = 0;
		} else {
			break;
		}
	}
out:
	win_iter_release(&it);
	return e < 0 ? e : k;
}

void pane_code_place(struct ui *ui, uint64_t off, pane_code_match_fn *match,
		     void *ctx)
{
	pc.place_match = match;
	pc.place_ctx = ctx;
	pc.place_off = off;
	if (!match || !pc.on || ui->cursor != off)
		return;	/* kept: for c, or a jump that lands later */
	pc.cur_off = off;
	pc_place_sub(ui);
	pc_fix_view(ui);
}

static int pc_drawn_add(const struct pc_drawn *d)
{
	if (pc.ndrawn == pc.cap) {
		int cap = pc.cap ? 2 * pc.cap : 64;
		struct pc_drawn *p = realloc(pc.drawn, (size_t)cap * sizeof(*p));

		if (!p)
			return -1;
		pc.drawn = p;
		pc.cap = cap;
	}
	pc.drawn[pc.ndrawn++] = *d;
	return 0;
}

/* @text at (@y, @x) in @w columns, ending in an ellipsis where it is cut
 * (an instruction's operand cut short reads as another). */
static void pc_put_cut(struct ui *ui, int y, int x, int w, const char *text)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", text);
	screen_head_cut(buf, sizeof(buf), w, screen_glyph(ui, "…", ">"));
	screen_put(y, x, w, buf);
}

/* One row at screen row @sy: its gutter, band, cursor and text. */
static void pc_put_row(struct ui *ui, struct pane *p, int sy, const struct pc_drawn *d,
		       const char *text, int attr)
{
	int band = marks_ui_band(ui, d->off);
	char gut[2] = " ";

	if (band && ui->color)
		attr = marks_ui_band_attr(ui, band);
	else if (band)
		attr |= marks_ui_band_attr(ui, band);
	if (d->cursor)
		attr = (attr & ~A_DIM) | (ui->focus == UI_PANE_PACKETS ? A_REVERSE
								: A_UNDERLINE | A_BOLD);
	attrset(attr);
	screen_clear(sy, p->x, p->w);
	attrset(screen_attr(ui, SC_MARK));
	gut[0] = d->cursor ? '>' : ' ';
	screen_put(sy, p->x, 1, gut[0] == ' ' && band ? marks_ui_band_glyph(ui, band) : gut);
	attrset(attr);
	if ((int)strlen(text) > ui->hscroll)
		pc_put_cut(ui, sy, p->x + 3, p->w - 3, text + ui->hscroll);
	attrset(A_NORMAL);
}

static void pane_code_draw(struct ui *ui, struct pane *p)
{
	struct win_iter it = { 0 };
	struct pc_pos pos;
	const char *why;
	char text[1024];
	/* Narrow: the instruction before the IP and the name's middle
	 * (scrolled sideways too, so that h and l shift what is shown). */
	int y, ok, narrow = p->w - 3 < PC_NARROW ? p->w - 3 : 0;

	pc_fix_view(ui);
	pc.ndrawn = 0;
	attrset(A_BOLD);
	screen_clear(p->y, p->x, p->w);
	why = code_why(ui);
	snprintf(text, sizeof(text), "   packet, and the code it decided: %sfunction+0xoff  "
		 "instruction%s%s", narrow ? "" : "ip  ", why ? "   -- " : "", why ? why : "");
	/* scrolled with the rows (h l), past the three gutter columns, as
	 * the packet pane's header is */
	screen_put(p->y, p->x, 3, text);
	if ((int)strlen(text + 3) > ui->hscroll)
		pc_put_cut(ui, p->y, p->x + 3, p->w - 3, text + 3 + ui->hscroll);
	attrset(A_NORMAL);
	pos = (struct pc_pos){ ui->top, pc.top_sub };
	ok = !win_seek(&it, ui->wc, pos.off);
	for (y = 1; y < p->h; y++) {
		struct pc_drawn d = { NULL, 0, pos.off, 0 };
		int attr;

		screen_clear(p->y + y, p->x, p->w);
		if (!ok)
			continue;
		d.cursor = pos.off == ui->cursor && pos.sub == pc.cur_sub;
		if (pos.sub == 0) {
			const struct win_row *row = win_row(&it);

			pc_packet_text(ui, row, text, sizeof(text));
			attr = row->flags & WIN_F_ERROR ? screen_attr(ui, SC_ERROR) :
			       screen_attr(ui, screen_class_color(pkt_type_class(row->pkt.type)));
			if (row->pkt.type == PKT_PAD || (row->flags & WIN_F_PRE_PSB))
				attr = screen_attr(ui, SC_DIM);
			if (!d.cursor && search_ui_is_hit(ui, pos.off))
				attr |= A_BOLD | A_UNDERLINE;
		} else {
			size_t first;
			uint32_t n;
			struct pc_seg *s = pc_lines(ui, pos.off, &first, &n);

			if (!s)
				continue;
			d.seg = s;
			d.line = (uint32_t)(first + pos.sub - 1);
			pc_line_text(ui, s, d.line, text, sizeof(text), narrow);
			attr = d.line < s->nshown &&
			       s->w.lines[s->shown[d.line]].r.kind == FLOW_ERROR ?
			       screen_attr(ui, SC_ERROR) : (int)A_NORMAL;
		}
		pc_put_row(ui, p, p->y + y, &d, text, attr);
		if (pc_drawn_add(&d) < 0)
			break;
		/* the next row */
		if (pos.sub < pc_nrows(ui, pos.off)) {
			pos.sub++;
		} else if (!win_next(&it)) {
			pos.off = win_row(&it)->pkt.offset;
			pos.sub = 0;
		} else {
			ok = 0;
		}
	}
	win_iter_release(&it);
}

/* A run's cycles: exact, [lo,hi], >=lo, or ? (never a made-up number). */
static const char *pc_cyc(const struct flow_cyc *c, char *buf, size_t size)
{
	if (c->flags & FLOW_C_EXACT)
		snprintf(buf, size, "%" PRIu64, c->lo);
	else if ((c->flags & FLOW_C_KNOWN) && (c->flags & FLOW_C_HI))
		snprintf(buf, size, "[%" PRIu64 ",%" PRIu64 "]", c->lo, c->hi);
	else if (c->flags & FLOW_C_KNOWN)
		snprintf(buf, size, ">=%" PRIu64, c->lo);
	else
		snprintf(buf, size, "?");
	return buf;
}

/* The cycle pane of the code view: each run's instructions and cycles on
 * its first row, a bar down its other rows. */
static void pane_code_cycles_draw(struct ui *ui, struct pane *p)
{
	char buf[96], cell[64];
	int y;

	screen_clear(p->y, p->x, p->w);
	screen_put(p->y, p->x, 1, screen_glyph(ui, "│", "|"));
	attrset(A_BOLD);
	snprintf(buf, sizeof(buf), "%6s %s", "insns", "run cycles");
	screen_put(p->y, p->x + 2, p->w - 2, buf);
	attrset(A_NORMAL);
	for (y = 1; y < p->h; y++) {
		const struct pc_drawn *d = y - 1 < pc.ndrawn ? &pc.drawn[y - 1] : NULL;
		const struct flow_line *l;
		const struct flow_run *r;
		int sy = p->y + y;

		screen_clear(sy, p->x, p->w);
		screen_put(sy, p->x, 1, screen_glyph(ui, "│", "|"));
		if (!d || !d->seg || d->line >= d->seg->nshown)
			continue;
		l = &d->seg->w.lines[d->seg->shown[d->line]];
		if (l->run == UINT32_MAX || l->run >= d->seg->w.nruns)
			continue;
		r = &d->seg->w.runs[l->run];
		attrset(d->cursor ? (ui->focus == UI_PANE_CYCLES ? A_REVERSE
							  : A_UNDERLINE | A_BOLD) :
			(r->cycles.flags & FLOW_C_EXACT) ? A_BOLD : A_NORMAL);
		if (d->cursor)
			screen_clear(sy, p->x + 1, p->w - 1);
		/* the first row of its run carries the numbers */
		if (d->line == 0 || d->seg->w.lines[d->seg->shown[d->line - 1]].run != l->run)
			snprintf(buf, sizeof(buf), "%6u %s", r->ninsns,
				 pc_cyc(&r->cycles, cell, sizeof(cell)));
		else
			snprintf(buf, sizeof(buf), "%6s %s", "", screen_glyph(ui, "┊", ":"));
		screen_put(sy, p->x + 2, p->w - 2, buf);
		attrset(A_NORMAL);
	}
}

static void pane_code_resize(struct ui *ui, struct pane *p)
{
}

static void pane_code_free(struct pane *p)
{
}

const struct pane_ops pane_code_ops = {
	.name = "code",
	.table = KM_T_PACKETS,
	.draw = pane_code_draw,
	.resize = pane_code_resize,
	.free = pane_code_free,
};

const struct pane_ops pane_code_cycles_ops = {
	.name = "timing",
	.table = KM_T_TIMING,
	.draw = pane_code_cycles_draw,
	.resize = pane_code_resize,
	.free = pane_code_free,
};

void pane_code_layout(struct ui *ui)
{
	struct pane *pk = &ui->panes[UI_PANE_PACKETS], *cy = &ui->panes[UI_PANE_CYCLES];
	int cw;

	if (!pc.on || !pk->h)
		return;
	/* the instructions take the width; the runs need 24 columns */
	cw = ui->cols >= 80 ? 24 : 0;
	pk->ops = &pane_code_ops;
	pk->w = ui->cols - cw;
	cy->ops = &pane_code_cycles_ops;
	cy->x = ui->cols - cw;
	cy->w = cw;
	cy->h = cw ? pk->h : 0;
}

int pane_code_set(struct ui *ui, int on)
{
	size_t i;

	if (on == pc.on)
		return UI_DRAW_STATUS;
	pc_sync(ui);
	pc.on = on;
	pc.cur_sub = pc.top_sub = 0;
	if (!on) {
		/* dropped (the next open decodes afresh), their memory kept */
		for (i = 0; i < PC_NSEG; i++)
			pc_seg_drop(&pc.seg[i]);
		free(pc.drawn);
		pc.drawn = NULL;
		pc.ndrawn = pc.cap = 0;
		pc.dec = NULL;
	}
	/* the browser, the bottom view, lays its panes out again (through
	 * its resize: browser.c includes this file, not the other way) */
	if (ui->vs.n && ui->vs.v[0].ops->resize)
		ui->vs.v[0].ops->resize(ui, &ui->vs.v[0]);
	/* (+'sym NAME' then c: the hit's row) */
	if (on && pc.place_match && ui->cursor == pc.place_off) {
		pc_place_sub(ui);
		pc_fix_view(ui);
	}
	if (on && code_why(ui))
		msg_report(ui, UI_WARN, "code view: %s", code_why(ui));
	return UI_DRAW_ALL;
}

/* code-view [packets|code]: toggle, or set. */
static int pane_code_cmd(struct ui *ui, const struct cmd_args *a)
{
	if (a->argc < 2)
		return pane_code_set(ui, !pc.on);
	if (!strcmp(a->argv[1], "code"))
		return pane_code_set(ui, 1);
	if (!strcmp(a->argv[1], "packets"))
		return pane_code_set(ui, 0);
	msg_report(ui, UI_ERROR, "code-view: packets or code, not '%s'", a->argv[1]);
	return UI_DRAW_STATUS;
}

static const struct cmd_row pane_code_rows[] = {
	{ ACTION_CODE_VIEW, pane_code_cmd, CMD_WORDS, 1, 0 },
};

CMD_TABLE(pane_code_cmds, pane_code_rows);
