/*
 * ui -- the browser: a stack of views over one cursor; commands as rows.
 *
 * Each key goes to the view on top of the stack (view.h); the browser view
 * turns key sequences into actions through the keymap (keymap.h) and runs
 * them by their table row (cmd.h), as the prompt runs a typed line.
 * Handlers and views change the state and return what needs redrawing
 * (UI_DRAW_*); only the loop draws, from the top opaque view up.
 *
 * The files, bottom up (a file includes only files above it in this list
 * or at its own level; tests/t_imports.sh checks there is no cycle):
 *   view.c          the view stack: push, close, draw, keys, resize.
 *   screen.c        colours, glyphs (UTF-8 or ASCII), cells, save-screen.
 *   msg.c           the message line and the log (:messages).
 *   term.c          curses on the tty or a virtual screen, keys, signals.
 *   timefmt.c       times as shown: digits, ticks, '≈' on P1's estimate.
 *   listnav.c       a list view's selection keys.
 *   action_list.c   every action once: name, help, flags, usage.
 *   keymap*.c       keymap.c the tables, files and commands; keymap_bind.c
 *                   bind/unbind; keymap_keys.c key names; keymap_feed.c
 *                   the key-sequence state machine (km_feed()).
 *   complete*.c     prompt completion (candidates; readline's side).
 *   cmd.c           command rows: register, split a line once, dispatch.
 *   nav.c           moving the one cursor (a byte offset) and the view.
 *   walk.c          a decode deep into a long segment: 0.1 s on this
 *                   thread at most, the rest in a job (progress, C-c).
 *   prompt.c        the ':' prompt view on readline; runs lines by cmd.c.
 *   search_sb.c     a search with sideband or code terms, in the background;
 *   search_code.c   its code terms (sym, call, ret): segments decoded on all
 *                   cores, as the code view decodes them.
 *   search_ui*.c    searches, '*' '#', the filter view (search_ui_filter.c).
 *   goto_ui.c       the goto bridge (src/goto.h at the cursor) and its rows.
 *   goto_job.c      a :goto's look past a long segment's first 32768
 *                   rows, on a thread with windows of its own.
 *   export_job.c    :export's copy on a thread of its own (progress,
 *                   C-c), polled and freed with the search module.
 *   opengoto.c      +GOTO and --goto: where the browser opens, once the
 *                   index can answer (through goto_ui.c's :goto).
 *   code.c          the code context: images, symbols, tasks and the flow
 *                   decoder of the stream shown (--raw, --elf ...).
 *   sym_ui.c        symbols where an IP is shown, the code at the cursor.
 *   funcs_sum.c     region summaries' top functions (src/ctsum.h).
 *   marks_ui.c      mark and region commands, the visual selection, bands;
 *   marks_panel.c   a region's summary.
 *   tl_lanes.c      the CPU lanes under the timeline (sideband only).
 *   tl_cols.c       the timeline's whole axis and columns (density,
 *                   trouble, PSBs) from the index, the marker row's cells;
 *                   tl.c draws and clicks them.
 *   streams_tl.c    the perf.data sideband on the timeline's marker row.
 *   tl_axis.c       the timeline's axis row: ticks, labels, the span.
 *   tl_zoom.c       the timeline's view: z/Z, :timeline-zoom to a region,
 *                   marks, the selection, a hit's neighbourhood.
 *   pane_packets.c, pane_cycles.c, tl.c  the three panes (struct pane_ops);
 *   pane_code.c     the code view: the packet and cycle panes' places
 *                   taken by each packet's instructions and their runs.
 *   select.c        the rows yank and pipe take (the selection, a region,
 *                   N, the screen's); a drag over packet rows selects.
 *   yank.c          y: rows, offset, IP, symbol to the clipboard (OSC 52,
 *                   tmux's buffer; src/osc52.h).
 *   pipe_ui.c       |: rows as text or a slice to sh -c, the screen left
 *                   to it (src/spawn.h).
 *   status.c        the header and status lines.
 *   marks_list.c    the marks list view.
 *   browser.c       the browser view: layout, keys, mouse; too-small screen.
 *   help.c          the help and messages pager view and its rows.
 *   stalls.c        the stalls list view and :stalls.
 *   funcs.c         the function view (:funcs, F): a range's call tree,
 *                   built in the background (src/ctjob.h).
 *   iterations.c    :iterations, the loop iterations view.
 *   session.c       the index in the background (start, poll, cancel,
 *                   cache), the first time, recovery when the trace shrinks.
 *   streams_ui.c    the streams list view, switching streams.
 *   tl_lanes_cmd.c  :lane, a lane's stream at a time (clicks run it).
 *   reload.c        :reload (grown, rewritten or replaced).
 *   nav_cmd.c, panes.c, settings.c  the navigation, pane and program
 *                   commands' rows; cmd_tables.c lists every module's table.
 *   options.c       the command line and the config files.
 *   script.c        --script: keys, commands, directives, benchmarks.
 *   browse.c        cmd_browse_main(): state made and freed, the loop.
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
struct code;

/* What needs redrawing, or'ed together. */
enum ui_draw {
	UI_DRAW_NONE = 0,
	UI_DRAW_PANES = 1 << 0,
	UI_DRAW_STATUS = 1 << 1,
	UI_DRAW_TIMELINE = 1 << 2,
	UI_DRAW_ALL = 0xff,
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
/* UI_PK_SYM: IPs as function+0xoff where known (sym_ui.c) */
enum { UI_PK_RAW = 1 << 0, UI_PK_IP = 1 << 1, UI_PK_SYM = 1 << 2 };
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

/* Messages kept for :messages. */
#define UI_MSGLOG 256

/* A cached index of a trace copied or touched since is checked byte by
 * byte up to this size before the first screen; past it, rebuilt in the
 * background.  Saving one past it stops when the browser quits. */
#define UI_CACHE_HASH_MAX (256ull << 20)

/* A file's identity on disk as stat tells it (all 0: no such file). */
struct ui_fstamp {
	uint64_t dev, ino, size;
	int64_t mtime_ns;
};

struct flow_window;

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
	_Atomic int cache_hurry;	/* skip its content hash: quitting,
					 * reloading (idxcache_save()) */
	pthread_t cache_thread;
	char cache_err[200];		/* why the cache was not written */
	char cache_note[200];		/* written, and what to know (its limit) */
	struct win_cache *wc;
	struct tm_config tmcfg;		/* opt_cfg merged with the stream's
					 * timing: taken up afresh wherever a
					 * stream is (start, R, a switch) */
	struct tm_config opt_cfg;	/* the command line's timing options */
	struct identity ident;		/* the file's when opened or reloaded */
	int have_ident;
	struct ui_fstamp opts_stamp;	/* PATH.options when read (R) */
	int disk_said_what;		/* what reload_poll() said, until R */
	double disk_polled;		/* when an idle turn last looked */
	uint64_t disk_shrunk;		/* 1 + the size the last look found
					 * shorter than the mapping; 0 none */
	uint8_t disk_head[4096];	/* the file's first bytes when read */
	size_t disk_nhead;		/* (how many) */
	struct marks_set *bm;		/* marks, NULL with --no-state */
	struct km *km;
	struct km_state ks;
	char keymap_name[32];

