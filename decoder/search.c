/* search -- predicates, a background search on all cores, a filter source. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pool.h"
#include "search.h"

#define MAX_NODES	64
#define MAX_CMPS	4
#define MAX_BYTES	32
#define TOKEN_LEN	64
#define PF_MAX		16	/* prefilter pattern bytes */
#define PF_MIN_BITS	12	/* fewer anchor bits: decoding is faster */
#define PF_SLACK	64	/* a bytes pattern may start past its packet */
#define PF_CONTINUE	(16u << 10)	/* decode on rather than re-sync */
#define STEP_BYTES	(256u << 10)	/* bytes between cancel checks */
#define SCAN_PIECE	(1u << 20)	/* prefilter scan between checks */
#define FIRST_JOB	(256u << 10)
#define DEFAULT_JOB	(32u << 20)
#define DEFAULT_HITS	65536
#define LOCAL_HITS	1024
#define FILTER_BUDGET	(4u << 20)

/* A node's types are a bit each in a uint64_t. */
_Static_assert(PKT_NTYPES <= 64, "packet types must fit a 64-bit mask");

#define ERR_BIT		(1ull << PKT_INVALID)	/* decode errors */
#define ALL_TYPES	(((1ull << PKT_NTYPES) - 1) & ~ERR_BIT)
#define IP_TYPES	((1ull << PKT_TIP) | (1ull << PKT_TIP_PGE) | \
			 (1ull << PKT_TIP_PGD) | (1ull << PKT_FUP))
#define TNT_TYPES	((1ull << PKT_TNT8) | (1ull << PKT_TNT64))

enum node_kind { N_LEAF, N_AND, N_OR, N_NOT };

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_RANGE };

enum field {
	F_NONE, F_IP, F_CBR, F_MTC, F_TSC, F_CYC, F_CR3, F_NR, F_VMCS,
	F_CTC, F_FC, F_BITS, F_INTX, F_ABRT, F_NBITS, F_PAYLOAD, F_GAP,
	F_NFIELDS
};

/* One comparison of a packet field with a value (or a range). */
struct cmp {
	uint8_t field;		/* enum field */
	uint8_t op;		/* enum op */
	uint8_t ns;		/* gap values are nanoseconds: see tlo, thi */
	uint64_t lo, hi;	/* hi only for OP_RANGE */
	uint64_t tlo, thi;	/* the values in TSC ticks */
};

struct node {
	uint8_t kind;		/* enum node_kind */
	int8_t a, b;		/* children */
	uint8_t ncmp;
	uint8_t nbytes;
	uint64_t types;		/* bit per enum pkt_type; bit 0: errors */
	struct cmp cmp[MAX_CMPS];
	uint8_t bytes[MAX_BYTES];
};

/* Bytes every matching packet holds: val under mask, anchored for the
 * vector scan at bytes k and k + 1. */
struct prefilter {
	uint8_t len, k;
	uint8_t val[PF_MAX];
	uint8_t mask[PF_MAX];
};

struct srch_pred {
	struct tm_config cfg;
	uint8_t have_cfg;
	uint8_t history;	/* some leaf compares a gap */
	uint8_t has_pf;
	uint8_t need_ip;	/* some leaf compares an IP */
	uint8_t has_ns;		/* some gap is in time units */
	uint8_t calibrated;	/* and srch_pred_set_config() converted it */
	uint64_t mask;		/* types that may match at all */
	int8_t root;
	uint8_t nnodes;
	struct prefilter pf;
	struct node nodes[MAX_NODES];
};

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
	struct srch_pred *p;
};

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

/* Parse a number with an optional time unit (if @ns is not NULL: *@ns
 * tells that the value is in nanoseconds).  Returns 0 or -1. */
static int parse_num(struct parser *ps, const char *s, uint64_t *v, uint8_t *ns)
{
	char *end;
	unsigned long long x;
	static const struct { const char *u; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return fail(ps, "expected a number, got '%s'", s ? s : "end");
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return fail(ps, "number too large: '%s'", s);
	if (ns)
		*ns = 0;
	if (!*end) {
		*v = x;
		return 0;
	}
	if (!ns)
		return fail(ps, "bad number '%s'", s);
	if (!strcmp(end, "tsc") || !strcmp(end, "ticks")) {
		*v = x;
		return 0;
	}
	{
		double d = strtod(s, &end);

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(end, units[i].u))
				continue;
			d *= units[i].mul;
			if (!(d >= 0 && d < 1.8e19))
				return fail(ps, "time too large: '%s'", s);
			*v = (uint64_t)llround(d);
			*ns = 1;
			return 0;
		}
	}
	return fail(ps, "bad unit in '%s' (use tsc, ns, us, ms or s)", s);
}

static enum field field_by_name(const char *s)
{
	int f;

	for (f = F_IP; f < F_NFIELDS; f++)
		if (!strcmp(s, fields[f].name))
			return (enum field)f;
	return F_NONE;
}

