/* search_parse -- search text into a predicate, and back. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* Fields: name, the packet types that have them. */
static const struct {
	const char *name;
	uint64_t types;
} fields[F_NFIELDS] = {
	[F_IP] = { "ip", IP_TYPES },
	[F_CBR] = { "cbr", 1ull << PKT_CBR },
	[F_MTC] = { "mtc", 1ull << PKT_MTC },
	[F_TSC] = { "tsc", 1ull << PKT_TSC },
	[F_CYC] = { "cyc", 1ull << PKT_CYC },
	[F_CR3] = { "cr3", 1ull << PKT_PIP },
	[F_NR] = { "nr", 1ull << PKT_PIP },
	[F_VMCS] = { "vmcs", 1ull << PKT_VMCS },
	[F_CTC] = { "ctc", 1ull << PKT_TMA },
	[F_FC] = { "fc", 1ull << PKT_TMA },
	[F_BITS] = { "bits", 1ull << PKT_MODE_EXEC },
	[F_INTX] = { "intx", 1ull << PKT_MODE_TSX },
	[F_ABRT] = { "abrt", 1ull << PKT_MODE_TSX },
	[F_NBITS] = { "nbits", TNT_TYPES },
	[F_PAYLOAD] = { "payload", (1ull << PKT_PTW) | (1ull << PKT_MNT) },
	[F_GAP] = { "gap", (1ull << PKT_TSC) | (1ull << PKT_MTC) },
};

/* The field a bare value compares, per type. */
static enum field primary_field(enum pkt_type t)
{
	switch (t) {
	case PKT_TIP: case PKT_TIP_PGE: case PKT_TIP_PGD: case PKT_FUP:
		return F_IP;
	case PKT_CBR: return F_CBR;
	case PKT_MTC: return F_MTC;
	case PKT_TSC: return F_TSC;
	case PKT_CYC: return F_CYC;
	case PKT_PIP: return F_CR3;
	case PKT_VMCS: return F_VMCS;
	case PKT_TMA: return F_CTC;
	case PKT_MODE_EXEC: return F_BITS;
	case PKT_TNT8: case PKT_TNT64: return F_NBITS;
	case PKT_PTW: case PKT_MNT: return F_PAYLOAD;
	default: return F_NONE;
	}
}

static uint64_t class_types(enum pkt_class c)
{
	uint64_t m = 0;
	int t;

	for (t = 0; t < PKT_NTYPES; t++)
		if (pkt_type_class((enum pkt_type)t) == c)
			m |= 1ull << t;
	return m;
}

static const char *const op_names[] = {
	[OP_EQ] = "=", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=",
	[OP_GT] = ">", [OP_GE] = ">=", [OP_RANGE] = "=",
};

/*
 * Parsing.
 */

/* Tokens point into store, one NUL-ended copy each: a text of n bytes
 * has at most n tokens and needs at most 2n bytes.  No token limit: the
 * canonical form of what parsed (srch_pred_format) has more tokens than
 * the text when "&" was implied or a value gained its field's name, and
 * it must parse again; MAX_NODES bounds the expression. */
struct parser {
	char **tok;
	char *store;
	int n, i;
	char *err;
	size_t errlen;
	int failed;
	int depth;		/* of parse_unary()'s recursion */
	struct srch_pred *p;
};

/* Nesting of '(' and 'not' the parser follows: 40,000 '(' overflowed the
 * stack (64 nodes need far less). */
#define MAX_DEPTH 256

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->failed && ps->err && ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
	}
	ps->failed = 1;
	return -1;
}

static int is_opchar(int c)
{
	return c == '(' || c == ')' || c == '!' || c == '=' || c == '<' ||
	       c == '>' || c == '&' || c == '|';
}

