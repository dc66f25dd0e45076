/* goto -- parse goto targets and resolve them to byte offsets. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "goto.h"
#include "ptdec.h"

typedef unsigned __int128 goto_u128;

enum unit_kind { U_NONE, U_PERCENT, U_BYTES, U_TIME, U_CYC };

static const struct {
	const char *name;
	enum unit_kind kind;
	uint64_t mult;
} goto_units[] = {
	{ "KiB", U_BYTES, 1ull << 10 }, { "MiB", U_BYTES, 1ull << 20 },
	{ "GiB", U_BYTES, 1ull << 30 }, { "TiB", U_BYTES, 1ull << 40 },
	{ "kB", U_BYTES, 1000ull }, { "MB", U_BYTES, 1000000ull },
	{ "GB", U_BYTES, 1000000000ull }, { "TB", U_BYTES, 1000000000000ull },
	{ "ns", U_TIME, 1ull }, { "us", U_TIME, 1000ull },
	{ "ms", U_TIME, 1000000ull }, { "s", U_TIME, 1000000000ull },
	{ "cyc", U_CYC, 1ull },
	{ "%", U_PERCENT, 1ull },
};

/* A number with its unit: mant / 10^fdigits units. */
struct amount {
	uint64_t mant;
	uint64_t den;		/* 10^fraction digits */
	enum unit_kind unit;
	uint64_t mult;		/* unit size */
};

static void goto_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void goto_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* Quoted input may hold control characters: keep the message one
	 * printable line. */
	for (; *err; err++)
		if ((unsigned char)*err < 0x20 || *err == 0x7f)
			*err = '?';
}

static int goto_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The unit named @s (case-insensitive), as 1 + its index in goto_units,
 * or 0 if none is. */
static size_t goto_unit(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(goto_units) / sizeof(goto_units[0]); i++)
		if (!strcasecmp(s, goto_units[i].name))
			return i + 1;
	return 0;
}

/* *@v times 10 plus decimal digit @c.  Returns 0, or 1 (*@v unchanged)
 * if that is more than UINT64_MAX. */
static int goto_digit(uint64_t *v, char c)
{
	uint64_t d = (uint64_t)(c - '0');

	if (*v > (UINT64_MAX - d) / 10)
		return 1;
	*v = *v * 10 + d;
	return 0;
}

/* Parse word @w (no blanks) as a number and a unit into @a. */
static int goto_amount(const char *w, struct amount *a, char *err,
		       size_t errlen)
{
	const char *p = w;
	uint64_t v = 0;
	size_t i;
	int digits = 0;

	memset(a, 0, sizeof(*a));
	a->den = 1;
	a->mult = 1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; *p; p++) {
			int d;

			if (*p >= '0' && *p <= '9')
				d = *p - '0';
			else if (*p >= 'a' && *p <= 'f')
				d = *p - 'a' + 10;
			else if (*p >= 'A' && *p <= 'F')
				d = *p - 'A' + 10;
			else
				break;
			if (v >> 60)
				goto out_big;
			v = v << 4 | (uint64_t)d;
			digits++;
		}
		/* 0x10cyc: the c of cyc is no digit (0x10KiB needs no care) */
		if (*p && digits && !goto_unit(p) && goto_unit(p - 1)) {
			p--;
			v >>= 4;
			digits--;
		}
		if (*p == '.') {
			goto_err(err, errlen, "goto: a hex number has no "
				 "fraction: '%s'", w);
			return -pte_invalid;
		}
	} else {
		for (; *p >= '0' && *p <= '9'; p++, digits++)
			if (goto_digit(&v, *p))
				goto out_big;
		if (*p == '.') {
			int fd = 0;

			for (p++; *p >= '0' && *p <= '9'; p++, fd++) {
				if (fd >= 18)
					goto out_digits;
				/* past 64 bits of mantissa the digits left are
				 * below its precision: dropped (the unit then
				 * says whether the number is too large) */
				if (goto_digit(&v, *p)) {
					while (*p >= '0' && *p <= '9')
						p++, fd++;
					break;
				}
				a->den *= 10;
			}
			digits += fd;
		}
	}
	if (!digits) {
		goto_err(err, errlen, "goto: bad number '%s'", w);
		return -pte_invalid;
	}
	a->mant = v;
	if (!*p)
		return 0;
	i = goto_unit(p);
	if (i) {
		a->unit = goto_units[i - 1].kind;
		a->mult = goto_units[i - 1].mult;
		return 0;
	}
	goto_err(err, errlen, "goto: unknown unit '%s' in '%s'", p, w);
	return -pte_invalid;

