/*
 * ui -- the browser: three panes over one cursor, a status line, a prompt.
 *
 * Architecture:
 *   browse.c        cmd_browse_main(): options, the trace, the index, the
 *                   terminal (or a virtual screen for --script), the loop.
 *   nav.c           moving the one cursor (a byte offset) and the view:
 *                   lines, pages, PSBs, errors, same type, jumps, history.
 *   pane_packets.c  the packet pane (offset, raw bytes, ptdump payload, IP).
 *   pane_cycles.c   the cycle pane, row-aligned with the packet pane.
 *   tl.c            the timeline: density, markers, viewport, zoom, clicks.
 *   status.c        the header, the status line and messages.
 *   help.c          the help screen, generated from the keymap and actions.
 *   prompt.c        the ':' prompt: GNU readline's callback interface.
 *   screen.c        colours, glyphs (UTF-8 or ASCII) and save-screen.
 *
 * Focus and dispatch: keys go through the keymap (keymap.h) with the mode
 * and the focused pane's table; the action goes first to the focused
 * pane's key handler, then to the global handler (ui_action()).  Handlers
 * return what needs redrawing (UI_DRAW_*) and never draw themselves; the
 * loop draws every pane from the cursor and the view's top row.
 *
 * Nothing here walks the whole trace on the main thread: that is the
 * index's job (decoder/index.h); searches on the UI thread are bounded.
 */
#ifndef UI_H
#define UI_H

#include <stddef.h>
#include <pthread.h>
#include <stdint.h>

#include "action_list.h"
#include "identity.h"
#include "index.h"
#include "keymap.h"
#include "tm.h"
#include "view.h"
#include "window.h"

struct trace;
struct trace_stream;
struct marks_set;
struct ui;
struct search_ui;

/* What needs redrawing, or'ed together. */
enum ui_draw {
	UI_DRAW_NONE = 0,
	UI_DRAW_PANES = 1 << 0,
	UI_DRAW_STATUS = 1 << 1,
	UI_DRAW_TIMELINE = 1 << 2,
	UI_DRAW_ALL = 0xff,
	UI_NOT_MINE = -1,	/* a pane's key handler did not take it */
};

/* Message severities (status line colours). */
enum ui_sev { UI_INFO, UI_WARN, UI_ERROR };

/* A pane: position on the screen and its ops. */
struct pane;

struct pane_ops {
	const char *name;	/* "packets", "timing", "timeline" */
	enum km_table table;	/* its key table */
	/* Draw the pane on stdscr inside its rectangle. */
	void (*draw)(struct ui *ui, struct pane *p);
	/* Handle action @res; returns UI_DRAW_* or UI_NOT_MINE. */
	int (*key)(struct ui *ui, struct pane *p, const struct km_result *res);
	/* The rectangle changed (already stored in @p). */
	void (*resize)(struct ui *ui, struct pane *p);
	/* Release what the pane owns. */
	void (*free)(struct pane *p);
};

struct pane {
	const struct pane_ops *ops;
	int y, x, h, w;		/* rectangle; h == 0 when hidden */
	void *priv;
};

enum { UI_PANE_PACKETS, UI_PANE_CYCLES, UI_PANE_TIMELINE, UI_NPANES };

/* Packet pane columns (ui->pk_cols). */
enum { UI_PK_RAW = 1 << 0, UI_PK_IP = 1 << 1 };
/* Cycle pane columns (ui->cy_cols), in display order. */
enum {
	UI_CY_DELTA = 1 << 0,	/* cycle delta */
	UI_CY_CYCLES = 1 << 1,	/* accumulated cycles, exact or a range */
	UI_CY_TSC = 1 << 2,	/* TSC estimate */
	UI_CY_TIME = 1 << 3,	/* time since the trace's start */
	UI_CY_DMARK = 1 << 4,	/* time since the reference mark */
	UI_CY_CBR = 1 << 5,	/* core:bus ratio */
	UI_CY_FREQ = 1 << 6,	/* measured core frequency */
};

#define UI_HISTORY 64

/* The packet pane's last IP column, with its separator. */
#define UI_PK_IP_WIDTH 18

/* What the pager (help.c) shows. */
enum { UI_PAGER_HELP = 1, UI_PAGER_MESSAGES = 2 };
#define UI_MSGLOG 256

/* A cached index of a trace copied or touched since is checked byte by
 * byte up to this size before the first screen; past it, rebuilt in the
 * background.  Saving one past it stops when the browser quits. */
#define UI_CACHE_HASH_MAX (256ull << 20)

struct ui {
	/* the trace */
	struct trace *trace;
	int stream_no;
	const struct img *img;
	const char *name;		/* file name for the header */
	struct idx *idx;		/* NULL if indexing is off */
	int idx_ops_set;		/* windows use the index's time carries */
	int idx_from_cache;		/* the index came whole from the cache */
	int cache_saving;		/* cache_thread is writing the cache */
	_Atomic int cache_cancel;	/* stop it: quitting, reloading */
	pthread_t cache_thread;
	char cache_err[200];		/* why the cache was not written */
	struct win_cache *wc;
	struct tm_config tmcfg;
	struct identity ident;		/* the file's when opened or reloaded */
	int have_ident;
	struct marks_set *bm;		/* marks, NULL with --no-state */
	struct km *km;
	struct km_state ks;
	char keymap_name[32];

