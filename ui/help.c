/* help -- the help screen, generated from the keymap and the action table. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "help.h"
#include "msg.h"
#include "screen.h"
#include "ui.h"

/* What the pager shows (UI_PAGER_*) and its first line. */
static struct {
	int what;
	int top;
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
		"(3j, 50%).  The packet pane, the cycle pane and the timeline move together.",
		"The mouse: the wheel scrolls, a click on a row moves the cursor there, a",
		"drag over packet rows selects them (y yanks, | pipes), a click on the",
		"timeline jumps there.  To copy text the terminal's way, hold Shift while",
		"dragging (most terminals), or F2 leaves the mouse to the terminal.",
		"Keys marked 'in prompt' or 'in visual' work at the ':' prompt or while",
		"selecting a region (v).  ':messages' shows every message of the session.",
		"What the cycle pane's and the timeline's marks mean is at the end (G).",
		"",
};
#define NINTRO ((int)(sizeof(intro) / sizeof(intro[0])))

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
		"  +123t        TSC ticks: no TSC frequency is known (--tsc-freq,",
		"               --cpuid-0x15.*, or a perf.data file's own)",
		"  time≈ MHz≈   times and MHz use a TSC frequency estimated",
		"               as --nom-freq × 100 MHz: give --tsc-freq or --cpuid-0x15.ecx",
		"  ####         a number wider than the room left: widen the terminal or",
		"               drop columns (:set columns); digits are never cut",
		"  !            (the pane's gutter) the time model's trouble at this",
		"               packet; the status line names it",
		"The timeline: a density row; a marker row (viewport, ! OVF, error or gap,",
		"╵ PSBs when few, mark letters, * bookmarks, · search hits, regions",
		"underlined); an axis row (time or bytes) that also carries perf.data",
		"sideband: ^ trace start, , context switch, c exec (comm), ! data lost.",
};
#define NLEGEND ((int)(sizeof(legend) / sizeof(legend[0])))

/* @s into @buf, its glyphs as the screen shows them (--ascii). */
static void help_ascii(const struct ui *ui, const char *s, char *buf, size_t size)
{
	static const char *const glyph[][2] = {
		{ "Δ", "d" }, { "≥", ">=" }, { "≈", "~" }, { "×", "x" },
		{ "╵", "'" }, { "·", "." },
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

/* Line @n of the help text into @buf; returns 0, or -1 past the end. */
static int help_line(const struct ui *ui, int n, char *buf, size_t size, int *bold)
{
	int a;

	*bold = 0;
	if (help_st.what == UI_PAGER_MESSAGES)
		return help_message(ui, n, buf, size);
	if (n < NINTRO) {
		snprintf(buf, size, "%s", intro[n]);
		*bold = n == 0;
		return 0;
	}
	n -= NINTRO;
	for (a = 0; a < ACTION__N; a++) {
		char keys[128] = "", more[128];
		enum km_table t;

		if (action_table[a].flags & ACT_PREFIX)
			continue;
		if (n--)
			continue;
		for (t = KM_T_GLOBAL; t < KM_NTABLES; t++) {
			more[0] = 0;
			if (ui->km && km_keys_for(ui->km, t, (enum action)a, more, sizeof(more)) > 0) {
				size_t l = strlen(keys);

				snprintf(keys + l, sizeof(keys) - l, "%s%s%s%s", l ? ", " : "", more,
					 t == KM_T_GLOBAL ? "" : " in ", t == KM_T_GLOBAL ? "" :
					 km_table_name(t));
			}
		}
		snprintf(buf, size, "  %-26s %-18s %s%s%s", keys[0] ? keys : "-",
			 action_table[a].name, action_table[a].help,
			 action_table[a].usage[0] ? "  :" : "", action_table[a].usage[0] ?
			 action_table[a].usage : "");
		return 0;
	}
	if (n < NLEGEND) {
		help_ascii(ui, legend[n], buf, size);
		*bold = n == 1 || n == NLEGEND - 4;
		return 0;
	}
	return -1;
}

int help_line_of(const struct ui *ui, int a)
{
	int i, n = NINTRO;

	(void)ui;
	if (a <= ACTION_NONE || a >= ACTION__N || (action_table[a].flags & ACT_PREFIX))
		return -1;
	for (i = 0; i < a; i++)	/* help_line()'s order */
		n += !(action_table[i].flags & ACT_PREFIX);
	return n;
}

static int help_nlines(const struct ui *ui)
{
	char buf[8];
	int n = 0, b;

	while (!help_line(ui, n, buf, sizeof(buf), &b))
		n++;
	return n;
}

static void help_draw(struct ui *ui, struct view *v)
{
	int y, n = help_nlines(ui);

	if (help_st.top > n - 1)
		help_st.top = n - 1;
	if (help_st.top < 0)
		help_st.top = 0;
	for (y = 0; y < ui->rows - 1; y++) {
		char buf[512];
		int bold;

		screen_clear(y, 0, ui->cols);
		if (help_line(ui, help_st.top + y, buf, sizeof(buf), &bold))
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

	switch (key) {
	case 'q': case 27: case KEY_F(1): case 'H':
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
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
		help_st.top = help_nlines(ui) - page;
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
	help_st.what = what;
	help_st.top = top;
	view_push(&ui->vs, &help_view, NULL);
}

/* :help [COMMAND]: the help, at that command's line. */
static int help_cmd(struct ui *ui, const struct cmd_args *a)
{
	int l = a->raw[0] ? help_line_of(ui, action_find(a->raw)) : 0;

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
	help_open(ui, UI_PAGER_MESSAGES, (int)(ui->nmsglog < UI_MSGLOG ? ui->nmsglog :
		  UI_MSGLOG) - (ui->rows - 2));
	return UI_DRAW_ALL;
}

static const struct cmd_row help_rows[] = {
	{ ACTION_HELP, help_cmd, CMD_RAW, 0, 0 },
	{ ACTION_MESSAGES, help_messages_cmd, CMD_NONE, 0, 0 },
};

CMD_TABLE(help_cmds, help_rows);
