/* term -- curses on the terminal or a virtual screen, signals, keys. */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "safefile.h"
#include "screen.h"
#include "term.h"
#include "ui.h"

/* Releases end a drag in the packet pane (select.c); motion reports (the
 * terminal's any-motion mode: ncurses has no button-only one) let its
 * selection follow the pointer, and cost one getmouse() per report. */
#define TERM_MOUSE (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED | \
		    BUTTON4_PRESSED | BUTTON5_PRESSED | REPORT_MOUSE_POSITION)

/* The one browser of this process, for signal handlers. */
static struct ui *term_ui;
static int term_up;
static SCREEN *term_screen;

static void term_restore(void)
{
	if (term_up) {
		term_up = 0;
		if (term_ui && term_ui->mouse)
			mousemask(0, NULL);
		endwin();
	}
}

/* Fatal signals: remove the files being written (an :export's, a
 * :save-screen's, the index cache's, which would stay as NAME.tmp.PID.N),
 * give the terminal back, then die of the signal. */
static void term_fatal(int sig)
{
	safefile_remove_pending();
	term_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* SIGXFSZ: caught, so that a write past the file size limit fails with
 * EFBIG (an :export says so and removes its file) instead of killing
 * the browser.  A handler, unlike SIG_IGN, is not inherited by :pipe's
 * commands. */
static void term_xfsz(int sig)
{
	(void)sig;
}

static void term_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV,
				    SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGPIPE };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], term_fatal);
	signal(SIGXFSZ, term_xfsz);
}

