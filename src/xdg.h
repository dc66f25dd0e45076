/*
 * xdg -- where ptbrowse keeps its files, per the XDG base directory spec.
 *
 *   config  $XDG_CONFIG_HOME/ptbrowse   (default ~/.config/ptbrowse)
 *   state   $XDG_STATE_HOME/ptbrowse    (default ~/.local/state/ptbrowse)
 *   cache   $XDG_CACHE_HOME/ptbrowse    (default ~/.cache/ptbrowse)
 *
 * A relative $XDG_* value is ignored, as the spec says.  Directories are
 * created (mkdir -p, mode 0700) only when a caller asks for them.
 */
#ifndef XDG_H
#define XDG_H

#include <stddef.h>

enum xdg_kind { XDG_CONFIG, XDG_STATE, XDG_CACHE };

/* Write ptbrowse's directory of @kind, joined with @sub if it is not NULL
 * or empty ("traces", "keymaps"), into @buf.  Creates nothing.
 * Returns 0.
 * Returns -pte_invalid if @buf is NULL or @kind unknown.
 * Returns -pte_bad_config if neither $XDG_* nor $HOME is usable; @err
 * (if not NULL) then holds a one-line message.
 * Returns -pte_nomem if the path does not fit in @size bytes. */
int xdg_path(enum xdg_kind kind, const char *sub, char *buf, size_t size,
	     char *err, size_t errlen);

/* As xdg_path(), then create the directory and its parents (mode 0700).
 * Returns 0 if the directory exists afterwards.
 * Returns -pte_io (errno set) if it cannot be created; @err names the
 * path component that failed and why. */
int xdg_dir(enum xdg_kind kind, const char *sub, char *buf, size_t size,
	    char *err, size_t errlen);

/* Create directory @path and its parents with @mode, like mkdir -p.
 * Returns 0 if @path is a directory afterwards.
 * Returns -pte_invalid if @path is NULL or empty.
 * Returns -pte_io (errno set) on failure; @err names the component. */
int xdg_mkdir_p(const char *path, unsigned int mode, char *err, size_t errlen);

#endif /* XDG_H */
