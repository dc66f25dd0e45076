/* help -- the help screen, generated from the keymap and the action table. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "help.h"
#include "msg.h"
#include "screen.h"
#include "ui.h"

/* A wrapped line's rows after the first start this far in, unless the
 * line says where its description starts. */
#define HELP_HANG 4

/* What the pager shows (UI_PAGER_*), its first row, and the width that
 * row was counted at (the rows of a line depend on it). */
static struct {
	int what;
	int top;
	int w;
} help_st;

/* Line @n of the message log, oldest first; 0, or -1 past the end. */
static int help_message(const struct ui *ui, int n, char *buf, size_t size)
{
	unsigned kept = ui->nmsglog < UI_MSGLOG ? ui->nmsglog : UI_MSGLOG;
	unsigned first = ui->nmsglog - kept;

	if (n < 0 || (unsigned)n >= kept)
		return -1;
	snprintf(buf, size, "%s", ui->msglog[(first + (unsigned)n) % UI_MSGLOG]);
	return 0;
}

static const char *const intro[] = {
		"ptbrowse: keys and commands (q or Escape closes; j k Space b scroll)",
		"",
		"Every command also works at the ':' prompt, e.g. ':goto 50%', ':goto 0x1f40',",
		"':save-screen FILE', ':set raw on'.  A count typed first repeats or aims a key",
		NULL,	/* its examples, in the keymap's keys: help_count_line() */
		"The mouse: the wheel scrolls, a click on a row moves the cursor there, a",
		"drag over packet rows selects them (y yanks, | pipes), a click on the",
		"timeline jumps there, a drag along it selects a span (z zooms to it).",
		"To copy text the terminal's way, hold Shift while dragging (most",
		"terminals), or F2 leaves the mouse to the terminal.",
		"Keys marked 'in prompt' or 'in visual' work at the ':' prompt or while",
		"selecting a region (v).  ':messages' shows every message of the session.",
		"What the cycle pane's and the timeline's marks mean is at the end (G),",
		"then the search expressions (':help search').",
		"",
};
#define NINTRO ((int)(sizeof(intro) / sizeof(intro[0])))
/* The intro's line of count examples. */
#define HELP_COUNT_LINE 4

/* The notation of the cycle pane and the timeline (the man page's THE
 * SCREEN says the same). */
static const char *const legend[] = {
		"",
		"The cycle pane (Δcyc, cycles, time, Δref, cbr, MHz), right of the packets:",
		"  123          Δcyc of a CYC packet: the cycles it counts",
		"  +123         Δcyc of the packet a CYC was sent for: the cycles it took",
		"  4567         cycles since the start, exact (a CYC was sent for it)",
		"  lo-hi        cycles bounded: the packet lies between two CYCs, which a",
		"               cycle threshold hides (SDM 36.3.6); never shown as exact",
		"  lo+n         the same range as start and width, where lo-hi is wide",
		"  ≥N           at least N: the next CYC lies beyond the decoded rows",
		"  psb+N        N cycles since this segment's PSB: how many came before",
		"               is not known until the index's time pass gets there",
		"  12.5 us      a TSC or MTC packet's time since the first timed packet",
		"  ~12.5 us     an estimate (between TSC and MTC packets, after a clamp,",
		"               lost MTCs or lost data); more digits where rows are close",
		"  ?12.5 us     disputed: this PSB segment's first TSC contradicts its",
		"               neighbours' (damaged), so its times may be far off",
		"  +123t        TSC ticks: no TSC frequency is known (--tsc-freq,",
		"               --cpuid-0x15.*, or a perf.data file's own)",
		"  time≈ MHz≈   times and MHz use a TSC frequency estimated",
		"               as --nom-freq × 100 MHz: give --tsc-freq or --cpuid-0x15.ecx",
		"  ####         a number wider than the room left: widen the terminal or",
		"               drop columns (:set columns); digits are never cut",
		"  !            (the pane's gutter) the time model's trouble at this",
		"               packet; the status line names it",
		"The timeline: a density row; a marker row (viewport, ┃ the cursor's",
		"column, ! OVF, error or gap (? not placed yet: a long PSB segment is",
		"still being read there), ╵ PSBs when few, mark letters, * bookmarks,",
		"· search hits, regions underlined; perf.data sideband: ^ trace start,",
		", context switch, c exec (comm), ! data lost), where a column shows a",
		"mark, else a hit, a rare OVF, a PSB, the sideband, then OVFs that fill",
		"most columns; an axis row (time or bytes): the view's start, ticks",
		"from it (+0.2 ms), the span shown.  z Z zoom keeping the cursor's",
		"column; :zoom REGION, A B, hit, selection, all (M-z M-Z M-h).",
};
#define NLEGEND ((int)(sizeof(legend) / sizeof(legend[0])))