static int tokenize(struct parser *ps, const char *s)
{
	size_t slen = strlen(s), used = 0;

	ps->tok = calloc(slen + 1, sizeof(*ps->tok));
	ps->store = malloc(2 * slen + 1);
	if (!ps->tok || !ps->store)
		return fail(ps, "out of memory");
	while (*s) {
		size_t len = 0;
		const char *start = s;

		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (*s == '(' || *s == ')') {
			len = 1;
		} else if (is_opchar(*s)) {
			len = 1;
			if ((s[1] == '=' && *s != '&' && *s != '|') ||
			    (s[1] == '&' && *s == '&') || (s[1] == '|' && *s == '|'))
				len = 2;
		} else {
			while (s[len] && !isspace((unsigned char)s[len]) &&
			       !is_opchar(s[len]))
				len++;
		}
		if (len >= TOKEN_LEN)
			return fail(ps, "word too long: '%.20s...'", start);
		ps->tok[ps->n] = ps->store + used;
		memcpy(ps->tok[ps->n], start, len);
		ps->tok[ps->n][len] = '\0';
		used += len + 1;
		ps->n++;
		s += len;
	}
	return 0;
}

static const char *peek(const struct parser *ps)
{
	return ps->i < ps->n ? ps->tok[ps->i] : NULL;
}

