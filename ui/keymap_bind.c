/* keymap_bind -- bind and unbind: checking a binding and adding it. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keymap_int.h"
#include "ptdec.h"
#include "tok.h"

/* Append @s to @out as the prompt's split (cmd.h: "..." quotes, \" and \\
 * escape) gives it back: in "..." if @quote (the word was quoted in the
 * line bound, which region, mark and others read as a note) or if it has
 * a blank or a ", else as is (' and \ are no quotes there). */
static int km_quote_append(char *out, size_t size, size_t *len, const char *s,
			   int quote)
{
	const char *p;
	size_t need = 0;

	if (!*s || strpbrk(s, " \t\r\n\""))
		quote = 1;
	if (*len)
		need = 1;
	need += quote ? 2 * strlen(s) + 2 : strlen(s);
	if (*len + need + 1 > size)
		return -pte_invalid;
	if (*len)
		out[(*len)++] = ' ';
	if (!quote) {
		memcpy(out + *len, s, strlen(s));
		*len += strlen(s);
	} else {
		out[(*len)++] = '"';
		for (p = s; *p; p++) {
			if (*p == '"' || *p == '\\')
				out[(*len)++] = '\\';
			out[(*len)++] = *p;
		}
		out[(*len)++] = '"';
	}
	out[*len] = '\0';
	return 0;
}

/* Append @s to @out in sh's '...' (a ' in it as '\''), after a blank
 * if *@len: a word a keymap file quoted with '...', bound to pipe, whose
 * sh must take it as written ("..." let it expand $1 and $HOME). */
static int km_sh_quote_append(char *out, size_t size, size_t *len, const char *s)
{
	const char *p;
	size_t need = (*len ? 1 : 0) + 2;

	for (p = s; *p; p++)
		need += *p == '\'' ? 4 : 1;
	if (*len + need + 1 > size)
		return -pte_invalid;
	if (*len)
		out[(*len)++] = ' ';
	out[(*len)++] = '\'';
	for (p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(out + *len, "'\\''", 4);
			*len += 4;
		} else {
			out[(*len)++] = *p;
		}
	}
	out[(*len)++] = '\'';
	out[*len] = '\0';
	return 0;
}

/* The binding of exactly @keys in @tab, or NULL. */
struct km_bind *km_tab_find(const struct km_tab *tab, const int *keys,
				   size_t n)
{
	size_t i;

	for (i = 0; i < tab->n; i++)
		if (tab->v[i].nkeys == n &&
		    !memcmp(tab->v[i].keys, keys, n * sizeof(*keys)))
			return &tab->v[i];
	return NULL;
}

/* Whether a binding in @tab starts with @keys and is longer. */
int km_tab_has_prefix(const struct km_tab *tab, const int *keys,
			     size_t n)
{
	size_t i;

	for (i = 0; i < tab->n; i++)
		if (tab->v[i].nkeys > n &&
		    !memcmp(tab->v[i].keys, keys, n * sizeof(*keys)))
			return 1;
	return 0;
}

/* Bind @keys in table @t, replacing an existing binding in place. */
int km_bind_add(struct km *km, enum km_table t, const int *keys,
		       size_t n, enum action a, const char *args,
		       const char *note)
{
	struct km_tab *tab = &km->tabs[t];
	struct km_bind *b, nb;

	memset(&nb, 0, sizeof(nb));
	memcpy(nb.keys, keys, n * sizeof(*keys));
	nb.nkeys = n;
	nb.action = a;
	nb.args = strdup(args ? args : "");
	nb.note = strdup(note ? note : "");
	if (!nb.args || !nb.note)
		goto out_free;
	b = km_tab_find(tab, keys, n);
	if (b) {
		km_bind_free(b);
		*b = nb;
		return 0;
	}
	if (tab->n == tab->cap) {
		size_t cap = tab->cap ? 2 * tab->cap : 32;
		struct km_bind *v = realloc(tab->v, cap * sizeof(*v));

		if (!v)
			goto out_free;
		tab->v = v;
		tab->cap = cap;
	}
	tab->v[tab->n++] = nb;
	return 0;

out_free:
	km_bind_free(&nb);
	return -pte_nomem;
}

