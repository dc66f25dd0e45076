/*
 * term -- the terminal: curses on the tty, or on a virtual screen for
 * --script; giving the terminal back on exit, on a fatal signal and on
 * suspend; reading keys.
 */
#ifndef TERM_H
#define TERM_H

struct ui;

/* Start curses: on a virtual screen of @cols x @rows if @script, else on
 * the terminal (the mouse too unless @no_mouse).  Fatal signals and exit
 * give the terminal back from then on.
 * Returns 0, 2 if there is no terminal to use (TERM unset or dumb, not a
 * tty), or 1 on another failure (said on stderr). */
int term_start(struct ui *ui, int script, int cols, int rows, int no_mouse);

/* Give the terminal back and free the screen (nothing if not started). */
void term_end(void);

/* C-z: give the terminal back, stop, and take it again on fg. */
void term_suspend(struct ui *ui);

/* Give the terminal to a command (pipe): the shell's modes, the mouse
 * off; term_return() takes it back (the next draw repaints it all).
 * Nothing in --script mode. */
void term_leave(struct ui *ui);
void term_return(struct ui *ui);

/* Turn the mouse on or off (ui->mouse). */
void term_mouse(struct ui *ui, int on);

/* Show what was drawn into stdscr. */
void term_flush(void);

/* A key within @wait_ms (-1: wait), Escape + key joined into
 * KM_META | key: the first of those term_key_pending() and
 * term_key_waiting() read ahead, else one from the terminal.
 * Returns the key, or ERR if none came. */
int term_getkey(struct ui *ui, int wait_ms);

/* Whether a key is waiting; every key the terminal has is read ahead
 * (term_getkey() gives them in order), none is taken.  For work that
 * stops early for a key.  Always 0 in --script mode. */
int term_key_pending(struct ui *ui);

/* As term_key_pending(), for long operations that stop for C-c: a C-c
 * anywhere among the keys read ahead is taken and sets ui->interrupted;
 * the other keys stay, in order, for the loop.  Returns 1 if a key (the
 * C-c too) was waiting, 0 if none. */
int term_key_waiting(struct ui *ui);

#endif /* TERM_H */