	/* the view: one cursor, one top row */
	uint64_t cursor;		/* offset of the cursor row */
	int pk_narrow;			/* no room for the last IP column */
	uint64_t top;			/* offset of the first row shown */
	int no_index;			/* --no-index */
	char fatal[256];		/* why the browser must end, or "" */
	int dir;			/* last movement: 1 down, -1 up */
	int hscroll;			/* packet pane columns scrolled */
	unsigned pk_cols, cy_cols;
	uint64_t t0;			/* TSC of the trace's first timed row */
	int have_t0;
	int estimate_said;		/* the P1 estimate was named once */
	double time_res;		/* ns between the closest times in the
					 * cycle pane, for the status line's
					 * digits (0: not drawn yet) */
	uint64_t ref_off;		/* the reference for time deltas */
	char ref_name;			/* its mark letter, 1 if it is named
					 * (:ref), 0 if there is none */
	char ref_label[24];		/* "'a", or the mark or region's name */
	uint64_t hist[UI_HISTORY];	/* location history (a jump list) */
	int nhist, hist_pos;

	/* the timeline */
	int tl_time;			/* axis: 1 time, 0 bytes */
	int tl_zoom;			/* 0 is the whole trace */
	uint64_t tl_lo, tl_hi;		/* the byte range shown */

	/* the screen */
	int rows, cols;
	int utf8, color, mouse, headless;
	struct pane panes[UI_NPANES];
	int focus;
	struct view views[VIEW_MAX];	/* the stack, bottom first (view.h) */
	int nviews;
	int no_state;			/* --no-state: write no files */

	char msg[512];
	int msg_sev;
	/* every message of the session, the last UI_MSGLOG (:messages) */
	char *msglog[UI_MSGLOG];
	unsigned nmsglog;		/* messages logged, ever */
	int msglog_off;			/* the config's lines log with file:line */
	int quit;
	int exit_status;
	volatile int interrupted;	/* C-c during a long operation */
	int worker_sigbus;		/* a search or the index read past the
					 * file's end: it shrank (browse.c
					 * recovers as from its own SIGBUS) */
	struct search_ui *sui;		/* search and filter (search_ui.c) */
};