out_big:
	goto_err(err, errlen, "goto: number too large: '%s'", w);
	return -pte_invalid;
out_digits:
	goto_err(err, errlen, "goto: too many digits after the point in '%s'", w);
	return -pte_invalid;
}

/* The whole units in @a (mant * mult / den, rounded down). */
static int goto_whole(const struct amount *a, const char *w, uint64_t *out,
		      char *err, size_t errlen)
{
	goto_u128 v = (goto_u128)a->mant * a->mult / a->den;

	if (v > UINT64_MAX) {
		goto_err(err, errlen, "goto: number too large: '%s'", w);
		return -pte_invalid;
	}
	*out = (uint64_t)v;
	return 0;
}

/* A byte amount or a percentage from word @w into @t. */
static int goto_bytes(const char *w, struct goto_target *t, char *err,
		      size_t errlen)
{
	struct amount a;
	int rc = goto_amount(w, &a, err, errlen);

	if (rc < 0)
		return rc;
	switch (a.unit) {
	case U_PERCENT:
		if ((goto_u128)a.mant > (goto_u128)100 * a.den) {
			goto_err(err, errlen, "goto: %s is more than 100%%", w);
			return -pte_invalid;
		}
		t->kind = GOTO_PERCENT;
		t->num = a.mant;
		t->den = a.den;
		return 0;
	case U_TIME:
	case U_CYC:
		goto_err(err, errlen, "goto: '%s' is a time; use 't %s'", w, w);
		return -pte_invalid;
	case U_NONE:
		if (a.den != 1) {
			goto_err(err, errlen, "goto: '%s' is not a whole number "
				 "of bytes (add a unit: KiB, MB, ...)", w);
			return -pte_invalid;
		}
		break;
	case U_BYTES:
		break;
	}
	t->kind = GOTO_OFFSET;
	return goto_whole(&a, w, &t->value, err, errlen);
}

/* A plain whole number (decimal or hex, no unit) from word @w. */
static int goto_number(const char *w, const char *what, uint64_t *out,
		       char *err, size_t errlen)
{
	struct amount a;
	int rc = goto_amount(w, &a, err, errlen);

	if (rc < 0)
		return rc;
	if (a.unit != U_NONE || a.den != 1) {
		goto_err(err, errlen, "goto: %s wants a whole number, not '%s'",
			 what, w);
		return -pte_invalid;
	}
	*out = a.mant;
	return 0;
}

/* Split off a leading + or - of @w into @t->rel. */
static const char *goto_sign(const char *w, struct goto_target *t)
{
	if (*w == '+' || *w == '-') {
		t->rel = *w == '+' ? 1 : -1;
		return w + 1;
	}
	return w;
}

static int goto_name_ok(const char *s)
{
	if (!*s || strlen(s) >= GOTO_NAME_MAX)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == '\'' || *s == '"')
			return 0;
	return 1;
}

/* Split @arg into at most three blank-separated words in @buf (256
 * bytes); goto targets have no quoting.  Returns 0 and sets *@nw, or
 * -pte_invalid with a message. */
