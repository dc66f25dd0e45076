/* pipe_ui -- |: rows as text or a decodable slice to sh -c COMMAND. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "export.h"
#include "msg.h"
#include "pipe_ui.h"
#include "prompt.h"
#include "safefile.h"
#include "select.h"
#include "spawn.h"
#include "term.h"
#include "ui.h"

/* The most rows raw takes by count: their end is found by decoding each
 * on the UI thread (a region or the selection has its bytes already). */
#define PIPE_UI_RAW_ROWS_MAX (1u << 20)

/* The next word of @p: its start in *@w and length in *@n.  Returns the
 * text after it. */
static const char *pipe_ui_word(const char *p, const char **w, size_t *n)
{
	while (isspace((unsigned char)*p))
		p++;
	*w = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	*n = (size_t)(p - *w);
	return p;
}

static int pipe_ui_is(const char *w, size_t n, const char *word)
{
	return n == strlen(word) && !strncmp(w, word, n);
}

int pipe_ui_parse(const char *line, struct pipe_req *req, char *err,
		  size_t errlen)
{
	const char *p = line ? line : "", *w, *next;
	int fmt = 0, src = 0;
	size_t n;
	char *end;

	memset(req, 0, sizeof(*req));
	for (;;) {
		next = pipe_ui_word(p, &w, &n);
		if (!fmt && (pipe_ui_is(w, n, "text") || pipe_ui_is(w, n, "raw"))) {
			req->raw = w[0] == 'r';
			fmt = 1;
		} else if (!src && pipe_ui_is(w, n, "region")) {
			next = pipe_ui_word(next, &w, &n);
			if (!n || n >= sizeof(req->region)) {
				snprintf(err, errlen, "pipe: region: %s", n ? "name too long" :
					 "which region? (pipe region NAME COMMAND)");
				return -pte_invalid;
			}
			memcpy(req->region, w, n);
			req->region[n] = 0;
			src = 1;
		} else if (!src && pipe_ui_is(w, n, "rows")) {
			next = pipe_ui_word(next, &w, &n);
			errno = 0;
			req->rows = n && isdigit((unsigned char)*w) ? strtoull(w, &end, 0) : 0;
			if (!req->rows || errno || end != w + n) {
				snprintf(err, errlen, "pipe: rows wants a count of rows: %.*s",
					 (int)(n > 40 ? 40 : n), w);
				return -pte_invalid;
			}
			src = 1;
		} else if (pipe_ui_is(w, n, "--")) {
			p = next;
			break;
		} else {
			break;
		}
		p = next;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (!*p) {
		snprintf(err, errlen, "pipe: no command (pipe [text|raw] [region NAME | "
			 "rows N] COMMAND)");
		return -pte_invalid;
	}
	req->cmd = p;
	return 0;
}

/* What goes down the pipe. */
struct pipe_job {
	struct ui *ui;
	const struct select_span *s;
	int raw;			/* the slice, not the text */
	uint64_t from, to;		/* raw: the rows' bytes */
	char buf[65536];		/* text: lines gathered for one write */
	size_t n;
	int fd;
	int64_t rows;			/* text: rows written or buffered */
	uint64_t bytes;			/* bytes given */
	uint64_t gaps;			/* raw: lost-data gaps joined */
	char err[256];			/* raw: export's complaint */
};

static int pipe_ui_flush(struct pipe_job *j)
{
	int r = spawn_write(j->fd, j->buf, j->n);

	j->bytes += j->n;
	j->n = 0;
	return r;
}

/* select_line_fn: a line into the buffer, written when full. */
static int pipe_ui_line(void *ctx, const char *line, size_t len)
{
	struct pipe_job *j = ctx;
	int r;

	if (j->n + len + 1 > sizeof(j->buf) && (r = pipe_ui_flush(j)) < 0)
		return r;
	if (len + 1 > sizeof(j->buf))
		len = sizeof(j->buf) - 1;
	memcpy(j->buf + j->n, line, len);
	j->buf[j->n + len] = '\n';
	j->n += len + 1;
	j->rows++;
	return 0;
}

/*
 * spawn_feed_fn: the rows.  A slice is what export writes to "-", so it
 * is written with standard output on the pipe for that while: curses has
 * left the terminal, nothing else writes there now.
 */
static int pipe_ui_feed(void *ctx, int fd)
{
	struct pipe_job *j = ctx;
	struct export_result res;
	int saved, r;

	j->fd = fd;
	if (j->raw) {
		saved = dup(STDOUT_FILENO);
		if (saved < 0 || dup2(fd, STDOUT_FILENO) < 0) {
			snprintf(j->err, sizeof(j->err), "%s", strerror(errno));
			if (saved >= 0)
				close(saved);
			return -EIO;
		}
		r = export_slice(j->ui->trace, j->ui->img, j->from, j->to, "-",
				 SAFEFILE_STDOUT, NULL, 0, &res, j->err,
				 sizeof(j->err));
		dup2(saved, STDOUT_FILENO);
		close(saved);
		if (!r) {
			j->bytes = res.end - res.start;
			j->gaps = res.gaps;
		}
		return r < 0 ? -EIO : 0;
	}
	r = (int)select_text(j->ui, j->s, pipe_ui_line, j);
	if (r < 0)
		return r;
	return pipe_ui_flush(j);
}

/* Wait for Enter on the terminal (the shell's modes: a line). */
static void pipe_ui_enter(void)
{
	ssize_t n;
	char c;

	fputs("-- press Enter to go back to ptbrowse --", stdout);
	fflush(stdout);
	for (;;) {
		n = read(STDIN_FILENO, &c, 1);
		if (n < 0 && errno == EINTR)	/* a resize */
			continue;
		if (n != 1 || c == '\n' || c == '\r')
			break;
	}
}

/*
 * SIGINT and SIGQUIT ignored (@on) or back as in @old, from before the
 * command until after the Enter that ends its prompt: the terminal is in
 * the shell's modes all that while, where C-c and C-\ raise them, and the
 * browser's handlers end it (spawn_run() alone gives them back as soon as
 * the command ends).  The command gets them at their defaults.
 */
static void pipe_ui_signals(int on, struct sigaction old[2])
{
	struct sigaction ign;

	if (!on) {
		sigaction(SIGINT, &old[0], NULL);
		sigaction(SIGQUIT, &old[1], NULL);
		return;
	}
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old[0]);
	sigaction(SIGQUIT, &ign, &old[1]);
}

