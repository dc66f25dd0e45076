/*
 * osc52 -- text for the terminal's clipboard: the OSC 52 control string
 * ("ESC ] 52 ; c ; BASE64 BEL") that xterm, kitty, foot, WezTerm, iTerm2
 * and tmux take as "set the clipboard", plain or wrapped in tmux's DCS
 * passthrough ("ESC P tmux; ... ESC \", each ESC inside doubled) for a
 * tmux that does not take OSC 52 from programs itself, or cut into GNU
 * screen's DCS passthrough pieces ("ESC P ... ESC \" each, 76 bytes of
 * the string at most: screen keeps short strings only).  Pure: no I/O.
 */
#ifndef OSC52_H
#define OSC52_H

#include <stddef.h>

/* osc52_build() flags. */
enum {
	OSC52_TMUX = 1 << 0,	/* wrap for tmux's passthrough */
	OSC52_SCREEN = 1 << 1,	/* in pieces for GNU screen's passthrough */
};

/* The length of @n bytes in base64 with padding (4 for every 3 started). */
size_t osc52_base64_len(size_t n);

/* Write @n bytes at @in as base64 (RFC 4648, with '=' padding, no line
 * breaks) into @out, which has room for osc52_base64_len(@n) bytes; no NUL
 * is added.  Returns the length written. */
size_t osc52_base64(const void *in, size_t n, char *out);

/* The control string that puts @n bytes at @data on the clipboard ('c'),
 * wrapped as @flags say, into *@out (malloc'd, NUL-terminated; free it)
 * and its length into *@len.
 * Returns 0.
 * Returns -pte_invalid if @data is NULL with @n > 0, @out or @len is
 * NULL, or @flags asks for both tmux and screen.
 * Returns -pte_nomem if out of memory (or the string would not fit a
 * size_t). */
int osc52_build(const void *data, size_t n, unsigned int flags, char **out,
		size_t *len);

#endif /* OSC52_H */
