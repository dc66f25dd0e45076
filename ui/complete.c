/* complete -- prompt completion candidates by word position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action_list.h"
#include "complete.h"
#include "keymap.h"
#include "pkt.h"
#include "ptdec.h"

#define COMPL_MAX_WORDS 32

/* A word of the line: where it starts and its unquoted text. */
struct compl_word {
	size_t start;
	char text[256];
};

void compl_free(struct compl_list *out)
{
	size_t i;

	if (!out)
		return;
	for (i = 0; i < out->n; i++)
		free(out->v[i]);
	free(out->v);
	free(out->prefix);
	memset(out, 0, sizeof(*out));
}

int compl_add(struct compl_list *out, const char *name)
{
	const char *p;
	char *s;

	if (!out || !name)
		return -pte_invalid;
	p = out->prefix ? out->prefix : "";
	if (strncmp(name, p, strlen(p)))
		return 0;
	if (out->n == out->cap) {
		size_t cap = out->cap ? 2 * out->cap : 32;
		char **v = realloc(out->v, cap * sizeof(*v));

		if (!v)
			return -pte_nomem;
		out->v = v;
		out->cap = cap;
	}
	s = strdup(name);
	if (!s)
		return -pte_nomem;
	out->v[out->n++] = s;
	return 0;
}

char *compl_common(const struct compl_list *out, char *buf, size_t size)
{
	size_t len, i, j;

	if (!buf || !size)
		return buf;
	buf[0] = '\0';
	if (!out || !out->n)
		return buf;
	if (out->more) {
		snprintf(buf, size, "%s", out->prefix ? out->prefix : "");
		return buf;
	}
	len = strlen(out->v[0]);
	for (i = 1; i < out->n; i++) {
		for (j = 0; j < len && out->v[i][j] == out->v[0][j]; j++)
			;
		len = j;
	}
	if (len >= size)
		len = size - 1;
	memcpy(buf, out->v[0], len);
	buf[len] = '\0';
	return buf;
}

static int compl_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and drop duplicates. */
static void compl_sort(struct compl_list *out)
{
	size_t i, o = 0;

	if (!out->n)
		return;
	qsort(out->v, out->n, sizeof(*out->v), compl_cmp);
	for (i = 1; i < out->n; i++) {
		if (!strcmp(out->v[i], out->v[o]))
			free(out->v[i]);
		else
			out->v[++o] = out->v[i];
	}
	out->n = o + 1;
}

/* Split @line[0, @point) into words; the last one is the word being
 * typed (empty if @point follows a blank).  Returns the number of words. */
static int compl_words(const char *line, size_t point, struct compl_word *w,
		       int max)
{
	size_t i = 0, o = 0;
	int n = 0, in_word = 0;
	char q = 0;

	for (i = 0; i < point && line[i]; i++) {
		char c = line[i];

		if (!q && (c == ' ' || c == '\t')) {
			if (in_word) {
				w[n - 1].text[o] = '\0';
				in_word = 0;
			}
			continue;
		}
		if (!in_word) {
			if (n == max)
				return -1;
			w[n].start = i;
			n++;
			o = 0;
			in_word = 1;
		}
		/* ' starts a mark ('a), so only " quotes */
		if (!q && c == '"' && o == 0) {
			q = c;
			w[n - 1].start = i + 1;
			continue;
		}
		if (q && c == q) {
			q = 0;
			continue;
		}
		if (o + 1 < sizeof(w[n - 1].text))
			w[n - 1].text[o++] = c;
	}
	if (in_word) {
		w[n - 1].text[o] = '\0';
	} else {
		if (n == max)
			return -1;
		w[n].start = i;
		w[n].text[0] = '\0';
		n++;
	}
	return n;
}

/* Whether usage word [@s, @s + @len) repeats: "ARG..." or "[ARG...]". */
static int compl_repeats(const char *s, size_t len)
{
	if (len && s[len - 1] == ']')
		len--;
	return len > 3 && !memcmp(s + len - 3, "...", 3);
}

/* The usage word at argument @idx (from 0) of @usage, without brackets,
 * into @buf; a last word with "..." repeats.  Returns 0, or -1 if none. */
static int compl_usage_word(const char *usage, int idx, char *buf, size_t size)
{
	const char *p = usage, *s;
	int i = 0;
	size_t len;

	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		s = p;
		while (*p && *p != ' ')
			p++;
		len = (size_t)(p - s);
		if (i == idx || (i < idx && !*p && compl_repeats(s, len)))
			break;
		i++;
	}
	if (len >= size)
		len = size - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* strip [ ] and ... */
	{
		char *b = buf, *e;

		while (*b == '[')
			b++;
		memmove(buf, b, strlen(b) + 1);
		e = buf + strlen(buf);
		while (e > buf && (e[-1] == ']' || e[-1] == '.'))
			*--e = '\0';
	}
	return 0;
}

