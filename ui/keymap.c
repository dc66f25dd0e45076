/* keymap -- key names, keymap files and the key-sequence state machine. */
#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keymap.h"
#include "ptdec.h"
#include "safefile.h"
#include "xdg.h"

#include "keymaps_builtin.h"

#define KM_MAX_ERRORS	200	/* then one "... more" line */
#define KM_MAX_DEPTH	8	/* source inside source */
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
	int parsing;		/* inside km_parse(): lines, not the whole */
	const char *file;	/* the file being read, for relative source */
	char name[64];
};

static const char *const km_table_names[KM_NTABLES] = {
	[KM_T_GLOBAL] = "global",
	[KM_T_PACKETS] = "packets",
	[KM_T_TIMING] = "timing",
	[KM_T_TIMELINE] = "timeline",
	[KM_T_PROMPT] = "prompt",
	[KM_T_VISUAL] = "visual",
};

/* Named keys; the first name of a code is the one printed. */
static const struct {
	const char *name;
	int key;
} km_key_names[] = {
	{ "Enter", 13 }, { "Return", 13 },
	{ "Escape", 27 }, { "Esc", 27 },
	{ "Tab", 9 },
	{ "BTab", KEY_BTAB }, { "S-Tab", KEY_BTAB },
	{ "Space", 32 }, { "SPC", 32 },
	{ "BSpace", KEY_BACKSPACE },
	{ "Up", KEY_UP }, { "Down", KEY_DOWN },
	{ "Left", KEY_LEFT }, { "Right", KEY_RIGHT },
	{ "Home", KEY_HOME }, { "End", KEY_END },
	{ "PageUp", KEY_PPAGE }, { "PgUp", KEY_PPAGE }, { "PPage", KEY_PPAGE },
	{ "PageDown", KEY_NPAGE }, { "PgDn", KEY_NPAGE }, { "NPage", KEY_NPAGE },
	{ "DC", KEY_DC }, { "Delete", KEY_DC },
	{ "IC", KEY_IC }, { "Insert", KEY_IC },
	{ "S-Up", KEY_SR }, { "S-Down", KEY_SF },
	{ "S-Left", KEY_SLEFT }, { "S-Right", KEY_SRIGHT },
	{ "S-Home", KEY_SHOME }, { "S-End", KEY_SEND },
};

#define KM_NKEYNAMES (sizeof(km_key_names) / sizeof(km_key_names[0]))

/* Fold the codes terminals send for one key into one code. */
static int km_normalize(int key)
{
	int meta = key & KM_META;

	key &= ~KM_META;
	if (key == 10 || key == KEY_ENTER)
		key = 13;
	else if (key == 127)
		key = KEY_BACKSPACE;
	return key | meta;
}

static int km_is_cancel(int key)
{
	return key == 27 || key == 7;
}

int km_key_parse(const char *name)
{
	size_t i, len;
	int k;

	if (!name || !*name)
		return -1;
	len = strlen(name);
	if (len == 1)
		return km_normalize((unsigned char)name[0]);
	for (i = 0; i < KM_NKEYNAMES; i++)
		if (!strcasecmp(name, km_key_names[i].name))
			return km_key_names[i].key;
	if ((name[0] == 'M' || name[0] == 'm') && name[1] == '-') {
		k = km_key_parse(name + 2);
		if (k < 0 || (k & KM_META))
			return -1;
		return k | KM_META;
	}
	if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-') {
		const char *r = name + 2;

		if ((r[0] == 'M' || r[0] == 'm') && r[1] == '-' && r[2]) {
			char tmp[32];	/* C-M-x is M-C-x */

			if (strlen(r + 2) + 3 > sizeof(tmp))
				return -1;
			snprintf(tmp, sizeof(tmp), "C-%s", r + 2);
			k = km_key_parse(tmp);
			return k < 0 || (k & KM_META) ? -1 : k | KM_META;
		}
		if (!strcasecmp(r, "Space") || !strcasecmp(r, "SPC"))
			return 0;
		if (strlen(r) != 1)
			return -1;
		if ((r[0] >= 'a' && r[0] <= 'z') || (r[0] >= 'A' && r[0] <= 'Z'))
			return km_normalize(r[0] & 0x1f);
		switch (r[0]) {
		case '@': case ' ': return 0;
		case '[': return 27;
		case '\\': return 28;
		case ']': return 29;
		case '^': return 30;
		case '_': return 31;
		case '?': return KEY_BACKSPACE;
		}
		return -1;
	}
	if (name[0] == 'F' || name[0] == 'f') {
		char *end;
		long n;

		if (name[1] < '1' || name[1] > '9')
			return -1;
		n = strtol(name + 1, &end, 10);
		if (*end || n < 1 || n > 24)
			return -1;
		return KEY_F(n);
	}
	return -1;
}