/* The action named exactly @name (no aliases), "none", or -2 if neither. */
static int km_command(const char *name)
{
	enum action a;

	if (!strcmp(name, "none"))
		return ACTION_NONE;
	a = action_find(name);
	if (a == ACTION_NONE || strcmp(action_table[a].name, name))
		return -2;
	return a;
}

/* bind [-T TABLE] [-N NOTE] KEY... COMMAND [ARG...] */
/* bind's options (-T TABLE, -N NOTE, --) from argv[1]: into *@t and
 * *@note.  Returns the index of the first key, or -pte_invalid. */
static int km_bind_opts(int argc, char **argv, enum km_table *t, const char **note,
			char *err, size_t errlen)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1;
		if (strcmp(argv[i], "-T") && strcmp(argv[i], "-N")) {
			km_set_err(err, errlen, "bind: unknown option '%s'", argv[i]);
			return -pte_invalid;
		}
		if (i + 1 >= argc) {
			km_set_err(err, errlen, "bind: %s needs an argument", argv[i]);
			return -pte_invalid;
		}
		if (argv[i][1] == 'N') {
			*note = argv[++i];
			continue;
		}
		*t = km_table_find(argv[++i]);
		if (*t == KM_T_NONE) {
			km_set_err(err, errlen, "bind: unknown table '%s'", argv[i]);
			return -pte_invalid;
		}
	}
	return i;
}

/* The keys argv[@i] up to the command's word: the command's index, with
 * the keys in @keys (*@nkeys).  Returns it, or -pte_invalid. */
static int km_bind_keys(int argc, char **argv, int i, int *keys, size_t *nkeys,
			char *err, size_t errlen)
{
	int j, cmd = -1;

	for (j = i; j < argc && cmd < 0; j++)
		if (km_command(argv[j]) != -2)
			cmd = j;
	if (cmd < 0) {
		for (j = i; j < argc; j++)
			if (km_key_parse(argv[j]) < 0) {
				km_set_err(err, errlen, "bind: unknown command '%s'", argv[j]);
				return -pte_invalid;
			}
		km_set_err(err, errlen, i < argc ? "bind: missing command" :
			   "bind: missing key and command");
		return -pte_invalid;
	}
	if (cmd == i) {
		km_set_err(err, errlen, "bind: missing key before '%s'", argv[cmd]);
		return -pte_invalid;
	}
	for (j = i; j < cmd; j++) {
		int k = km_key_parse(argv[j]);

		if (k < 0) {
			km_set_err(err, errlen, "bind: unknown key '%s'", argv[j]);
			return -pte_invalid;
		}
		if (*nkeys == KM_SEQ_MAX) {
			km_set_err(err, errlen, "bind: too many keys (at most %d)", KM_SEQ_MAX);
			return -pte_invalid;
		}
		keys[(*nkeys)++] = k;
	}
	return cmd;
}

/* How pipe's sh gets a word (@s, read as @q says: tok.h's TOK_Q_*), so
 * it reads it as written: */
enum km_sh { KM_SH_ASIS, KM_SH_DOUBLE, KM_SH_SINGLE, KM_SH_UNSURE };

static enum km_sh km_sh_form(const char *s, int q)
{
	int bare = q & TOK_Q_BARE, dq = q & TOK_Q_DOUBLE,
	    lit = q & (TOK_Q_SINGLE | TOK_Q_ESCAPED);

	if (!(q & ~TOK_Q_OPEN))	/* only the quote told (or nothing to quote) */
		return (q & TOK_Q_OPEN) == '\'' ? KM_SH_SINGLE :
		       q ? KM_SH_DOUBLE : KM_SH_ASIS;
	if (!bare && !dq)	/* '...', \$, letters: literal */
		return KM_SH_SINGLE;
	if (!bare && !lit)	/* "...", letters: sh expands $ as written */
		return KM_SH_DOUBLE;
	if (!lit && !dq)	/* none quoted: | $1 * as sh reads them */
		return KM_SH_ASIS;
	/* '...' and "..." parts: the same in '...' if "..." had nothing
	 * to expand; a part outside quotes with an operator or $ (x'a'$1):
	 * which character was quoted is not known. */
	return !bare && !strpbrk(s, "$`\\") ? KM_SH_SINGLE : KM_SH_UNSURE;
}

