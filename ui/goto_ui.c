/* goto_ui -- the goto bridge: src/goto.h's targets resolved against the
 * browser (the index for PSBs, times, cycles and packet numbers; the
 * marks), and the goto commands. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "complete.h"
#include "goto.h"
#include "goto_idx.h"
#include "goto_job.h"
#include "goto_ui.h"
#include "marks.h"
#include "msg.h"
#include "nav.h"
#include "prompt.h"
#include "search_ui.h"
#include "timefmt.h"
#include "ui.h"

/* What the goto_ctx callbacks get: the browser, and whether a target
 * deep in a long PSB segment may be looked for in the background (a
 * :goto) or must be answered now (targets of other commands). */
struct goto_ui_arg {
	struct ui *ui;
	int may_defer;		/* a job may look further (goto_job.h) */
	int deferred;		/* one does: the goto lands later */
	int deeper;		/* none may: the target lies past the rows
				 * looked at here */
	int timed;		/* a goto by time (t 5ms) */
	char what[64];		/* the target as typed, for messages */
};

/* The callbacks' answer once a job looks further: no offset now. */
static int goto_ui_deferred(char *err, size_t len)
{
	snprintf(err, len, "goto: looking further in the background");
	return -pte_canceled;
}

/* goto_ctx callbacks: sync point @n from the index. */
static int goto_ui_g_psb_offset(void *arg, uint64_t n, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	struct idx_seek sk;

	if (!ui->idx || idx_seek(ui->idx, (size_t)n, &sk)) {
		snprintf(err, len, "goto: psb %" PRIu64 " is not known%s", n,
			 ui->idx && !idx_scan_done(ui->idx) ? " yet" : "");
		return -pte_eos;
	}
	*off = sk.offset;
	return 0;
}

static int goto_ui_g_psb_number(void *arg, uint64_t off, int64_t *n, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	size_t i;
	int r;

	if (!ui->idx)
		return -pte_invalid;
	/* (not the last sync point found so far: psb -1 at 90% went to 16%) */
	r = goto_idx_psb_known(ui->idx, off, &i);
	if (r == 1) {
		snprintf(err, len, "goto: sync points are still being indexed");
		return -pte_eos;
	}
	if (r == 2) {
		snprintf(err, len, "goto: the index stopped before the cursor: "
			 "the sync points there are not numbered");
		return -pte_eos;
	}
	*n = r ? -1 : (int64_t)i;
	return 0;
}

/* The first row at or after the row at @from that goto_job_hit() takes
 * for @kind @v, looking at GOTO_JOB_ROWS rows on this thread: past them,
 * a :goto hands the rest to a job (goto_job.h) and the others say where
 * they stopped.  @what names the target.
 * Returns 0 and sets *@off, 1 once a job looks further, or -pte_eos
 * (none to the end) or -pte_invalid (too far here) with a message. */
static int goto_ui_scan(struct goto_ui_arg *a, enum goto_job_kind kind, uint64_t v,
			uint64_t from, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = a->ui;
	struct win_iter it = { 0 };
	int r = -pte_eos, n = GOTO_JOB_ROWS;
	uint64_t at = from;

	if (win_seek(&it, ui->wc, from) < 0) {
		snprintf(err, len, "goto: %s: the trace is empty", a->what);
		return -pte_eos;
	}
	do {
		const struct win_row *row = win_row(&it);

		at = row->pkt.offset;
		if (goto_job_hit(kind, row, v)) {
			*off = at;
			r = 0;
			break;
		}
		if (!n--) {
			r = 1;
			break;
		}
	} while (!win_next(&it));
	win_iter_release(&it);
	if (r == 1 && a->may_defer &&
	    !goto_job_start(ui, kind, v, at, a->what, a->timed)) {
		a->deferred = 1;
		return 1;
	}
	if (r == 1) {
		a->deeper = 1;
		snprintf(err, len, "goto: %s lies more than %d packets past 0x%" PRIx64
			 " (:goto looks further, in the background)", a->what,
			 GOTO_JOB_ROWS, from);
	}
	else if (r && kind == GOTO_JOB_CYCLES)
		snprintf(err, len, "goto: no packet at or after %" PRIu64 " cycles", v);
	else if (r)
		snprintf(err, len, "goto: %s: no packet has a TSC at or after 0x%" PRIx64,
			 a->what, v);
	return r ? (r == 1 ? -pte_invalid : -pte_eos) : 0;
}