/* The search expressions (the man page's SEARCH; decoder/search.h's
 * grammar): `:help search` opens here. */
static const char *const search_topic[] = {
		"",
		"Search expressions (/ ? :search :filter; * # on a packet):",
		"  tip  ovf     a packet type by ptdump's name (tip.pge, tnt.8, mode.exec, ...); tnt is tnt.8 or tnt.64",
		"  branch       a class: sync branch ip timing mode power error other; error is OVF and decode errors",
		"  tip 0x401000 a type's main value: the reconstructed IP of tip fup tip.pge tip.pgd and ip (any IP packet); cbr mtc tsc cyc vmcs; pip (CR3); tma (CTC); mode.exec (16 32 64); tnt (branches: tnt 6); ptw mnt (payload)",
		"  ip 0x400000-0x4fffff   an inclusive range",
		"  cyc > 1000   a named field (ip cbr mtc tsc cyc cr3 nr vmcs ctc fc bits intx abrt nbits payload) with = == != < <= > >= (default =): pip cr3=0x1000, tsc >= 0x1a2b",
		"  bytes 02 f3  raw bytes starting inside a packet or error row (also x:02f3)",
		"  gap > 10us   a TSC or MTC packet this long after the previous one (TSC ticks: 5000, 5000tsc; or ns us ms s)",
		"  not X, !X    X does not hold",
		"  X and Y      both (also X & Y, X Y); X or Y, X | Y: either; and binds tighter than or; ( ) group",
		"  comm NAME    a perf.data's tasks (also pid N, tid N, switch), at the top of the expression joined by and: comm sorter & tip",
		"  sym NAME     the packets that decided an instruction of function NAME (also call NAME: a call into it; ret: a return), joined by and: ret & sym foo, sym foo & pid 42; :goto sym NAME",
		"  * #          the cursor's packet type; on an IP packet with its IP known, that type at that IP (tip 0x401000)",
};
#define NSEARCH ((int)(sizeof(search_topic) / sizeof(search_topic[0])))

/* The function view's own keys (the man page's funcs): F1 there, and
 * `:help funcs`, open here. */
static const char *const funcs_topic[] = {
		"",
		"The function view (:funcs; F1 there opens here):",
		"  j k Space b  move; g G the first and last row",
		"  o Tab        open or close the node's callees; l Right open them",
		"  h Left       close the node, or go to its caller",
		"  O *          open the whole subtree; c closes it",
		"  s            sort callees by cycles, instructions or calls (the heading's ↓ says which)",
		"  Enter        close the view and jump to the packet that decided the node's first instruction",
		"  q Escape     close the view; C-c stops the tree being built (what was built stays)",
		"  : F1         the prompt and this help work there; the browser's search, marks and visual keys do not",
};
#define NFUNCS ((int)(sizeof(funcs_topic) / sizeof(funcs_topic[0])))

/* @s into @buf, its glyphs as the screen shows them (--ascii). */
static void help_ascii(const struct ui *ui, const char *s, char *buf, size_t size)
{
	static const char *const glyph[][2] = {
		{ "Δ", "d" }, { "≥", ">=" }, { "≈", "~" }, { "×", "x" },
		{ "╵", "'" }, { "·", "." }, { "↓", "*" },
	};
	size_t n = 0, g;

	while (*s && n + 3 < size) {
		for (g = 0; g < sizeof(glyph) / sizeof(glyph[0]); g++)
			if (!strncmp(s, glyph[g][0], strlen(glyph[g][0])))
				break;
		if (g == sizeof(glyph) / sizeof(glyph[0]) || ui->utf8) {
			buf[n++] = *s++;
			continue;
		}
		n += (size_t)snprintf(buf + n, size - n, "%s", screen_glyph(ui,
				      glyph[g][0], glyph[g][1]));
		s += strlen(glyph[g][0]);
	}
	buf[n] = 0;
}