static int new_node(struct parser *ps, enum node_kind kind)
{
	struct node *nd;

	if (ps->p->nnodes >= MAX_NODES)
		return fail(ps, "expression too long");
	nd = &ps->p->nodes[ps->p->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->kind = (uint8_t)kind;
	nd->a = nd->b = -1;
	return ps->p->nnodes++;
}

static int parse_op(const char *t)
{
	static const struct { const char *s; int op; } ops[] = {
		{ "=", OP_EQ }, { "==", OP_EQ }, { "!=", OP_NE },
		{ "<", OP_LT }, { "<=", OP_LE }, { ">", OP_GT }, { ">=", OP_GE },
	};
	size_t i;

	if (!t)
		return -1;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(t, ops[i].s))
			return ops[i].op;
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parse a number with an optional unit if @units (tsc, ticks, ns, us, ms,
 * s): *@mul gets 0 without one, -1 for tsc or ticks, else the
 * nanoseconds of the time unit (the value is then in nanoseconds).
 * Returns 0 or -1. */
static int parse_num_unit(struct parser *ps, const char *s, uint64_t *v, double *mul,
			  int units)
{
	char *end;
	unsigned long long x;
	static const struct { const char *u; double mul; } tu[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return fail(ps, "expected a number, got '%s'", s ? s : "end");
	errno = 0;
	/* decimal or 0x hex, as goto's: base 0 read "010" as 8 and "08"
	 * was a bad number */
	x = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno == ERANGE)
		return fail(ps, "number too large: '%s'", s);
	*mul = 0;
	if (!*end) {
		*v = x;
		return 0;
	}
	if (!units)
		return fail(ps, "bad number '%s'", s);
	if (!strcmp(end, "tsc") || !strcmp(end, "ticks")) {
		*v = x;
		*mul = -1;
		return 0;
	}
	{
		double d = strtod(s, &end);

		for (i = 0; i < sizeof(tu) / sizeof(tu[0]); i++) {
			if (strcmp(end, tu[i].u))
				continue;
			d *= tu[i].mul;
			if (!(d >= 0 && d < 1.8e19))
				return fail(ps, "time too large: '%s'", s);
			/* (llround() returns a long long: 2^63 ns and more
			 * did not fit) */
			*v = (uint64_t)floor(d + 0.5);
			*mul = tu[i].mul;
			return 0;
		}
	}
	return fail(ps, "bad unit in '%s' (use tsc, ns, us, ms or s)", s);
}

/* The upper end @s of a range whose lower end had unit @lomul
 * (parse_num_unit()): a unit of its own, or the lower end's ("gap
 * 1us-2000" is 1 to 2000 us); ticks and times do not mix. */
static int parse_range_hi(struct parser *ps, struct cmp *c, const char *s, double lomul,
			  int units)
{
	double mul, d;

	if (parse_num_unit(ps, s, &c->hi, &mul, units))
		return -1;
	if (!mul && lomul > 0) {
		d = (double)c->hi * lomul;
		if (!(d < 1.8e19))
			return fail(ps, "time too large: '%s'", s);
		c->hi = (uint64_t)floor(d + 0.5);
		mul = lomul;
	}
	if ((mul > 0) != (lomul > 0))
		return fail(ps, "a range's ends are both times or both ticks: '%s'", s);
	return 0;
}

static enum field field_by_name(const char *s)
{
	int f;

	for (f = F_IP; f < F_NFIELDS; f++)
		if (!strcmp(s, fields[f].name))
			return (enum field)f;
	return F_NONE;
}

/* A value or a range A-B (or "A - B", "A -B") after the operator; a
 * unit, if @allow_unit, on either end (the upper one defaults to the
 * lower one's). */
static int parse_value(struct parser *ps, struct cmp *c, int allow_unit)
{
	const char *t = peek(ps), *hi = NULL;
	char buf[TOKEN_LEN], *dash;
	double lomul;

	if (!t)
		return fail(ps, "expected a value after '%s'",
			    ps->i ? ps->tok[ps->i - 1] : "");
	strcpy(buf, t);
	ps->i++;
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (parse_num_unit(ps, buf, &c->lo, &lomul, allow_unit))
		return -1;
	c->ns = lomul > 0;
	if (dash) {
		hi = dash[1] ? t + (dash + 1 - buf) : "";
	} else {
		t = peek(ps);
		if (!t || t[0] != '-')
			return 0;
		ps->i++;
		hi = t + 1;
	}
	if (c->op != OP_EQ)
		return fail(ps, "a range takes no operator");
	if (!*hi) {		/* "A - B", "A- B" */
		hi = peek(ps);
		ps->i++;
	}
	if (parse_range_hi(ps, c, hi, lomul, allow_unit))
		return -1;
	c->op = OP_RANGE;
	if (c->hi < c->lo)
		return fail(ps, "empty range %s", t ? t : "");
	return 0;
}

static int parse_hex_bytes(struct parser *ps, struct node *nd, const char *s)
{
	for (; *s; s += 2) {
		int h = hexval((unsigned char)s[0]);
		int l = s[1] ? hexval((unsigned char)s[1]) : -1;

		if (h < 0 || l < 0)
			return fail(ps, "bad hex bytes '%s'", s);
		if (nd->nbytes >= MAX_BYTES)
			return fail(ps, "at most %d bytes", MAX_BYTES);
		nd->bytes[nd->nbytes++] = (uint8_t)(h << 4 | l);
	}
	return 0;
}

static int is_hex_word(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n % 2)
		return 0;
	for (i = 0; i < n; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return 0;
	return 1;
}

static int add_cmp(struct parser *ps, struct node *nd, enum field f, int op,
		   const char *what)
{
	struct cmp *c;

	if (nd->ncmp >= MAX_CMPS)
		return fail(ps, "at most %d conditions per packet", MAX_CMPS);
	if (nd->types & ~fields[f].types)
		return fail(ps, "'%s' has no field '%s'", what, fields[f].name);
	c = &nd->cmp[nd->ncmp++];
	c->field = (uint8_t)f;
	c->op = (uint8_t)op;
	if (parse_value(ps, c, f == F_GAP))
		return -1;
	if (f == F_GAP)
		ps->p->history = 1;
	if (c->ns)
		ps->p->has_ns = 1;
	if (f == F_IP)
		ps->p->need_ip = 1;
	return 0;
}

/* The packet types called @w: a class, a type, or an alias. */
static uint64_t types_by_name(const char *w)
{
	enum pkt_type t;
	int c;

	if (!strcmp(w, "errors"))
		w = "error";
	for (c = 0; c < PKC_NCLASSES; c++)
		if (!strcmp(w, pkt_class_name((enum pkt_class)c)))
			return class_types((enum pkt_class)c);
	if (!strcmp(w, "tnt"))
		return TNT_TYPES;
	t = pkt_type_from_name(w);
	if (t == PKT_INVALID)
		return 0;
	return 1ull << t;
}

static int parse_term(struct parser *ps)
{
	const char *w = peek(ps);
	struct node *nd;
	int id, op;

	if (!w)
		return fail(ps, "expected a packet type or keyword at the end");
	if (is_opchar(w[0]))
		return fail(ps, "unexpected '%s'", w);
	id = new_node(ps, N_LEAF);
	if (id < 0)
		return -1;
	nd = &ps->p->nodes[id];
	ps->i++;
	if (!strcmp(w, "bytes")) {
		nd->types = BYTES_TYPES;
		while (peek(ps) && is_hex_word(peek(ps)))
			if (parse_hex_bytes(ps, nd, ps->tok[ps->i++]))
				return -1;
		if (!nd->nbytes)
			return fail(ps, "'bytes' needs hex bytes, e.g. bytes 02 f3");
		return id;
	}
	if (!strncmp(w, "x:", 2)) {
		nd->types = BYTES_TYPES;
		if (parse_hex_bytes(ps, nd, w + 2))
			return -1;
		if (!nd->nbytes)
			return fail(ps, "'x:' needs hex bytes, e.g. x:02f3");
		return id;
	}
	if (!strcmp(w, "gap")) {
		nd->types = fields[F_GAP].types;
		op = parse_op(peek(ps));
		if (op >= 0)
			ps->i++;
		if (add_cmp(ps, nd, F_GAP, op < 0 ? OP_EQ : op, w))
			return -1;
		/* Without an operator a value is a least (>), a range a
		 * range: "gap 100-200". */
		if (op < 0 && nd->cmp[nd->ncmp - 1].op == OP_EQ)
			nd->cmp[nd->ncmp - 1].op = OP_GT;
		return id;
	}
	nd->types = types_by_name(w);
	if (!nd->types) {
		if (isdigit((unsigned char)w[0]))
			return fail(ps, "a value needs a packet type first: '%s'", w);
		return fail(ps, "unknown packet type or keyword '%s'", w);
	}
	for (;;) {
		const char *t = peek(ps);
		enum field f = F_NONE;

		if (!t)
			break;
		op = parse_op(t);
		if (op >= 0) {
			ps->i++;
		} else if ((f = field_by_name(t)) != F_NONE &&
			   ps->i + 1 < ps->n && parse_op(ps->tok[ps->i + 1]) >= 0) {
			ps->i++;
			op = parse_op(ps->tok[ps->i++]);
		} else if (isdigit((unsigned char)t[0])) {
			op = OP_EQ;
		} else {
			break;
		}
		if (f == F_NONE) {
			int ty;

			/* A bare value compares the types' common main field. */
			for (ty = 0; ty < PKT_NTYPES; ty++) {
				enum field pf;

				if (!(nd->types >> ty & 1))
					continue;
				pf = primary_field((enum pkt_type)ty);
				if (f == F_NONE)
					f = pf;
				if (pf == F_NONE)
					return fail(ps, "'%s' takes no value", w);
				if (pf != f)
					return fail(ps, "'%s' has no common field: name one (FIELD=VALUE)", w);
			}
		}
		if (add_cmp(ps, nd, f, op, w))
			return -1;
	}
	return id;
}

static int parse_or(struct parser *ps);

static int parse_unary(struct parser *ps)
{
	const char *t = peek(ps);
	int id, a;

	if (t && (!strcmp(t, "not") || !strcmp(t, "!") || !strcmp(t, "(")) &&
	    ps->depth >= MAX_DEPTH)
		return fail(ps, "nested too deeply (more than %d levels of ( and not)",
			    MAX_DEPTH);
	if (t && (!strcmp(t, "not") || !strcmp(t, "!"))) {
		ps->i++;
		ps->depth++;
		a = parse_unary(ps);
		ps->depth--;
		if (a < 0)
			return -1;
		id = new_node(ps, N_NOT);
		if (id < 0)
			return -1;
		ps->p->nodes[id].a = (int8_t)a;
		return id;
	}
	if (t && !strcmp(t, "(")) {
		ps->i++;
		ps->depth++;
		a = parse_or(ps);
		ps->depth--;
		if (a < 0)
			return -1;
		t = peek(ps);
		if (!t || strcmp(t, ")"))
			return fail(ps, "missing ')'");
		ps->i++;
		return a;
	}
	return parse_term(ps);
}

static int is_word(const char *t, const char *a, const char *b, const char *c)
{
	return t && (!strcmp(t, a) || !strcmp(t, b) || !strcmp(t, c));
}

static int binary(struct parser *ps, enum node_kind kind, int a, int b)
{
	int id = new_node(ps, kind);

	if (id < 0)
		return -1;
	ps->p->nodes[id].a = (int8_t)a;
	ps->p->nodes[id].b = (int8_t)b;
	return id;
}

static int parse_and(struct parser *ps)
{
	int a = parse_unary(ps), b;

	while (a >= 0) {
		const char *t = peek(ps);

		if (!t || !strcmp(t, ")") || is_word(t, "or", "|", "||"))
			break;
		if (is_word(t, "and", "&", "&&"))
			ps->i++;
		b = parse_unary(ps);
		if (b < 0)
			return -1;
		a = binary(ps, N_AND, a, b);
	}
	return a;
}

static int parse_or(struct parser *ps)
{
	int a = parse_and(ps), b;

	while (a >= 0 && is_word(peek(ps), "or", "|", "||")) {
		ps->i++;
		b = parse_and(ps);
		if (b < 0)
			return -1;
		a = binary(ps, N_OR, a, b);
	}
	return a;
}

/*
 * Prefilters.
 */

static int pf_bits(const struct prefilter *pf, unsigned k)
{
	return __builtin_popcount(pf->mask[k]) +
	       (k + 1 < pf->len ? __builtin_popcount(pf->mask[k + 1]) : 0);
}

static void pf_put(struct prefilter *pf, unsigned at, uint8_t val, uint8_t mask)
{
	if (at >= PF_MAX)
		return;
	pf->val[at] = val & mask;
	pf->mask[at] = mask;
	if (pf->len <= at)
		pf->len = (uint8_t)(at + 1);
}

/* The opcode bytes of each type, under masks (SDM; ../shared/spec). */
#define OPC1(v, m)		{ 1, { v }, { m } }
#define OPC2(v1, m1)		{ 2, { 0x02, v1 }, { 0xff, m1 } }
static const struct {
	uint8_t len, val[3], mask[3];
} opcodes[PKT_NTYPES] = {
	[PKT_PSBEND] = OPC2(0x23, 0xff),	[PKT_OVF] = OPC2(0xf3, 0xff),
	[PKT_CBR] = OPC2(0x03, 0xff),		[PKT_TMA] = OPC2(0x73, 0xff),
	[PKT_PIP] = OPC2(0x43, 0xff),		[PKT_TNT64] = OPC2(0xa3, 0xff),
	[PKT_STOP] = OPC2(0x83, 0xff),		[PKT_VMCS] = OPC2(0xc8, 0xff),
	[PKT_MWAIT] = OPC2(0xc2, 0xff),		[PKT_PWRE] = OPC2(0x22, 0xff),
	[PKT_PWRX] = OPC2(0xa2, 0xff),		[PKT_BBP] = OPC2(0x63, 0xff),
	[PKT_CFE] = OPC2(0x13, 0xff),		[PKT_EVD] = OPC2(0x53, 0xff),
	[PKT_EXSTOP] = OPC2(0x62, 0x7f),	[PKT_BEP] = OPC2(0x33, 0x7f),
	[PKT_PTW] = OPC2(0x12, 0x1f),
	[PKT_MNT] = { 3, { 0x02, 0xc3, 0x88 }, { 0xff, 0xff, 0xff } },
	[PKT_MODE_EXEC] = { 2, { 0x99, 0x00 }, { 0xff, 0xe0 } },
	[PKT_MODE_TSX] = { 2, { 0x99, 0x20 }, { 0xff, 0xe0 } },
	[PKT_TIP] = OPC1(0x0d, 0x1f),		[PKT_TIP_PGE] = OPC1(0x11, 0x1f),
	[PKT_TIP_PGD] = OPC1(0x01, 0x1f),	[PKT_FUP] = OPC1(0x1d, 0x1f),
	[PKT_TSC] = OPC1(0x19, 0xff),		[PKT_MTC] = OPC1(0x59, 0xff),
};
#undef OPC1
#undef OPC2

/* The opcode bytes of type @t into @pf. */
static void pf_opcode(struct prefilter *pf, enum pkt_type t)
{
	unsigned i;

	if (t == PKT_PSB) {
		for (i = 0; i < PKT_PSB_SIZE; i++)
			pf_put(pf, i, i % 2 ? 0x82 : 0x02, 0xff);
		return;
	}
	for (i = 0; i < opcodes[t].len; i++)
		pf_put(pf, i, opcodes[t].val[i], opcodes[t].mask[i]);
}

/* Pick the anchor; returns whether the prefilter is worth using. */
static int pf_finish(struct prefilter *pf)
{
	unsigned k, best = 0;
	int bits = -1;

	if (pf->len < 2)
		return 0;
	for (k = 0; k + 1 < pf->len; k++) {
		if (pf_bits(pf, k) > bits) {
			bits = pf_bits(pf, k);
			best = k;
		}
	}
	pf->k = (uint8_t)best;
	return bits >= PF_MIN_BITS;
}

static int pf_leaf(const struct node *nd, struct prefilter *pf)
{
	uint64_t ty = nd->types;
	int t, i;

	memset(pf, 0, sizeof(*pf));
	if (nd->nbytes) {
		for (i = 0; i < nd->nbytes && i < PF_MAX; i++)
			pf_put(pf, (unsigned)i, nd->bytes[i], 0xff);
		return pf_finish(pf);
	}
	if (ty & ERR_BIT)
		return 0;
	if (ty == IP_TYPES) {
		pf_put(pf, 0, 0x01, 0x03);
	} else {
		if (ty & (ty - 1))
			return 0;
		t = __builtin_ctzll(ty);
		pf_opcode(pf, (enum pkt_type)t);
	}
	for (i = 0; i < nd->ncmp; i++) {
		const struct cmp *c = &nd->cmp[i];
		int j;

		if (c->op != OP_EQ)
			continue;
		switch (c->field) {
		case F_IP:
			/* Every compression keeps at least IP[15:0]. */
			pf_put(pf, 1, (uint8_t)c->lo, 0xff);
			pf_put(pf, 2, (uint8_t)(c->lo >> 8), 0xff);
			break;
		case F_CBR:
			pf_put(pf, 2, (uint8_t)c->lo, 0xff);
			break;
		case F_MTC:
			pf_put(pf, 1, (uint8_t)c->lo, 0xff);
			break;
		case F_TSC:
			for (j = 0; j < 7; j++)
				pf_put(pf, 1u + (unsigned)j, (uint8_t)(c->lo >> (8 * j)), 0xff);
			break;
		case F_BITS:
			if (c->lo == 64)
				pf_put(pf, 1, 0x01, 0xe3);
			else if (c->lo == 32)
				pf_put(pf, 1, 0x02, 0xe3);
			else if (c->lo == 16)
				pf_put(pf, 1, 0x00, 0xe3);
			break;
		default:
			break;
		}
	}
	return pf_finish(pf);
}

static int pf_node(const struct srch_pred *p, int id, struct prefilter *pf)
{
	const struct node *nd = &p->nodes[id];
	struct prefilter a, b;
	int ha, hb;

	switch (nd->kind) {
	case N_LEAF:
		return pf_leaf(nd, pf);
	case N_AND:
		/* A match satisfies both sides: either side's bytes do. */
		ha = pf_node(p, nd->a, &a);
		hb = pf_node(p, nd->b, &b);
		if (ha && (!hb || pf_bits(&a, a.k) >= pf_bits(&b, b.k))) {
			*pf = a;
			return 1;
		}
		if (hb) {
			*pf = b;
			return 1;
		}
		return 0;
	default:
		return 0;
	}
}

/* The packet types node @id may match. */
static uint64_t node_mask(const struct srch_pred *p, int id)
{
	const struct node *nd = &p->nodes[id];

	switch (nd->kind) {
	case N_AND:
		return node_mask(p, nd->a) & node_mask(p, nd->b);
	case N_OR:
		return node_mask(p, nd->a) | node_mask(p, nd->b);
	case N_NOT:
		return ~0ull;
	}
	return nd->types;
}

int srch_parse(const char *text, struct srch_pred **out, char *err,
	       size_t errlen)
{
	struct parser *ps;
	int root, rc = -pte_invalid;

	if (err && errlen)
		err[0] = '\0';
	if (!text || !out)
		return -pte_invalid;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -pte_nomem;
	ps->err = err;
	ps->errlen = errlen;
	ps->p = calloc(1, sizeof(*ps->p));
	if (!ps->p) {
		rc = -pte_nomem;
		goto out_parser;
	}
	if (tokenize(ps, text)) {
		if (!ps->tok || !ps->store)
			rc = -pte_nomem;
		goto out_pred;
	}
	if (!ps->n) {
		fail(ps, "empty search");
		goto out_pred;
	}
	root = parse_or(ps);
	if (root < 0)
		goto out_pred;
	if (ps->i < ps->n) {
		fail(ps, "unexpected '%s'", ps->tok[ps->i]);
		goto out_pred;
	}
	ps->p->root = (int8_t)root;
	ps->p->mask = node_mask(ps->p, root);
	if (!ps->p->history)
		ps->p->has_pf = (uint8_t)pf_node(ps->p, root, &ps->p->pf);
	*out = ps->p;
	ps->p = NULL;
	rc = 0;

out_pred:
	free(ps->p);
out_parser:
	free(ps->tok);
	free(ps->store);
	free(ps);
	return rc;
}

void srch_pred_free(struct srch_pred *pred)
{
	free(pred);
}

/* Binding strength: "|" below "&" below "!" and a leaf. */
static int node_prec(const struct node *nd)
{
	switch (nd->kind) {
	case N_OR:
		return 1;
	case N_AND:
		return 2;
	}
	return 3;
}

/*
 * Node @id in as few parentheses as parse back to the same tree: a child
 * binding more weakly than @need is wrapped.  Both operators group to
 * the left, so a right child of the same kind needs them too.  Fully
 * parenthesised forms grew past what a user typed (and once past the
 * parser's token limit).
 */
static int fmt_node(const struct srch_pred *p, int id, int need, char *buf,
		    size_t len)
{
	const struct node *nd = &p->nodes[id];
	size_t n = 0;
	int c, i, r, gap_head = 0;

#define PUT(...) do { \
	r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, __VA_ARGS__); \
	n += (size_t)(r > 0 ? r : 0); \
} while (0)
#define SUB(child, prec) do { \
	n += (size_t)fmt_node(p, child, prec, buf + (n < len ? n : len), n < len ? len - n : 0); \
} while (0)

	if (node_prec(nd) < need) {
		PUT("(");
		SUB(id, 1);
		PUT(")");
		return (int)n;
	}
	switch (nd->kind) {
	case N_AND:
	case N_OR:
		SUB(nd->a, node_prec(nd));
		PUT(nd->kind == N_AND ? " & " : " | ");
		SUB(nd->b, node_prec(nd) + 1);
		return (int)n;
	case N_NOT:
		PUT("!");
		SUB(nd->a, 3);
		return (int)n;
	}
	if (nd->nbytes) {
		PUT("bytes");
		for (i = 0; i < nd->nbytes; i++)
			PUT(" %02x", nd->bytes[i]);
		return (int)n;
	}
	for (c = 0; c < PKC_NCLASSES; c++)
		if (nd->types == class_types((enum pkt_class)c))
			break;
	if (c < PKC_NCLASSES) {
		PUT("%s", pkt_class_name((enum pkt_class)c));
	} else if (nd->types == TNT_TYPES) {
		PUT("tnt");
	} else if (nd->types == fields[F_GAP].types && nd->ncmp &&
		   nd->cmp[0].field == F_GAP) {
		PUT("gap");
		gap_head = 1;
	} else {
		const char *sep = "";

		for (i = 0; i < PKT_NTYPES; i++) {
			if (!(nd->types >> i & 1))
				continue;
			PUT("%s%s", sep, pkt_type_name((enum pkt_type)i));
			sep = "|";
		}
	}
	for (i = 0; i < nd->ncmp; i++) {
		const struct cmp *cm = &nd->cmp[i];
		const char *unit = cm->field == F_GAP ? (cm->ns ? "ns" : "tsc") : "";

		/* "mtc gap > 5000": a gap after a type names its field. */
		if (cm->field == F_GAP)
			PUT("%s%s%" PRIu64 "%s", gap_head && !i ? "" : " gap ",
			    op_names[cm->op], cm->lo, unit);
		else
			PUT(" %s%s0x%" PRIx64, fields[cm->field].name,
			    op_names[cm->op], cm->lo);
		if (cm->op == OP_RANGE)
			PUT("-0x%" PRIx64, cm->hi);
	}
	return (int)n;