static int goto_ui_g_tsc(void *arg, uint64_t tsc, uint64_t *off, char *err, size_t len)
{
	struct goto_ui_arg *a = arg;
	struct ui *ui = a->ui;
	struct idx_seek sk;
	size_t seg;
	int r;

	r = ui->idx ? goto_idx_find_tsc(ui->idx, tsc, &seg) : -pte_no_time;
	if (r == 1) {
		snprintf(err, len, "goto: times are still being indexed");
		return -pte_no_time;
	}
	if (r < 0 || idx_seek(ui->idx, seg, &sk)) {
		snprintf(err, len, "goto: no time information%s", ui->idx ? "" : " (no index)");
		return -pte_no_time;
	}
	/* The first row of that segment (or after it) at or after @tsc. */
	r = goto_ui_scan(a, GOTO_JOB_TSC, tsc, sk.offset, off, err, len);
	return r == 1 ? goto_ui_deferred(err, len) : r;
}

static int goto_ui_g_time(void *arg, uint64_t ns, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	double hz = (double)tm_tsc_hz(&ui->tmcfg, 1);
	uint64_t tsc;

	if (!ui->have_t0 || hz <= 0) {
		snprintf(err, len, "goto: no timing to go by");
		return -pte_no_time;
	}
	((struct goto_ui_arg *)arg)->timed = 1;
	if (goto_idx_time_tsc(&ui->tmcfg, ui->t0, ns, &tsc, err, len) < 0)
		return -pte_eos;
	return goto_ui_g_tsc(arg, tsc, off, err, len);
}

static int goto_ui_g_time_at(void *arg, uint64_t off, uint64_t *ns, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	struct win_iter it = { 0 };
	double d = NAN;
	uint64_t tsc;

	if (!win_seek(&it, ui->wc, off) && !goto_idx_row_tsc(&it, &tsc) && ui->have_t0)
		d = timefmt_tsc_diff(ui, ui->t0, tsc);
	win_iter_release(&it);
	if (isnan(d)) {
		snprintf(err, len, "goto: the cursor has no time");
		return -pte_no_time;
	}
	*ns = d < 0 ? 0 : (uint64_t)d;
	return 0;
}

/* Core cycles from the start at seek point @i (its carry).
 * Returns 0, 1 if the time pass has not got there, or < 0. */
static int goto_ui_g_seek_cycles(struct ui *ui, size_t i, uint64_t *cyc)
{
	struct tm_carry c;
	int r = idx_seek_carry(ui->idx, i, &c);

	if (!r)
		*cyc = c.cycles;
	return r;
}

/* The first packet at or after @cyc core cycles from the start: the last
 * seek point whose carry counts no more, then its rows. */
static int goto_ui_g_cycles(void *arg, uint64_t cyc, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	struct idx_seek sk;
	size_t lo = 0, hi, mid;
	uint64_t c = 0;
	int r, pre = 0;

	hi = ui->idx ? idx_nseeks(ui->idx) : 0;
	if (!hi) {
		snprintf(err, len, "goto: no cycle counts%s", ui->idx ? "" : " (no index)");
		return -pte_no_time;
	}
	r = goto_ui_g_seek_cycles(ui, 0, &c);
	if (r == 0 && c >= cyc) {
		pre = 1;	/* before the first PSB */
		*off = 0;
	} else if (r == 0) {
		/* Invariant: seek point lo counts < cyc (a segment that
		 * starts at @cyc may follow rows of the one before with
		 * @cyc, which come first). */
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			r = goto_ui_g_seek_cycles(ui, mid, &c);
			if (r)
				break;
			if (c < cyc)
				lo = mid;
			else
				hi = mid;
		}
	}
	if (r == 1) {
		snprintf(err, len, "goto: cycles are still being indexed");
		return -pte_no_time;
	}
	if (r < 0) {
		snprintf(err, len, "goto: no cycle counts (%s)", pte_strerror(r));
		return -pte_no_time;
	}
	if (!pre) {
		if (idx_seek(ui->idx, lo, &sk))
			return -pte_eos;
		*off = sk.offset;
	}
	r = goto_ui_scan(arg, GOTO_JOB_CYCLES, cyc, *off, off, err, len);
	return r == 1 ? goto_ui_deferred(err, len) : r;
}