/* A virtual screen of @cols x @rows on /dev/null.  Returns 0 or 1. */
static int term_virtual(struct ui *ui, int cols, int rows)
{
	static const char *const virt[] = { "xterm-256color", "xterm", "vt100", "ansi" };
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	size_t i;

	if (!out || !in) {
		esc_line(stderr, "ptbrowse: ", "/dev/null: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(virt) / sizeof(virt[0]) && !term_screen; i++)
		term_screen = newterm(virt[i], out, in);
	if (!term_screen) {
		esc_line(stderr, "ptbrowse: ", "no terminfo entry for a virtual screen");
		return 1;
	}
	ui->headless = 1;
	resizeterm(rows, cols);
	ui->rows = rows;
	ui->cols = cols;
	return 0;
}

/* The terminal on standard input and output.  Returns 0, 1 or 2. */
static int term_tty(struct ui *ui)
{
	const char *term = getenv("TERM");

	if (!term || !*term || !strcmp(term, "dumb")) {
		esc_line(stderr, "ptbrowse: ", "TERM is %s: the browser needs a terminal "
			"that can move the cursor (try 'ptbrowse dump' or --script)",
			term && *term ? "'dumb'" : "not set");
		return 2;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		esc_line(stderr, "ptbrowse: ", "standard %s is not a terminal "
			"(try 'ptbrowse dump' or --script)",
			isatty(STDIN_FILENO) ? "output" : "input");
		return 2;
	}
	term_screen = newterm(NULL, stdout, stdin);
	if (!term_screen) {
		esc_line(stderr, "ptbrowse: ", "cannot use terminal type '%s'", term);
		return 1;
	}
	getmaxyx(stdscr, ui->rows, ui->cols);
	return 0;
}

int term_start(struct ui *ui, int script, int cols, int rows, int no_mouse)
{
	int r = script ? term_virtual(ui, cols, rows) : term_tty(ui);

	if (r)
		return r;
	term_up = 1;
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	screen_init_colors(ui);
	if (!ui->headless && !no_mouse) {
		ui->mouse = 1;
		mousemask(TERM_MOUSE, NULL);
		mouseinterval(0);
	}
	term_ui = ui;
	term_signals();
	atexit(term_restore);
	return 0;
}

void term_end(void)
{
	term_restore();
	if (term_screen)
		delscreen(term_screen);
	term_screen = NULL;
	term_ui = NULL;
}

void term_suspend(struct ui *ui)
{
	if (ui->headless)
		return;
	term_restore();
	kill(getpid(), SIGTSTP);
	term_up = 1;
	reset_prog_mode();
	/* term_restore() turned the mouse off for the shell. */
	if (ui->mouse)
		mousemask(TERM_MOUSE, NULL);
	clearok(curscr, TRUE);
}

void term_leave(struct ui *ui)
{
	if (ui->headless)
		return;
	def_prog_mode();
	term_restore();
}

void term_return(struct ui *ui)
{
	if (ui->headless)
		return;
	term_up = 1;
	reset_prog_mode();
	if (ui->mouse)
		mousemask(TERM_MOUSE, NULL);
	clearok(curscr, TRUE);
}

void term_mouse(struct ui *ui, int on)
{
	ui->mouse = on;
	mousemask(on ? TERM_MOUSE : 0, NULL);
}

void term_flush(void)
{
	wnoutrefresh(stdscr);
	doupdate();
}

/* Keys read before anyone asked for them (term_drain(): a long walk
 * looks for C-c behind them), served in order by term_getkey().  A mouse
 * key keeps its event, read at once: ncurses gives its own events back
 * newest first.  The queue grows as keys come (a paste while the browser
 * is busy must arrive whole, as the tty kept it before); at its limit the
 * rest stays in the tty. */
#define TERM_QLIMIT (1 << 20)
/* ncurses keeps this many mouse events (its ring holds 16). */
#define TERM_MOUSE_RUN 16
static struct term_qkey {
	int c;
	int has_ev;
	MEVENT ev;
} *term_q;
static int term_qcap, term_qhead, term_qn;

/* One key within @wait_ms (0: only one waiting), Escape + key joined.
 * Returns it or ERR. */
static int term_read(int wait_ms)
{
	int c;

	timeout(wait_ms);
	c = getch();
	if (c == 27) {
		int n;

		nodelay(stdscr, TRUE);
		n = getch();
		nodelay(stdscr, FALSE);
		if (n != ERR)
			c = KM_META | n;
	}
	return c;
}

static struct term_qkey *term_qat(int i)
{
	return &term_q[(term_qhead + i) % term_qcap];
}

/* Room for one more key, the queue grown if full.  Returns 1, or 0 at
 * its limit or out of memory. */
static int term_qroom(void)
{
	struct term_qkey *q;
	int cap = term_qcap ? 2 * term_qcap : 256, i;

	if (term_qn < term_qcap)
		return 1;
	if (term_qcap >= TERM_QLIMIT || !(q = malloc((size_t)cap * sizeof(*q))))
		return 0;
	for (i = 0; i < term_qn; i++)
		q[i] = *term_qat(i);
	free(term_q);
	term_q = q;
	term_qcap = cap;
	term_qhead = 0;
	return 1;
}

/* Whether @k is a motion report only (no button changed). */
static int term_motion(const struct term_qkey *k)
{
	return k->c == KEY_MOUSE && k->has_ev && k->ev.bstate == REPORT_MOUSE_POSITION;
}

/* Queue key @k.  Motion reports in a row keep the last only; a queue
 * that cannot grow (no memory) drops the key, but a C-c takes the last
 * place, so it is never lost. */
static void term_qput(struct term_qkey k)
{
	int c = k.c;

	if (term_qn && term_motion(&k) && term_motion(term_qat(term_qn - 1))) {
		*term_qat(term_qn - 1) = k;
		return;
	}
	if (!term_qroom()) {
		if (c == 3 && term_qn)
			*term_qat(term_qn - 1) = k;
		return;
	}
	*term_qat(term_qn++) = k;
}

/* Queue key @c; a mouse key as one key per event it brought.  Events
 * that came in one read (a press and its release while the browser was
 * busy) are one KEY_MOUSE to ncurses, which then gives them back newest
 * first, one per getmouse(): the release alone would be seen, a drag
 * would lose its press.  So every event is taken now, and queued oldest
 * first. */
static void term_qpush(int c)
{
	struct term_qkey k = { c, 0, { 0 } };
	MEVENT ev[TERM_MOUSE_RUN];
	int n = 0;

	if (c != KEY_MOUSE) {
		term_qput(k);
		return;
	}
	while (n < TERM_MOUSE_RUN && getmouse(&ev[n]) == OK)
		n++;
	if (!n)
		term_qput(k);	/* no event: served as is, getmouse() fails */
	k.has_ev = 1;
	while (n-- > 0) {
		k.ev = ev[n];
		term_qput(k);
	}
}

/* Read every key waiting into the queue. */
static void term_drain(void)
{
	int c;

	while (term_qroom() && (c = term_read(0)) != ERR)
		term_qpush(c);
	timeout(-1);
}

/* The first key of the queue (there is one). */
static int term_qpop(void)
{
	struct term_qkey k = term_q[term_qhead];

	term_qhead = (term_qhead + 1) % term_qcap;
	term_qn--;
	if (k.c != KEY_MOUSE)
		return k.c;
	/* Its event back into ncurses, for whoever calls getmouse(). */
	if (!k.has_ev || ungetmouse(&k.ev) != OK)
		return ERR;
	timeout(0);
	return getch();
}

int term_getkey(struct ui *ui, int wait_ms)
{
	int c;

	(void)ui;
	for (;;) {
		while (term_qn) {
			c = term_qpop();
			if (c != ERR)
				return c;
		}
		c = term_read(wait_ms);
		if (c != KEY_MOUSE)
			return c;
		term_qpush(c);	/* its events, in order */
	}
}

int term_key_pending(struct ui *ui)
{
	if (ui->headless)
		return 0;
	term_drain();
	return term_qn > 0;
}

int term_key_waiting(struct ui *ui)
{
	int i;

	if (!term_key_pending(ui))
		return 0;
	/* A C-c anywhere in the queue: taken, the keys around it kept in
	 * their order. */
	for (i = 0; i < term_qn; i++)
		if (term_qat(i)->c == 3)
			break;
	if (i < term_qn) {
		for (; i + 1 < term_qn; i++)
			*term_qat(i) = *term_qat(i + 1);
		term_qn--;
		ui->interrupted = 1;
	}
	return 1;
}
