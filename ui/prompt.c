/*
 * prompt -- the ':' prompt on GNU readline's callback interface.
 *
 * readline never sees the terminal: keys come from getch() through a small
 * queue (rl_getc_function), it draws through rl_redisplay_function into
 * the message line, its terminal preparation is a no-op, and it neither
 * catches signals nor sets LINES/COLUMNS, so ncurses stays in charge and
 * the index keeps running while the user types.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cmd.h"
#include "code.h"
#include "complete_rl.h"
#include "imgopt.h"
#include "marks.h"
#include "msg.h"
#include "pkt.h"
#include "prompt.h"
#include "safefile.h"
#include "screen.h"
#include "trace.h"
#include "ui.h"
#include "xdg.h"

#define PROMPT_HISTORY_MAX 1000
/* A bigger history file is not one we wrote: left alone. */
#define PROMPT_HISTORY_FILE_MAX (16u << 20)

static struct ui *prompt_ui;
static int prompt_q[32];
static int prompt_qhead, prompt_qtail;
static char prompt_hist_path[4096];
static FILE *prompt_null;
/* The completions of the last Tab that had several (readline's list),
 * shown above the prompt until the prompt closes. */
static char **prompt_cands;
static int prompt_ncands, prompt_candw;

static int prompt_getc(FILE *f)
{
	if (prompt_qhead == prompt_qtail)
		return EOF;
	return prompt_q[prompt_qhead++ % 32];
}

static int prompt_avail(void)
{
	return prompt_qhead != prompt_qtail;
}

static void prompt_push(int c)
{
	if (prompt_qtail - prompt_qhead < 32)
		prompt_q[prompt_qtail++ % 32] = c;
}

static void prompt_pushs(const char *s)
{
	while (*s)
		prompt_push((unsigned char)*s++);
}

static void prompt_redisplay(void)
{
	/* The main loop draws the line from rl_line_buffer. */
}

static void prompt_noprep(int meta)
{
}

static void prompt_nodeprep(void)
{
}

static const struct view_ops prompt_view;

static void prompt_cands_free(void)
{
	int i;

	for (i = 0; i < prompt_ncands; i++)
		free(prompt_cands[i]);
	free(prompt_cands);
	prompt_cands = NULL;
	prompt_ncands = prompt_candw = 0;
}

int prompt_is_open(const struct ui *ui)
{
	return view_is_open(&ui->vs, &prompt_view);
}

static void prompt_close(struct ui *ui)
{
	rl_callback_handler_remove();
	view_close(&ui->vs, &prompt_view);
	prompt_qhead = prompt_qtail = 0;
	prompt_cands_free();
	curs_set(0);
}

/* Set while prompt_cancel() has readline end a line nobody runs. */
static int prompt_cancelling;

/*
 * Leave the prompt without running its line.  readline must end the line
 * itself: closing it from outside left its undo list (and an i-search) to
 * the next prompt, whose history lines then shared it, and it was freed
 * twice.  So: leave any i-search or key sequence, empty the line (an edit
 * like any other, undone with the rest), and let readline read the end of
 * input on the empty line, which tears the line down as Enter would.
 */
static void prompt_cancel(struct ui *ui)
{
	rl_callback_sigcleanup();
	prompt_qhead = prompt_qtail = 0;
	if (rl_end) {
		rl_delete_text(0, rl_end);
		rl_point = rl_mark = 0;
	}
	prompt_cancelling = 1;
	rl_callback_read_char();	/* the queue is empty: EOF */
	prompt_cancelling = 0;
	if (prompt_is_open(ui))
		prompt_close(ui);
}

/* Keep the last copy of each line read from the file. */
static void prompt_hist_dedup(void)
{
	int i, j;

	for (i = history_length - 1; i > 0; i--) {
		HIST_ENTRY *e = history_get(history_base + i);

		for (j = i - 1; e && j >= 0; j--) {
			HIST_ENTRY *o = history_get(history_base + j);

			if (o && !strcmp(o->line, e->line)) {
				o = remove_history(j);
				if (o)
					free_history_entry(o);
				i--;
			}
		}
	}
}

/* Drop earlier copies of @line from the history, so Up goes through
 * different lines (the file keeps them until it is read again). */
static void prompt_hist_forget(const char *line)
{
	int i;

	for (i = history_length - 1; i >= 0; i--) {
		HIST_ENTRY *e = history_get(history_base + i);

		if (e && !strcmp(e->line, line)) {
			e = remove_history(i);
			if (e)
				free_history_entry(e);
		}
	}
}

