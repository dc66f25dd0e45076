/* ctxterm -- sideband terms of a search line (see ctxterm.h). */
#include "ctxterm.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ptdec.h"

/* One word of the line: [s, s + n). */
struct ct_word {
	const char *s;
	size_t n;
};

/* Whether word @w is @lit. */
static int ct_is(const struct ct_word *w, const char *lit)
{
	return w->n == strlen(lit) && !strncmp(w->s, lit, w->n);
}

/* The next word at *@p: a parenthesis, '&', '&&', '|', '||' or '!' alone
 * (the packet grammar's), else up to a blank or one of those.  Returns 0
 * at the end. */
static int ct_next(const char **p, struct ct_word *w)
{
	const char *s = *p;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	w->s = s;
	if (strchr("()&|!", *s)) {
		s += (*s == '&' || *s == '|') && s[1] == *s ? 2 : 1;
	} else {
		while (*s && !isspace((unsigned char)*s) && !strchr("()&|!", *s))
			s++;
	}
	w->n = (size_t)(s - w->s);
	*p = s;
	return 1;
}

static int ct_and(const struct ct_word *w)
{
	return ct_is(w, "and") || ct_is(w, "&") || ct_is(w, "&&");
}

/* An operator that joins or negates. */
static int ct_op(const struct ct_word *w)
{
	return ct_and(w) || ct_is(w, "or") || ct_is(w, "|") || ct_is(w, "||") ||
	       ct_is(w, "not") || ct_is(w, "!");
}

/* Whether @w is a term's word; *@value says whether a value follows. */
static int ct_keyword(const struct ct_word *w, int *value)
{
	static const char *const with[] = { "comm", "pid", "tid", "sym", "call" };
	size_t i;

	*value = 0;
	if (ct_is(w, "switch") || ct_is(w, "ret"))
		return 1;
	for (i = 0; i < sizeof(with) / sizeof(with[0]); i++)
		if (ct_is(w, with[i]))
			return *value = 1;
	return 0;
}

/* Code term @w with value @v (NULL for ret) into @t.  Returns 0 or -1. */
static int ct_code(const struct ct_word *w, const struct ct_word *v,
		   struct ctxterm *t, char *err, size_t errlen)
{
	unsigned bit = ct_is(w, "sym") ? CTXTERM_SYM : ct_is(w, "call") ?
		       CTXTERM_CALL : CTXTERM_RET;
	char *dst = bit == CTXTERM_SYM ? t->sym : t->call;

	if (t->code & bit) {
		snprintf(err, errlen, "%.*s: once per search (an instruction is in one "
			 "function, and calls one)", (int)w->n, w->s);
		return -1;
	}
	t->code |= bit;
	if ((t->code & CTXTERM_CALL) && (t->code & CTXTERM_RET)) {
		snprintf(err, errlen, "call and ret: an instruction is not both");
		return -1;
	}
	if (v && v->n >= sizeof(t->sym)) {
		snprintf(err, errlen, "%.*s: the name is longer than %zu bytes",
			 (int)w->n, w->s, sizeof(t->sym) - 1);
		return -1;
	}
	if (v)
		snprintf(dst, sizeof(t->sym), "%.*s", (int)v->n, v->s);
	return 0;
}

/* Take term @w (its value read from *@p) into @t.  Returns 0 or -1. */
static int ct_term(const struct ct_word *w, const char **p, struct ctxterm *t,
		   char *err, size_t errlen)
{
	struct ct_word v;
	char val[64];

	if (ct_is(w, "switch")) {
		t->sw = 1;
		return 0;
	}
	if (ct_is(w, "ret"))
		return ct_code(w, NULL, t, err, errlen);
	if (!ct_next(p, &v) || strchr("()&|!", *v.s) || ct_and(&v) ||
	    ct_is(&v, "or") || ct_is(&v, "not")) {
		snprintf(err, errlen, "%.*s: which %s?", (int)w->n, w->s,
			 ct_is(w, "pid") || ct_is(w, "tid") ? "number" :
			 ct_is(w, "comm") ? "name" : "function");
		return -1;
	}
	if (ct_is(w, "sym") || ct_is(w, "call"))
		return ct_code(w, &v, t, err, errlen);
	snprintf(val, sizeof(val), "%.*s", (int)v.n, v.s);
	if (ct_is(w, "comm")) {
		snprintf(t->name, sizeof(t->name), "%s", val);
		t->f.comm = t->name;
	} else if (ctx_filter_set(&t->f, ct_is(w, "pid") ? "--pid" : "--tid", val)) {
		snprintf(err, errlen, "%.*s %s: not a number from 0 to 2^31 - 1",
			 (int)w->n, w->s, val);
		return -1;
	}
	t->has_filter = 1;
	return 0;
}