static int goto_words(const char *arg, char *buf, char **w, int *nw,
		      char *err, size_t errlen)
{
	char *p;

	*nw = 0;
	if (strlen(arg) >= 256) {
		goto_err(err, errlen, "goto: target too long");
		return -pte_invalid;
	}
	strcpy(buf, arg);
	for (p = buf; *p;) {
		while (goto_is_blank(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (*nw == 3) {
			goto_err(err, errlen, "goto: too many words in '%s'",
				 arg);
			return -pte_invalid;
		}
		w[(*nw)++] = p;
		while (*p && !goto_is_blank(*p))
			p++;
	}
	if (!*nw) {
		goto_err(err, errlen, "goto: missing target (offset, N%%, "
			 "$, ^, psb N, tsc V, t 1ms, 'mark, region, #N)");
		return -pte_invalid;
	}
	return 0;
}

/* Whether @w is a keyword that takes a value word: psb, tsc, t, region. */
static int goto_is_keyword(const char *w)
{
	return !strcmp(w, "psb") || !strcmp(w, "tsc") || !strcmp(w, "t") ||
	       !strcmp(w, "region");
}

/* "t [+-]AMOUNT": a time or a cycle count (@v after its sign). */
static int goto_parse_time(const char *v, const char *word,
			   struct goto_target *t, char *err, size_t errlen)
{
	struct amount a;
	int rc = goto_amount(v, &a, err, errlen);

	if (rc < 0)
		return rc;
	if (a.unit != U_TIME && a.unit != U_CYC) {
		goto_err(err, errlen, "goto: 't %s' needs a time unit: ns, us, "
			 "ms, s or cyc", word);
		return -pte_invalid;
	}
	t->kind = a.unit == U_TIME ? GOTO_TIME : GOTO_CYCLES;
	return goto_whole(&a, word, &t->value, err, errlen);
}

/* KEYWORD VALUE, for the keywords goto_is_keyword() knows. */
static int goto_parse_keyword(char **w, int nw, struct goto_target *t,
			      char *err, size_t errlen)
{
	const char *v;

	if (nw != 2) {
		goto_err(err, errlen, nw == 1 ? "goto: '%s' needs a value" :
			 "goto: '%s' takes one value", w[0]);
		return -pte_invalid;
	}
	v = w[1];
	if (!strcmp(w[0], "region")) {
		if (!goto_name_ok(v)) {
			goto_err(err, errlen, "goto: bad region name '%s'", v);
			return -pte_invalid;
		}
		t->kind = GOTO_REGION;
		strcpy(t->name, v);
		return 0;
	}
	if (!strcmp(w[0], "tsc")) {
		t->kind = GOTO_TSC;
		return goto_number(v, "tsc", &t->value, err, errlen);
	}
	v = goto_sign(v, t);
	if (!strcmp(w[0], "psb")) {
		t->kind = GOTO_PSB;
		return goto_number(v, "psb", &t->value, err, errlen);
	}
	return goto_parse_time(v, w[1], t, err, errlen);
}

/* "$" or "$-BYTES". */
static int goto_parse_end(const char *v, struct goto_target *t, char *err,
			  size_t errlen)
{
	struct goto_target b;
	int rc;

	t->kind = GOTO_END;
	if (!v[1])
		return 0;
	if (v[1] != '-') {
		goto_err(err, errlen, "goto: '%s': only '$-N' counts back from "
			 "the end", v);
		return -pte_invalid;
	}
	memset(&b, 0, sizeof(b));
	rc = goto_bytes(v + 2, &b, err, errlen);
	if (rc < 0)
		return rc;
	if (b.kind != GOTO_OFFSET) {
		goto_err(err, errlen, "goto: '%s': count back in bytes "
			 "($-64KiB)", v);
		return -pte_invalid;
	}
	t->value = b.value;
	return 0;
}

/* A target of one word @v: ^ $ 'mark #N [+-]bytes or a region name. */
static int goto_parse_word(const char *v, struct goto_target *t, char *err,
			   size_t errlen)
{
	switch (*v) {
	case '^':
		if (v[1]) {
			goto_err(err, errlen, "goto: unexpected '%s' after '^'",
				 v + 1);
			return -pte_invalid;
		}
		t->kind = GOTO_START;
		return 0;
	case '$':
		return goto_parse_end(v, t, err, errlen);
	case '\'':
		if (!goto_name_ok(v + 1)) {
			goto_err(err, errlen, "goto: bad mark name '%s'", v);
			return -pte_invalid;
		}
		t->kind = GOTO_MARK;
		strcpy(t->name, v + 1);
		return 0;
	case '#':
		t->kind = GOTO_ORDINAL;
		return goto_number(v + 1, "#", &t->value, err, errlen);
	case '+':
	case '-':
		v = goto_sign(v, t);
		return goto_bytes(v, t, err, errlen);
	}
	if (*v >= '0' && *v <= '9')
		return goto_bytes(v, t, err, errlen);
	if (*v == '.') {
		goto_err(err, errlen, "goto: bad number '%s'", v);
		return -pte_invalid;
	}
	if (!goto_name_ok(v)) {
		goto_err(err, errlen, "goto: bad target '%s'", v);
		return -pte_invalid;
	}
	t->kind = GOTO_REGION;
	strcpy(t->name, v);
	return 0;
}

int goto_parse(const char *arg, struct goto_target *t, char *err,
	       size_t errlen)
{
	char buf[256], *w[3];
	int nw, rc;

	if (!t || !arg) {
		goto_err(err, errlen, "goto: no target");
		return -pte_invalid;
	}
	memset(t, 0, sizeof(*t));
	t->den = 1;
	rc = goto_words(arg, buf, w, &nw, err, errlen);
	if (rc < 0)
		return rc;
	if (goto_is_keyword(w[0]))
		return goto_parse_keyword(w, nw, t, err, errlen);
	if (nw > 1) {
		goto_err(err, errlen, "goto: unexpected '%s' after '%s'",
			 w[1], w[0]);
		return -pte_invalid;
	}
	return goto_parse_word(w[0], t, err, errlen);
}

int goto_from_count(struct goto_target *t, enum goto_kind kind, uint64_t n)
{
	if (!t)
		return -pte_invalid;
	memset(t, 0, sizeof(*t));
	t->den = 1;
	switch (kind) {
	case GOTO_PERCENT:
		t->num = n;
		break;
	case GOTO_OFFSET:
	case GOTO_PSB:
	case GOTO_ORDINAL:
	case GOTO_TSC:
		t->value = n;
		break;
	default:
		return -pte_invalid;
	}
	t->kind = kind;
	return 0;
}

/* @base moved by @delta in direction @rel, kept inside [0, @size]. */
static uint64_t goto_move(uint64_t base, int rel, uint64_t delta,
			  uint64_t size)
{
	if (rel < 0)
		return delta > base ? 0 : base - delta;
	if (delta > size || base > size - delta)
		return size;
	return base + delta;
}

/* Call-back failed: keep its message, or write a generic one. */
static int goto_failed(int rc, const char *what, char *err, size_t errlen)
{
	if (rc >= 0)
		rc = -pte_internal;
	if (err && errlen && *err)
		return rc;
	if (rc == -pte_no_time)
		goto_err(err, errlen, "goto: no timing information for %s",
			 what);
	else if (rc == -pte_eos || rc == -pte_invalid || rc == -pte_nosync)
		goto_err(err, errlen, "goto: no %s", what);
	else
		goto_err(err, errlen, "goto: %s: %s", what, pte_strerror(rc));
	return rc;
}

static int goto_unavailable(const char *what, char *err, size_t errlen)
{
	goto_err(err, errlen, "goto: %s not available (yet)", what);
	return -pte_invalid;
}

/* An absolute offset, or a move by bytes. */
static int goto_resolve_offset(const struct goto_target *t, uint64_t base,
			       uint64_t size, uint64_t *off, char *err,
			       size_t errlen)
{
	if (t->rel) {
		*off = goto_move(base, t->rel, t->value, size);
		return 0;
	}
	if (t->value > size) {
		goto_err(err, errlen, "goto: 0x%llx is past the end (0x%llx)",
			 (unsigned long long)t->value, (unsigned long long)size);
		return -pte_invalid;
	}
	*off = t->value;
	return 0;
}

/* A share of the file, or a move by one. */
static int goto_resolve_percent(const struct goto_target *t, uint64_t base,
				uint64_t size, uint64_t *off, char *err,
				size_t errlen)
{
	goto_u128 d, den = (goto_u128)100 * (t->den ? t->den : 1);

	if (!t->rel && (goto_u128)t->num > den) {
		goto_err(err, errlen, "goto: %llu%% is more than 100%%",
			 (unsigned long long)(t->num / (t->den ? t->den : 1)));
		return -pte_invalid;
	}
	d = (goto_u128)size * t->num / den;
	if (d > size)
		d = size;
	*off = t->rel ? goto_move(base, t->rel, (uint64_t)d, size) : (uint64_t)d;
	return 0;
}

/* The number of the sync point "psb +N" or "psb -N" means from @base. */
static int goto_psb_relative(const struct goto_target *t,
			     const struct goto_ctx *ctx, uint64_t base,
			     uint64_t *k, char *err, size_t errlen)
{
	uint64_t po = 0;
	int64_t n;
	int rc;

	if (!ctx->psb_number)
		return goto_unavailable("sync point numbers", err, errlen);
	rc = ctx->psb_number(ctx->arg, base, &n, err, errlen);
	if (rc < 0)
		return goto_failed(rc, "sync point here", err, errlen);
	/* Inside a segment, psb -1 is its own PSB (and psb -0 too, as
	 * psb +0: not the next one). */
	if (n >= 0 && t->rel < 0 && t->value &&
	    ctx->psb_offset(ctx->arg, (uint64_t)n, &po, err, errlen) == 0 &&
	    po < base)
		n++;
	if (t->rel > 0 && t->value > (uint64_t)INT64_MAX - 1) {
		*k = UINT64_MAX;
	} else if (t->rel > 0) {
		if (n > 0 && (int64_t)t->value > INT64_MAX - n)
			n = INT64_MAX;
		else
			n += (int64_t)t->value;
		if (n < 0) {
			goto_err(err, errlen, "goto: no sync point before the "
				 "cursor");
			return -pte_invalid;
		}
		*k = (uint64_t)n;
	} else if (n < 0 || t->value > (uint64_t)n) {
		goto_err(err, errlen, "goto: no sync point %llu back",
			 (unsigned long long)t->value);
		return -pte_invalid;
	} else {
		*k = (uint64_t)n - t->value;
	}
	/* A failed probe above may have written a message. */
	if (err && errlen)
		*err = '\0';
	return 0;
}

/* Sync point number N, or a move by N of them. */
static int goto_resolve_psb(const struct goto_target *t,
			    const struct goto_ctx *ctx, uint64_t base,
			    uint64_t *off, char *err, size_t errlen)
{
	char what[64];
	uint64_t k = t->value;
	int rc;

	if (!ctx->psb_offset)
		return goto_unavailable("sync point numbers", err, errlen);
	if (t->rel) {
		rc = goto_psb_relative(t, ctx, base, &k, err, errlen);
		if (rc < 0)
			return rc;
	}
	rc = ctx->psb_offset(ctx->arg, k, off, err, errlen);
	snprintf(what, sizeof(what), "psb %llu", (unsigned long long)k);
	return rc < 0 ? goto_failed(rc, what, err, errlen) : 0;
}

/* A time or cycle count from the start, or a move by one. */
static int goto_resolve_time(const struct goto_target *t,
			     const struct goto_ctx *ctx, uint64_t base,
			     uint64_t *off, char *err, size_t errlen)
{
	int cyc = t->kind == GOTO_CYCLES;
	int (*to_off)(void *, uint64_t, uint64_t *, char *, size_t) =
		cyc ? ctx->cycles_offset : ctx->time_offset;
	int (*at)(void *, uint64_t, uint64_t *, char *, size_t) =
		cyc ? ctx->cycles_at : ctx->time_at;
	uint64_t when = t->value, now;
	char what[64];
	int rc;

	if (!to_off || (t->rel && !at))
		return goto_unavailable(cyc ? "cycle positions" :
					"time positions", err, errlen);
	if (t->rel) {
		rc = at(ctx->arg, base, &now, err, errlen);
		if (rc < 0)
			return goto_failed(rc, "the cursor", err, errlen);
		when = goto_move(now, t->rel, t->value, UINT64_MAX);
	}
	rc = to_off(ctx->arg, when, off, err, errlen);
	snprintf(what, sizeof(what), "packet at %llu %s",
		 (unsigned long long)when, cyc ? "cycles" : "ns");
	return rc < 0 ? goto_failed(rc, what, err, errlen) : 0;
}

/* A target one callback looks up by value or name: a TSC, a packet
 * number, a mark, a region. */
static int goto_resolve_lookup(const struct goto_target *t,
			       const struct goto_ctx *ctx, uint64_t *off,
			       char *err, size_t errlen)
{
	char what[128];
	int rc;

	switch (t->kind) {
	case GOTO_TSC:
		if (!ctx->tsc_offset)
			return goto_unavailable("TSC search", err, errlen);
		rc = ctx->tsc_offset(ctx->arg, t->value, off, err, errlen);
		snprintf(what, sizeof(what), "packet with TSC >= 0x%llx",
			 (unsigned long long)t->value);
		break;
	case GOTO_ORDINAL:
		if (!ctx->ordinal_offset)
			return goto_unavailable("packet numbers", err, errlen);
		rc = ctx->ordinal_offset(ctx->arg, t->value, off, err, errlen);
		snprintf(what, sizeof(what), "packet #%llu",
			 (unsigned long long)t->value);
		break;
	case GOTO_MARK:
		if (!ctx->mark_offset)
			return goto_unavailable("marks", err, errlen);
		rc = ctx->mark_offset(ctx->arg, t->name, off, err, errlen);
		snprintf(what, sizeof(what), "mark '%s", t->name);
		break;
	case GOTO_REGION:
		if (!ctx->region_offset)
			return goto_unavailable("regions", err, errlen);
		rc = ctx->region_offset(ctx->arg, t->name, off, err, errlen);
		snprintf(what, sizeof(what), "region '%s'", t->name);
		break;
	default:
		goto_err(err, errlen, "goto: internal: bad target kind");
		return -pte_internal;
	}
	return rc < 0 ? goto_failed(rc, what, err, errlen) : 0;
}

int goto_resolve(const struct goto_target *t, const struct goto_ctx *ctx,
		 uint64_t *offset, char *err, size_t errlen)
{
	uint64_t off = 0, base, size;
	int rc;

	if (err && errlen)
		*err = '\0';
	if (!t || !ctx || !offset) {
		goto_err(err, errlen, "goto: internal: no target");
		return -pte_invalid;
	}
	size = ctx->size;
	base = ctx->cursor > size ? size : ctx->cursor;
	switch (t->kind) {
	case GOTO_OFFSET:
		rc = goto_resolve_offset(t, base, size, &off, err, errlen);
		break;
	case GOTO_PERCENT:
		rc = goto_resolve_percent(t, base, size, &off, err, errlen);
		break;
	case GOTO_START:
		rc = 0;
		break;
	case GOTO_END:
		off = t->value > size ? 0 : size - t->value;
		rc = 0;
		break;
	case GOTO_PSB:
		rc = goto_resolve_psb(t, ctx, base, &off, err, errlen);
		break;
	case GOTO_TIME:
	case GOTO_CYCLES:
		rc = goto_resolve_time(t, ctx, base, &off, err, errlen);
		break;
	default:
		rc = goto_resolve_lookup(t, ctx, &off, err, errlen);
		break;
	}
	if (rc < 0)
		return rc;
	*offset = off > size ? size : off;
	return 0;
}

int goto_offset(const char *arg, const struct goto_ctx *ctx,
		uint64_t *offset, char *err, size_t errlen)
{
	struct goto_target t;
	int rc = goto_parse(arg, &t, err, errlen);

	if (rc < 0)
		return rc;
	return goto_resolve(&t, ctx, offset, err, errlen);
}

int goto_is_target(const char *line)
{
	if (!line)
		return 0;
	while (goto_is_blank(*line))
		line++;
	return (*line >= '0' && *line <= '9') || (*line && strchr("+-$^'#", *line));
}

int goto_tsc_after(uint64_t t0, uint64_t ns, double hz, uint64_t *tsc,
		   char *err, size_t errlen)
{
	double d = (double)ns * hz / 1e9;
	goto_u128 ticks;

	if (!(d >= 0))
		goto out_past;
	/* Rounded up: a packet timed in the tick before @ns would be shown
	 * before it.  A whole frequency (as tm_tsc_hz() gives) counts
	 * exactly: 2 us at 1 GHz is 2000 ticks, not 2000.0000001 rounded
	 * up to 2001. */
	if (hz < 18446744073709551616.0 && hz == (double)(uint64_t)hz)
		ticks = ((goto_u128)ns * (uint64_t)hz + 999999999u) / 1000000000u;
	else if (d < 18446744073709551616.0)	/* (a uint64_t's range) */
		ticks = (goto_u128)ceil(d);
	else
		goto out_past;
	if (ticks > UINT64_MAX - t0)
		goto out_past;
	*tsc = t0 + (uint64_t)ticks;
	return 0;

out_past:
	goto_err(err, errlen, "goto: %llu ns from the start is past any TSC",
		 (unsigned long long)ns);
	return -pte_invalid;
}