char *km_key_name(int key, char *buf, size_t size)
{
	size_t i;
	int k;

	if (!buf || !size)
		return buf;
	if (key < 0) {
		snprintf(buf, size, "none");
		return buf;
	}
	if (key & KM_META) {
		char sub[32];

		km_key_name(key & ~KM_META, sub, sizeof(sub));
		snprintf(buf, size, "M-%s", sub);
		return buf;
	}
	k = km_normalize(key);
	for (i = 0; i < KM_NKEYNAMES; i++)
		if (km_key_names[i].key == k) {
			snprintf(buf, size, "%s", km_key_names[i].name);
			return buf;
		}
	if (k == 0)
		snprintf(buf, size, "C-Space");
	else if (k < 27)
		snprintf(buf, size, "C-%c", 'a' + k - 1);
	else if (k < 32)
		snprintf(buf, size, "C-%c", "[\\]^_"[k - 27]);
	else if (k < 127)
		snprintf(buf, size, "%c", k);
	else if (k >= KEY_F(1) && k <= KEY_F(24))
		snprintf(buf, size, "F%d", k - KEY_F0);
	else
		snprintf(buf, size, "Key%d", k);
	return buf;
}

char *km_seq_name(const int *keys, size_t n, char *buf, size_t size)
{
	size_t i, len = 0;
	char one[40];

	if (!buf || !size)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n && keys; i++) {
		km_key_name(keys[i], one, sizeof(one));
		snprintf(buf + len, size - len, "%s%s", i ? " " : "", one);
		len = strlen(buf);
	}
	return buf;
}

enum km_table km_table_find(const char *name)
{
	int t;

	if (!name)
		return KM_T_NONE;
	for (t = 0; t < KM_NTABLES; t++)
		if (!strcmp(name, km_table_names[t]))
			return (enum km_table)t;
	return KM_T_NONE;
}

const char *km_table_name(enum km_table t)
{
	if (t < 0 || t >= KM_NTABLES)
		return "?";
	return km_table_names[t];
}

static void km_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void km_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int km_split(const char *line, char *buf, size_t size, char **argv,
	     int max, char *err, size_t errlen)
{
	const char *p = line;
	size_t o = 0;
	int argc = 0;

	if (!line || !buf || !size || !argv || max <= 0) {
		km_set_err(err, errlen, "internal: bad arguments to km_split");
		return -pte_invalid;
	}
	for (;;) {
		int quoted = 0;

		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			break;
		if (argc == max) {
			km_set_err(err, errlen, "too many words (at most %d)", max);
			return -pte_invalid;
		}
		argv[argc++] = buf + o;
		while (*p && (quoted || (*p != ' ' && *p != '\t' &&
					 *p != '\r' && *p != '\n'))) {
			char c = *p++;

			if (c == '\'' || c == '"') {
				char q = c;

				for (;;) {
					c = *p;
					if (!c) {
						km_set_err(err, errlen,
							   "missing closing %c", q);
						return -pte_invalid;
					}
					p++;
					if (c == q)
						break;
					if (q == '"' && c == '\\' &&
					    (*p == '"' || *p == '\\'))
						c = *p++;
					if (o + 1 >= size)
						goto out_long;
					buf[o++] = c;
				}
				continue;
			}
			if (c == '\\' && *p)
				c = *p++;
			if (o + 1 >= size)
				goto out_long;
			buf[o++] = c;
		}
		if (o + 1 >= size)
			goto out_long;
		buf[o++] = '\0';
	}
	return argc;

out_long:
	km_set_err(err, errlen, "line too long");
	return -pte_invalid;
}

