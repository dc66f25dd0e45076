/* msg -- the message line, the session's message log (:messages), and
 * the messages several parts of the browser give the same way. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "esc.h"
#include "msg.h"
#include "perfdata.h"
#include "trace.h"
#include "ui.h"

#define MSG_CUT "... [cut]"

/* Keep @msg in the message log (:messages), with its time and severity;
 * a message the same as the last one is not kept twice. */
static void msg_log(struct ui *ui, int sev, const char *msg)
{
	static const char sevs[] = "IWE";
	char buf[sizeof(ui->msg) + 16], *last;
	struct tm tm;
	time_t now = time(NULL);

	if (!msg[0])
		return;
	last = ui->nmsglog ? ui->msglog[(ui->nmsglog - 1) % UI_MSGLOG] : NULL;
	if (last && !strcmp(last + 11, msg))
		return;
	localtime_r(&now, &tm);
	snprintf(buf, sizeof(buf), "%02d:%02d:%02d %c %s", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, sev >= 0 && sev <= 2 ? sevs[sev] : '?', msg);
	free(ui->msglog[ui->nmsglog % UI_MSGLOG]);
	ui->msglog[ui->nmsglog % UI_MSGLOG] = strdup(buf);
	ui->nmsglog++;
}

void msg_report(struct ui *ui, int sev, const char *fmt, ...)
{
	/* escaped, a byte may take four */
	char raw[sizeof(ui->msg)], esc[4 * sizeof(ui->msg)];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Messages name files, notes and strings from the trace: shown
	 * and logged escaped (esc.h), never as control bytes.  One cut
	 * short, before or after its escapes, says so: cut silently, a
	 * long path in it named another, shorter file.  esc_str() cuts
	 * before a whole character or escape (and the part it keeps ends
	 * before the raw text's last, perhaps cut, character). */
	esc_str(esc, sizeof(esc), raw);
	if (n >= (int)sizeof(raw) || strlen(esc) >= sizeof(ui->msg)) {
		esc_str(ui->msg, sizeof(ui->msg) - strlen(MSG_CUT), raw);
		strcat(ui->msg, MSG_CUT);
	} else {
		memcpy(ui->msg, esc, strlen(esc) + 1);
	}
	ui->msg_sev = sev;
	if (!ui->msglog_off)
		msg_log(ui, sev, ui->msg);
}

/* Say on the message line what the perf.data file lost: this stream's
 * end (the gap there is the last row and on the timeline), or, if not,
 * the problems info lists. */
void msg_losses(struct ui *ui)
{
	const struct perfdata_info *in = perfdata_info(ui->trace);
	const char *why = perfdata_end_loss(ui->trace, ui->stream_no);

	if (why)
		msg_report(ui, UI_WARN, "data lost at the end of %s: %s",
			   ui->trace->streams[ui->stream_no].name, why);
	else if (in && in->nwarnings)
		msg_report(ui, UI_WARN, "%u problem%s in the perf.data file "
			   "(ptbrowse info); the first: %s", in->nwarnings,
			   in->nwarnings > 1 ? "s" : "", in->warning);
}

/* Report the keymap's errors: each in the message log, the count and the
 * first on the message line. */
void msg_km_errors(struct ui *ui)
{
	size_t i, n = km_nerrors(ui->km);

	for (i = 0; i < n; i++)
		msg_report(ui, UI_ERROR, "%s", km_error(ui->km, i));
	if (n > 1)
		msg_report(ui, UI_ERROR, "%zu keymap errors (:messages lists them); the first: %s",
			   km_error_count(ui->km), km_error(ui->km, 0));
	else if (n)
		msg_report(ui, UI_ERROR, "%s", km_error(ui->km, 0));
	km_clear_errors(ui->km);
}

/* The marks' reporter: messages go to the message line. */
void msg_marks_report(void *ctx, const char *msg)
{
	msg_report(ctx, UI_WARN, "%s", msg);
}