/*
 * An action's help lines: its own (the keys that do what its help says)
 * and one per other use of it a binding makes (variant): a binding with
 * arguments (C-x r m: command-prompt "mark "; z: timeline-zoom in) or
 * with a note other than the action's own (the first note of a binding
 * without arguments: "Cancel"; v in visual: "End the selection").
 * Merged into one line, which key did what was lost.
 */
#define HELP_BINDS 64

/* The bindings of one action, in table order, and its own note. */
struct help_binds {
	struct km_binding_view v[HELP_BINDS];
	int n;
	const char *own;
};

/* The help's lines of actions: line i is variant k (0: its own line) of
 * action a; remade from the keymap by help_index(). */
static struct { short a, k; } help_idx[ACTION__N * (HELP_BINDS + 1)];
static int help_nidx;

static void help_binds_of(const struct ui *ui, enum action a, struct help_binds *hb)
{
	enum km_table t;
	size_t i;

	hb->n = 0;
	hb->own = "";
	for (t = KM_T_GLOBAL; ui->km && t < KM_NTABLES; t++)
		for (i = 0; i < km_count(ui->km, t) && hb->n < HELP_BINDS; i++)
			if (!km_get(ui->km, t, i, &hb->v[hb->n]) && hb->v[hb->n].action == a)
				hb->n++;
	for (i = 0; i < (size_t)hb->n && !hb->own[0]; i++)
		if (!hb->v[i].args[0])
			hb->own = hb->v[i].note;
}

/* Whether binding @i does what the action's own line says. */
static int help_plain(const struct help_binds *hb, int i)
{
	return !hb->v[i].args[0] && (!hb->v[i].note[0] || !strcmp(hb->v[i].note, hb->own));
}

/* Whether bindings @i and @j are the same use (on one line). */
static int help_same(const struct help_binds *hb, int i, int j)
{
	if (help_plain(hb, i) || help_plain(hb, j))
		return help_plain(hb, i) && help_plain(hb, j);
	return !strcmp(hb->v[i].args, hb->v[j].args) && !strcmp(hb->v[i].note, hb->v[j].note);
}

/* Whether binding @i starts a variant: not plain, none like it before. */
static int help_first(const struct help_binds *hb, int i)
{
	int j;

	if (help_plain(hb, i))
		return 0;
	for (j = 0; j < i; j++)
		if (!help_plain(hb, j) && help_same(hb, i, j))
			return 0;
	return 1;
}

/* The binding that starts variant @k (from 1), or -1 if none. */
static int help_variant(const struct help_binds *hb, int k)
{
	int i;

	for (i = 0; i < hb->n; i++)
		if (help_first(hb, i) && !--k)
			return i;
	return -1;
}

/* Remake help_idx from the keymap. */
static void help_index(const struct ui *ui)
{
	struct help_binds hb;
	int a, i, k;

	help_nidx = 0;
	for (a = 0; a < ACTION__N; a++) {
		help_binds_of(ui, (enum action)a, &hb);
		help_idx[help_nidx].a = (short)a;
		help_idx[help_nidx++].k = 0;
		for (i = 0, k = 1; i < hb.n; i++)
			if (help_first(&hb, i)) {
				help_idx[help_nidx].a = (short)a;
				help_idx[help_nidx++].k = (short)k++;
			}
	}
}

/* Whether key name @b follows @a as the next digit (1 after 0, M-4 after
 * M-3): the count keys are shown as a run, 0..9. */
static int help_next_digit(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n && n == strlen(b) && !strncmp(a, b, n - 1) && a[n - 1] >= '0' &&
	       a[n - 1] < '9' && b[n - 1] == a[n - 1] + 1;
}