/* The lines of the history file, in @v (*@n of them, each allocated).
 * Returns 0 (no file is no lines), or -1 with errno set. */
static int prompt_hist_read(char ***v, size_t *n)
{
	FILE *f = safefile_fopen_read(prompt_hist_path, PROMPT_HISTORY_FILE_MAX);
	size_t cap = 0, lcap = 0;
	char *line = NULL, **nv;
	ssize_t len;

	*v = NULL;
	*n = 0;
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while ((len = getline(&line, &lcap, f)) >= 0) {
		line[strcspn(line, "\n")] = 0;
		if (!*line)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			nv = realloc(*v, cap * sizeof(*nv));
			if (!nv)
				break;
			*v = nv;
		}
		if (!((*v)[*n] = strdup(line)))
			break;
		(*n)++;
	}
	free(line);
	fclose(f);
	return 0;
}

static void prompt_hist_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/*
 * Add @line to the history file: what the file holds now (another
 * ptbrowse may have added lines since we read it) plus @line, the last
 * PROMPT_HISTORY_MAX lines, replaced atomically (src/safefile.h).  A
 * file that cannot be read (a FIFO, too big) is left alone; the first
 * failure is said once.
 */
static void prompt_hist_append(struct ui *ui, const char *line)
{
	static const struct safefile_opts o = { .flags = SAFEFILE_NOFOLLOW,
						.mode = 0600 };
	static int warned;
	struct safefile *f;
	char err[4400];
	size_t n, i;
	char **v;
	FILE *out;

	if (prompt_hist_read(&v, &n) < 0) {
		snprintf(err, sizeof(err), "%s: %s", prompt_hist_path,
			 safefile_strerror(errno));
		goto out_err;
	}
	if (safefile_create(&f, prompt_hist_path, &o, err, sizeof(err)) < 0)
		goto out_free;
	out = safefile_stream(f);
	if (!out) {
		safefile_abort(f);
		snprintf(err, sizeof(err), "%s: out of memory", prompt_hist_path);
		goto out_free;
	}
	for (i = n + 1 > PROMPT_HISTORY_MAX ? n + 1 - PROMPT_HISTORY_MAX : 0; i < n; i++)
		fprintf(out, "%s\n", v[i]);
	fprintf(out, "%s\n", line);
	if (safefile_commit(f, err, sizeof(err)) < 0)
		goto out_free;
	prompt_hist_free(v, n);
	return;
out_free:
	prompt_hist_free(v, n);
out_err:
	if (!warned++)
		msg_report(ui, UI_WARN, "history not saved: %s", err);
}

/* The history file into readline's list. */
static void prompt_hist_load(struct ui *ui)
{
	size_t n, i;
	char **v;

	if (prompt_hist_read(&v, &n) < 0) {
		msg_report(ui, UI_WARN, "history not read: %s: %s", prompt_hist_path,
			   safefile_strerror(errno));
		return;
	}
	for (i = 0; i < n; i++)
		add_history(v[i]);
	prompt_hist_free(v, n);
}

/* A line entered, run once readline's callback has returned: a command
 * may take long, or unwind to the main loop (a trace that shrank). */
static char *prompt_entered;
static char *prompt_running;

static void prompt_line(char *line)
{
	struct ui *ui = prompt_ui;

	prompt_close(ui);
	if (!line)
		return;
	if (prompt_cancelling) {
		free(line);
		return;
	}
	if (*line) {
		HIST_ENTRY *last = history_length ? history_get(history_base + history_length - 1) : NULL;

		if (!last || strcmp(last->line, line)) {
			prompt_hist_forget(line);
			add_history(line);
			if (prompt_hist_path[0])
				prompt_hist_append(ui, line);
		}
		free(prompt_entered);
		prompt_entered = line;
		return;
	}
	free(line);
}

/* A function name for completion (imgopt_symbol_names()'s callback). */
static int prompt_sym_add(void *arg, const char *name)
{
	return compl_add(arg, name);
}

/* Mark, region, stream and function names for completion. */

static void prompt_names(void *arg, enum compl_kind kind, struct compl_list *out)
{
	struct ui *ui = arg;
	size_t i, n;

	if (kind == COMPL_SYMBOL) {	/* the loaded symbols' functions */
		if (code_imgset(ui))
			imgopt_symbol_names(code_imgset(ui), out->prefix ? out->prefix : "",
					    COMPL_SYMBOL_MAX + 1, prompt_sym_add, out);
		return;
	}
	if (kind == COMPL_STREAM) {
		for (i = 0; i < ui->trace->nstreams; i++)
			compl_add(out, ui->trace->streams[i].name);
		return;
	}
	if (!ui->bm)
		return;
	n = marks_count(ui->bm);
	for (i = 0; i < n; i++) {
		const struct marks_entry *e = marks_at(ui->bm, i);

		if ((kind == COMPL_MARK && e->kind != BM_REGION && e->name[0]) ||
		    (kind == COMPL_REGION && e->kind == BM_REGION))
			compl_add(out, e->name);
	}
}

