/*
 * keymap_int -- what the keymap's files share (not for other modules):
 *   keymap.c       the keymap: its tables, errors, files and commands run
 *                  (km_exec, km_parse, km_source, km_load), queries;
 *   keymap_bind.c  bind and unbind;
 *   keymap_keys.c  key and table names;
 *   keymap_feed.c  the key-sequence state machine (km_feed) and the
 *                  exits no keymap may take away.
 */
#ifndef KEYMAP_INT_H
#define KEYMAP_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "keymap.h"

#define KM_MAX_ERRORS	200	/* then one "... more" line */
#define KM_MAX_DEPTH	8	/* source inside source */
#define KM_MAX_SOURCED	64	/* files one outermost source may read */
#define KM_MAX_WORDS	64
#define KM_LINE_MAX	4096


struct km_bind {
	int keys[KM_SEQ_MAX];
	size_t nkeys;
	enum action action;	/* ACTION_NONE: blocked */
	char *args;
	char *note;
};

struct km_tab {
	struct km_bind *v;
	size_t n, cap;
};

struct km {
	struct km_tab tabs[KM_NTABLES];
	char **errs;
	size_t nerrs, caperrs;
	size_t dropped;		/* errors past KM_MAX_ERRORS */
	int depth;		/* of source */
	struct {		/* the files being sourced, outermost first */
		dev_t dev;
		ino_t ino;
	} stack[KM_MAX_DEPTH];
	int nsourced;		/* files read since the outermost source */
	int parsing;		/* inside km_parse(): lines, not the whole */
	int held;		/* km_hold(): lines, until km_release() */
	const char *file;	/* the file being read, for relative source */
	char name[64];
};

/* Write a message into @err (nothing if NULL or empty). */
void km_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* keymap.c: free a binding's strings; empty a table; keep error @msg
 * as "@file:@line: @msg" ("" and 0: no place). */
void km_bind_free(struct km_bind *b);
void km_tab_clear(struct km_tab *tab);
void km_add_error(struct km *km, const char *file, int line, const char *msg);

/* keymap_keys.c: @key with Enter and Backspace keys folded into one
 * code each; whether @key cancels a pending sequence (Escape, C-g). */
int km_normalize(int key);
int km_is_cancel(int key);

/* keymap_bind.c: the binding of exactly @keys in @tab, or NULL; whether
 * a binding in @tab starts with @keys and is longer. */
struct km_bind *km_tab_find(const struct km_tab *tab, const int *keys, size_t n);
int km_tab_has_prefix(const struct km_tab *tab, const int *keys, size_t n);
/* Add or replace the binding of @keys in table @t.
 * Returns 0, or -pte_nomem. */
int km_bind_add(struct km *km, enum km_table t, const int *keys, size_t n,
		enum action a, const char *args, const char *note);
/* bind ... and unbind ... as km_exec() describes them (@quoted: as
 * km_exec_argv() takes it: pipe's words in '...' stay in '...' when it
 * has more than one, so its sh takes them literally, not in "..." with
 * $1 and $HOME expanded; a word quoted in part is written so sh reads it
 * as written, or refused if that cannot be told).
 * Return 0, or -pte_invalid (-pte_nomem) with a message in @err. */
int km_cmd_bind(struct km *km, int argc, char **argv, const int *quoted,
		char *err, size_t errlen);
int km_cmd_unbind(struct km *km, int argc, char **argv, char *err, size_t errlen);

/* keymap_feed.c: bind quit, command-prompt and interrupt again where no
 * key reaches them any more (keymap.h), saying so in the error list;
 * km_rebind_exits() says so in @err instead, "@file: keymap: ..." if
 * @file, and returns 1 if it bound any, else 0. */
void km_keep_exits(struct km *km);
int km_rebind_exits(struct km *km, const char *file, char *err, size_t errlen);

#endif /* KEYMAP_INT_H */