/* The keys of the bindings like binding @like (-1: the plain ones), by
 * table, "j, Down; Enter in visual" (no table: global), into @buf; runs
 * of digits as "0..9". */
static void help_keys(const struct help_binds *hb, int like, char *buf, size_t size)
{
	size_t len = 0;
	enum km_table t;
	char seq[128], prev[128], end[128];
	int i, in_t;

	buf[0] = 0;
	for (t = KM_T_GLOBAL; t < KM_NTABLES; t++) {
		in_t = 0;
		end[0] = 0;
		for (i = 0; i < hb->n && len < size; i++) {
			if (hb->v[i].table != t || (like < 0 ? !help_plain(hb, i) :
						    !help_same(hb, i, like)))
				continue;
			km_seq_name(hb->v[i].keys, hb->v[i].nkeys, seq, sizeof(seq));
			if (in_t && help_next_digit(prev, seq)) {
				snprintf(end, sizeof(end), "%s", seq);
				snprintf(prev, sizeof(prev), "%s", seq);
				continue;
			}
			if (end[0] && len < size)
				len += (size_t)snprintf(buf + len, size - len, "..%s", end);
			end[0] = 0;
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						in_t ? ", " : len ? "; " : "", seq);
			snprintf(prev, sizeof(prev), "%s", seq);
			in_t = 1;
		}
		if (end[0] && len < size)
			len += (size_t)snprintf(buf + len, size - len, "..%s", end);
		if (in_t && t != KM_T_GLOBAL && len < size)
			len += (size_t)snprintf(buf + len, size - len, " in %s",
						km_table_name(t));
	}
}

/* The global key of @a, the one ending in @last if @last: 0, or -1. */
static int help_key_of(const struct ui *ui, enum action a, char last, char *buf, size_t size)
{
	struct km_binding_view v;
	size_t i, n;

	for (i = 0; ui->km && i < km_count(ui->km, KM_T_GLOBAL); i++) {
		if (km_get(ui->km, KM_T_GLOBAL, i, &v) || v.action != a || v.args[0])
			continue;
		km_seq_name(v.keys, v.nkeys, buf, size);
		n = strlen(buf);
		if (!last || (n && buf[n - 1] == last))
			return 0;
	}
	return -1;
}

/* The keys of count @digits, then of action @a: "3j" ("3", "j"), else
 * "M-3 C-n" or "C-u 3 C-n"; @buf empty if the keymap has none. */
static void help_count_keys(const struct ui *ui, const char *digits, enum action a,
			    char *buf, size_t size)
{
	char k[64], act[64], cnt[128] = "";
	const char *d;
	int single = 1;

	buf[0] = 0;
	if (help_key_of(ui, a, 0, act, sizeof(act)))
		return;
	for (d = digits; *d; d++) {
		if (help_key_of(ui, ACTION_DIGIT_ARGUMENT, *d, k, sizeof(k)))
			break;
		single &= strlen(k) == 1;
		snprintf(cnt + strlen(cnt), sizeof(cnt) - strlen(cnt), "%s%s", cnt[0] ? " " : "", k);
	}
	if (*d) {	/* no digit keys: C-u then the digits */
		if (help_key_of(ui, ACTION_UNIVERSAL_ARGUMENT, 0, k, sizeof(k)))
			return;
		snprintf(cnt, sizeof(cnt), "%s", k);
		for (d = digits; *d; d++)
			snprintf(cnt + strlen(cnt), sizeof(cnt) - strlen(cnt), " %c", *d);
		single = 0;
	}
	single &= strlen(act) == 1;
	if (single)
		snprintf(buf, size, "%s%s", digits, act);
	else
		snprintf(buf, size, "%s %s", cnt, act);
}