/* (one more, to tell a longer line) */
#define CT_MAXW (CTXTERM_MAXW + 1)

int ctxterm_split(const char *text, struct ctxterm *t, char *rest,
		  size_t restlen, char *err, size_t errlen)
{
	struct ct_word w[CT_MAXW];
	uint8_t gone[CT_MAXW] = { 0 };
	const char *p = text, *q;
	int n = 0, i, k, gap, depth = 0, loose = 0, any = 0, value;

	memset(t, 0, sizeof(*t));
	ctx_filter_init(&t->f);
	/* (the caller says whose line it is: no "search: " here) */
	if (!text || !rest || strlen(text) >= restlen) {
		snprintf(err, errlen, "the line is too long");
		return -pte_invalid;
	}
	while (n < CT_MAXW && ct_next(&p, &w[n]))
		n++;
	if (n == CT_MAXW) {
		snprintf(err, errlen, "more than %d words", CTXTERM_MAXW);
		return -pte_invalid;
	}
	for (i = 0; i < n; i++) {
		if (ct_is(&w[i], "("))
			depth++;
		else if (ct_is(&w[i], ")"))
			depth--;
		else if (!depth && (ct_is(&w[i], "or") || ct_is(&w[i], "|") ||
				    ct_is(&w[i], "||") || ct_is(&w[i], "not") ||
				    ct_is(&w[i], "!")))
			loose = 1;
		if (!ct_keyword(&w[i], &value))
			continue;
		if (depth || (i && (ct_is(&w[i - 1], "not") || ct_is(&w[i - 1], "!")))) {
			snprintf(err, errlen, "%.*s: a %s term goes at the top, "
				 "joined by and (not under or, not or parentheses)",
				 (int)w[i].n, w[i].s, ct_is(&w[i], "sym") ||
				 ct_is(&w[i], "call") || ct_is(&w[i], "ret") ? "code" :
				 "sideband");
			return -pte_invalid;
		}
		q = w[i].s + w[i].n;
		if (ct_term(&w[i], &q, t, err, errlen))
			return -pte_invalid;
		gone[i] = 1;
		if (value)
			gone[++i] = 1;	/* its value */
		any = 1;
	}
	if (any && loose) {
		snprintf(err, errlen, "a %s term goes at the top, joined by "
			 "and (not under or, not or parentheses)",
			 t->code ? "code" : "sideband");
		return -pte_invalid;
	}
	if (t->sw && t->code) {
		snprintf(err, errlen, "switch and sym, call or ret do not combine "
			 "(a switch is no instruction)");
		return -pte_invalid;
	}
	/* the terms and the "and"s next to them go; where something went
	 * between two words that need a join, "&" joins them */
	for (i = 0; i < n; i++)
		if (!gone[i] && ct_and(&w[i]) &&
		    ((i && gone[i - 1] == 1) || (i + 1 < n && gone[i + 1] == 1)))
			gone[i] = 2;
	rest[0] = 0;
	for (i = 0, k = -1, gap = 0; i < n; i++) {
		size_t len = strlen(rest);

		if (gone[i]) {
			gap = 1;
			continue;
		}
		if (gap && k >= 0 && !ct_op(&w[k]) && !ct_is(&w[k], "(") &&
		    !ct_op(&w[i]) && !ct_is(&w[i], ")")) {
			snprintf(rest + len, restlen - len, " &");
			len = strlen(rest);
		}
		if (len + (len ? 1 : 0) + w[i].n >= restlen) {
			snprintf(err, errlen, "the line is too long");
			return -pte_invalid;
		}
		snprintf(rest + len, restlen - len, "%s%.*s", len ? " " : "",
			 (int)w[i].n, w[i].s);
		k = i;
		gap = 0;
	}
	if (!any)
		snprintf(rest, restlen, "%s", text);
	return any;
}