	/* the view: one cursor, one top row */
	uint64_t cursor;		/* offset of the cursor row */
	/* the last jump asked that lands later (a :goto's job, a decode's
	 * wait: walk.h): an older one does not land over it */
	uint64_t jump_seq;
	/* The code view's placing of a code search's hit on its instruction
	 * row (pane_code_place(); set by browse.c: the searches cannot
	 * include the code pane, which shows their hits). */
	void (*code_place)(struct ui *ui, uint64_t off,
			   int (*match)(void *ctx, const struct flow_window *w, size_t line),
			   void *ctx);
	int pk_narrow;			/* no room for the last IP column */
	uint64_t top;			/* offset of the first row shown */
	int no_index;			/* --no-index */
	int no_code_index;		/* --no-code-index (ui/funcs_idx.h) */
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
	int tl_zoom;			/* 0 the whole trace, else zoomed (tl_zoom.c
					 * holds the view) */
	uint64_t tl_lo, tl_hi;		/* the axis range shown */

	/* the screen */
	int rows, cols;
	int utf8, color, mouse, headless;
	struct pane panes[UI_NPANES];
	int focus;
	struct view_stack vs;		/* the views (view.h) */
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
					 * file's end: it shrank (the loop
					 * recovers as from its own SIGBUS,
					 * reload_guarded()) */
	struct search_ui *sui;		/* search and filter (search_ui.c) */
	struct code *code;		/* images, symbols, tasks (code.h) */
};

#endif /* UI_H */