/* The intro's count examples in the keymap's keys: "(3j, 50%)." */
static void help_count_line(const struct ui *ui, char *buf, size_t size)
{
	char down[128], pct[128];

	help_count_keys(ui, "3", ACTION_CURSOR_DOWN, down, sizeof(down));
	help_count_keys(ui, "50", ACTION_GOTO_PERCENT, pct, sizeof(pct));
	if (!down[0])
		snprintf(down, sizeof(down), ":cursor-down 3");
	if (!pct[0])
		snprintf(pct, sizeof(pct), ":goto-percent 50");
	snprintf(buf, size, "(%s, %s).  The packet pane, the cycle pane and the timeline "
		 "move together.", down, pct);
}

/* Help line @k of action @a (0: its own; then its variants) into @buf. */
static void help_action_line(const struct ui *ui, int a, int k, char *buf, size_t size)
{
	const struct action_info *ai = &action_table[a];
	struct help_binds hb;
	char keys[256], what[256];
	int i;

	help_binds_of(ui, (enum action)a, &hb);
	i = k ? help_variant(&hb, k) : -1;
	help_keys(&hb, i, keys, sizeof(keys));
	if (i < 0) {
		snprintf(buf, size, "  %-26s %-18s %s%s%s", keys[0] ? keys : "(no key)", ai->name,
			 ai->help, ai->usage[0] ? "  :" : "", ai->usage);
		return;
	}
	/* its note, else what it runs */
	if (hb.v[i].note[0])
		snprintf(what, sizeof(what), "%s", hb.v[i].note);
	else
		snprintf(what, sizeof(what), "%s %s", ai->name, hb.v[i].args);
	snprintf(buf, size, "  %-26s %-18s %s", keys, ai->name, what);
}

/* Line @n of the help text into @buf, whether it is bold and where its
 * wrapped rows start (*@hang: under its description); help_index() made
 * the actions' lines.  Returns 0, or -1 past the end. */
static int help_line(const struct ui *ui, int n, char *buf, size_t size, int *bold,
		     int *hang)
{
	*bold = 0;
	*hang = HELP_HANG;
	if (help_st.what == UI_PAGER_MESSAGES) {
		*hang = (int)strlen("00:00:00 I ");
		return help_message(ui, n, buf, size);
	}
	if (n == HELP_COUNT_LINE) {
		help_count_line(ui, buf, size);
		return 0;
	}
	if (n < NINTRO) {
		snprintf(buf, size, "%s", intro[n]);
		*bold = n == 0;
		return 0;
	}
	n -= NINTRO;
	if (n < help_nidx) {
		*hang = 2 + 26 + 1 + 18 + 1;
		help_action_line(ui, help_idx[n].a, help_idx[n].k, buf, size);
		return 0;
	}
	n -= help_nidx;
	if (n < NLEGEND) {
		*hang = 15;
		help_ascii(ui, legend[n], buf, size);
		*bold = n == 1 || n == NLEGEND - 4;
		return 0;
	}
	n -= NLEGEND;
	if (n < NSEARCH) {
		*hang = 15;
		snprintf(buf, size, "%s", search_topic[n]);
		*bold = n == 1;
		return 0;
	}
	n -= NSEARCH;
	if (n < NFUNCS) {
		*hang = 15;
		help_ascii(ui, funcs_topic[n], buf, size);
		*bold = n == 1;
		return 0;
	}
	return -1;
}

/* The help line of the search topic's title. */
static int help_search_line(const struct ui *ui)
{
	help_index(ui);
	return NINTRO + help_nidx + NLEGEND + 1;
}

/* The help line of the function view's keys' title. */
static int help_funcs_line(const struct ui *ui)
{
	return help_search_line(ui) - 1 + NSEARCH + 1;
}

int help_line_of(const struct ui *ui, int a)
{
	int i;

	if (a <= ACTION_NONE || a >= ACTION__N)
		return -1;
	help_index(ui);
	for (i = 0; i < help_nidx; i++)
		if (help_idx[i].a == a && !help_idx[i].k)
			return NINTRO + i;
	return -1;
}

/* The screen rows line @s takes at width @w, wrapped at blanks (a word
 * wider than a row is cut), the rows after the first indented @hang
 * (less on a narrow screen), and row @k of them into @out (@size bytes;
 * NULL: only count).  Columns are UTF-8 characters (the help's glyphs
 * and escaped messages are one column each).  Returns the number of
 * rows, at least 1. */