/* Core cycles from the start at the packet at @off. */
static int goto_ui_g_cycles_at(void *arg, uint64_t off, uint64_t *cyc, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	struct win_iter it = { 0 };
	int r = -pte_no_time;

	if (!win_seek(&it, ui->wc, off) && (win_row(&it)->ts.flags & TM_F_CYC) &&
	    !(win_row(&it)->flags & WIN_F_SEG_REL)) {
		*cyc = win_row(&it)->ts.cycles;
		r = 0;
	}
	win_iter_release(&it);
	if (r)
		snprintf(err, len, "goto: the cursor has no cycle count");
	return r;
}

static int goto_ui_g_ordinal(void *arg, uint64_t ord, uint64_t *off, char *err, size_t len)
{
	return nav_packet_offset(((struct goto_ui_arg *)arg)->ui, ord, off, err, len);
}

static int goto_ui_g_mark(void *arg, const char *name, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	long i;

	if (!ui->bm || (i = marks_find(ui->bm, name)) < 0 ||
	    marks_at(ui->bm, (size_t)i)->kind == BM_REGION) {
		if (name[0] == ui->ref_name && !name[1]) {
			*off = ui->ref_off;
			return 0;
		}
		snprintf(err, len, "goto: no mark '%s'", name);
		return -pte_invalid;
	}
	*off = marks_at(ui->bm, (size_t)i)->from;
	return 0;
}

static int goto_ui_g_region(void *arg, const char *name, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = ((struct goto_ui_arg *)arg)->ui;
	long i;

	if (!ui->bm || (i = marks_find(ui->bm, name)) < 0) {
		snprintf(err, len, "goto: no region or bookmark '%s'", name);
		return -pte_invalid;
	}
	*off = marks_at(ui->bm, (size_t)i)->from;
	return 0;
}

/* The goto context of the browser's cursor, its callbacks given @a. */
static void goto_ui_ctx(struct ui *ui, struct goto_ui_arg *a, struct goto_ctx *ctx)
{
	a->ui = ui;
	*ctx = (struct goto_ctx){
		.cursor = ui->cursor, .size = ui->img->size, .arg = a,
		.psb_offset = goto_ui_g_psb_offset, .psb_number = goto_ui_g_psb_number,
		.tsc_offset = goto_ui_g_tsc, .time_offset = goto_ui_g_time,
		.time_at = goto_ui_g_time_at, .ordinal_offset = goto_ui_g_ordinal,
		.mark_offset = goto_ui_g_mark, .region_offset = goto_ui_g_region,
		.cycles_offset = goto_ui_g_cycles, .cycles_at = goto_ui_g_cycles_at,
	};
}

int goto_ui_offset(struct ui *ui, const char *arg, uint64_t *off, char *err, size_t len)
{
	return goto_ui_offset_deeper(ui, arg, off, NULL, err, len);
}

int goto_ui_offset_deeper(struct ui *ui, const char *arg, uint64_t *off, int *deeper,
			  char *err, size_t len)
{
	struct goto_ui_arg a = { 0 };
	struct goto_ctx ctx;
	int r;

	goto_ui_ctx(ui, &a, &ctx);
	snprintf(a.what, sizeof(a.what), "%s", arg);
	r = goto_offset(arg, &ctx, off, err, len);
	if (deeper)
		*deeper = r < 0 && a.deeper;
	return r;
}

/* Jump to goto target @t (parsed by goto.c), typed as @text. */
static int goto_ui_target(struct ui *ui, const struct goto_target *t, const char *text)
{
	struct goto_ui_arg a = { .may_defer = 1 };
	struct goto_ctx ctx;
	char err[256] = "";
	uint64_t off;

	goto_ui_ctx(ui, &a, &ctx);
	snprintf(a.what, sizeof(a.what), "%s", text);

	if (t->kind == GOTO_MARK && (!strcmp(t->name, "'") || !strcmp(t->name, "`")))
		return nav_last(ui);
	/* A target looked for before, still looked for, gives way. */
	goto_job_free(ui);
	if (goto_resolve(t, &ctx, &off, err, sizeof(err)) < 0) {
		if (a.deferred)
			msg_report(ui, UI_INFO, "goto %s: looking past the first %d packets "
				   "(C-c stops; keys work meanwhile)", a.what, GOTO_JOB_ROWS);
		else
			msg_report(ui, UI_ERROR, "%s", err[0] ? err : "goto: failed");
		return UI_DRAW_STATUS;
	}
	if (t->kind == GOTO_END && !t->value)
		return nav_end(ui);
	/* The end itself is not a packet: show the last one. */
	if (ui->img->size && off >= ui->img->size)
		off = ui->img->size - 1;
	if (t->kind == GOTO_TIME) {
		const char *note = timefmt_estimate_note(ui);
		int r = nav_jump(ui, off);

		if (note[0])
			msg_report(ui, UI_INFO, "goto: %s", note);
		return r | UI_DRAW_STATUS;
	}
	return nav_jump(ui, off);
}