static int compl_commands(struct compl_list *out)
{
	int i, rc;

	out->kind = COMPL_COMMAND;
	for (i = 0; i < ACTION__N; i++) {
		if (action_table[i].flags & ACT_PREFIX)
			continue;
		rc = compl_add(out, action_table[i].name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int compl_types(struct compl_list *out)
{
	int i, rc;

	out->kind = COMPL_TYPE;
	for (i = PKT_INVALID + 1; i < PKT_NTYPES; i++) {
		const char *name = pkt_type_name((enum pkt_type)i);

		if (!name || !*name)
			continue;
		rc = compl_add(out, name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int compl_names(struct compl_list *out, const struct compl_ctx *ctx,
		       enum compl_kind kind)
{
	out->kind = kind;
	if (ctx && ctx->names)
		ctx->names(ctx->arg, kind, out);
	return 0;
}

/* Whether word @w names the function after it: "sym" or "call", alone or
 * after an '&' ("tip&sym foo"). */
static int compl_fn_word(const char *w)
{
	const char *amp = strrchr(w, '&');

	if (amp)
		w = amp + 1;
	return !strcmp(w, "sym") || !strcmp(w, "call");
}

/* After sorting: a function name's candidates cut to COMPL_SYMBOL_MAX
 * (each symbol table gave up to one more, so a cut says there are more). */
static void compl_cap(struct compl_list *out)
{
	size_t i;

	if (out->kind != COMPL_SYMBOL || out->n <= COMPL_SYMBOL_MAX)
		return;
	for (i = COMPL_SYMBOL_MAX; i < out->n; i++)
		free(out->v[i]);
	out->n = COMPL_SYMBOL_MAX;
	out->more = 1;
}

static int compl_tables(struct compl_list *out)
{
	int t, rc;

	out->kind = COMPL_TABLE;
	for (t = 0; t < KM_NTABLES; t++) {
		rc = compl_add(out, km_table_name((enum km_table)t));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Named keys (only once something is typed: every letter is a key). */
static int compl_keys(struct compl_list *out)
{
	static const char *const names[] = {
		"Enter", "Escape", "Tab", "BTab", "Space", "BSpace", "Up",
		"Down", "Left", "Right", "Home", "End", "PageUp", "PageDown",
		"PgUp", "PgDn", "DC", "IC", "F1", "F2", "F3", "F4", "F5",
		"F6", "F7", "F8", "F9", "F10", "F11", "F12",
	};
	size_t i;
	int rc;

	if (!out->prefix || !*out->prefix)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		rc = compl_add(out, names[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A goto target: keywords, 'marks, regions; with @sideband (:goto) the
 * words that look for a task or a function (compl_goto_words). */
static int compl_target(struct compl_list *out, const struct compl_ctx *ctx, int sideband)
{
	static const char *const kw[] = { "psb", "tsc", "t", "region", "^",
					  "$" };
	size_t i;
	int rc;

	for (i = 0; sideband && !(out->prefix && out->prefix[0] == '\'') &&
		    compl_goto_words[i]; i++)
		if ((rc = compl_add(out, compl_goto_words[i])) < 0)
			return rc;

	out->kind = COMPL_TARGET;
	if (out->prefix && out->prefix[0] == '\'') {
		/* offer 'name: complete against the name after the quote */
		struct compl_list marks;
		char buf[300];

		memset(&marks, 0, sizeof(marks));
		marks.prefix = strdup(out->prefix + 1);
		if (!marks.prefix)
			return -pte_nomem;
		if (ctx && ctx->names)
			ctx->names(ctx->arg, COMPL_MARK, &marks);
		for (i = 0, rc = 0; i < marks.n && rc == 0; i++) {
			buf[0] = '\'';
			strncpy(buf + 1, marks.v[i], sizeof(buf) - 2);
			buf[sizeof(buf) - 1] = '\0';
			rc = compl_add(out, buf);
		}
		compl_free(&marks);
		return rc;
	}
	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		rc = compl_add(out, kw[i]);
		if (rc < 0)
			return rc;
	}
	if (ctx && ctx->names)
		ctx->names(ctx->arg, COMPL_REGION, out);
	return 0;
}

/* Literal choices "a|b|c". */
static int compl_literals(struct compl_list *out, const char *words)
{
	char buf[128], *p, *save = NULL;
	int rc;

	out->kind = COMPL_WORDS;
	strncpy(buf, words, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save)) {
		rc = compl_add(out, p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Choices where one is a placeholder for names: "STREAM|next|prev"
 * (lane) offers the streams and the literals; the kind is the names'. */
static int compl_choices(struct compl_list *out, const struct compl_ctx *ctx,
			 const char *words)
{
	static const struct { const char *word; enum compl_kind kind; } ph[] = {
		{ "STREAM", COMPL_STREAM }, { "MARK", COMPL_MARK },
		{ "REGION", COMPL_REGION },
	};
	enum compl_kind kind = COMPL_WORDS;
	char buf[128], *p, *save = NULL;
	size_t k;
	int rc;

	strncpy(buf, words, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save)) {
		for (k = 0; k < sizeof(ph) / sizeof(ph[0]) && strcmp(p, ph[k].word); k++)
			;
		if (k < sizeof(ph) / sizeof(ph[0])) {
			compl_names(out, ctx, ph[k].kind);
			kind = ph[k].kind;
		} else if ((rc = compl_add(out, p)) < 0) {
			return rc;
		}
	}
	out->kind = kind;
	return 0;
}

/* bind [-T TABLE] [-N NOTE] KEY... COMMAND [ARG...] and unbind. */
static int compl_bind(struct compl_list *out, const struct compl_word *w,
		      int nw, int is_bind)
{
	int i, rc;

	if (nw >= 3 && !strcmp(w[nw - 2].text, "-T"))
		return compl_tables(out);
	if (nw >= 3 && !strcmp(w[nw - 2].text, "-N")) {
		out->kind = COMPL_NONE;
		return 0;
	}
	if (out->prefix[0] == '-' && !out->prefix[1]) {
		out->kind = COMPL_WORDS;
		rc = compl_add(out, "-T");
		if (rc == 0 && is_bind)
			rc = compl_add(out, "-N");
		if (rc == 0 && !is_bind)
			rc = compl_add(out, "-a");
		return rc;
	}
	/* after the command come its arguments: nothing to offer; -T's
	 * table and -N's note are no command (-T visual is a table) */
	for (i = 1; i < nw - 1; i++) {
		if (!strcmp(w[i].text, "-T") || !strcmp(w[i].text, "-N")) {
			i++;
			continue;
		}
		if (action_find(w[i].text) != ACTION_NONE &&
		    km_key_parse(w[i].text) < 0) {
			out->kind = COMPL_NONE;
			return 0;
		}
	}
	out->kind = COMPL_KEY;
	rc = compl_keys(out);
	if (rc < 0 || !is_bind)
		return rc;
	rc = compl_commands(out);
	out->kind = COMPL_KEY;
	if (rc == 0)
		rc = compl_add(out, "none");
	return rc;
}

static int compl_add_cb(void *arg, const char *name)
{
	struct compl_list *out = arg;
	size_t i;

	for (i = 0; i < out->n; i++)	/* a user keymap may shadow a built-in */
		if (!strcmp(out->v[i], name))
			return 0;
	return compl_add(out, name);
}

const char *const compl_goto_words[] = {
	"comm", "pid", "tid", "switch", "sym", "call", "ret", NULL
};

const char *const compl_set_options[] = {
	"raw", "ip", "symbols", "columns", "axis", "mouse", "keymap", "view", NULL
};

/* Whether @name is one of the comma-separated words of @p's first @len
 * bytes. */
static int compl_in_list(const char *p, size_t len, const char *name)
{
	size_t n = strlen(name), i = 0, w;

	while (i < len) {
		w = strcspn(p + i, ",");
		if (w > len - i)
			w = len - i;
		if (w == n && !strncmp(p + i, name, n))
			return 1;
		i += w + 1;
	}
	return 0;
}

/* ":set columns" takes a list, "time,cbr,mhz": the names not in it yet
 * after what is typed up to its last comma (ui/settings.c's names). */
static int compl_columns(struct compl_list *out)
{
	static const char *const names[] = { "dcyc", "cycles", "tsc", "time", "dref",
					     "cbr", "mhz", "none" };
	const char *p = out->prefix, *last = strrchr(p, ',');
	size_t head = last ? (size_t)(last - p) + 1 : 0, i, n;
	char buf[256];
	int rc;

	out->kind = COMPL_WORDS;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		/* "none" alone; a name once */
		if ((head && i == sizeof(names) / sizeof(names[0]) - 1) || head + n >= sizeof(buf))
			continue;
		memcpy(buf, p, head);
		memcpy(buf + head, names[i], n + 1);
		if (compl_in_list(p, head, names[i]))
			continue;
		if ((rc = compl_add(out, buf)) < 0)
			return rc;
	}
	return 0;
}

/* The values ":set OPTION" takes. */
static int compl_set_value(struct compl_list *out, const char *opt)
{
	if (!strcmp(opt, "columns"))
		return compl_columns(out);
	if (!strcmp(opt, "keymap")) {
		out->kind = COMPL_WORDS;
		return km_list_names(compl_add_cb, out);
	}
	if (!strcmp(opt, "axis"))
		return compl_literals(out, "time|bytes");
	if (!strcmp(opt, "view"))
		return compl_literals(out, "packets|code");
	if (!strcmp(opt, "raw") || !strcmp(opt, "ip") || !strcmp(opt, "mouse") ||
	    !strcmp(opt, "symbols"))
		return compl_literals(out, "on|off");
	return 0;
}

static int compl_arg(struct compl_list *out, const struct compl_ctx *ctx,
		     const struct compl_word *w, int nw)
{
	enum action a = action_find(w[0].text);
	char word[64];
	int i;

	if (a == ACTION_NONE)
		return 0;
	if (a == ACTION_BIND || a == ACTION_UNBIND)
		return compl_bind(out, w, nw, a == ACTION_BIND);
	if (a == ACTION_SET && nw == 3)
		return compl_set_value(out, w[1].text);
	if (a == ACTION_GOTO && nw == 3 && !strcmp(w[1].text, "region"))
		return compl_names(out, ctx, COMPL_REGION);
	/* sym NAME, call NAME: :goto's target, or a search's terms */
	if ((a == ACTION_GOTO || a == ACTION_SEARCH || a == ACTION_FILTER) && nw >= 3 &&
	    compl_fn_word(w[nw - 2].text))
		return compl_names(out, ctx, COMPL_SYMBOL);
	if (a == ACTION_GOTO && nw >= 3)
		return 0;
	/* :ref takes a region as well as a mark */
	if (a == ACTION_REF && nw == 2) {
		compl_names(out, ctx, COMPL_REGION);
		return compl_names(out, ctx, COMPL_MARK);
	}
	if (compl_usage_word(action_table[a].usage, nw - 2, word,
			     sizeof(word)) < 0)
		return 0;
	if (!strcmp(word, "COMMAND"))
		return compl_commands(out);
	if (!strcmp(word, "TYPE"))
		return compl_types(out);
	if (!strcmp(word, "MARK"))
		return compl_names(out, ctx, COMPL_MARK);
	if (!strcmp(word, "REGION"))
		return compl_names(out, ctx, COMPL_REGION);
	if (!strcmp(word, "STREAM"))
		return compl_names(out, ctx, COMPL_STREAM);
	if (!strcmp(word, "TARGET"))
		return compl_target(out, ctx, a == ACTION_GOTO);
	if (!strcmp(word, "FILE")) {
		out->kind = COMPL_FILE;
		return 0;
	}
	if (!strcmp(word, "TABLE"))
		return compl_tables(out);
	if (!strcmp(word, "OPTION")) {
		out->kind = COMPL_OPTION;
		for (i = 0; ctx && ctx->options && ctx->options[i]; i++)
			if (compl_add(out, ctx->options[i]) < 0)
				return -pte_nomem;
		return 0;
	}
	if (strchr(word, '|'))
		return compl_choices(out, ctx, word);
	return 0;
}

int compl_candidates(const char *line, size_t point,
		     const struct compl_ctx *ctx, struct compl_list *out)
{
	struct compl_word *w;
	int nw, rc;

	if (!out)
		return -pte_invalid;
	compl_free(out);
	if (!line)
		return -pte_invalid;
	if (point > strlen(line))
		point = strlen(line);
	w = malloc(COMPL_MAX_WORDS * sizeof(*w));
	if (!w)
		return -pte_nomem;
	nw = compl_words(line, point, w, COMPL_MAX_WORDS);
	if (nw < 0) {
		free(w);
		return 0;
	}
	out->start = w[nw - 1].start;
	out->prefix = strdup(w[nw - 1].text);
	if (!out->prefix) {
		free(w);
		return -pte_nomem;
	}
	if (nw == 1 && strchr("'$^#+-0123456789", out->prefix[0]) &&
	    out->prefix[0])
		rc = out->prefix[0] == '\'' ? compl_target(out, ctx, 0) : 0;
	else if (nw == 1)
		rc = compl_commands(out);
	else
		rc = compl_arg(out, ctx, w, nw);
	free(w);
	if (rc < 0) {
		compl_free(out);
		return rc;
	}
	compl_sort(out);
	compl_cap(out);
	return (int)out->n;
}