static int help_wrap(const char *s, int w, int hang, int k, char *out, size_t size)
{
	int rows = 0, indent = 0, room, cols, brk_cols;
	const char *p = s, *brk, *q;

	if (w < 16)	/* a tiny screen: rows are cut */
		w = 16;
	if (w - hang < 24)
		hang = HELP_HANG;
	for (;;) {
		room = w - indent;
		/* the longest piece from p that fits, ending at a blank */
		cols = 0;
		brk = NULL;
		brk_cols = 0;
		for (q = p; *q && cols < room; q++) {
			if ((*q & 0xc0) == 0x80)
				continue;
			if (*q == ' ' && q > p) {
				brk = q;
				brk_cols = cols;
			}
			cols++;
		}
		while (*q && (*q & 0xc0) == 0x80)
			q++;
		if (*q && brk && brk_cols > room / 3)
			q = brk;
		if (rows == k && out)
			snprintf(out, size, "%*s%.*s", indent, "", (int)(q - p), p);
		rows++;
		while (*q == ' ')
			q++;
		if (!*q)
			return rows;
		p = q;
		indent = hang;
	}
}

/* Row @r of the pager at width @w (logical lines wrapped) into @buf.
 * Returns 0, or -1 past the end. */
static int help_row(const struct ui *ui, int r, int w, char *buf, size_t size, int *bold)
{
	char line[512];
	int n, k, hang;

	for (n = 0; !help_line(ui, n, line, sizeof(line), bold, &hang); n++) {
		k = help_wrap(line, w, hang, 0, NULL, 0);
		if (r < k) {
			help_wrap(line, w, hang, r, buf, size);
			return 0;
		}
		r -= k;
	}
	return -1;
}

/* The pager's rows at width @w, and the first row of logical line @l
 * into *@row_of (if not NULL; the end if @l is past it). */
static int help_nrows(const struct ui *ui, int w, int l, int *row_of)
{
	char line[512];
	int n, rows = 0, b, hang;

	if (row_of)
		*row_of = -1;
	help_index(ui);
	for (n = 0; !help_line(ui, n, line, sizeof(line), &b, &hang); n++) {
		if (n == l && row_of)
			*row_of = rows;
		rows += help_wrap(line, w, hang, 0, NULL, 0);
	}
	if (row_of && *row_of < 0)
		*row_of = rows;
	return rows;
}

/* The logical line that row @r at width @w belongs to (the last line if
 * @r is past the end). */
static int help_line_at(const struct ui *ui, int r, int w)
{
	char line[512];
	int n, b, hang;

	help_index(ui);
	for (n = 0; !help_line(ui, n, line, sizeof(line), &b, &hang); n++) {
		r -= help_wrap(line, w, hang, 0, NULL, 0);
		if (r < 0)
			return n;
	}
	return n ? n - 1 : 0;
}

/* The rows the pager shows: all but the status line. */
static int help_shown(const struct ui *ui)
{
	return ui->rows > 2 ? ui->rows - 1 : 1;
}

/* Keep the first row in the text at the screen's width: after a resize
 * the line that was at the top starts the screen (rows are counted anew
 * at the new width), and the last screen is full, not one line over
 * blank rows.  Returns the pager's rows. */
static int help_fit(const struct ui *ui)
{
	int n;

	if (help_st.w && help_st.w != ui->cols)
		help_nrows(ui, ui->cols, help_line_at(ui, help_st.top, help_st.w),
			   &help_st.top);
	help_st.w = ui->cols;
	n = help_nrows(ui, ui->cols, 0, NULL);
	if (help_st.top > n - help_shown(ui))
		help_st.top = n - help_shown(ui);
	if (help_st.top < 0)
		help_st.top = 0;
	return n;
}

