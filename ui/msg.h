/* msg -- messages the browser gives in more than one place: the keymap's
 * errors, what a perf.data file lost, the marks set's reports.  The
 * message line itself is msg_report() (ui.h). */
#ifndef MSG_H
#define MSG_H

struct ui;

/* Show message @fmt on the message line with severity @sev (UI_INFO,
 * UI_WARN, UI_ERROR), escaped (esc.h), and keep it in the log (the same
 * message twice in a row once).  A message longer than ui->msg is cut
 * and ends in "... [cut]". */
void msg_report(struct ui *ui, int sev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Say on the message line what the perf.data file lost: this stream's
 * end, or else the problems `ptbrowse info` lists. */
void msg_losses(struct ui *ui);

/* Report the keymap's errors: each in the message log, the count and the
 * first on the message line; then forget them. */
void msg_km_errors(struct ui *ui);

/* The marks set's reporter (src/marks.h marks_opts.report): a warning
 * on the message line; @ctx is the struct ui. */
void msg_marks_report(void *ctx, const char *msg);

#endif /* MSG_H */