int goto_ui_sideband(const char *arg)
{
	size_t n = strcspn(arg, " \t"), i;

	for (i = 0; compl_goto_words[i]; i++)
		if (n == strlen(compl_goto_words[i]) && !strncmp(arg, compl_goto_words[i], n))
			return 1;
	return 0;
}

/* :goto ARG, with the grammar of src/goto.h. */
static int goto_ui_goto(struct ui *ui, const char *arg)
{
	struct goto_target t;
	char err[256] = "";

	while (isspace((unsigned char)*arg))
		arg++;
	if (!*arg) {
		prompt_open(ui, "goto ");
		return UI_DRAW_ALL;
	}
	/* comm NAME, pid N, tid N, switch, sym NAME, call NAME, ret: the
	 * next hit of that search (search_ui.h), wrapping, which n and N
	 * then go on with */
	if (goto_ui_sideband(arg))
		return search_ui_text(ui, arg, 1);
	if (goto_parse(arg, &t, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "%s", err);
		return UI_DRAW_STATUS;
	}
	return goto_ui_target(ui, &t, arg);
}

/* A key with a count: N% NP Ng. */
static int goto_ui_count(struct ui *ui, enum goto_kind kind, uint64_t n)
{
	struct goto_target t;
	char text[32];

	if (goto_from_count(&t, kind, n) < 0)
		return UI_DRAW_NONE;
	snprintf(text, sizeof(text), "%s%" PRIu64 "%s", kind == GOTO_ORDINAL ? "#" : "", n,
		 kind == GOTO_PERCENT ? "%" : "");
	return goto_ui_target(ui, &t, text);
}


/* :goto TARGET (g, or the target alone). */
static int goto_ui_cmd(struct ui *ui, const struct cmd_args *a)
{
	return goto_ui_goto(ui, a->raw);
}

/* g G: the start or the end; with a count packet #N; in the filter view
 * the first or last match. */
static int goto_ui_ends(struct ui *ui, const struct cmd_args *a)
{
	if (a->has_count)
		return goto_ui_count(ui, GOTO_ORDINAL, a->count);
	if (search_ui_filtering(ui))
		return search_ui_filter_move(ui, a->action, 1);
	return a->action == ACTION_GOTO_START ? nav_start(ui) : nav_end(ui);
}

/* N%: without a count 0%, as less does; said, since at the start it
 * would change nothing on the screen. */
static int goto_ui_percent(struct ui *ui, const struct cmd_args *a)
{
	int r = goto_ui_count(ui, GOTO_PERCENT, a->has_count ? a->count : 0);

	if (a->has_count)
		return r;
	msg_report(ui, UI_INFO, "0%%: the start (no count given; a count of 50 goes half way)");
	return r | UI_DRAW_STATUS;
}

/* With a count, offset N or packet #N; without, the prompt. */
static int goto_ui_prompt(struct ui *ui, const struct cmd_args *a)
{
	int packet = a->action == ACTION_GOTO_PACKET;

	if (a->has_count)
		return goto_ui_count(ui, packet ? GOTO_ORDINAL : GOTO_OFFSET, a->count);
	prompt_open(ui, packet ? "goto #" : "goto ");
	return UI_DRAW_ALL;
}

static const struct cmd_row goto_ui_rows[] = {
	{ ACTION_GOTO, goto_ui_cmd, CMD_RAW, 0, 0 },
	{ ACTION_GOTO_START, goto_ui_ends, CMD_NONE, 0, 0 },
	{ ACTION_GOTO_END, goto_ui_ends, CMD_NONE, 0, 0 },
	{ ACTION_GOTO_PERCENT, goto_ui_percent, CMD_NONE, 0, 0 },
	{ ACTION_GOTO_OFFSET, goto_ui_prompt, CMD_NONE, 0, 0 },
	{ ACTION_GOTO_PACKET, goto_ui_prompt, CMD_NONE, 0, 0 },
};

CMD_TABLE(goto_ui_cmds, goto_ui_rows);
