/* keymap -- the keymap: its tables and errors, keymap files, commands. */
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
#include "keymap_int.h"
#include "ptdec.h"
#include "safefile.h"
#include "tok.h"
#include "xdg.h"

#include "keymaps_builtin.h"


void km_set_err(char *err, size_t errlen, const char *fmt, ...)
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
	struct tok_err e;
	int n = tok_split(line, TOK_KEYMAP, buf, size, argv, NULL, max, &e);

	if (n < 0)
		km_set_err(err, errlen, "%s", e.msg);
	return n;
}
struct km *km_new(void)
{
	return calloc(1, sizeof(struct km));
}

void km_bind_free(struct km_bind *b)
{
	free(b->args);
	free(b->note);
}

void km_tab_clear(struct km_tab *tab)
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

void km_forget_errors_from(struct km *km, size_t from)
{
	size_t i;

	if (!km)
		return;
	/* (from past the kept ones: only the "more" line was there) */
	if (from > km->nerrs)
		from = km->nerrs;
	for (i = from; i < km->nerrs; i++)
		free(km->errs[i]);
	km->nerrs = from;
	if (from < KM_MAX_ERRORS)
		km->dropped = 0;
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
void km_add_error(struct km *km, const char *file, int line,
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

size_t km_error_count(const struct km *km)
{
	return km ? km->nerrs + km->dropped : 0;
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

static int km_exec_words(struct km *km, int argc, char **argv, const int *quoted,
			 char *err, size_t errlen)
{
	int rc;

	if (argc == 0)
		return 0;
	if (!strcmp(argv[0], "bind"))
		return km_cmd_bind(km, argc, argv, quoted, err, errlen);
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

int km_exec(struct km *km, const char *line, char *err, size_t errlen)
{
	char buf[KM_LINE_MAX];
	char *argv[KM_MAX_WORDS];
	int quoted[KM_MAX_WORDS], argc;
	struct tok_err e;

	if (!km || !line) {
		km_set_err(err, errlen, "internal: no keymap or line");
		return -pte_invalid;
	}
	argc = tok_split(line, TOK_KEYMAP, buf, sizeof(buf), argv, quoted,
			 KM_MAX_WORDS, &e);
	if (argc < 0) {
		km_set_err(err, errlen, "%s", e.msg);
		return argc;
	}
	return km_exec_argv(km, argc, argv, quoted, err, errlen);
}

int km_exec_argv(struct km *km, int argc, char **argv, const int *quoted,
		 char *err, size_t errlen)
{
	int rc;

	if (!km || argc < 0 || (argc && !argv)) {
		km_set_err(err, errlen, "internal: no keymap or words");
		return -pte_invalid;
	}
	rc = km_exec_words(km, argc, argv, quoted, err, errlen);
	if (!km->parsing && !km->held)
		km_keep_exits(km);
	return rc;
}

void km_hold(struct km *km)
{
	if (km)
		km->held = 1;
}

int km_release(struct km *km, const char *file, char *err, size_t errlen)
{
	if (!km || !km->held)
		return 0;
	km->held = 0;
	return km->parsing ? 0 : km_rebind_exits(km, file, err, errlen);
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
	if (!--km->parsing && !km->held)
		km_keep_exits(km);
	return nbad;
}

/* The whole of @f (file @full) into a new string in *@text.
 * Returns 0, or a negative error with @err set. */
static int km_slurp(FILE *f, const char *full, char **text, char *err,
		    size_t errlen)
{
	size_t len = 0, cap = 0, n;
	char *buf = NULL;

	errno = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *t;

			cap = cap ? 2 * cap : 8192;
			if (cap > (16u << 20)) {
				km_set_err(err, errlen, "source: %s: too big", full);
				free(buf);
				return -pte_invalid;
			}
			t = realloc(buf, cap);
			if (!t) {
				km_set_err(err, errlen, "source: out of memory");
				free(buf);
				return -pte_nomem;
			}
			buf = t;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		km_set_err(err, errlen, "source: %s: %s", full,
			   errno ? strerror(errno) : "read error");
		free(buf);
		return -pte_io;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		km_set_err(err, errlen, "source: %s: binary file", full);
		free(buf);
		return -pte_invalid;
	}
	*text = buf;
	return 0;
}

/*
 * Whether @f (file @full) may be read at this depth: not one being read
 * already (a file sourcing itself, or a sourcing b sourcing a: each line
 * read it again, 8 deep, exponential in its source lines), and not past
 * KM_MAX_SOURCED files in all (a tree of files each sourcing the next
 * several times).  Puts it on the stack.  Returns 0, or -pte_invalid with
 * @err set.
 */
static int km_source_check(struct km *km, FILE *f, const char *full,
			   char *err, size_t errlen)
{
	struct stat sb;
	int i;

	if (!km->depth)
		km->nsourced = 0;
	if (km->nsourced >= KM_MAX_SOURCED) {
		km_set_err(err, errlen, "source: %s: more than %d files sourced "
			   "in all; not read", full, KM_MAX_SOURCED);
		return -pte_invalid;
	}
	if (fstat(fileno(f), &sb) < 0)
		memset(&sb, 0, sizeof(sb));
	for (i = 0; i < km->depth; i++)
		if (km->stack[i].dev == sb.st_dev && km->stack[i].ino == sb.st_ino &&
		    sb.st_ino) {
			km_set_err(err, errlen, "source: %s: already being read "
				   "(it sources itself); not read again", full);
			return -pte_invalid;
		}
	km->stack[km->depth].dev = sb.st_dev;
	km->stack[km->depth].ino = sb.st_ino;
	km->nsourced++;
	return 0;
}

/* The built-in keymap @path names ("default", "emacs.keys"), or NULL. */
static const char *km_builtin_text(const char *path)
{
	size_t i, len = strlen(path);

	if (len > 5 && !strcmp(path + len - 5, ".keys"))
		len -= 5;
	for (i = 0; i < sizeof(keymaps_builtin) / sizeof(keymaps_builtin[0]); i++)
		if (keymaps_builtin[i].name && strlen(keymaps_builtin[i].name) == len &&
		    !strncmp(keymaps_builtin[i].name, path, len))
			return keymaps_builtin[i].text;
	return NULL;
}

/*
 * "source default" in a file --keymap loads alone (the man page's recipe):
 * the built-in @text, read as NAME.keys, counted as a file sourced.
 * Returns the number of lines with errors, or -pte_invalid with @err set.
 */
static int km_source_builtin(struct km *km, const char *path, const char *text,
			     char *err, size_t errlen)
{
	char name[64];
	size_t len = strlen(path);
	int rc;

	if (!km->depth)
		km->nsourced = 0;
	if (km->nsourced >= KM_MAX_SOURCED) {
		km_set_err(err, errlen, "source: %s: more than %d files sourced "
			   "in all; not read", path, KM_MAX_SOURCED);
		return -pte_invalid;
	}
	km->nsourced++;
	snprintf(name, sizeof(name), "%.*s.keys", (int)(len > 5 &&
		 !strcmp(path + len - 5, ".keys") ? len - 5 : len), path);
	/* (depth: a built-in sources nothing, but it is a file inside) */
	km->depth++;
	rc = km_parse(km, name, text);
	km->depth--;
	return rc;
}

int km_source(struct km *km, const char *path, char *err, size_t errlen)
{
	char full[4096];
	const char *saved, *builtin;
	struct stat sb;
	char *text = NULL;
	FILE *f;
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
	/* A bare name no file beside has is a built-in keymap's. */
	if (!strchr(path, '/') && (builtin = km_builtin_text(path)) &&
	    stat(full, &sb) < 0 && errno == ENOENT)
		return km_source_builtin(km, path, builtin, err, errlen);
	/* A FIFO would block the opening, a device never end. */
	f = safefile_fopen_read(full, 0);
	if (!f) {
		rc = errno;
		km_set_err(err, errlen, "source: %s: %s", full, safefile_strerror(rc));
		return rc == EINVAL ? -pte_invalid : -pte_io;
	}
	rc = km_source_check(km, f, full, err, errlen);
	if (!rc)
		rc = km_slurp(f, full, &text, err, errlen);
	fclose(f);
	if (rc < 0)
		return rc;
	saved = km->file;
	km->file = full;
	km->depth++;
	rc = km_parse(km, full, text);
	km->depth--;
	km->file = saved;
	free(text);
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