/* Keep several completions (@matches[1..@n], the longest @maxlen) for
 * prompt_draw() to list above the prompt instead of on the tty.  Out of
 * memory lists none. */
static void prompt_show_matches(char **matches, int n, int maxlen)
{
	int i;

	prompt_cands_free();
	prompt_cands = calloc((size_t)(n > 0 ? n : 1), sizeof(*prompt_cands));
	if (!prompt_cands)
		return;
	for (i = 0; i < n; i++) {
		prompt_cands[i] = strdup(matches[i + 1]);
		if (!prompt_cands[i]) {
			prompt_ncands = i;
			prompt_cands_free();
			return;
		}
	}
	prompt_ncands = n;
	prompt_candw = maxlen;
}

/* List the completions in columns on the lines above prompt line @y, as
 * many as they need: all of them, or as many as fit with a last line
 * saying how many more there are. */
static void prompt_draw_cands(struct ui *ui, int y, int w)
{
	int colw = prompt_candw + 2, ncols, nlines, shown, i, top;
	char more[64];

	ncols = colw < w ? w / colw : 1;
	nlines = (prompt_ncands + ncols - 1) / ncols;
	shown = prompt_ncands;
	if (nlines > y) {
		nlines = y;
		shown = (nlines - 1) * ncols;
	}
	if (nlines <= 0)
		return;
	top = y - nlines;
	attrset(screen_attr(ui, SC_STATUS));
	for (i = 0; i < nlines; i++)
		screen_clear(top + i, 0, w);
	for (i = 0; i < shown; i++)
		screen_put(top + i / ncols, (i % ncols) * colw, w - (i % ncols) * colw,
			   prompt_cands[i]);
	if (shown < prompt_ncands) {
		snprintf(more, sizeof(more), "... %d more: type more of the word",
			 prompt_ncands - shown);
		screen_put(y - 1, 0, w, more);
	}
	attrset(A_NORMAL);
}

void prompt_init(struct ui *ui)
{
	char dir[4000];

	prompt_ui = ui;
	/* ':' (and C-z, F1) in help and the lists, whichever list */
	ui->vs.shared_key = cmd_view_key;
	rl_readline_name = "ptbrowse";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_getc_function = prompt_getc;
	rl_input_available_hook = prompt_avail;
	rl_redisplay_function = prompt_redisplay;
	rl_prep_term_function = prompt_noprep;
	rl_deprep_term_function = prompt_nodeprep;
	{
		static struct compl_ctx ctx;

		ctx.arg = ui;
		ctx.names = prompt_names;
		ctx.options = compl_set_options;
		compl_rl_set_ctx(&ctx);
	}
	rl_attempted_completion_function = compl_rl_attempt;
	rl_completion_display_matches_hook = prompt_show_matches;
	prompt_null = fopen("/dev/null", "r+");
	if (prompt_null) {
		rl_instream = prompt_null;
		rl_outstream = prompt_null;
	}
	stifle_history(PROMPT_HISTORY_MAX);
	if (ui->no_state)
		return;	/* --no-state: no history file either */
	if (!xdg_dir(XDG_STATE, NULL, dir, sizeof(dir), NULL, 0)) {
		snprintf(prompt_hist_path, sizeof(prompt_hist_path), "%s/history", dir);
		prompt_hist_load(ui);
		prompt_hist_dedup();
	}
}

void prompt_done(struct ui *ui)
{
	if (prompt_is_open(ui))
		prompt_cancel(ui);
	free(prompt_running);
	prompt_running = NULL;
	if (prompt_null)
		fclose(prompt_null);
	prompt_null = NULL;
	rl_instream = rl_outstream = NULL;
}

void prompt_open(struct ui *ui, const char *text)
{
	prompt_ui = ui;
	view_push(&ui->vs, &prompt_view, NULL);
	ui->msg[0] = 0;
	prompt_qhead = prompt_qtail = 0;
	rl_callback_handler_install(":", prompt_line);
	/* An edited history line is itself again once the line ends, so the
	 * history holds what was entered (set here: after the inputrc). */
	rl_variable_bind("revert-all-at-newline", "on");
	if (text && *text) {
		rl_insert_text(text);
		rl_point = rl_end;
	}
	curs_set(1);
}