/* Run @req over the rows of @s. */
static int pipe_ui_run(struct ui *ui, const struct pipe_req *req,
		       const struct select_span *s)
{
	char *argv[] = { "sh", "-c", (char *)req->cmd, NULL };
	struct pipe_job *j = calloc(1, sizeof(*j));
	struct sigaction old[2];
	int status, fe = 0, stopped, e;

	if (!j) {
		msg_report(ui, UI_ERROR, "pipe: out of memory");
		return UI_DRAW_STATUS;
	}
	j->ui = ui;
	j->s = s;
	j->raw = req->raw;
	if (req->raw && s->max > PIPE_UI_RAW_ROWS_MAX) {
		msg_report(ui, UI_ERROR, "pipe: raw takes at most %u rows by count; "
			   "a region or the selection takes any size", PIPE_UI_RAW_ROWS_MAX);
		goto out_free;
	}
	if (req->raw) {
		if (select_bytes(ui, s, &j->from, &j->to) < 0) {
			msg_report(ui, UI_ERROR, "pipe: no rows in %s", s->what);
			goto out_free;
		}
		/* Before the command runs: its "cat > FILE" truncates FILE. */
		if (export_check(ui->img, j->from, j->to, NULL, j->err,
				 sizeof(j->err)) < 0) {
			msg_report(ui, UI_ERROR, "pipe: %s (nothing run)", j->err);
			goto out_free;
		}
	}
	term_leave(ui);
	pipe_ui_signals(1, old);
	status = spawn_run(argv, 0, pipe_ui_feed, j, &fe);
	e = errno;	/* the prompt's read may change it */
	if (!ui->headless)
		pipe_ui_enter();
	pipe_ui_signals(0, old);
	term_return(ui);
	/* A reader that stopped early (head) is not an error. */
	stopped = fe == -EPIPE || (j->err[0] && strstr(j->err, strerror(EPIPE)));
	if (status < 0)
		msg_report(ui, UI_ERROR, "pipe: sh: %s", strerror(e));
	else if (j->err[0] && !stopped)
		msg_report(ui, UI_ERROR, "pipe: %s", j->err);
	else if (req->raw && stopped)
		msg_report(ui, UI_INFO, "piped %s as a slice to '%.100s': exit %d "
			   "(it stopped reading)", s->what, req->cmd, status);
	else if (req->raw)
		msg_report(ui, j->gaps ? UI_WARN : UI_INFO, "piped %s as a slice (%"
			   PRIu64 " bytes%s) to '%.100s': exit %d", s->what, j->bytes,
			   j->gaps ? ", lost data joined" : "", req->cmd, status);
	else
		msg_report(ui, UI_INFO, "piped %" PRId64 " rows (%" PRIu64 " bytes) to "
			   "'%.100s': exit %d%s", j->rows, j->bytes, req->cmd, status,
			   stopped ? " (it stopped reading)" : "");
out_free:
	free(j);
	return UI_DRAW_ALL;
}

/* pipe [text|raw] [region NAME | rows N] [--] COMMAND; | (5|: rows 5). */
static int pipe_ui_cmd(struct ui *ui, const struct cmd_args *a)
{
	struct select_span s;
	struct pipe_req req;
	char err[256], pre[64];

	if (!*a->raw) {
		snprintf(pre, sizeof(pre), a->has_count ? "pipe rows %" PRIu64 " " :
			 "pipe ", a->count);
		prompt_open(ui, pre);
		return UI_DRAW_ALL;
	}
	if (pipe_ui_parse(a->raw, &req, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "%s", err);
		return UI_DRAW_STATUS;
	}
	if (select_pick(ui, req.region[0] ? req.region : NULL, req.rows > 0, req.rows,
			SELECT_VISIBLE, &s) < 0)
		return UI_DRAW_ALL;
	return pipe_ui_run(ui, &req, &s);
}

static const struct cmd_row pipe_ui_rows[] = {
	{ ACTION_PIPE, pipe_ui_cmd, CMD_RAW, 0, 0 },
};

CMD_TABLE(pipe_ui_cmds, pipe_ui_rows);
