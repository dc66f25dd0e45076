/*
 * complete -- tab-completion candidates for the command prompt, by the
 * position of the word under the cursor (as tig does).
 *
 * The first word completes command names (action_list.h).  Later words
 * complete what the command's usage words in action_list.h say: TYPE
 * packet type names, MARK and REGION names, OPTION names, FILE (left to
 * readline: the kind says COMPL_FILE), COMMAND names, TABLE names, KEY
 * names, TARGET goto keywords/marks/regions, and "in|out" literals;
 * the NAME after "sym" or "call" in :goto, :search and :filter (and / ?
 * &, which complete as those) a function name of the loaded symbols, at
 * most COMPL_SYMBOL_MAX of them.
 * Pure functions: no readline, no curses.  Wiring into readline:
 *
 *	static char **attempt(const char *text, int start, int end)
 *	{
 *		compl_candidates(rl_line_buffer, end, &ctx, &list);
 *		if (list.kind == COMPL_FILE) return NULL;  // readline's own
 *		rl_attempted_completion_over = 1;
 *		return rl_completion_matches(text, generator_over_list);
 *	}
 */
#ifndef COMPLETE_H
#define COMPLETE_H

#include <stddef.h>

/* What the word under the cursor is. */
enum compl_kind {
	COMPL_NONE,	/* free text: nothing to offer */
	COMPL_COMMAND,	/* a command name */
	COMPL_TYPE,	/* a packet type name (ptdump spelling) */
	COMPL_MARK,	/* a mark name */
	COMPL_REGION,	/* a region name */
	COMPL_STREAM,	/* a stream name */
	COMPL_OPTION,	/* an option name, for set */
	COMPL_FILE,	/* a file name: use readline's filename completion */
	COMPL_TABLE,	/* a key table name */
	COMPL_KEY,	/* a key name or a command (bind) */
	COMPL_TARGET,	/* a goto target: keywords, 'marks, regions */
	COMPL_WORDS,	/* literal choices from the usage ("in|out") */
	COMPL_SYMBOL	/* a function name (sym NAME, call NAME) */
};

/* The most function names offered: a one-letter prefix over a kernel's
 * 100000 names lists the first of them, and says there are more. */
#define COMPL_SYMBOL_MAX 200

/* Candidates: sorted, unique, each starting with the word's prefix. */
struct compl_list {
	enum compl_kind kind;
	size_t start;		/* byte offset of the word in the line */
	char *prefix;		/* the word typed so far (unquoted) */
	char **v;		/* candidates */
	size_t n, cap;
	int more;		/* more than v holds (COMPL_SYMBOL past
				 * COMPL_SYMBOL_MAX): v is the first of
				 * them, their common prefix maybe shorter */
};

/* Where names come from. */
struct compl_ctx {
	void *arg;		/* passed to names() */
	/* Call compl_add(@out, name) for every mark (COMPL_MARK), region
	 * (COMPL_REGION) or stream (COMPL_STREAM), and for the function
	 * names starting with @out->prefix (COMPL_SYMBOL: the first
	 * COMPL_SYMBOL_MAX + 1 of each symbol table is enough, in strcmp()
	 * order, symtab_names()); may be NULL. */
	void (*names)(void *arg, enum compl_kind kind,
		      struct compl_list *out);
	const char *const *options;	/* option names, NULL-terminated */
};

/* The words of :goto that look for a task or a function (ui/goto_ui.c's
 * goto_ui_sideband()), NULL-terminated. */
extern const char *const compl_goto_words[];

/* The options :set takes (ui/settings.c), NULL-terminated: a
 * compl_ctx's options at the prompt. */
extern const char *const compl_set_options[];

/* Fill @out with the candidates for the word that ends at byte @point of
 * prompt line @line (without the ":").  @ctx may be NULL (no marks,
 * regions, streams or options).  Frees what @out held before.
 * Returns the number of candidates (0 for COMPL_FILE and COMPL_NONE).
 * Returns -pte_invalid if @line or @out is NULL, -pte_nomem if out of
 * memory (@out is then empty). */
int compl_candidates(const char *line, size_t point,
		     const struct compl_ctx *ctx, struct compl_list *out);

/* Add @name to @out if it starts with @out->prefix (for names()).
 * Returns 0, or -pte_nomem. */
int compl_add(struct compl_list *out, const char *name);

/* The longest common prefix of @out's candidates into @buf ("" if none;
 * the prefix typed if @out->more: the names not held may differ sooner).
 * Returns @buf. */
char *compl_common(const struct compl_list *out, char *buf, size_t size);

/* Free what @out holds and empty it (a zeroed list is fine). */
void compl_free(struct compl_list *out);

#endif /* COMPLETE_H */
