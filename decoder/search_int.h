/*
 * search_int -- what the files of the search share: the compiled
 * predicate, the scanner's state, and the functions one file gives
 * another.  Not for callers outside decoder/search*.c: they use search.h.
 *
 *   search_parse.c  text -> predicate (a tree of nodes, its type mask and
 *                   prefilter bytes); the canonical form; time units
 *   search_match.c  the decoding context, a packet against a predicate,
 *                   a segment summary against a predicate
 *   search_scan.c   the scanner over [a, b) (the decode-everything and
 *                   the prefilter paths) and the filter view's source
 *   search.c        the background search: jobs on the pool, hits kept
 *                   nearest first, n/N
 *
 * search.c calls search_scan.c, which calls search_match.c; search_parse.c
 * stands apart (only srch_parse() makes a predicate).
 */
#ifndef SEARCH_INT_H
#define SEARCH_INT_H

#include <stdatomic.h>

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
/* What "bytes" looks in: every packet and every error row (its bytes up
 * to the next PSB, as the packet pane shows them), read ERR_CHUNK bytes
 * at a time. */
#define BYTES_TYPES	(ALL_TYPES | ERR_BIT)
#define ERR_CHUNK	4096
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
	/* The whole ticks in [lo, hi] ns (hi = lo but for a range): tlo
	 * rounded up, thi down, so tlo > thi if none.  >=, < read tlo; >,
	 * <= read thi; =, != and a range both (an empty one matches
	 * nothing). */
	uint64_t tlo, thi;
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

/* The scanner: every packet with an offset in [a, b) that matches, in
 * offset order, to a callback. */
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
	struct pkt_runs runs;		/* PSB searches without the index */
};

/* srch_step() where it has something to do: IPs and PSBs when IPs are
 * compared, everything when times are.  Other packets' ip_ok and gap_ok
 * are never read (no field of theirs needs them). */
static inline void srch_step_fast(struct srch_ctx *ctx, const struct pkt *pkt)
{
	if (ctx->use_tm ||
	    (ctx->need_ip && ((IP_TYPES | 1ull << PKT_PSB) >> pkt->type & 1)))
		srch_step(ctx, pkt);
}

/* Whether @idx's time model (its carries, its gap summaries) runs with
 * @pred's configuration, so its times are the search's. */
int srch_time_same(const struct srch_pred *pred, const struct idx *idx);

/* Scan [@a, @b) with @sc.  Returns 0 at the end, 1 if the hit callback
 * asked to stop, or -pte_canceled. */
int srch_scan_range(struct scan *sc, uint64_t a, uint64_t b);

#endif /* SEARCH_INT_H */
