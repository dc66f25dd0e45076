/* status -- the header line, and the status line with the message line
 * under it (the prompt view draws over the message line when open). */
#ifndef STATUS_H
#define STATUS_H

struct ui;

/* The header: the file, the stream, "F1 help", the keymap. */
void status_draw_header(struct ui *ui);

/* If ui->trace is a raw trace whose timing gives no times (its
 * TRACE.options file and the command line's options together), say on
 * the message line which options would (timing_file_hint()): once, after
 * the trace is opened, reopened or another stream is shown. */
void status_timing_hint(struct ui *ui);

/* The status line (offset, packet, number, time, the code at the cursor
 * (sym_ui.h), search, index progress) and the message line, or the key
 * sequence being typed. */
void status_draw(struct ui *ui);

#endif /* STATUS_H */
