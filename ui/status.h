/* status -- the header line, and the status line with the message line
 * under it (the prompt view draws over the message line when open). */
#ifndef STATUS_H
#define STATUS_H

struct ui;

/* The header: the file, the stream, "F1 help", the keymap. */
void status_draw_header(struct ui *ui);

/* The status line (offset, packet, number, time, search, index progress)
 * and the message line, or the key sequence being typed. */
void status_draw(struct ui *ui);

#endif /* STATUS_H */