static void help_draw(struct ui *ui, struct view *v)
{
	int y, n = help_fit(ui);

	for (y = 0; y < help_shown(ui); y++) {
		char buf[512];
		int bold;

		screen_clear(y, 0, ui->cols);
		if (help_row(ui, help_st.top + y, ui->cols, buf, sizeof(buf), &bold))
			continue;
		attrset(bold ? A_BOLD : A_NORMAL);
		screen_put(y, 0, ui->cols, buf);
	}
	attrset(screen_attr(ui, SC_STATUS));
	screen_clear(ui->rows - 1, 0, ui->cols);
	{
		char buf[64];

		snprintf(buf, sizeof(buf), " %s  line %d/%d  (q closes)",
			 help_st.what == UI_PAGER_MESSAGES ? "messages" : "help",
			 n ? help_st.top + 1 : 0, n);
		screen_put(ui->rows - 1, 0, ui->cols, buf);
	}
	attrset(A_NORMAL);
}

static int help_key(struct ui *ui, struct view *v, int key)
{
	int page = ui->rows > 3 ? ui->rows - 2 : 1;

	help_fit(ui);
	switch (key) {
	/* as in the lists (F1, if it is help's key, is cmd_view_key()'s) */
	case 'q': case 27: case 'Q': case 7: case KEY_F(1): case 'H':
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
	case 3:	/* C-c: help runs nothing; what runs under it stops */
		return cmd_line(ui, "interrupt", 0);
	case 'j': case KEY_DOWN: case 14: case 13: case 10:
		help_st.top++;
		break;
	case 'k': case KEY_UP: case 16:
		help_st.top--;
		break;
	case ' ': case 'f': case KEY_NPAGE: case 6:
		help_st.top += page;
		break;
	case 'b': case KEY_PPAGE: case 2:
		help_st.top -= page;
		break;
	case 'g': case KEY_HOME: case '<':
		help_st.top = 0;
		break;
	case 'G': case KEY_END: case '>':
		help_st.top = help_nrows(ui, ui->cols, 0, NULL) - help_shown(ui);
		break;
	default:
		break;
	}
	return UI_DRAW_ALL;
}

static const struct view_ops help_view = {
	.name = "help",
	.flags = VIEW_OPAQUE,
	.draw = help_draw,
	.key = help_key,
};

void help_open(struct ui *ui, int what, int top)
{
	int row;

	help_st.what = what;
	/* @top is a line; the pager counts rows, some lines taking more */
	help_nrows(ui, ui->cols, top < 0 ? 0 : top, &row);
	help_st.top = row;
	help_st.w = ui->cols;
	view_push(&ui->vs, &help_view, NULL);
}

/* :help [COMMAND]: the help, at that command's line; :help search at the
 * search expressions (the search command's line is above them), :help
 * funcs and F1 in the function view at that view's keys. */
static int help_cmd(struct ui *ui, const struct cmd_args *a)
{
	struct view *top = view_top(&ui->vs);
	int l = !a->raw[0] ? (top && !strcmp(top->ops->name, "funcs") ?
			      help_funcs_line(ui) : 0) :
		!strcmp(a->raw, "search") ? help_search_line(ui) :
		!strcmp(a->raw, "funcs") ? help_funcs_line(ui) :
		help_line_of(ui, action_find(a->raw));

	/* its key (F1) in help closes it, as in the man page */
	if (a->res && !a->raw[0] && top && top->ops == &help_view) {
		view_close(&ui->vs, &help_view);
		return UI_DRAW_ALL;
	}
	if (l < 0) {
		msg_report(ui, UI_ERROR, "help: %s: no such command", a->raw);
		return UI_DRAW_STATUS;
	}
	help_open(ui, UI_PAGER_HELP, l);
	return UI_DRAW_ALL;
}

/* :messages: the log, the newest at the bottom of the first screen. */
static int help_messages_cmd(struct ui *ui, const struct cmd_args *a)
{
	help_open(ui, UI_PAGER_MESSAGES, 0);
	help_st.top = help_nrows(ui, ui->cols, 0, NULL) - help_shown(ui);
	return UI_DRAW_ALL;
}

static const struct cmd_row help_rows[] = {
	{ ACTION_HELP, help_cmd, CMD_RAW, 0, 0 },
	{ ACTION_MESSAGES, help_messages_cmd, CMD_NONE, 0, 0 },
};

CMD_TABLE(help_cmds, help_rows);
