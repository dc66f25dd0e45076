/* keymap_feed -- the key-sequence state machine: counts, sequences,
 * {key} arguments, describe mode; and the exits no keymap takes away. */
#include <stdint.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keymap_int.h"
#include "ptdec.h"

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
		/* A none key with longer sequences bound is their prefix
		 * (w none, then w y: w y was bound and could not be typed). */
		if (b && (b->action != ACTION_NONE || !km_tab_has_prefix(tab, keys, n))) {
			*bp = b;
			return LK_EXACT;
		}
		if (b || km_tab_has_prefix(tab, keys, n))
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
 * key in the global and pane tables; say which in @err. */
int km_rebind_exits(struct km *km, const char *file, char *err, size_t errlen)
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
	if (!len)
		return 0;
	km_set_err(err, errlen, "%s%skeymap: %s bound again: no other key was left",
		   file ? file : "", file ? ": " : "", msg);
	return 1;
}

/* The same, said in the error list. */
void km_keep_exits(struct km *km)
{
	char e[256];

	if (km_rebind_exits(km, NULL, e, sizeof(e)))
		km_add_error(km, "", 0, e);
}

static uint64_t km_mul_sat(uint64_t a, uint64_t b, uint64_t c)
{
	if (b && a > (UINT64_MAX - c) / b)
		return UINT64_MAX;
	return a * b + c;
}

void km_state_uarg(struct km_state *st)
{
	if (!st->counting) {
		st->count = 4;
		st->counting = 1;
		st->uarg = 1;
		st->ndigits = 0;
	} else if (!st->ndigits) {
		st->count = km_mul_sat(st->count, 4, 0);
	}
}

void km_state_digit(struct km_state *st, int d)
{
	st->count = km_mul_sat(st->ndigits ? st->count : 0, 10, (uint64_t)d);
	st->ndigits++;
	st->counting = 1;
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
	int plain;

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
		/* An unbound Escape or C-g with nothing pending cancels
		 * nothing: silent, as in vi and less, not "not bound". */
		res->status = !st->describe && km_is_cancel(key)
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
		if (b->action == ACTION_UNIVERSAL_ARGUMENT)
			km_state_uarg(st);
		else if (plain >= '0' && plain <= '9')
			km_state_digit(st, plain - '0');
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