/* A value or a range A-B (or "A - B", "A -B") after the operator. */
static int parse_value(struct parser *ps, struct cmp *c, int allow_unit)
{
	const char *t = peek(ps);
	char buf[TOKEN_LEN], *dash;

	if (!t)
		return fail(ps, "expected a value after '%s'",
			    ps->i ? ps->tok[ps->i - 1] : "");
	strcpy(buf, t);
	ps->i++;
	dash = strchr(buf, '-');
	if (dash) {
		*dash = '\0';
		if (c->op != OP_EQ)
			return fail(ps, "a range takes no operator");
		if (parse_num(ps, buf, &c->lo, allow_unit ? &c->ns : NULL))
			return -1;
		if (dash[1]) {
			if (parse_num(ps, dash + 1, &c->hi, NULL))
				return -1;
		} else {
			if (parse_num(ps, peek(ps), &c->hi, NULL))
				return -1;
			ps->i++;
		}
		c->op = OP_RANGE;
	} else {
		if (parse_num(ps, buf, &c->lo, allow_unit ? &c->ns : NULL))
			return -1;
		t = peek(ps);
		if (t && t[0] == '-') {
			if (c->op != OP_EQ)
				return fail(ps, "a range takes no operator");
			ps->i++;
			if (t[1]) {
				if (parse_num(ps, t + 1, &c->hi, NULL))
					return -1;
			} else {
				if (parse_num(ps, peek(ps), &c->hi, NULL))
					return -1;
				ps->i++;
			}
			c->op = OP_RANGE;
		}
	}
	if (c->op == OP_RANGE && c->hi < c->lo)
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
		nd->types = ALL_TYPES;
		while (peek(ps) && is_hex_word(peek(ps)))
			if (parse_hex_bytes(ps, nd, ps->tok[ps->i++]))
				return -1;
		if (!nd->nbytes)
			return fail(ps, "'bytes' needs hex bytes, e.g. bytes 02 f3");
		return id;
	}
	if (!strncmp(w, "x:", 2)) {
		nd->types = ALL_TYPES;
		if (parse_hex_bytes(ps, nd, w + 2))
			return -1;
		if (!nd->nbytes)
			return fail(ps, "'x:' needs hex bytes, e.g. x:02f3");
		return id;
	}
	if (!strcmp(w, "gap")) {
		nd->types = fields[F_GAP].types;
		op = parse_op(peek(ps));
		if (op < 0)
			op = OP_GT;
		else
			ps->i++;
		return add_cmp(ps, nd, F_GAP, op, w) ? -1 : id;
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

	if (t && (!strcmp(t, "not") || !strcmp(t, "!"))) {
		ps->i++;
		a = parse_unary(ps);
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
		a = parse_or(ps);
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
			c->tlo = (uint64_t)((unsigned __int128)c->lo * hz / 1000000000u);
			c->thi = (uint64_t)((unsigned __int128)c->hi * hz / 1000000000u);
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

/*
 * Matching.
 */

void srch_ctx_init(struct srch_ctx *ctx, const struct srch_pred *pred,
		   const struct img *img)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->img = img;
	ctx->need_ip = !pred || pred->need_ip;
	if (pred && pred->history) {
		ctx->use_tm = 1;
		tm_init(&ctx->tm, pred->have_cfg ? &pred->cfg : NULL);
	}
}

void srch_step(struct srch_ctx *ctx, const struct pkt *pkt)
{
	struct tm_stamp st;

	ctx->ip_ok = 0;
	ctx->gap_ok = 0;
	switch (ctx->need_ip ? pkt->type : PKT_INVALID) {
	case PKT_PSB:
		/* SDM: no IP compression state survives a PSB. */
		ctx->last_ip = 0;
		break;
	case PKT_TIP:
	case PKT_TIP_PGE:
	case PKT_TIP_PGD:
	case PKT_FUP:
		if (!pkt_ip_update(pkt, &ctx->last_ip)) {
			ctx->ip = ctx->last_ip;
			ctx->ip_ok = 1;
		}
		break;
	default:
		break;
	}
	if (!ctx->use_tm)
		return;
	if (pkt->type == PKT_INVALID) {
		tm_gap(&ctx->tm);
		return;
	}
	tm_step(&ctx->tm, pkt, &st);
	if (!(st.flags & (TM_F_TSC | TM_F_REL)))
		return;
	if (pkt->type == PKT_TSC ||
	    (pkt->type == PKT_MTC && !(st.flags & TM_F_NO_CONFIG))) {
		if (ctx->have_prev && st.tsc >= ctx->prev_time) {
			ctx->gap = st.tsc - ctx->prev_time;
			ctx->gap_ok = 1;
		}
		ctx->prev_time = st.tsc;
		ctx->have_prev = 1;
	}
}

/* srch_step() where it has something to do: IPs and PSBs when IPs are
 * compared, everything when times are.  Other packets' ip_ok and gap_ok
 * are never read (no field of theirs needs them). */
static inline void step(struct srch_ctx *ctx, const struct pkt *pkt)
{
	if (ctx->use_tm ||
	    (ctx->need_ip && ((IP_TYPES | 1ull << PKT_PSB) >> pkt->type & 1)))
		srch_step(ctx, pkt);
}

/* Field @f of @pkt; returns 0 if the packet does not have it now. */
static int get_field(enum field f, const struct pkt *pkt,
		     const struct srch_ctx *ctx, uint64_t *v)
{
	switch (f) {
	case F_IP:
		if (ctx) {
			*v = ctx->ip;
			return ctx->ip_ok;
		}
		if (pkt->u.ip.ipc == PKT_IPC_FULL) {
			*v = pkt->u.ip.ip;
			return 1;
		}
		if (pkt->u.ip.ipc == PKT_IPC_SEXT48) {
			*v = (uint64_t)((int64_t)(pkt->u.ip.ip << 16) >> 16);
			return 1;
		}
		return 0;
	case F_CBR: *v = pkt->u.cbr; return 1;
	case F_MTC: *v = pkt->u.mtc; return 1;
	case F_TSC: *v = pkt->u.tsc; return 1;
	case F_CYC: *v = pkt->u.cyc; return 1;
	case F_CR3: *v = pkt->u.pip.cr3; return 1;
	case F_NR: *v = pkt->u.pip.nr; return 1;
	case F_VMCS: *v = pkt->u.vmcs; return 1;
	case F_CTC: *v = pkt->u.tma.ctc; return 1;
	case F_FC: *v = pkt->u.tma.fc; return 1;
	case F_BITS:
		*v = pkt->u.exec.csl ? 64 : pkt->u.exec.csd ? 32 : 16;
		return 1;
	case F_INTX: *v = pkt->u.tsx.intx; return 1;
	case F_ABRT: *v = pkt->u.tsx.abrt; return 1;
	case F_NBITS: *v = pkt->u.tnt.nbits; return 1;
	case F_PAYLOAD:
		*v = pkt->type == PKT_PTW ? pkt->u.ptw.payload : pkt->u.mnt;
		return 1;
	case F_GAP:
		if (!ctx)
			return 0;
		*v = ctx->gap;
		return ctx->gap_ok;
	default:
		return 0;
	}
}

static int cmp_holds(const struct cmp *c, uint64_t v, int gap_units)
{
	uint64_t lo = c->lo, hi = c->hi;

	if (gap_units && c->ns) {
		lo = c->tlo;
		hi = c->thi;
	}
	switch (c->op) {
	case OP_EQ: return v == lo;
	case OP_NE: return v != lo;
	case OP_LT: return v < lo;
	case OP_LE: return v <= lo;
	case OP_GT: return v > lo;
	case OP_GE: return v >= lo;
	case OP_RANGE: return v >= lo && v <= hi;
	}
	return 0;
}

static int bytes_match(const struct node *nd, const struct pkt *pkt,
		       const struct srch_ctx *ctx)
{
	uint8_t buf[PKT_MAX_SIZE * 4 + MAX_BYTES];
	size_t want, got, i;

	if (!ctx || !ctx->img || !pkt->size)
		return 0;
	want = (size_t)pkt->size - 1 + nd->nbytes;
	if (want > sizeof(buf))
		want = sizeof(buf);
	got = img_read(ctx->img, pkt->offset, buf, want);
	for (i = 0; i < pkt->size && i + nd->nbytes <= got; i++)
		if (!memcmp(buf + i, nd->bytes, nd->nbytes))
			return 1;
	return 0;
}

static int match_node(const struct srch_pred *p, int id, const struct pkt *pkt,
		      const struct srch_ctx *ctx)
{
	const struct node *nd = &p->nodes[id];
	int i;

	switch (nd->kind) {
	case N_AND:
		return match_node(p, nd->a, pkt, ctx) &&
		       match_node(p, nd->b, pkt, ctx);
	case N_OR:
		return match_node(p, nd->a, pkt, ctx) ||
		       match_node(p, nd->b, pkt, ctx);
	case N_NOT:
		return !match_node(p, nd->a, pkt, ctx);
	}
	if ((unsigned)pkt->type >= PKT_NTYPES || !(nd->types >> pkt->type & 1))
		return 0;
	for (i = 0; i < nd->ncmp; i++) {
		uint64_t v;

		if (!get_field((enum field)nd->cmp[i].field, pkt, ctx, &v))
			return 0;
		if (nd->cmp[i].ns && !p->calibrated)
			return 0;
		if (!cmp_holds(&nd->cmp[i], v, 1))
			return 0;
	}
	if (nd->nbytes && !bytes_match(nd, pkt, ctx))
		return 0;
	return 1;
}

int srch_match(const struct srch_pred *pred, const struct pkt *pkt,
	       const struct srch_ctx *ctx)
{
	if (!pred || !pkt || (unsigned)pkt->type >= PKT_NTYPES ||
	    !(pred->mask >> pkt->type & 1))
		return 0;
	return match_node(pred, pred->root, pkt, ctx);
}

/* Whether a CYC leaf's comparisons can hold for a CYC no larger than the
 * segment's largest (its summary's max_cyc). */
static int may_cyc(const struct node *nd, const struct idx_summary *sum)
{
	int i;

	for (i = 0; i < nd->ncmp; i++) {
		const struct cmp *c = &nd->cmp[i];

		if (c->field != F_CYC)
			continue;
		if (c->op == OP_GT && sum->max_cyc <= c->lo)
			return 0;
		if ((c->op == OP_GE || c->op == OP_EQ || c->op == OP_RANGE) &&
		    sum->max_cyc < c->lo)
			return 0;
	}
	return 1;
}

/* Whether a gap leaf's comparisons can hold for a gap no larger than the
 * segment's largest (its summary's max_gap, from the time pass). */
static int may_gap(const struct srch_pred *p, const struct node *nd,
		   const struct idx_summary *sum)
{
	int i;

	if (!sum->have_time)
		return 1;
	for (i = 0; i < nd->ncmp; i++) {
		const struct cmp *c = &nd->cmp[i];
		uint64_t lo = c->lo;

		if (c->field != F_GAP)
			continue;
		if (!sum->has_gap)
			return 0;	/* a gap compares only where there is one */
		if (c->ns) {
			if (!p->calibrated)
				continue;
			lo = c->tlo;
		}
		if (c->op == OP_GT && sum->max_gap <= lo)
			return 0;
		if ((c->op == OP_GE || c->op == OP_EQ || c->op == OP_RANGE) &&
		    sum->max_gap < lo)
			return 0;
	}
	return 1;
}

static int may_node(const struct srch_pred *p, int id,
		    const struct idx_summary *sum)
{
	const struct node *nd = &p->nodes[id];
	int t;

	switch (nd->kind) {
	case N_AND:
		return may_node(p, nd->a, sum) && may_node(p, nd->b, sum);
	case N_OR:
		return may_node(p, nd->a, sum) || may_node(p, nd->b, sum);
	case N_NOT:
		return 1;
	}
	/* "cyc > 100000": no CYC of the segment is that large. */
	if (nd->types == 1ull << PKT_CYC && !may_cyc(nd, sum))
		return 0;
	/* "gap > 100us": no gap of the segment is that long. */
	if (!may_gap(p, nd, sum))
		return 0;
	for (t = 0; t < PKT_NTYPES; t++) {
		if (!(nd->types >> t & 1))
			continue;
		if (t == PKT_INVALID) {	/* an error row: a gap's too */
			if (sum->nerrors || sum->ngaps)
				return 1;
		} else if (t == PKT_OVF) {
			if (sum->novf)
				return 1;
		} else if (sum->per_class[pkt_type_class((enum pkt_type)t)]) {
			return 1;
		}
	}
	return 0;
}

int srch_segment_may_match(const struct srch_pred *pred,
			   const struct idx_summary *sum)
{
	if (!pred || !sum)
		return 1;
	return may_node(pred, pred->root, sum);
}

/*
 * The scanner: every packet with an offset in [a, b) that matches, in
 * offset order, to a callback.
 */

struct scan {
	const struct srch_pred *pred;
	const struct img *img;
	struct idx *idx;
	atomic_int *cancel;		/* may be NULL */
	int skip, prefilter;
	int time_same;			/* the index's time model is ours */
	int (*hit)(void *arg, const struct pkt *pkt);	/* nonzero: stop */
	void *arg;
	void (*progress)(void *arg, uint64_t upto);	/* may be NULL */
};

static int canceled(const struct scan *sc)
{
	return sc->cancel && atomic_load_explicit(sc->cancel, memory_order_relaxed);
}

/* The last PSB at or before @off.  Returns 0 or -pte_nosync. */
static int psb_at_or_before(const struct scan *sc, uint64_t off, uint64_t *psb)
{
	if (sc->idx) {
		struct idx_progress pr;
		struct idx_seek sk;
		size_t i;

		idx_progress(sc->idx, &pr);
		if (pr.scanned > off && !idx_find(sc->idx, off, &i) &&
		    !idx_seek(sc->idx, i, &sk)) {
			*psb = sk.offset;
			return 0;
		}
	}
	if (off >= UINT64_MAX - 1)
		return -pte_nosync;
	return img_find_psb_before(sc->img, off + 1, psb);
}

/* The index of the seek point at exactly @off.  Returns 0 or -1. */
static int seek_at(struct idx *idx, uint64_t off, size_t *i)
{
	struct idx_seek sk;

	if (idx_find(idx, off, i) || idx_seek(idx, *i, &sk) || sk.offset != off)
		return -1;
	return 0;
}

/* Whether the segment starting with the PSB at @off cannot match; sets
 * *@next to the next seek point (UINT64_MAX: none). */
static int segment_skippable(const struct scan *sc, uint64_t off, uint64_t *next)
{
	struct idx_summary sum;
	struct idx_seek sk;
	size_t i;

	if (seek_at(sc->idx, off, &i) || idx_summary(sc->idx, i, &sum))
		return 0;
	if (sc->pred->history) {
		uint64_t t;

		/* Gaps carry across segments: skip only where the index
		 * says the time of the last timing packet (the one a gap
		 * after the skip counts from) and times as ours. */
		if (!sc->time_same || !sum.have_time ||
		    idx_last_timing(sc->idx, i, &t) == 1)
			return 0;
	} else {
		sum.have_time = 0;
	}
	if (srch_segment_may_match(sc->pred, &sum))
		return 0;
	if (i + 1 < idx_nseeks(sc->idx) && !idx_seek(sc->idx, i + 1, &sk))
		*next = sk.offset;
	else
		*next = UINT64_MAX;
	return 1;
}

/* Give @ctx's time model the index's state at the PSB at @psb, so times
 * are those of a decode from the start (when phase 2 got there). */
static void restore_carry(const struct scan *sc, uint64_t psb,
			  struct srch_ctx *ctx)
{
	struct tm_carry carry;
	size_t i;

	if (seek_at(sc->idx, psb, &i) || idx_seek_carry(sc->idx, i, &carry))
		return;
	tm_restore(&ctx->tm, &carry);
}

/* Decode-everything path. */
static int scan_decode(struct scan *sc, uint64_t a, uint64_t b)
{
	struct img_cursor cur;
	struct srch_ctx ctx;
	struct pkt pkt;
	uint64_t start, next, mark;
	int r, skip = sc->skip && sc->idx && (!sc->pred->history || sc->time_same);
	int skipped = 0;	/* the time model needs the index's state */

	if (psb_at_or_before(sc, a, &start)) {
		if (img_cursor_init(&cur, sc->img, a) ||
		    img_cursor_sync_forward(&cur, a))
			return 0;
		start = img_cursor_offset(&cur);
	} else if (sc->pred->history && start > 0) {
		uint64_t earlier;

		/* One segment earlier, for the packet before the first. */
		if (!psb_at_or_before(sc, start - 1, &earlier))
			start = earlier;
	}
	if (img_cursor_init(&cur, sc->img, start))
		return 0;
	srch_ctx_init(&ctx, sc->pred, sc->img);
	if (ctx.use_tm && sc->idx)
		restore_carry(sc, start, &ctx);
	mark = start;
	for (;;) {
		/* Within a span, the inline decoder; at its end, the cursor
		 * (which stitches packets across spans). */
		r = pkt_next(&cur.dec, &pkt);
		if (__builtin_expect(r == -pte_eos || r == -pte_truncated, 0))
			r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			break;
		if (pkt.offset >= b)
			break;
		if (pkt.offset - mark >= STEP_BYTES) {
			if (canceled(sc))
				return -pte_canceled;
			if (sc->progress)
				sc->progress(sc->arg, pkt.offset);
			mark = pkt.offset;
		}
		if (cur.gap) {
			cur.gap = 0;
			if (ctx.use_tm)
				tm_gap(&ctx.tm);
		}
		if (r >= 0 && pkt.type == PKT_PSB && skip &&
		    segment_skippable(sc, pkt.offset, &next)) {
			if (next >= b || img_cursor_init(&cur, sc->img, next))
				break;
			skipped = 1;
			continue;
		}
		if (skipped && ctx.use_tm && r >= 0 && pkt.type == PKT_PSB) {
			/* Where the skipped segments left the model, and the
			 * timing packet a gap counts from. */
			size_t i;
			uint64_t t;

			restore_carry(sc, pkt.offset, &ctx);
			if (!seek_at(sc->idx, pkt.offset, &i) && i > 0) {
				ctx.have_prev = !idx_last_timing(sc->idx, i - 1, &t);
				ctx.prev_time = ctx.have_prev ? t : 0;
			}
		}
		skipped = 0;
		/* Data lost right before a PSB is no error row (the window
		 * marks the PSB); nothing to match. */
		if (r == -pte_gap && pkt.offset == img_cursor_offset(&cur))
			continue;
		step(&ctx, &pkt);
		if (pkt.offset >= a && srch_match(sc->pred, &pkt, &ctx) &&
		    sc->hit(sc->arg, &pkt))
			return 1;
		/* after a gap the cursor is on the next PSB already */
		if (r < 0 && r != -pte_gap &&
		    img_cursor_sync_forward(&cur, pkt.offset + 1))
			break;
	}
	return 0;
}

static inline int pf_at(const struct prefilter *pf, const uint8_t *p)
{
	unsigned i;

	for (i = 0; i < pf->len; i++)
		if ((p[i] & pf->mask[i]) != pf->val[i])
			return 0;
	return 1;
}

/* The first q in [p, e) with the anchor at q, reading q[1] < lim. */
static const uint8_t *pf_anchor(const struct prefilter *pf, const uint8_t *p,
				const uint8_t *e, const uint8_t *lim)
{
	uint8_t m0 = pf->mask[pf->k], v0 = pf->val[pf->k];
	uint8_t m1 = pf->mask[pf->k + 1], v1 = pf->val[pf->k + 1];

#if defined(__SSE2__)
	const __m128i M0 = _mm_set1_epi8((char)m0), V0 = _mm_set1_epi8((char)v0);
	const __m128i M1 = _mm_set1_epi8((char)m1), V1 = _mm_set1_epi8((char)v1);

	while (p + 16 <= e && p + 17 <= lim) {
		__m128i x = _mm_loadu_si128((const __m128i *)p);
		__m128i y = _mm_loadu_si128((const __m128i *)(p + 1));
		unsigned k = (unsigned)_mm_movemask_epi8(_mm_and_si128(
			_mm_cmpeq_epi8(_mm_and_si128(x, M0), V0),
			_mm_cmpeq_epi8(_mm_and_si128(y, M1), V1)));

		if (k)
			return p + __builtin_ctz(k);
		p += 16;
	}
#endif
	for (; p < e && p + 1 < lim; p++)
		if ((p[0] & m0) == v0 && (p[1] & m1) == v1)
			return p;
	return NULL;
}

/* The first offset c in [lo, hi) where the prefilter matches, reading
 * across spans but not gaps.  Returns it or UINT64_MAX. */
static uint64_t pf_find(const struct scan *sc, uint64_t lo, uint64_t hi)
{
	const struct img *img = sc->img;
	const struct prefilter *pf = &sc->pred->pf;
	long si = img_span_of(img, lo);
	uint8_t buf[PF_MAX];

	if (si < 0)
		return UINT64_MAX;
	for (; (size_t)si < img->nspans; si++) {
		const struct img_span *s = &img->spans[si];
		uint64_t send = s->off + s->size;
		uint64_t c0 = lo > s->off ? lo : s->off;
		uint64_t c1 = hi < send ? hi : send;
		uint64_t cf = s->size >= pf->len ? send - pf->len + 1 : s->off;
		uint64_t c;

		if (c0 >= hi)
			break;
		if (cf > c1)
			cf = c1;
		if (c0 < cf) {
			const uint8_t *p = s->data + (c0 - s->off) + pf->k;
			const uint8_t *e = s->data + (cf - s->off) + pf->k;
			const uint8_t *q;

			while ((q = pf_anchor(pf, p, e, s->data + s->size))) {
				if (pf_at(pf, q - pf->k))
					return s->off + (uint64_t)(q - pf->k - s->data);
				p = q + 1;
			}
		}
		/* Patterns running into the next span. */
		for (c = c0 > cf ? c0 : cf; c < c1; c++)
			if (img_read(img, c, buf, pf->len) == pf->len &&
			    pf_at(pf, buf))
				return c;
	}
	return UINT64_MAX;
}

/* Prefilter path: decode only around candidates. */
static int scan_prefilter(struct scan *sc, uint64_t a, uint64_t b)
{
	struct img_cursor cur;
	struct srch_ctx ctx;
	struct pkt pkt;
	uint64_t pos = a, end = b + PF_SLACK, done = 0, curoff = 0, next;
	int have_cur = 0, r;

	if (end > sc->img->size || end < b)
		end = sc->img->size;
	while (pos < end) {
		uint64_t lim = pos + SCAN_PIECE < end ? pos + SCAN_PIECE : end;
		uint64_t c = pf_find(sc, pos, lim), p;

		if (canceled(sc))
			return -pte_canceled;
		if (c == UINT64_MAX) {
			pos = lim;
			if (sc->progress)
				sc->progress(sc->arg, pos);
			continue;
		}
		if (c < done) {
			pos = c + 1 > done ? c + 1 : done;
			continue;
		}
		if (!have_cur || c - curoff > PF_CONTINUE) {
			if (psb_at_or_before(sc, c, &p)) {
				pos = c + 1;
				continue;
			}
			if (!have_cur || p > curoff) {
				if (sc->skip && sc->idx &&
				    segment_skippable(sc, p, &next)) {
					pos = next > c + 1 ? next : c + 1;
					continue;
				}
				if (img_cursor_init(&cur, sc->img, p))
					return 0;
				srch_ctx_init(&ctx, sc->pred, sc->img);
				have_cur = 1;
			}
		}
		/* Decode up to and including the packet holding byte c. */
		for (;;) {
			r = img_cursor_next(&cur, &pkt);
			if (r == -pte_eos) {
				have_cur = 0;
				done = sc->img->size;
				break;
			}
			if (pkt.offset >= b)
				return 0;
			cur.gap = 0;
			step(&ctx, &pkt);
			if (pkt.offset >= a && srch_match(sc->pred, &pkt, &ctx) &&
			    sc->hit(sc->arg, &pkt))
				return 1;
			if (r < 0) {
				if (r != -pte_gap &&
				    img_cursor_sync_forward(&cur, pkt.offset + 1)) {
					have_cur = 0;
					done = sc->img->size;
					break;
				}
				done = img_cursor_offset(&cur);
				srch_ctx_init(&ctx, sc->pred, sc->img);
				if (done > c)
					break;
				continue;
			}
			done = pkt.offset + pkt.size;
			if (done > c)
				break;
		}
		curoff = img_cursor_offset(&cur);
		pos = c + 1 > done ? c + 1 : done;
	}
	return 0;
}

static int scan_range(struct scan *sc, uint64_t a, uint64_t b)
{
	if (a >= b)
		return 0;
	if (sc->prefilter && sc->pred->has_pf)
		return scan_prefilter(sc, a, b);
	return scan_decode(sc, a, b);
}

/*
 * The filter view's source.
 */

/* Whether @idx's time model (its carries, its gap summaries) runs with
 * @pred's configuration, so its times are the search's. */
static int time_same(const struct srch_pred *pred, const struct idx *idx)
{
	struct tm_config none;

	if (!idx)
		return 0;
	memset(&none, 0, sizeof(none));
	return !memcmp(pred->have_cfg ? &pred->cfg : &none, idx_config(idx),
		       sizeof(none));
}

static void filter_scan(struct scan *sc, const struct srch_pred *pred,
			const struct img *img, struct idx *idx)
{
	memset(sc, 0, sizeof(*sc));
	sc->pred = pred;
	sc->img = img;
	sc->idx = idx;
	sc->skip = 1;
	sc->prefilter = 1;
	sc->time_same = time_same(pred, idx);
}

int srch_filter_next(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, uint64_t budget,
		     struct pkt *hit, uint64_t *resume)
{
	size_t got;

	return srch_filter_fill(pred, img, idx, off, 1, budget, hit, 1, &got,
				resume);
}

int srch_filter_prev(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, uint64_t budget,
		     struct pkt *hit, uint64_t *resume)
{
	size_t got;

	return srch_filter_fill(pred, img, idx, off, -1, budget, hit, 1, &got,
				resume);
}

/* Hits of a fill: the first n going forward, the last n (a ring) going
 * backward. */
struct fill {
	struct pkt *out;
	size_t n, count;
	int ring;
};

static int fill_hit(void *arg, const struct pkt *pkt)
{
	struct fill *f = arg;

	if (f->ring) {
		f->out[f->count++ % f->n] = *pkt;
		return 0;
	}
	f->out[f->count++] = *pkt;
	return f->count == f->n;
}

int srch_filter_fill(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, int dir, uint64_t budget,
		     struct pkt *out, size_t n, size_t *got, uint64_t *resume)
{
	struct fill f = { .out = out, .n = n };
	struct scan sc;
	uint64_t a, b;
	size_t i, k;

	if (!pred || !img || !out || !got || !resume || !dir)
		return -pte_invalid;
	*got = 0;
	if (!n)
		return 0;
	if (!budget)
		budget = FILTER_BUDGET;
	filter_scan(&sc, pred, img, idx);
	sc.hit = fill_hit;
	sc.arg = &f;
	if (dir > 0) {
		if (off >= img->size)
			return -pte_eos;
		b = img->size - off > budget ? off + budget : img->size;
		if (b < img->size) {
			struct img_cursor cur;

			if (img_cursor_init(&cur, img, b) ||
			    img_cursor_sync_forward(&cur, b))
				b = img->size;
			else
				b = img_cursor_offset(&cur);
		}
		scan_range(&sc, off, b);
		*got = f.count;
		if (f.count == n) {
			*resume = out[n - 1].offset + 1;
			return 0;
		}
		if (b >= img->size)
			return -pte_eos;
		*resume = b;
		return 1;
	}
	if (off > img->size)
		off = img->size;
	if (!off)
		return -pte_eos;
	a = off > budget ? off - budget : 0;
	if (a && psb_at_or_before(&sc, a, &a))
		a = 0;
	f.ring = 1;
	scan_range(&sc, a, off);
	/* Nearest first: the ring's newest entry is at (count - 1) % n. */
	k = f.count < n ? f.count : n;
	if (k) {
		struct pkt *tmp = malloc(k * sizeof(*tmp));

		if (!tmp)
			return -pte_nomem;
		for (i = 0; i < k; i++)
			tmp[i] = out[(f.count - 1 - i) % n];
		memcpy(out, tmp, k * sizeof(*tmp));
		free(tmp);
	}
	*got = k;
	if (k == n) {
		*resume = out[n - 1].offset;
		return 0;
	}
	if (!a)
		return -pte_eos;
	*resume = a;
	return 1;
}

/*
 * The background search.  The range is cut into jobs ordered by distance
 * from the start in the search direction ("key": 1 is the nearest byte,
 * the start itself is the farthest, reached after wrapping).  Workers take
 * jobs in that order; hits go to a sorted array of the nearest max_hits.
 */

struct job {
	uint64_t a, b;		/* hits in [a, b) */
	uint64_t kmin;		/* the smallest key in the job */
	uint64_t rep;		/* progress reported up to */
};

struct srch {
	const struct img *img;
	struct idx *idx;
	struct srch_pred pred;
	struct srch_opts o;
	uint64_t from, size;
	int dir;

	struct job *jobs;
	size_t njobs;
	struct pool *pool;	/* runs the jobs */
	struct worker *workers;	/* one per pool thread */

	pthread_mutex_t lock;
	uint64_t *keys;		/* sorted, nkept of max_hits; under lock */
	uint64_t *tmp;		/* merge buffer */
	size_t nkept;
	int truncated;		/* hits beyond the kept ones were dropped */
	atomic_uint_fast64_t kmax;	/* the largest kept key once full */
	atomic_uint_fast64_t nhits;
	atomic_uint_fast64_t done;
	uint64_t total;

	atomic_int cancel;
};

/* Per-worker state. */
struct worker {
	struct srch *s;
	struct scan sc;
	struct job *job;
	uint64_t keys[LOCAL_HITS];
	size_t n;
	uint64_t count;
	int flushed_first;
	int dropped;		/* hits farther than every kept one */
};

static uint64_t key_of(const struct srch *s, uint64_t o)
{
	if (s->dir > 0)
		return o > s->from ? o - s->from : o + s->size - s->from;
	return o < s->from ? s->from - o : s->from + s->size - o;
}

static uint64_t off_of(const struct srch *s, uint64_t k)
{
	if (s->dir > 0)
		return s->from + k < s->size ? s->from + k : s->from + k - s->size;
	return k <= s->from ? s->from - k : s->from + s->size - k;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Merge the worker's hits into the kept set. */
static void flush(struct worker *w)
{
	struct srch *s = w->s;
	size_t i = 0, j = 0, n = 0, max = s->o.max_hits;

	atomic_fetch_add(&s->nhits, w->count);
	w->count = 0;
	if (!w->n && !w->dropped)
		return;
	qsort(w->keys, w->n, sizeof(w->keys[0]), cmp_u64);
	pthread_mutex_lock(&s->lock);
	if (w->dropped)
		s->truncated = 1;
	w->dropped = 0;
	while (n < max && (i < s->nkept || j < w->n)) {
		if (j >= w->n || (i < s->nkept && s->keys[i] <= w->keys[j]))
			s->tmp[n++] = s->keys[i++];
		else
			s->tmp[n++] = w->keys[j++];
	}
	if (i < s->nkept || j < w->n)
		s->truncated = 1;
	memcpy(s->keys, s->tmp, n * sizeof(s->keys[0]));
	s->nkept = n;
	if (n == max)
		atomic_store(&s->kmax, s->keys[n - 1]);
	pthread_mutex_unlock(&s->lock);
	w->n = 0;
}

static int worker_hit(void *arg, const struct pkt *pkt)
{
	struct worker *w = arg;
	uint64_t k = key_of(w->s, pkt->offset);

	w->count++;
	if (k > atomic_load_explicit(&w->s->kmax, memory_order_relaxed)) {
		/* Farther than every kept hit: counted, not kept. */
		w->dropped = 1;
		return 0;
	}
	w->keys[w->n++] = k;
	if (w->n == LOCAL_HITS || !w->flushed_first) {
		w->flushed_first = 1;
		flush(w);
	}
	return 0;
}

static void worker_progress(void *arg, uint64_t upto)
{
	struct worker *w = arg;
	struct job *j = w->job;

	if (upto > j->b)
		upto = j->b;
	if (upto > j->rep) {
		atomic_fetch_add(&w->s->done, upto - j->rep);
		j->rep = upto;
	}
}

/* One job, in the guard's frame. */
struct job_arg {
	struct scan *sc;
	const struct job *job;
};

static int job_body(void *arg)
{
	struct job_arg *ja = arg;

	return scan_range(ja->sc, ja->job->a, ja->job->b);
}

/* Run job @j on worker @wi (struct pool_cfg.run). */
static int job_run(void *ctx, unsigned wi, size_t j)
{
	struct srch *s = ctx;
	struct worker *w = &s->workers[wi];
	int rc;

	w->job = &s->jobs[j];
	w->job->rep = w->job->a;
	w->flushed_first = 0;
	if (s->o.guard) {
		struct job_arg ja = { &w->sc, w->job };

		rc = s->o.guard(job_body, &ja);
	} else {
		rc = scan_range(&w->sc, w->job->a, w->job->b);
	}
	flush(w);
	if (rc < 0)
		return rc;
	worker_progress(w, w->job->b);
	return 0;
}

/* Set worker @w of search @s up. */
static void worker_init(struct worker *w, struct srch *s)
{
	w->s = s;
	w->sc.pred = &s->pred;
	w->sc.img = s->img;
	w->sc.idx = s->idx;
	w->sc.cancel = &s->cancel;
	w->sc.skip = !s->o.no_skip;
	w->sc.prefilter = !s->o.no_prefilter;
	w->sc.time_same = time_same(&s->pred, s->idx);
	w->sc.hit = worker_hit;
	w->sc.progress = worker_progress;
	w->sc.arg = w;
}

/* Cut [lo, hi) into jobs in key order, growing from @*size. */
static int add_jobs(struct srch *s, uint64_t lo, uint64_t hi, uint64_t *size,
		    size_t *cap)
{
	while (lo < hi) {
		uint64_t n = hi - lo < *size ? hi - lo : *size;
		struct job *j;

		if (s->njobs == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct job *nj = realloc(s->jobs, nc * sizeof(*nj));

			if (!nj)
				return -pte_nomem;
			s->jobs = nj;
			*cap = nc;
		}
		j = &s->jobs[s->njobs++];
		if (s->dir > 0) {
			j->a = lo;
			j->b = lo + n;
			lo += n;
		} else {
			j->a = hi - n;
			j->b = hi;
			hi -= n;
		}
		j->kmin = key_of(s, s->dir > 0 ? j->a : j->b - 1);
		if (*size < s->o.job_size)
			*size = *size * 2 < s->o.job_size ? *size * 2 : s->o.job_size;
	}
	return 0;
}

/* The jobs of @s: from the start in the search direction to the end,
 * then (wrapping) the rest.  Returns 0 or -pte_nomem. */
static int plan_jobs(struct srch *s)
{
	uint64_t js = FIRST_JOB;
	size_t cap = 0, i;

	if (js > s->o.job_size)
		js = s->o.job_size;
	if (s->dir > 0) {
		if (s->from + 1 <= s->size &&
		    add_jobs(s, s->from + 1, s->size, &js, &cap))
			return -pte_nomem;
		if (!s->o.no_wrap &&
		    add_jobs(s, 0, s->from + 1 < s->size ? s->from + 1 : s->size,
			     &js, &cap))
			return -pte_nomem;
	} else {
		if (add_jobs(s, 0, s->from, &js, &cap))
			return -pte_nomem;
		if (!s->o.no_wrap && add_jobs(s, s->from, s->size, &js, &cap))
			return -pte_nomem;
	}
	for (i = 0; i < s->njobs; i++)
		s->total += s->jobs[i].b - s->jobs[i].a;
	return 0;
}

/* Free what srch_start_opts() made of @s (no pool running). */
static void srch_destroy(struct srch *s)
{
	free(s->workers);
	free(s->tmp);
	free(s->keys);
	free(s->jobs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int srch_start_opts(struct srch **out, const struct img *img,
		    struct idx *idx, const struct srch_pred *pred,
		    uint64_t from, int dir, const struct srch_opts *opts)
{
	struct pool_cfg cfg = { .run = job_run };
	struct srch *s;
	unsigned i;
	int rc;

	if (!out || !img || !pred || !dir)
		return -pte_invalid;
	if (pred->has_ns && !pred->calibrated)
		return -pte_no_calib;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -pte_nomem;
	s->img = img;
	s->idx = idx;
	s->pred = *pred;
	if (opts)
		s->o = *opts;
	if (!s->o.max_hits)
		s->o.max_hits = DEFAULT_HITS;
	if (!s->o.job_size)
		s->o.job_size = DEFAULT_JOB;
	s->o.nthreads = pool_threads(s->o.nthreads);
	s->size = img->size;
	s->dir = dir > 0 ? 1 : -1;
	/* Forward from past the end is forward from the last byte: every
	 * hit then lies after wrapping (and keys stay >= 1). */
	if (s->dir > 0)
		s->from = from < img->size ? from : img->size ? img->size - 1 : 0;
	else
		s->from = from < img->size ? from : img->size;
	atomic_init(&s->kmax, UINT64_MAX);
	atomic_init(&s->nhits, 0);
	atomic_init(&s->done, 0);
	atomic_init(&s->cancel, 0);
	pthread_mutex_init(&s->lock, NULL);
	rc = plan_jobs(s);
	s->keys = malloc(s->o.max_hits * sizeof(*s->keys));
	s->tmp = malloc(s->o.max_hits * sizeof(*s->tmp));
	s->workers = calloc(s->o.nthreads, sizeof(*s->workers));
	if (rc < 0 || !s->keys || !s->tmp || !s->workers) {
		srch_destroy(s);
		return -pte_nomem;
	}
	for (i = 0; i < s->o.nthreads; i++)
		worker_init(&s->workers[i], s);
	cfg.nthreads = s->o.nthreads;
	cfg.nunits = s->njobs;
	cfg.ctx = s;
	cfg.cancel = &s->cancel;
	rc = pool_start(&s->pool, &cfg);
	if (rc < 0) {
		srch_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

int srch_start(struct srch **out, const struct img *img, struct idx *idx,
	       const struct srch_pred *pred, uint64_t from, int dir)
{
	return srch_start_opts(out, img, idx, pred, from, dir, NULL);
}

void srch_cancel(struct srch *s)
{
	if (s)
		atomic_store(&s->cancel, 1);
}

/* Whether every job ran. */
static int all_done(const struct srch *s)
{
	return pool_done(s->pool) >= s->njobs;
}

int srch_wait(struct srch *s)
{
	if (!s)
		return -pte_invalid;
	return pool_wait(s->pool);
}

void srch_free(struct srch *s)
{
	if (!s)
		return;
	srch_cancel(s);
	pool_free(s->pool);
	srch_destroy(s);
}

/* The first key not yet known for certain; under lock. */
static uint64_t known_below(const struct srch *s)
{
	size_t fu = pool_done(s->pool);
	uint64_t k = fu >= s->njobs ? UINT64_MAX : s->jobs[fu].kmin;

	/* Beyond the farthest kept hit, dropped hits may lie. */
	if (s->truncated && s->nkept && s->keys[s->nkept - 1] < k)
		k = s->keys[s->nkept - 1] + 1;
	return k;
}

static int wrapped_key(const struct srch *s, uint64_t k)
{
	return s->dir > 0 ? k >= s->size - s->from : k > s->from;
}

void srch_status(struct srch *s, struct srch_status *st)
{
	memset(st, 0, sizeof(*st));
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	st->done = atomic_load(&s->done);
	st->total = s->total;
	st->nhits = atomic_load(&s->nhits);
	st->nkept = s->nkept;
	if (s->nkept) {
		uint64_t k = s->keys[0];
		size_t fu = pool_done(s->pool);
		int certain = k < known_below(s);

		/* Forward, a running job finds its hits nearest first, and
		 * flushes the first one at once. */
		if (!certain && s->dir > 0 && fu < s->njobs &&
		    fu + 1 < s->njobs && k < s->jobs[fu + 1].kmin)
			certain = 1;
		if (!certain && s->dir > 0 && fu < s->njobs && fu + 1 == s->njobs)
			certain = 1;
		if (certain) {
			st->have_first = 1;
			st->first = off_of(s, k);
			st->first_wrapped = wrapped_key(s, k);
		}
	}
	st->finished = pool_finished(s->pool, &st->status);
	pthread_mutex_unlock(&s->lock);
}

/* The index of the first kept key > @k. */
static size_t upper(const struct srch *s, uint64_t k)
{
	size_t lo = 0, hi = s->nkept;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->keys[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int srch_next_hit(struct srch *s, uint64_t off, int dir, uint64_t *hit,
		  int *wrapped)
{
	uint64_t kq, known, k;
	size_t i;
	int complete, rc = 1;

	if (!s || !hit || !dir)
		return -pte_invalid;
	pthread_mutex_lock(&s->lock);
	complete = all_done(s) && !s->truncated;
	known = known_below(s);
	if (complete && !s->nkept) {
		rc = -pte_eos;
		goto out;
	}
	/* Forward from the end is forward from the last byte (to the top). */
	if (off > s->size)
		off = s->size;
	if (dir > 0 && off == s->size && off)
		off--;
	/* A hit at the start has key size: the far end of the ring, which
	 * is also where the start lies (key 0) going on. */
	kq = key_of(s, off);
	if ((dir > 0) == (s->dir > 0)) {
		if (kq >= s->size)
			kq = 0;
		i = upper(s, kq);
		if (i < s->nkept && s->keys[i] < known) {
			k = s->keys[i];
		} else if (complete) {
			k = s->keys[0];
		} else {
			goto out;
		}
	} else {
		/* The largest key below kq, if nothing unknown lies between. */
		i = upper(s, kq ? kq - 1 : 0);
		if (kq && i > 0 && kq <= known) {
			k = s->keys[i - 1];
		} else if (complete) {
			k = s->keys[s->nkept - 1];
		} else {
			goto out;
		}
	}
	*hit = off_of(s, k);
	if (wrapped)
		*wrapped = dir > 0 ? *hit <= off : *hit >= off;
	rc = 0;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

size_t srch_hits(struct srch *s, uint64_t lo, uint64_t hi, uint64_t *out,
		 size_t n)
{
	size_t i, m = 0;

	if (!s || !out)
		return 0;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nkept && m < n; i++) {
		uint64_t o = off_of(s, s->keys[i]);

		if (o >= lo && o < hi)
			out[m++] = o;
	}
	pthread_mutex_unlock(&s->lock);
	qsort(out, m, sizeof(*out), cmp_u64);
	return m;
}