int prompt_key(struct ui *ui, int key)
{
	switch (key) {
	case 7:		/* C-g */
		if (RL_ISSTATE(RL_STATE_ISEARCH)) {
			/* ends the i-search (C-r), as in readline */
			prompt_push(key);
			break;
		}
		/* fall through */
	case 27:	/* a lone Escape */
	case 3:		/* C-c */
		prompt_cancel(ui);
		return UI_DRAW_ALL;
	case KEY_LEFT: prompt_pushs("\033[D"); break;
	case KEY_RIGHT: prompt_pushs("\033[C"); break;
	case KEY_UP: prompt_pushs("\033[A"); break;
	case KEY_DOWN: prompt_pushs("\033[B"); break;
	case KEY_HOME: prompt_push(1); break;
	case KEY_END: prompt_push(5); break;
	case KEY_DC: prompt_push(4); break;
	case KEY_BACKSPACE: case 8: case 127:
		if (!rl_end || (rl_end == 1 && strchr("/?&", rl_line_buffer[0]))) {
			/* Backspace on an empty line leaves, as in vim. */
			prompt_cancel(ui);
			return UI_DRAW_ALL;
		}
		prompt_push(127);
		break;
	case KEY_ENTER: case 10: case 13: prompt_push('\r'); break;
	default:
		if (key & KM_META) {
			prompt_push(27);
			prompt_push(key & 0xff);
		} else if (key >= 0 && key < 256) {
			prompt_push(key);
		}
		break;
	}
	while (prompt_is_open(ui) && prompt_avail())
		rl_callback_read_char();
	if (prompt_entered) {
		/* Held in prompt_running while it runs: a trace that shrank
		 * unwinds from the command to the main loop (SIGBUS), and the
		 * line is freed by the next command or prompt_done(). */
		free(prompt_running);
		prompt_running = prompt_entered;
		prompt_entered = NULL;
		ui->msg[0] = 0;
		cmd_line(ui, prompt_running, 0);
		free(prompt_running);
		prompt_running = NULL;
	}
	return UI_DRAW_ALL;
}

static void prompt_draw(struct ui *ui, struct view *v)
{
	int y = ui->rows - 1, w = ui->cols, cx, lead, pcol;
	const char *buf = rl_line_buffer ? rl_line_buffer : "";
	size_t point = rl_point > 0 ? (size_t)rl_point : 0, start = 0;

	screen_clear(y, 0, w);
	if (prompt_ncands)
		prompt_draw_cands(ui, y, w);
	/* "/tip", "?tip", "&ovf" show their own lead instead of ':'. */
	lead = !(buf[0] == '/' || buf[0] == '?' || buf[0] == '&');
	if (lead)
		screen_put(y, 0, 1, ":");
	if (point > strlen(buf))
		point = strlen(buf);
	/* Keep the point visible on a narrow screen: columns, not bytes,
	 * and the line shown from a character's start. */
	pcol = screen_ncols(buf, point);
	while (pcol > w - 3 && start < point) {
		size_t n;

		pcol -= screen_char(buf + start, &n);
		start += n;
	}
	if (buf[start])
		screen_put(y, lead, w - lead, buf + start);
	cx = lead + pcol;
	if (cx >= w)
		cx = w - 1;
	move(y, cx);
}

/* A key at the prompt: the prompt key table first (Escape, C-c cancel; C-s
 * and C-r search on in the emacs keymap); the rest is readline's. */
static int prompt_view_key(struct ui *ui, struct view *v, int c)
{
	static struct km_state pks;
	struct km_result res;
	enum km_status st;

	/* the list of completions lasts until the next key but Tab */
	if (c != 9)
		prompt_cands_free();
	st = km_feed(ui->km, &pks, KM_T_PROMPT, KM_T_NONE, c, &res);
	if (st == KM_PENDING)
		return UI_DRAW_STATUS;
	if (st == KM_ACTION && res.action == ACTION_CANCEL)
		return prompt_key(ui, c == 7 ? 7 : 27);	/* C-g ends a C-r first */
	if (st == KM_ACTION)
		return cmd_key(ui, &res);
	km_state_reset(&pks);
	return prompt_key(ui, c);
}

/* The prompt draws over the message line of the view under it. */
static const struct view_ops prompt_view = {
	.name = "prompt",
	.flags = VIEW_CURSOR,
	.draw = prompt_draw,
	.key = prompt_view_key,
};