#undef PUT
#undef SUB
}

int srch_pred_format(const struct srch_pred *pred, char *buf, size_t len)
{
	if (!pred)
		return snprintf(buf, len, "(null)");
	if (buf && len)
		buf[0] = '\0';
	return fmt_node(pred, pred->root, 1, buf, len);
}

/* @ns nanoseconds in ticks at @hz, rounded up if @up, else down;
 * UINT64_MAX if more: no gap is that long (the truncated product was a
 * short gap). */
static uint64_t srch_ns_ticks(uint64_t ns, uint64_t hz, int up)
{
	unsigned __int128 t = (unsigned __int128)ns * hz;

	t = (t + (up ? 999999999u : 0)) / 1000000000u;
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

int srch_pred_set_config(struct srch_pred *pred, const struct tm_config *cfg)
{
	uint64_t hz;
	int i, j;

	if (!pred)
		return -pte_invalid;
	pred->have_cfg = cfg != NULL;
	if (cfg)
		pred->cfg = *cfg;
	else
		memset(&pred->cfg, 0, sizeof(pred->cfg));
	hz = cfg ? tm_tsc_hz(cfg, 1) : 0;
	pred->calibrated = 0;
	for (i = 0; i < pred->nnodes; i++) {
		struct node *nd = &pred->nodes[i];

		for (j = 0; j < nd->ncmp; j++) {
			struct cmp *c = &nd->cmp[j];

			if (!c->ns)
				continue;
			if (!hz)
				return -pte_no_calib;
			/* Whole ticks: "gap >= 334ns" at 1.2 GHz is 401
			 * ticks, not 400 (333.3 ns); struct cmp says which
			 * end each operator reads. */
			c->tlo = srch_ns_ticks(c->lo, hz, 1);
			c->thi = srch_ns_ticks(c->op == OP_RANGE ? c->hi : c->lo,
					       hz, 0);
		}
	}
	pred->calibrated = pred->has_ns;
	return 0;
}

int srch_pred_has_history(const struct srch_pred *pred)
{
	return pred ? pred->history : 0;
}

int srch_pred_uses_time(const struct srch_pred *pred)
{
	return pred ? pred->has_ns : 0;
}

uint64_t srch_pred_types(const struct srch_pred *pred)
{
	return pred ? pred->mask : 0;
}
