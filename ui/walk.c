/* walk -- a long decode on the browser's thread, seen and stoppable
 * (walk.h). */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "msg.h"
#include "screen.h"
#include "term.h"
#include "ui.h"
#include "walk.h"

/* A walk says nothing for this long: most are over by then. */
#define WALK_QUIET_MS 200
/* Its progress is drawn, and the keys looked at, this often. */
#define WALK_TICK_MS 50

/* The walk under way (one browser per process). */
static struct {
	int stopped;		/* C-c stopped one in this turn */
	/* The segment whose walk C-c stopped: walked again only when a
	 * key asks (the idle turns' prefetch and the timeline's drawing
	 * would start it again unasked) */
	int held;
	uint64_t held_seg;
	uint64_t seg, at;	/* the segment walked, the offset reached */
	uint64_t t0, shown;	/* when it began, when last drawn (ms) */
	uint64_t last;		/* the last tick (ms) */
	WINDOW *line;		/* the message line, drawn mid-key */
	int drawn;		/* drawn there: the browser's screen is stale */
} wk;

static uint64_t walk_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Write @text on the message line now, in the middle of a key's work,
 * through a window of its own: the half-drawn panes stay unseen.  The
 * browser's screen is not touched here (getch() would draw it at once,
 * over the line): at the next turn (walk_watch()). */
static void walk_show(struct ui *ui, const char *text)
{
	int y = ui->rows - 1;

	if (y < 0 || ui->cols < 1)
		return;
	if (wk.line && (getbegy(wk.line) != y || getmaxx(wk.line) != ui->cols)) {
		delwin(wk.line);
		wk.line = NULL;
	}
	if (!wk.line && !(wk.line = newwin(1, ui->cols, y, 0)))
		return;
	werase(wk.line);
	wattrset(wk.line, screen_attr(ui, SC_WARN));
	mvwaddnstr(wk.line, 0, 0, text, ui->cols - 1);
	wnoutrefresh(wk.line);
	doupdate();
	wk.drawn = 1;
}

static int walk_tick(void *ctx, uint64_t seg, uint64_t at, uint64_t seg_end)
{
	struct ui *ui = ctx;
	uint64_t now = walk_ms();
	double pct = seg_end > seg ? 100.0 * (double)(at - seg) / (double)(seg_end - seg) : 0;
	char buf[160];

	if (wk.stopped || (wk.held && seg == wk.held_seg))
		return 1;
	if (seg != wk.seg || at <= wk.at || now - wk.last > WALK_TICK_MS) {
		/* another walk (ticks come a chunk, a millisecond or so, apart) */
		wk.seg = seg;
		wk.t0 = now;
		wk.shown = 0;
		ui->interrupted = 0;
	}
	wk.at = at;
	wk.last = now;
	if (now - wk.t0 < WALK_QUIET_MS || now - wk.shown < WALK_TICK_MS)
		return 0;
	wk.shown = now;
	snprintf(buf, sizeof(buf), "decoding the PSB segment at 0x%" PRIx64 " (%.1f MiB) "
		 "from its start: %.0f%% (C-c stops)", seg,
		 (double)(seg_end - seg) / (1 << 20), pct);
	walk_show(ui, buf);
	if (!term_key_waiting(ui) || !ui->interrupted)
		return 0;
	ui->interrupted = 0;
	wk.stopped = 1;
	wk.held = 1;
	wk.held_seg = seg;
	msg_report(ui, UI_WARN, "stopped decoding the PSB segment at 0x%" PRIx64 " at %.0f%% (C-c); "
		   "asked again, it goes on from there", seg, pct);
	return 1;
}

void walk_watch(struct ui *ui)
{
	struct win_watch w = { walk_tick, ui };

	if (wk.drawn) {
		/* the browser's line drawn again over it (only that line:
		 * a getch() in the middle of the drawing shows what is
		 * touched) */
		if (ui->rows > 0)
			touchline(stdscr, ui->rows - 1, 1);
		wk.drawn = 0;
	}
	if (ui->wc && !ui->headless)
		win_cache_set_watch(ui->wc, &w);
}

void walk_done(struct ui *ui)
{
	(void)ui;
	wk.stopped = 0;
}

void walk_key(struct ui *ui)
{
	(void)ui;
	wk.held = 0;
}

int walk_stopped(const struct ui *ui)
{
	(void)ui;
	return wk.stopped;
}