/* Append argv[@j] (@quoted as km_bind_args() takes it) for pipe's sh.
 * Returns 0, or -pte_invalid with a message in @err. */
static int km_sh_append(char *args, size_t size, size_t *alen, char **argv,
			const int *quoted, int j, char *err, size_t errlen)
{
	int r;

	switch (km_sh_form(argv[j], quoted ? quoted[j] : 0)) {
	case KM_SH_SINGLE:
		r = km_sh_quote_append(args, size, alen, argv[j]);
		break;
	case KM_SH_DOUBLE:
		r = km_quote_append(args, size, alen, argv[j], 1);
		break;
	case KM_SH_ASIS:
		r = km_quote_append(args, size, alen, argv[j], 0);
		break;
	default:
		km_set_err(err, errlen, "bind: pipe: '%s' is quoted in part: quote all "
			   "of it, sh cannot be told which part was", argv[j]);
		return -pte_invalid;
	}
	if (r < 0)
		km_set_err(err, errlen, "bind: arguments too long");
	return r;
}

/* The arguments after command @a at argv[@cmd] into @args, as km_exec()
 * describes them (@quoted[j]: how argv[j] was quoted, km_exec_argv();
 * NULL: none was).  pipe's sh reads its text as typed, so a word quoted
 * with '...' stays in '...' there, and one quoted in part is written
 * as sh reads it as written, unless it is the only one (then it is the
 * text itself, cmd.c's cmd_key_raw()).
 * Returns 0, or -pte_invalid. */
static int km_bind_args(int argc, char **argv, const int *quoted, int cmd, int a,
			char *args, size_t size, char *err, size_t errlen)
{
	int j, sh = a == ACTION_PIPE && argc - cmd > 2, r;
	size_t alen = 0;

	for (j = cmd + 1; j < argc; j++) {
		int open = quoted ? quoted[j] & TOK_Q_OPEN : 0;

		if (a == ACTION_NONE) {
			km_set_err(err, errlen, "bind: none takes no arguments");
			return -pte_invalid;
		}
		if (!strcmp(argv[j], "{key}") && !open) {
			if (!(action_table[a].flags & ACT_KEY)) {
				km_set_err(err, errlen, "bind: %s does not read a key",
					   action_table[a].name);
				return -pte_invalid;
			}
			continue;
		}
		if (!(action_table[a].flags & ACT_ARGS)) {
			km_set_err(err, errlen, "bind: %s takes no arguments ('%s')",
				   action_table[a].name, argv[j]);
			return -pte_invalid;
		}
		if (sh) {
			if (km_sh_append(args, size, &alen, argv, quoted, j, err, errlen) < 0)
				return -pte_invalid;
			continue;
		}
		r = km_quote_append(args, size, &alen, argv[j], open);
		if (r < 0) {
			km_set_err(err, errlen, "bind: arguments too long");
			return -pte_invalid;
		}
	}
	return 0;
}

/* Whether @keys (@nkeys) bound to @a in @t could be typed and would not
 * hide other bindings.  Returns 0, or -pte_invalid. */
static int km_bind_reachable(const struct km *km, enum km_table t, const int *keys,
			     size_t nkeys, int a, char *err, size_t errlen)
{
	const struct km_tab *tab = &km->tabs[t];
	char seq[128];
	size_t j, k;

	/* A longer sequence behind a bound one could never be typed. */
	for (j = 1; j < nkeys; j++) {
		struct km_bind *b = km_tab_find(tab, keys, j);

		if (b && b->action != ACTION_NONE) {
			km_set_err(err, errlen, "bind: '%s' can never be typed: '%s' is "
				   "bound to %s", km_seq_name(keys, nkeys, seq, sizeof(seq)),
				   km_seq_name(keys, j, seq + 64, 64), action_name(b->action));
			return -pte_invalid;
		}
	}
	/* Nor the other way: a key bound alone acts at once, so the longer
	 * sequences starting with it would go dead without a word. */
	if (a == ACTION_NONE)
		return 0;
	for (k = 0; k < tab->n; k++) {
		const struct km_bind *b = &tab->v[k];

		if (b->nkeys > nkeys && b->action != ACTION_NONE &&
		    !memcmp(b->keys, keys, nkeys * sizeof(*keys))) {
			km_set_err(err, errlen, "bind: '%s' would hide '%s' (%s): unbind "
				   "that first", km_seq_name(keys, nkeys, seq, 64),
				   km_seq_name(b->keys, b->nkeys, seq + 64, 64),
				   action_name(b->action));
			return -pte_invalid;
		}
	}
	return 0;
}