/* Append @s to @out, quoted if km_split() would otherwise change it. */
static int km_quote_append(char *out, size_t size, size_t *len, const char *s)
{
	int plain = *s != '\0' && *s != '#';
	const char *p;
	size_t need = 0;

	for (p = s; *p; p++)
		if (strchr(" \t\r\n'\"\\", *p))
			plain = 0;
	if (*len)
		need = 1;
	need += plain ? strlen(s) : 2 * strlen(s) + 2;
	if (*len + need + 1 > size)
		return -pte_invalid;
	if (*len)
		out[(*len)++] = ' ';
	if (plain) {
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

struct km *km_new(void)
{
	return calloc(1, sizeof(struct km));
}

static void km_bind_free(struct km_bind *b)
{
	free(b->args);
	free(b->note);
}

static void km_tab_clear(struct km_tab *tab)
{
	size_t i;

	for (i = 0; i < tab->n; i++)
		km_bind_free(&tab->v[i]);
	free(tab->v);
	memset(tab, 0, sizeof(*tab));
}

void km_clear_errors(struct km *km)
{
	size_t i;

	if (!km)
		return;
	for (i = 0; i < km->nerrs; i++)
		free(km->errs[i]);
	free(km->errs);
	km->errs = NULL;
	km->nerrs = km->caperrs = km->dropped = 0;
}

void km_free(struct km *km)
{
	int t;

	if (!km)
		return;
	for (t = 0; t < KM_NTABLES; t++)
		km_tab_clear(&km->tabs[t]);
	km_clear_errors(km);
	free(km);
}

/* Keep "@file:@line: @msg" (@line 0: "@msg"); out of memory only loses
 * the message. */
static void km_add_error(struct km *km, const char *file, int line,
			 const char *msg)
{
	char *s;

	if (km->nerrs >= KM_MAX_ERRORS) {
		km->dropped++;
		return;
	}
	if (km->nerrs == km->caperrs) {
		size_t cap = km->caperrs ? 2 * km->caperrs : 8;
		char **v = realloc(km->errs, cap * sizeof(*v));

		if (!v)
			return;
		km->errs = v;
		km->caperrs = cap;
	}
	/* line 0: the file as a whole (msg names it) */
	if ((line > 0 ? asprintf(&s, "%s:%d: %s", file, line, msg) :
	     asprintf(&s, "%s", msg)) < 0)
		return;
	km->errs[km->nerrs++] = s;
}

size_t km_nerrors(const struct km *km)
{
	if (!km)
		return 0;
	return km->nerrs + (km->dropped ? 1 : 0);
}

const char *km_error(const struct km *km, size_t i)
{
	static char more[64];

	if (!km)
		return NULL;
	if (i < km->nerrs)
		return km->errs[i];
	if (i == km->nerrs && km->dropped) {
		snprintf(more, sizeof(more), "... and %zu more errors",
			 km->dropped);
		return more;
	}
	return NULL;
}

const char *km_name(const struct km *km)
{
	return km ? km->name : "";
}

/* The binding of exactly @keys in @tab, or NULL. */
static struct km_bind *km_tab_find(const struct km_tab *tab, const int *keys,
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
static int km_tab_has_prefix(const struct km_tab *tab, const int *keys,
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
static int km_bind_add(struct km *km, enum km_table t, const int *keys,
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
static int km_cmd_bind(struct km *km, int argc, char **argv, char *err,
		       size_t errlen)
{
	enum km_table t = KM_T_GLOBAL;
	const char *note = "";
	int keys[KM_SEQ_MAX];
	char args[KM_ARGS_MAX] = "";
	size_t nkeys = 0, alen = 0;
	int i = 1, j, cmd = -1, a, nargs = 0;
	char seq[128];

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-T") && strcmp(argv[i], "-N")) {
			km_set_err(err, errlen, "bind: unknown option '%s'",
				   argv[i]);
			return -pte_invalid;
		}
		if (i + 1 >= argc) {
			km_set_err(err, errlen, "bind: %s needs an argument",
				   argv[i]);
			return -pte_invalid;
		}
		if (argv[i][1] == 'N') {
			note = argv[++i];
			continue;
		}
		t = km_table_find(argv[++i]);
		if (t == KM_T_NONE) {
			km_set_err(err, errlen, "bind: unknown table '%s'",
				   argv[i]);
			return -pte_invalid;
		}
	}
	for (j = i; j < argc; j++)
		if (km_command(argv[j]) != -2) {
			cmd = j;
			break;
		}
	if (cmd < 0) {
		for (j = i; j < argc; j++)
			if (km_key_parse(argv[j]) < 0) {
				km_set_err(err, errlen,
					   "bind: unknown command '%s'", argv[j]);
				return -pte_invalid;
			}
		km_set_err(err, errlen, i < argc ? "bind: missing command" :
			   "bind: missing key and command");
		return -pte_invalid;
	}
	if (cmd == i) {
		km_set_err(err, errlen, "bind: missing key before '%s'",
			   argv[cmd]);
		return -pte_invalid;
	}
	for (j = i; j < cmd; j++) {
		int k = km_key_parse(argv[j]);

		if (k < 0) {
			km_set_err(err, errlen, "bind: unknown key '%s'",
				   argv[j]);
			return -pte_invalid;
		}
		if (nkeys == KM_SEQ_MAX) {
			km_set_err(err, errlen,
				   "bind: too many keys (at most %d)",
				   KM_SEQ_MAX);
			return -pte_invalid;
		}
		keys[nkeys++] = k;
	}
	a = km_command(argv[cmd]);
	for (j = cmd + 1; j < argc; j++) {
		if (a == ACTION_NONE) {
			km_set_err(err, errlen, "bind: none takes no arguments");
			return -pte_invalid;
		}
		if (!strcmp(argv[j], "{key}")) {
			if (!(action_table[a].flags & ACT_KEY)) {
				km_set_err(err, errlen,
					   "bind: %s does not read a key",
					   action_table[a].name);
				return -pte_invalid;
			}
			continue;
		}
		if (!(action_table[a].flags & ACT_ARGS)) {
			km_set_err(err, errlen,
				   "bind: %s takes no arguments ('%s')",
				   action_table[a].name, argv[j]);
			return -pte_invalid;
		}
		nargs++;
	}
	for (j = cmd + 1; j < argc; j++) {
		if (!strcmp(argv[j], "{key}"))
			continue;
		/* One argument is kept as is ("region " for command-prompt);
		 * several are quoted so the handler can split them again. */
		if (nargs == 1) {
			if (strlen(argv[j]) >= sizeof(args)) {
				km_set_err(err, errlen,
					   "bind: arguments too long");
				return -pte_invalid;
			}
			strcpy(args, argv[j]);
		} else if (km_quote_append(args, sizeof(args), &alen,
					   argv[j]) < 0) {
			km_set_err(err, errlen, "bind: arguments too long");
			return -pte_invalid;
		}
	}
	/* A longer sequence behind a bound one could never be typed. */
	for (j = 1; j < (int)nkeys; j++) {
		struct km_bind *b = km_tab_find(&km->tabs[t], keys, (size_t)j);

		if (b && b->action != ACTION_NONE) {
			km_set_err(err, errlen,
				   "bind: '%s' can never be typed: '%s' is "
				   "bound to %s",
				   km_seq_name(keys, nkeys, seq, sizeof(seq)),
				   km_seq_name(keys, (size_t)j, seq + 64, 64),
				   action_name(b->action));
			return -pte_invalid;
		}
	}
	/* Nor the other way: a key bound alone acts at once, so the longer
	 * sequences starting with it would go dead without a word. */
	if (a != ACTION_NONE) {
		const struct km_tab *tab = &km->tabs[t];
		size_t k;

		for (k = 0; k < tab->n; k++) {
			const struct km_bind *b = &tab->v[k];

			if (b->nkeys > nkeys && b->action != ACTION_NONE &&
			    !memcmp(b->keys, keys, nkeys * sizeof(*keys))) {
				km_set_err(err, errlen,
					   "bind: '%s' would hide '%s' (%s): unbind "
					   "that first",
					   km_seq_name(keys, nkeys, seq, 64),
					   km_seq_name(b->keys, b->nkeys, seq + 64, 64),
					   action_name(b->action));
				return -pte_invalid;
			}
		}
	}
	if (km_bind_add(km, t, keys, nkeys, (enum action)a, args, note) < 0) {
		km_set_err(err, errlen, "bind: out of memory");
		return -pte_nomem;
	}
	return 0;
}

/* unbind [-a] [-T TABLE] KEY... */
static int km_cmd_unbind(struct km *km, int argc, char **argv, char *err,
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

int km_list_names(int (*fn)(void *arg, const char *name), void *arg)
{
	char dir[4096];
	struct dirent *de;
	size_t i;
	DIR *d;
	int r;

	for (i = 0; i < sizeof(keymaps_builtin) / sizeof(keymaps_builtin[0]); i++)
		if (keymaps_builtin[i].name && (r = fn(arg, keymaps_builtin[i].name)) < 0)
			return r;
	if (xdg_path(XDG_CONFIG, "keymaps", dir, sizeof(dir), NULL, 0) < 0 ||
	    !(d = opendir(dir)))
		return 0;
	r = 0;
	while (r >= 0 && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char name[256];

		if (n <= 5 || n - 5 >= sizeof(name) || strcmp(de->d_name + n - 5, ".keys"))
			continue;
		memcpy(name, de->d_name, n - 5);
		name[n - 5] = 0;
		r = fn(arg, name);
	}
	closedir(d);
	return r < 0 ? r : 0;
}

/* Resolve @path for source: "~/" is $HOME, a relative path is taken
 * relative to the file being read, if any. */
static int km_resolve(const struct km *km, const char *path, char *buf,
		      size_t size)
{
	const char *home = getenv("HOME");
	const char *slash;
	int n;

	if (path[0] == '~' && path[1] == '/' && home && *home)
		n = snprintf(buf, size, "%s%s", home, path + 1);
	else if (path[0] != '/' && km->file && (slash = strrchr(km->file, '/')))
		n = snprintf(buf, size, "%.*s/%s", (int)(slash - km->file),
			     km->file, path);
	else
		n = snprintf(buf, size, "%s", path);
	return n < 0 || (size_t)n >= size ? -pte_invalid : 0;
}

static int km_exec_words(struct km *km, int argc, char **argv, char *err,
			 size_t errlen)
{
	int rc;

	if (argc == 0)
		return 0;
	if (!strcmp(argv[0], "bind"))
		return km_cmd_bind(km, argc, argv, err, errlen);
	if (!strcmp(argv[0], "unbind"))
		return km_cmd_unbind(km, argc, argv, err, errlen);
	if (!strcmp(argv[0], "source")) {
		if (argc != 2) {
			km_set_err(err, errlen, "source: usage: source FILE");
			return -pte_invalid;
		}
		rc = km_source(km, argv[1], err, errlen);
		return rc < 0 ? rc : 0;
	}
	km_set_err(err, errlen, "unknown command '%s' (bind, unbind, source)",
		   argv[0]);
	return -pte_invalid;
}

static void km_keep_exits(struct km *km);

int km_exec(struct km *km, const char *line, char *err, size_t errlen)
{
	char buf[KM_LINE_MAX];
	char *argv[KM_MAX_WORDS];
	int argc, rc;

	if (!km || !line) {
		km_set_err(err, errlen, "internal: no keymap or line");
		return -pte_invalid;
	}
	argc = km_split(line, buf, sizeof(buf), argv, KM_MAX_WORDS, err,
			errlen);
	if (argc < 0)
		return argc;
	rc = km_exec_words(km, argc, argv, err, errlen);
	if (!km->parsing)
		km_keep_exits(km);
	return rc;
}

int km_parse(struct km *km, const char *fname, const char *text)
{
	const char *p = text, *nl;
	char line[KM_LINE_MAX], err[256];
	int lineno = 0, nbad = 0;

	if (!km || !text)
		return 0;
	if (!fname)
		fname = "(keymap)";
	km->parsing++;
	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (len >= sizeof(line)) {
			km_add_error(km, fname, lineno, "line too long");
			nbad++;
		} else {
			memcpy(line, p, len);
			line[len] = '\0';
			if (memchr(line, '\0', len) || km_exec(km, line, err, sizeof(err)) < 0) {
				km_add_error(km, fname, lineno, err);
				nbad++;
			}
		}
		if (!nl)
			break;
	}
	/* The ways out are checked once the whole text is read: a file may
	 * unbind q before it binds another key to quit. */
	if (!--km->parsing)
		km_keep_exits(km);
	return nbad;
}

int km_source(struct km *km, const char *path, char *err, size_t errlen)
{
	char full[4096];
	const char *saved;
	FILE *f = NULL;
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	if (!km || !path || !*path) {
		km_set_err(err, errlen, "source: no file given");
		return -pte_invalid;
	}
	if (km_resolve(km, path, full, sizeof(full)) < 0) {
		km_set_err(err, errlen, "source: path too long: %s", path);
		return -pte_invalid;
	}
	if (km->depth >= KM_MAX_DEPTH) {
		km_set_err(err, errlen, "source: %s: nested too deeply", full);
		return -pte_invalid;
	}
	/* A FIFO would block the opening, a device never end. */
	f = safefile_fopen_read(full, 0);
	if (!f) {
		rc = errno;
		km_set_err(err, errlen, "source: %s: %s", full, safefile_strerror(rc));
		return rc == EINVAL ? -pte_invalid : -pte_io;
	}
	errno = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *t;

			cap = cap ? 2 * cap : 8192;
			if (cap > (16u << 20)) {
				km_set_err(err, errlen, "source: %s: too big",
					   full);
				rc = -pte_invalid;
				goto out_free;
			}
			t = realloc(text, cap);
			if (!t) {
				km_set_err(err, errlen, "source: out of memory");
				rc = -pte_nomem;
				goto out_free;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		km_set_err(err, errlen, "source: %s: %s", full,
			   errno ? strerror(errno) : "read error");
		rc = -pte_io;
		goto out_free;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		km_set_err(err, errlen, "source: %s: binary file", full);
		rc = -pte_invalid;
		goto out_free;
	}
	saved = km->file;
	km->file = full;
	km->depth++;
	rc = km_parse(km, full, text);
	km->depth--;
	km->file = saved;

out_free:
	free(text);
	fclose(f);
	return rc;
}

int km_load(struct km *km, const char *name, char *err, size_t errlen)
{
	char dir[4096], path[4200];
	struct stat sb;
	size_t i, len;
	int found = 0, rc;

	if (!km || !name || !*name) {
		km_set_err(err, errlen, "keymap: no name given");
		return -pte_invalid;
	}
	len = strlen(name);
	if (strchr(name, '/') || (len > 5 && !strcmp(name + len - 5, ".keys"))) {
		/* a file ("my.keys" too): loaded alone */
		rc = km_source(km, name, err, errlen);
		if (rc < 0)
			return -pte_invalid;
		snprintf(km->name, sizeof(km->name), "%s", name);
		return 0;
	}
	for (i = 0; i < sizeof(keymaps_builtin) / sizeof(keymaps_builtin[0]); i++)
		if (!strcmp(keymaps_builtin[i].name, name)) {
			snprintf(path, sizeof(path), "%s.keys", name);
			km_parse(km, path, keymaps_builtin[i].text);
			found = 1;
		}
	if (xdg_path(XDG_CONFIG, "keymaps", dir, sizeof(dir), NULL, 0) == 0) {
		snprintf(path, sizeof(path), "%s/%s.keys", dir, name);
		if (stat(path, &sb) == 0) {
			char e[512];

			found = 1;
			if (km_source(km, path, e, sizeof(e)) < 0)
				km_add_error(km, path, 0, e);
		}
	} else {
		dir[0] = '\0';
	}
	if (!found) {
		char names[256] = "";
		size_t nl = 0;

		for (i = 0; i < sizeof(keymaps_builtin) /
			    sizeof(keymaps_builtin[0]); i++) {
			snprintf(names + nl, sizeof(names) - nl, "%s%s",
				 i ? ", " : "", keymaps_builtin[i].name);
			nl = strlen(names);
		}
		km_set_err(err, errlen,
			   "keymap '%s' not found (built-in: %s; or %s/%s.keys)",
			   name, names, *dir ? dir :
			   "$XDG_CONFIG_HOME/ptbrowse/keymaps", name);
		return -pte_invalid;
	}
	snprintf(km->name, sizeof(km->name), "%s", name);
	return 0;
}

/* ---- the key-sequence state machine ---- */

void km_state_reset(struct km_state *st)
{
	if (st)
		memset(st, 0, sizeof(*st));
}

void km_state_describe(struct km_state *st)
{
	if (!st)
		return;
	km_state_reset(st);
	st->describe = 1;
}

int km_state_pending(const struct km_state *st)
{
	return st && (st->nkeys || st->counting || st->await);
}

char *km_state_describe_pending(const struct km_state *st, char *buf,
				size_t size)
{
	char seq[128];
	size_t len = 0;

	if (!buf || !size)
		return buf;
	buf[0] = '\0';
	if (!st)
		return buf;
	if (st->counting) {
		snprintf(buf, size, "%llu", (unsigned long long)st->count);
		len = strlen(buf);
	}
	if (st->await) {
		km_seq_name(st->pending.keys, st->pending.nkeys, seq,
			    sizeof(seq));
		snprintf(buf + len, size - len, "%s%s", len ? " " : "", seq);
	} else if (st->nkeys) {
		km_seq_name(st->keys, st->nkeys, seq, sizeof(seq));
		snprintf(buf + len, size - len, "%s%s", len ? " " : "", seq);
	}
	return buf;
}

enum lookup { LK_NONE, LK_PREFIX, LK_EXACT };

/* Look @keys up in the tables for @mode and @pane, in order. */
static enum lookup km_lookup(const struct km *km, enum km_table mode,
			     enum km_table pane, const int *keys, size_t n,
			     const struct km_bind **bp, enum km_table *tp)
{
	enum km_table order[3];
	int norder = 0, i;

	if (mode == KM_T_PROMPT) {
		order[norder++] = KM_T_PROMPT;
	} else {
		if (mode >= 0 && mode < KM_NTABLES)
			order[norder++] = mode;
		if (pane >= 0 && pane < KM_NTABLES && pane != mode &&
		    pane != KM_T_GLOBAL)
			order[norder++] = pane;
		if (mode != KM_T_GLOBAL)
			order[norder++] = KM_T_GLOBAL;
	}
	for (i = 0; i < norder; i++) {
		const struct km_tab *tab = &km->tabs[order[i]];
		const struct km_bind *b = km_tab_find(tab, keys, n);

		*tp = order[i];
		if (b) {
			*bp = b;
			return LK_EXACT;
		}
		if (km_tab_has_prefix(tab, keys, n))
			return LK_PREFIX;
	}
	*tp = KM_T_NONE;
	return LK_NONE;
}

/*
 * The ways out no keymap may take away: quit, the prompt (from which
 * anything can be bound again) and interrupt, each with the key that gives
 * it back.  A keymap file or ":unbind -a" once left no key to leave by.
 */
static const struct {
	enum action action;
	int key;
	const char *name;
	const char *note;
} km_exits[] = {
	{ ACTION_QUIT, 'q', "q", "Quit" },
	{ ACTION_COMMAND_PROMPT, ':', ":", "Command prompt" },
	{ ACTION_INTERRUPT, 3, "C-c", "Interrupt" },
};

/* Whether a global binding of @a works from every pane (no pane table
 * hides it or a prefix of it). */
static int km_reachable(const struct km *km, enum action a)
{
	static const enum km_table panes[] = { KM_T_PACKETS, KM_T_TIMING,
					       KM_T_TIMELINE };
	const struct km_tab *g = &km->tabs[KM_T_GLOBAL];
	size_t i, n, p;

	for (i = 0; i < g->n; i++) {
		const struct km_bind *b = &g->v[i];
		int ok = b->action == a;

		for (p = 0; ok && p < sizeof(panes) / sizeof(panes[0]); p++) {
			for (n = 1; ok && n <= b->nkeys; n++) {
				const struct km_bind *x = NULL;
				enum km_table t;
				enum lookup lk = km_lookup(km, KM_T_NONE, panes[p],
							   b->keys, n, &x, &t);

				ok = n < b->nkeys ? lk == LK_PREFIX : lk == LK_EXACT && x == b;
			}
		}
		if (ok)
			return 1;
	}
	return 0;
}

/* Drop the bindings of @tab whose sequence starts with @key. */
static void km_tab_drop_key(struct km_tab *tab, int key)
{
	size_t i = 0;

	while (i < tab->n) {
		if (tab->v[i].keys[0] != key) {
			i++;
			continue;
		}
		km_bind_free(&tab->v[i]);
		memmove(&tab->v[i], &tab->v[i + 1], (tab->n - i - 1) * sizeof(tab->v[0]));
		tab->n--;
	}
}

/* Bind each way out no key gives any more to its key again, freeing the
 * key in the global and pane tables, and say so in the error list. */
static void km_keep_exits(struct km *km)
{
	char msg[200];
	size_t i, len = 0;
	int t;

	for (i = 0; i < sizeof(km_exits) / sizeof(km_exits[0]); i++) {
		if (km_reachable(km, km_exits[i].action))
			continue;
		for (t = KM_T_GLOBAL; t <= KM_T_TIMELINE; t++)
			km_tab_drop_key(&km->tabs[t], km_exits[i].key);
		if (km_bind_add(km, KM_T_GLOBAL, &km_exits[i].key, 1, km_exits[i].action,
				"", km_exits[i].note) < 0)
			continue;
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s (%s)",
					len ? ", " : "", km_exits[i].name,
					action_table[km_exits[i].action].name);
	}
	if (len) {
		char e[256];

		snprintf(e, sizeof(e), "keymap: %s bound again: no other key was left", msg);
		km_add_error(km, "", 0, e);
	}
}

static uint64_t km_mul_sat(uint64_t a, uint64_t b, uint64_t c)
{
	if (b && a > (UINT64_MAX - c) / b)
		return UINT64_MAX;
	return a * b + c;
}

/* An empty result: no action, count 1, no key. */
static void km_result_init(struct km_result *res)
{
	memset(res, 0, sizeof(*res));
	res->action = ACTION_NONE;
	res->table = KM_T_NONE;
	res->key = -1;
	res->count = 1;
	res->note = "";
	res->status = KM_UNBOUND;
}

enum km_status km_feed(const struct km *km, struct km_state *st,
		       enum km_table mode, enum km_table pane, int key,
		       struct km_result *res)
{
	const struct km_bind *b = NULL;
	enum km_table t = KM_T_NONE;
	enum lookup lk;
	unsigned int flags;
	int was_pending, plain;

	if (!res)
		return KM_UNBOUND;
	km_result_init(res);
	if (!km || !st || key < 0)
		return KM_UNBOUND;
	key = km_normalize(key);

	if (st->await) {
		if (km_is_cancel(key)) {
			km_state_reset(st);
			return res->status = KM_CANCELLED;
		}
		*res = st->pending;
		res->key = key;
		res->status = KM_ACTION;
		km_state_reset(st);
		return KM_ACTION;
	}
	/* After C-u, plain digits are the count whatever they are bound to. */
	if (st->uarg && st->nkeys == 0 && key >= '0' && key <= '9') {
		st->count = km_mul_sat(st->ndigits ? st->count : 0, 10,
				       (uint64_t)(key - '0'));
		st->ndigits++;
		return res->status = KM_PENDING;
	}
	was_pending = st->nkeys > 0 || st->counting;
	if (st->nkeys == KM_SEQ_MAX) {	/* cannot happen: bind limits it */
		km_state_reset(st);
		return KM_UNBOUND;
	}
	st->keys[st->nkeys++] = key;
	lk = km_lookup(km, mode, pane, st->keys, st->nkeys, &b, &t);
	if (lk == LK_PREFIX)
		return res->status = KM_PENDING;
	memcpy(res->keys, st->keys, st->nkeys * sizeof(*st->keys));
	res->nkeys = st->nkeys;
	res->table = t;
	if (lk == LK_NONE || b->action == ACTION_NONE) {
		res->status = was_pending && !st->describe && km_is_cancel(key)
			? KM_CANCELLED : KM_UNBOUND;
		km_state_reset(st);
		return res->status;
	}
	res->action = b->action;
	snprintf(res->args, sizeof(res->args), "%s", b->args);
	res->note = b->note;
	flags = action_table[b->action].flags;
	if (st->describe) {
		km_state_reset(st);
		return res->status = KM_ACTION;
	}
	if (flags & ACT_PREFIX) {
		plain = key & ~KM_META;
		st->nkeys = 0;
		if (b->action == ACTION_UNIVERSAL_ARGUMENT) {
			if (!st->counting) {
				st->count = 4;
				st->counting = 1;
				st->uarg = 1;
				st->ndigits = 0;
			} else if (!st->ndigits) {
				st->count = km_mul_sat(st->count, 4, 0);
			}
		} else if (plain >= '0' && plain <= '9') {
			st->count = km_mul_sat(st->ndigits ? st->count : 0, 10,
					       (uint64_t)(plain - '0'));
			st->ndigits++;
			st->counting = 1;
		}
		km_result_init(res);
		return res->status = KM_PENDING;
	}
	res->has_count = st->counting;
	res->count = st->counting ? st->count : 1;
	if (flags & ACT_KEY) {
		st->pending = *res;
		st->nkeys = 0;
		st->counting = st->uarg = st->ndigits = 0;
		st->await = 1;
		return res->status = KM_PENDING;
	}
	km_state_reset(st);
	return res->status = KM_ACTION;
}

char *km_describe(const struct km_result *res, char *buf, size_t size)
{
	char seq[128];

	if (!buf || !size)
		return buf;
	if (!res) {
		buf[0] = '\0';
		return buf;
	}
	km_seq_name(res->keys, res->nkeys, seq, sizeof(seq));
	if (res->status != KM_ACTION || res->action < 0 ||
	    res->action >= ACTION__N) {
		if (res->table != KM_T_NONE)
			snprintf(buf, size, "%s is blocked (none) in table %s",
				 seq, km_table_name(res->table));
		else
			snprintf(buf, size, "%s is not bound", seq);
		return buf;
	}
	snprintf(buf, size, "%s: %s%s%s%s -- %s [%s]", seq,
		 action_table[res->action].name, *res->args ? " " : "",
		 res->args,
		 action_table[res->action].flags & ACT_KEY ? " {key}" : "",
		 res->note && *res->note ? res->note :
		 action_table[res->action].help, km_table_name(res->table));
	return buf;
}

size_t km_count(const struct km *km, enum km_table t)
{
	if (!km || t < 0 || t >= KM_NTABLES)
		return 0;
	return km->tabs[t].n;
}

int km_get(const struct km *km, enum km_table t, size_t i,
	   struct km_binding_view *v)
{
	const struct km_bind *b;

	if (!km || !v || t < 0 || t >= KM_NTABLES || i >= km->tabs[t].n)
		return -pte_invalid;
	b = &km->tabs[t].v[i];
	v->table = t;
	v->keys = b->keys;
	v->nkeys = b->nkeys;
	v->action = b->action;
	v->args = b->args;
	v->note = b->note;
	return 0;
}

int km_keys_for(const struct km *km, enum km_table t, enum action action,
		char *buf, size_t size)
{
	char seq[128];
	size_t i, len = 0;
	int n = 0;

	if (buf && size)
		buf[0] = '\0';
	if (!km || t < 0 || t >= KM_NTABLES)
		return 0;
	for (i = 0; i < km->tabs[t].n; i++) {
		const struct km_bind *b = &km->tabs[t].v[i];

		if (b->action != action)
			continue;
		n++;
		if (!buf || !size)
			continue;
		km_seq_name(b->keys, b->nkeys, seq, sizeof(seq));
		snprintf(buf + len, size - len, "%s%s", len ? ", " : "", seq);
		len = strlen(buf);
	}
	return n;
}
