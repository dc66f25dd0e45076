/*
 * yank -- y: copy what is under the cursor (its row, offset, IP or
 * symbol), N rows, the visual selection or a region's rows to the
 * terminal's clipboard.
 *
 * The text goes out as OSC 52 (osc52.h), written to the terminal
 * directly, past curses, which would otherwise print the escape's bytes.
 * Inside tmux ($TMUX set) it goes to `tmux load-buffer -w -` instead: a
 * tmux buffer (prefix ] pastes it) that tmux also passes to the outer
 * terminal's clipboard (-w, tmux 3.2 on), and that works with tmux's
 * default set-clipboard=external, which drops a program's own OSC 52; an
 * older tmux without -w gets the plain buffer and the OSC 52 wrapped in
 * its DCS passthrough.  Inside GNU screen ($STY set) the OSC 52 goes out
 * in screen's passthrough pieces.  In --script mode (no terminal) the
 * OSC 52 string is written to standard output, for tests.
 */
#ifndef YANK_H
#define YANK_H

#include <stddef.h>

struct ui;
struct cmd_table;

/* The most text yank copies; pipe takes any size. */
#define YANK_MAX (4u << 20)

/* yank (cmd.h). */
extern const struct cmd_table yank_cmds;

/* Put @n bytes at @text on the clipboard as the header says.
 * Returns 0 with what it did in @how ("the clipboard (OSC 52)", "tmux's
 * buffer and the clipboard"), or a negative pte code with why in @how. */
int yank_clip(struct ui *ui, const char *text, size_t n, char *how,
	      size_t howlen);

#endif /* YANK_H */