int km_cmd_bind(struct km *km, int argc, char **argv, const int *quoted,
		char *err, size_t errlen)
{
	enum km_table t = KM_T_GLOBAL;
	const char *note = "";
	int keys[KM_SEQ_MAX], i, cmd, a;
	char args[KM_ARGS_MAX] = "";
	size_t nkeys = 0;

	i = km_bind_opts(argc, argv, &t, &note, err, errlen);
	if (i < 0)
		return i;
	cmd = km_bind_keys(argc, argv, i, keys, &nkeys, err, errlen);
	if (cmd < 0)
		return cmd;
	a = km_command(argv[cmd]);
	if (km_bind_args(argc, argv, quoted, cmd, a, args, sizeof(args), err, errlen) < 0 ||
	    km_bind_reachable(km, t, keys, nkeys, a, err, errlen) < 0)
		return -pte_invalid;
	if (km_bind_add(km, t, keys, nkeys, (enum action)a, args, note) < 0) {
		km_set_err(err, errlen, "bind: out of memory");
		return -pte_nomem;
	}
	return 0;
}

/* unbind [-a] [-T TABLE] KEY... */
int km_cmd_unbind(struct km *km, int argc, char **argv, char *err,
			 size_t errlen)
{
	enum km_table t = KM_T_GLOBAL;
	int all = 0, table_given = 0, i = 1, k;
	int keys[KM_SEQ_MAX];
	size_t nkeys = 0, idx;
	struct km_bind *b;
	struct km_tab *tab;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-a")) {
			all = 1;
			continue;
		}
		if (strcmp(argv[i], "-T")) {
			km_set_err(err, errlen, "unbind: unknown option '%s'",
				   argv[i]);
			return -pte_invalid;
		}
		if (i + 1 >= argc) {
			km_set_err(err, errlen, "unbind: -T needs an argument");
			return -pte_invalid;
		}
		t = km_table_find(argv[++i]);
		if (t == KM_T_NONE) {
			km_set_err(err, errlen, "unbind: unknown table '%s'",
				   argv[i]);
			return -pte_invalid;
		}
		table_given = 1;
	}
	if (all) {
		if (i < argc) {
			km_set_err(err, errlen, "unbind: -a takes no keys");
			return -pte_invalid;
		}
		for (k = 0; k < KM_NTABLES; k++)
			if (!table_given || k == (int)t)
				km_tab_clear(&km->tabs[k]);
		return 0;
	}
	if (i == argc) {
		km_set_err(err, errlen, "unbind: missing key");
		return -pte_invalid;
	}
	for (; i < argc; i++) {
		k = km_key_parse(argv[i]);
		if (k < 0) {
			km_set_err(err, errlen, "unbind: unknown key '%s'",
				   argv[i]);
			return -pte_invalid;
		}
		if (nkeys == KM_SEQ_MAX) {
			km_set_err(err, errlen,
				   "unbind: too many keys (at most %d)",
				   KM_SEQ_MAX);
			return -pte_invalid;
		}
		keys[nkeys++] = k;
	}
	tab = &km->tabs[t];
	b = km_tab_find(tab, keys, nkeys);
	if (!b)
		return 0;	/* as tmux: unbinding a free key is fine */
	idx = (size_t)(b - tab->v);
	km_bind_free(b);
	memmove(b, b + 1, (tab->n - idx - 1) * sizeof(*b));
	tab->n--;
	return 0;
}