/* browse.c */
/* Show message @fmt in the message line with severity @sev. */
void ui_message(struct ui *ui, int sev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Run action @res (from a key, or the prompt).  Returns UI_DRAW_*. */
int ui_action(struct ui *ui, const struct km_result *res);
/* Run prompt command line @line ("goto 50%", "quit").  Returns UI_DRAW_*. */
int ui_command(struct ui *ui, const char *line);
/* Compute the panes' rectangles from ui->rows and ui->cols. */
void ui_layout(struct ui *ui);
/* Draw everything into stdscr (not refreshed). */
void ui_draw(struct ui *ui);
/* Whether a key is waiting (so long operations can stop for C-c). */
int ui_key_waiting(struct ui *ui);
/* Resolve goto target text @arg (src/goto.h) at the cursor into *@off.
 * Returns 0, or a negative pte code with a message in @err. */
int ui_goto_offset(struct ui *ui, const char *arg, uint64_t *off, char *err,
		   size_t len);
/* The first TSC of the stream (ui->t0), from its first packets. */
void ui_find_t0(struct ui *ui);
/* Start and stop the background index of ui->img. */
void ui_idx_start(struct ui *ui);
void ui_idx_stop(struct ui *ui);

/* nav.c */
/* Rows of the packet pane. */
int nav_view_rows(const struct ui *ui);
/* Move the cursor @n rows (negative: up).  Returns UI_DRAW_*. */
int nav_lines(struct ui *ui, long n);
/* Scroll the view @n rows, keeping the cursor inside it. */
int nav_scroll(struct ui *ui, long n);
/* Move the view and the cursor @n rows together (pages). */
int nav_page(struct ui *ui, long n);
/* Jump to the row holding @off and remember where we were. */
int nav_jump(struct ui *ui, uint64_t off);
/* Move to the first row, or the last. */
int nav_start(struct ui *ui);
int nav_end(struct ui *ui);
/* The next (@dir > 0) or previous PSB, @n times. */
int nav_psb(struct ui *ui, int dir, uint64_t n);
/* The next or previous OVF or error row. */
int nav_error(struct ui *ui, int dir, uint64_t n);
/* The next or previous packet of the cursor's type. */
int nav_same_type(struct ui *ui, int dir, uint64_t n);
/* Back in the location history (C-o), or to the last position (''). */
int nav_history(struct ui *ui, int dir);
int nav_last(struct ui *ui);
/* Make sure the cursor is inside the view. */
void nav_fix_view(struct ui *ui);
/* The row at the cursor, copied into @row.  Returns 0 or a pte code. */
int nav_cursor_row(struct ui *ui, struct win_row *row);
/* Decode ahead in the direction of the last movement (idle time). */
void nav_prefetch(struct ui *ui);

/* pane_packets.c, pane_cycles.c, tl.c */
extern const struct pane_ops pane_packets_ops;
extern const struct pane_ops pane_cycles_ops;
extern const struct pane_ops tl_ops;
/* What the time model found wrong at @row (a dropped MTC, a TSC going
 * back, ...), or NULL. */
const char *pane_cycles_trouble(const struct win_row *row);
/* The trouble, or else a note on how to read @row's cycle count. */
const char *pane_cycles_note(const struct win_row *row);
/* The byte range shown by the timeline at zoom level @zoom. */
void tl_range(struct ui *ui, uint64_t *lo, uint64_t *hi);
/* Jump to timeline column @col (mouse click).  Returns UI_DRAW_*. */
int tl_click(struct ui *ui, int col);
/* Zoom in (@dir > 0) or out around the cursor.  Returns UI_DRAW_*. */
int tl_zoom(struct ui *ui, int dir);

/* status.c */
void status_draw_header(struct ui *ui);
void status_draw(struct ui *ui);
/* Format @ns as "12.345 us" into @buf. */
void status_fmt_ns(char *buf, size_t size, double ns);
/* Write @ns as status_fmt_ns() does, with enough decimals that times
 * @res ns apart differ (at most nanoseconds). */
void status_fmt_ns_res(char *buf, size_t size, double ns, double res);
/* Whether times use a TSC frequency estimated from P1 (--nom-freq), so
 * that headings and labels must say so ('≈'). */
int status_time_estimated(const struct ui *ui);
/* Write the time @ns between two TSCs into @buf with enough decimals
 * that times one TSC tick apart differ, '≈' first if the TSC frequency is
 * an estimate, '+' before a non-negative one if @sign ("?" if @ns is NAN). */
void status_fmt_tsc_ns(const struct ui *ui, char *buf, size_t size, double ns, int sign);
/* The note that times converted from units use the P1 estimate, the first
 * time it applies in this session.
 * Returns "" if the frequency is not estimated or the note was given. */
const char *status_estimate_note(struct ui *ui);
/* The time in ns between TSCs @a and @b (b - a), or NAN if unknown. */
double status_tsc_ns(const struct ui *ui, uint64_t a, uint64_t b);

/* A key's count as a number of steps: at least 1, saturated where a
 * huge count means "as far as it goes" (n * rows cannot overflow). */
static inline long ui_count(const struct km_result *res)
{
	return res->count > (1ull << 40) ? 1l << 40 : res->count ? (long)res->count : 1;
}

/* help.c */
/* Open the pager on the help text (UI_PAGER_HELP) or the message log
 * (UI_PAGER_MESSAGES) at line @top. */
void help_open(struct ui *ui, int what, int top);
/* The help line of action @a (for ':help COMMAND'), or -1. */
int help_line_of(const struct ui *ui, int a);

/* reload.c */
/* Remember the identity of ui->trace's file, for reload_trace(). */
void reload_remember(struct ui *ui);
/* R: show the trace as it is on disk now: grown, rewritten or replaced
 * (the file's identity tells which), or say there is no change.
 * Returns UI_DRAW_*. */
int reload_trace(struct ui *ui);

/* prompt.c */
/* Open the prompt with initial text @text (may be NULL). */
void prompt_open(struct ui *ui, const char *text);
/* Feed a key to the open prompt's readline (the prompt key table is
 * the view's, before this).  Returns UI_DRAW_*. */
int prompt_key(struct ui *ui, int key);
/* Whether the prompt is open. */
int prompt_is_open(const struct ui *ui);
/* Load and save the history file ($XDG_STATE_HOME/ptbrowse/history). */
void prompt_init(struct ui *ui);
void prompt_done(struct ui *ui);

/* screen.c */
enum screen_color {
	SC_DEFAULT, SC_SYNC, SC_BRANCH, SC_IP, SC_TIMING, SC_MODE, SC_POWER,
	SC_ERROR, SC_OTHER, SC_HEADER, SC_STATUS, SC_WARN, SC_MSGERR,
	SC_TL, SC_VIEWPORT, SC_MARK, SC_DIM, SC_NCOLORS
};
/* Set up colour pairs (nothing with NO_COLOR or no colours). */
void screen_init_colors(struct ui *ui);
/* The attributes of colour @c. */
int screen_attr(const struct ui *ui, enum screen_color c);
/* The colour of packet class @cls. */
enum screen_color screen_class_color(int cls);
/* Write @s at (@y, @x), at most @w columns, UTF-8 aware.  Returns the
 * columns written. */
int screen_put(int y, int x, int w, const char *s);
/* Fill @w columns at (@y, @x) with blanks. */
void screen_clear(int y, int x, int w);
/* A glyph: its UTF-8 form or its ASCII fallback. */
const char *screen_glyph(const struct ui *ui, const char *utf8,
			 const char *ascii);
/* Write the screen as text to @path (src/safefile.h: never over the
 * trace, a FIFO or a device; replaced only once written).
 * Returns 0, or -1 with one line naming the file in @err. */
int screen_save(const struct ui *ui, const char *path, char *err, size_t errlen);

#endif /* UI_H */
