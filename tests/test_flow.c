/*
 * test_flow -- the instruction flow decoder against libipt's instruction
 * decoder: hand-built packets over hand-built code (a conditional branch,
 * a compressed return, an interrupt's FUP + TIP, an overflow, errors), the
 * kAFL traces with their memory (../shared/traces/libxdc-kafl-flow), and
 * decoding from every PSB, which must give the tail of decoding from the
 * start; block windows hold their ordinary windows' instructions, runs
 * and cycles (kAFL, recorded programs with signals and longjmp).
 */
#include "../tools/ipt_compat.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "flow.h"
#include "image.h"
#include "memimg.h"

/* A growing text buffer. */
struct text {
	char *s;
	size_t len, cap;
};

static void addf(struct text *t, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = (t->len + (size_t)n + 1) * 2;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	memcpy(t->s + t->len, line, (size_t)n + 1);
	t->len += (size_t)n;
}

/* Code for both decoders: a memory image. */
static struct mi *code;

static int our_read(void *ctx, const struct flow_ctx *c, uint64_t ip,
		    uint8_t *buf, size_t size)
{
	(void)c;
	return mi_read(ctx, MI_ASID_ANY, ip, buf, size);
}

static int ipt_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	int n = mi_read(ctx, MI_ASID_ANY, ip, buf, size);

	(void)asid;
	return n < 0 ? -ipt_pte_nomap : n;
}

/* Whether an event is printed (cmd_flow.c and tools/iptflow.c agree). */
static int shown(const struct flow_rec *r)
{
	if (r->ev == FLOW_EV_EXEC_MODE)
		return 1;
	if (r->ev == FLOW_EV_CBR || r->ev == FLOW_EV_MNT)
		return 0;
	return !(r->flags & FLOW_F_STATUS);
}

/* flow_config.libipt for ours() (libipt's verdicts) */
static int libipt;

/* Our flow of @img from @from, as `flow --insn-only` prints it. */
static char *ours(const struct img *img, uint64_t from)
{
	struct flow_config cfg = { .img = img, .read = our_read, .read_ctx = code,
				   .libipt = libipt };
	struct text t = { 0 };
	struct flow_rec r;
	struct flow *f;
	char ev[128];

	assert_int_equal(flow_new(&f, &cfg), 0);
	assert_int_equal(flow_seek(f, from, UINT64_MAX), 0);
	addf(&t, "");
	while (!flow_next(f, &r)) {
		if (r.kind == FLOW_INSN)
			addf(&t, "%016" PRIx64 "\n", r.ip);
		else if (r.kind == FLOW_ERROR)
			addf(&t, "[%" PRIx64 ": error: %s]\n", r.offset, flow_strerror(r.err));
		else if (shown(&r))
			addf(&t, "[%s]\n", flow_event_str(&r, ev, sizeof(ev)));
	}
	flow_free(f);
	return t.s;
}

/* libipt's event as our record, to print it the same way. */
static void ipt_event(struct text *t, const struct pt_event *e)
{
	struct flow_rec r = { 0 };
	char buf[128];

	if (e->status_update)
		r.flags |= FLOW_F_STATUS;
	switch (e->type) {
	case ptev_enabled:
		r.ev = FLOW_EV_ENABLED;
		if (e->variant.enabled.resumed)
			r.flags |= FLOW_F_RESUMED;
		break;
	case ptev_disabled: r.ev = FLOW_EV_DISABLED; break;
	case ptev_async_disabled: r.ev = FLOW_EV_ASYNC_DISABLED; break;
	case ptev_async_branch: r.ev = FLOW_EV_ASYNC_BRANCH; break;
	case ptev_paging:
	case ptev_async_paging:
		r.ev = FLOW_EV_PAGING;
		r.a = e->variant.paging.cr3;
		r.b = e->variant.paging.non_root;
		break;
	case ptev_overflow: r.ev = FLOW_EV_OVERFLOW; break;
	case ptev_exec_mode:
		r.ev = FLOW_EV_EXEC_MODE;
		r.a = e->variant.exec_mode.mode == ptem_16bit ? FLOW_MODE_16 :
		      e->variant.exec_mode.mode == ptem_32bit ? FLOW_MODE_32 :
		      e->variant.exec_mode.mode == ptem_64bit ? FLOW_MODE_64 :
		      FLOW_MODE_UNKNOWN;
		break;
	case ptev_tsx:
		r.ev = FLOW_EV_TSX;
		if (e->variant.tsx.speculative)
			r.flags |= FLOW_F_SPEC;
		if (e->variant.tsx.aborted)
			r.flags |= FLOW_F_ABORT;
		break;
	case ptev_stop: r.ev = FLOW_EV_STOP; break;
	case ptev_vmcs:
	case ptev_async_vmcs:
		r.ev = FLOW_EV_VMCS;
		r.a = e->variant.vmcs.base;
		break;
	case ptev_exstop: r.ev = FLOW_EV_EXSTOP; break;
	case ptev_cbr: r.ev = FLOW_EV_CBR; break;
	case ptev_mnt: r.ev = FLOW_EV_MNT; break;
	case ptev_ptwrite:
		r.ev = FLOW_EV_PTWRITE;
		r.a = e->variant.ptwrite.payload;
		break;
	default:
		addf(t, "[libipt event %d]\n", (int)e->type);
		return;
	}
	if (shown(&r))
		addf(t, "[%s]\n", flow_event_str(&r, buf, sizeof(buf)));
}

/* libipt's flow of [@b, @b + @n), as tools/iptflow prints it. */
static char *theirs(const uint8_t *b, size_t n)
{
	struct text t = { 0 };
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	struct pt_image *image;
	uint64_t sync = 0, off;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)b;
	cfg.end = (uint8_t *)b + n;
	d = pt_insn_alloc_decoder(&cfg);
	assert_non_null(d);
	image = pt_insn_get_image(d);
	pt_image_set_callback(image, ipt_read, code);
	addf(&t, "");
	for (;;) {
		struct pt_insn insn;
		int st = pt_insn_sync_forward(d);

		if (st < 0) {
			uint64_t ns;

			if (st == -ipt_pte_eos)
				break;
			pt_insn_get_offset(d, &off);
			addf(&t, "[%" PRIx64 ": error: %s]\n", off, pt_errstr(pt_errcode(st)));
			if (pt_insn_get_offset(d, &ns) < 0 || ns <= sync)
				break;
			sync = ns;
			continue;
		}
		for (;;) {
			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event e;

				st = pt_insn_event(d, &e, sizeof(e));
				if (st >= 0)
					ipt_event(&t, &e);
			}
			if (st < 0)
				break;
			if (st & pts_eos) {
				st = -ipt_pte_eos;
				break;
			}
			memset(&insn, 0, sizeof(insn));
			st = pt_insn_next(d, &insn, sizeof(insn));
			if (st < 0) {
				if (insn.iclass != ptic_error)
					addf(&t, "%016" PRIx64 "\n", insn.ip);
				break;
			}
			addf(&t, "%016" PRIx64 "\n", insn.ip);
		}
		if (st == -ipt_pte_eos)
			break;
		pt_insn_get_offset(d, &off);
		addf(&t, "[%" PRIx64 ": error: %s]\n", off, pt_errstr(pt_errcode(st)));
	}
	pt_insn_free_decoder(d);
	return t.s;
}

/*
 * Hand-built traces
 */

struct pbuf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct pbuf *p, const void *bytes, size_t n)
{
	memcpy(p->b + p->n, bytes, n);
	p->n += n;
}

static void put_psb(struct pbuf *p, uint64_t fup, int mode64)
{
	static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	static const uint8_t exec64[] = { 0x99, 0x01 }, exec32[] = { 0x99, 0x02 };
	static const uint8_t psbend[] = { 0x02, 0x23 };

	put(p, psb, sizeof(psb));
	put(p, mode64 ? exec64 : exec32, 2);
	if (fup) {
		uint8_t f[9] = { 0xdd };

		memcpy(f + 1, &fup, 8);
		put(p, f, sizeof(f));
	}
	put(p, psbend, sizeof(psbend));
}

/* An IP packet with a full IP: @opc is 0x0d tip, 0x11 pge, 0x01 pgd, 0x1d fup. */
static void put_ip(struct pbuf *p, uint8_t opc, uint64_t ip)
{
	uint8_t b[9] = { (uint8_t)(0xc0 | opc) };

	memcpy(b + 1, &ip, 8);
	put(p, b, sizeof(b));
}

static void put_byte(struct pbuf *p, uint8_t b)
{
	put(p, &b, 1);
}

static void code_at(uint64_t addr, const uint8_t *bytes, size_t n)
{
	assert_int_equal(mi_add(code, MI_ASID_ANY, addr, bytes, n, "code"), 0);
}

static int setup(void **state)
{
	(void)state;
	return mi_new(&code);
}

static int teardown(void **state)
{
	(void)state;
	mi_free(code);
	code = NULL;
	return 0;
}

/* Decode @p with both decoders; they must agree and give @want. */
static void check(const struct pbuf *p, const char *want)
{
	struct img img;
	struct img_span span;
	char *a, *b;

	img_init_flat(&img, &span, p->b, p->n);
	a = ours(&img, 0);
	b = theirs(p->b, p->n);
	if (strcmp(a, b))
		fprintf(stderr, "ours:\n%s\nlibipt:\n%s\n", a, b);
	assert_string_equal(a, b);
	if (want)
		assert_string_equal(a, want);
	free(a);
	free(b);
}

static const uint8_t jmp_rax[] = { 0xff, 0xe0 };

static void test_tnt_cond(void **state)
{
	static const uint8_t c[] = { 0x74, 0x01, 0x90, 0x90, 0xff, 0xe0 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x06);		/* tnt.8: taken */
	put_ip(&p, 0x01, 0x2000);	/* tip.pgd at the jmp rax */
	put_byte(&p, 0);
	check(&p, "[exec mode: 64-bit]\n0000000000001000\n0000000000001003\n"
		  "0000000000001004\n[disabled]\n");
}

static void test_not_taken(void **state)
{
	static const uint8_t c[] = { 0x74, 0x01, 0x90, 0x90, 0xff, 0xe0 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x04);		/* tnt.8: not taken */
	put_ip(&p, 0x01, 0x2000);
	check(&p, "[exec mode: 64-bit]\n0000000000001000\n0000000000001002\n"
		  "0000000000001003\n0000000000001004\n[disabled]\n");
}

static void test_compressed_ret(void **state)
{
	/* call 0x1008; nop; jmp rax; ret */
	static const uint8_t c[] = { 0xe8, 0x03, 0, 0, 0, 0x90, 0xff, 0xe0, 0xc3 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x06);		/* the ret, compressed */
	put_ip(&p, 0x01, 0x2000);
	check(&p, "[exec mode: 64-bit]\n0000000000001000\n0000000000001008\n"
		  "0000000000001005\n0000000000001006\n[disabled]\n");
}

static void test_uncompressed_ret(void **state)
{
	static const uint8_t c[] = { 0xe8, 0x03, 0, 0, 0, 0x90, 0xff, 0xe0, 0xc3 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_ip(&p, 0x0d, 0x1005);	/* the ret by tip */
	put_ip(&p, 0x01, 0x2000);
	check(&p, NULL);
}

static void test_retstack_empty(void **state)
{
	static const uint8_t c[] = { 0xc3 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x06);		/* a compressed ret without a call */
	check(&p, NULL);
}

/* A PSB read ahead while a TNT bit from before it is cached empties the
 * call stack once that bit is taken, not at the next query: the direct
 * call after the PSB (its FUP's IP) was forgotten, and its compressed
 * return said "compressed return without call". */
static void test_retstack_psb(void **state)
{
	/* test; jz +0; call 0x1010; jmp rax; 5 nops; test; jz +0; ret */
	static const uint8_t c[] = { 0x85, 0xc0, 0x74, 0x00, 0xe8, 0x07, 0, 0, 0,
				     0xff, 0xe0, 0x90, 0x90, 0x90, 0x90, 0x90,
				     0x85, 0xc0, 0x74, 0x00, 0xc3 };
	static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	static const uint8_t tsc[8] = { 0x19 };
	static const uint8_t psbend[] = { 0x02, 0x23 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x06);		/* the first jz: taken */
	put(&p, psb, sizeof(psb));	/* a PSB+ with no status event */
	put(&p, tsc, sizeof(tsc));
	put_ip(&p, 0x1d, 0x1004);	/* at the call */
	put(&p, psbend, sizeof(psbend));
	put_byte(&p, 0x0e);		/* the second jz and the ret */
	put_ip(&p, 0x01, 0x2000);
	check(&p, "[exec mode: 64-bit]\n0000000000001000\n0000000000001002\n"
		  "0000000000001004\n0000000000001010\n0000000000001012\n"
		  "0000000000001014\n0000000000001009\n[disabled]\n");
}

static void test_far_fup_tip(void **state)
{
	static const uint8_t c[] = { 0x90, 0x90, 0x90, 0x90 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	code_at(0x3000, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0x1000, 1);
	put_ip(&p, 0x1d, 0x1002);	/* interrupted at 0x1002 */
	put_ip(&p, 0x0d, 0x3000);	/* to the handler */
	put_ip(&p, 0x01, 0x2000);
	check(&p, "[exec mode: 64-bit]\n0000000000001000\n0000000000001001\n"
		  "[interrupt]\n0000000000003000\n[disabled]\n");
}

static void test_ovf(void **state)
{
	static const uint8_t c[] = { 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t ovf[] = { 0x02, 0xf3 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	code_at(0x3000, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0x1000, 1);
	put(&p, ovf, sizeof(ovf));
	put_ip(&p, 0x1d, 0x3000);	/* resumed here, tracing on */
	put_ip(&p, 0x01, 0x2000);
	check(&p, NULL);
}

static void test_ovf_disabled(void **state)
{
	static const uint8_t ovf[] = { 0x02, 0xf3 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x3000, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0, 1);
	put(&p, ovf, sizeof(ovf));
	put_ip(&p, 0x11, 0x3000);	/* tip.pge after the overflow */
	put_ip(&p, 0x01, 0x2000);
	check(&p, NULL);
}

static void test_pge_pgd_resume(void **state)
{
	/* jmp 0x2000 at 0x1000: tracing stops there and resumes there */
	static const uint8_t c[] = { 0xe9, 0xfb, 0x0f, 0, 0 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	code_at(0x2000, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0, 1);
	put_ip(&p, 0x11, 0x1000);	/* enabled */
	put_ip(&p, 0x01, 0x2000);	/* disabled at the jmp, to 0x2000 */
	put_ip(&p, 0x11, 0x2000);	/* resumed there */
	put_ip(&p, 0x01, 0x4000);
	check(&p, "[exec mode: 64-bit]\n[enabled]\n0000000000001000\n[disabled]\n"
		  "[resumed]\n0000000000002000\n[disabled]\n");
}

static void test_pge_elsewhere(void **state)
{
	/* the tip.pgd gives no IP for the indirect jump: not a resume */
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, jmp_rax, sizeof(jmp_rax));
	code_at(0x2000, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0, 1);
	put_ip(&p, 0x11, 0x1000);
	put_ip(&p, 0x01, 0x2000);
	put_ip(&p, 0x11, 0x2000);
	put_ip(&p, 0x01, 0x4000);
	check(&p, "[exec mode: 64-bit]\n[enabled]\n0000000000001000\n[disabled]\n"
		  "[enabled]\n0000000000002000\n[disabled]\n");
}

/* An event only a CPU tracing sends (an interrupt's FUP and TIP, a
 * MODE.TSX or an EXSTOP with its FUP) at the PSB's IP before any
 * instruction: a TIP.PGE after it is "unexpected packet context", as
 * libipt has it, not KVM-PT's restated enable (flow.c: i_enable()), which
 * skipped the handler with no error. */
static void test_pge_after_event(void **state)
{
	static const uint8_t tsx[] = { 0x99, 0x21 }, exstop[] = { 0x02, 0xe2 };
	uint8_t c[82];
	struct pbuf p;
	int k;

	(void)state;
	memset(c, 0x90, sizeof(c));
	memcpy(c + 64, jmp_rax, sizeof(jmp_rax));
	code_at(0x7000, c, sizeof(c));
	for (k = 0; k < 3; k++) {
		p.n = 0;
		put_psb(&p, 0x7000, 1);
		if (k == 1)
			put(&p, tsx, sizeof(tsx));
		if (k == 2)
			put(&p, exstop, sizeof(exstop));
		put_ip(&p, 0x1d, 0x7000);
		if (k == 0)
			put_ip(&p, 0x0d, 0x7010);	/* to the handler */
		put_ip(&p, 0x11, 0x7020);
		put_ip(&p, 0x0d, 0x7000);
		check(&p, NULL);
	}
}

static void test_tnt_without_branch(void **state)
{
	static const uint8_t c[] = { 0x90, 0x90, 0xff, 0xe0 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x06);		/* a tnt where a tip is due */
	put_ip(&p, 0x0d, 0x1000);
	check(&p, NULL);
}

static void test_nomap(void **state)
{
	struct pbuf p = { .n = 0 };

	(void)state;
	put_psb(&p, 0x9000, 1);		/* no code there */
	put_byte(&p, 0x06);
	put_psb(&p, 0x9000, 1);
	check(&p, NULL);
}

static void test_mode32(void **state)
{
	/* jmp rel32 to 0x1010, then jmp eax */
	static const uint8_t c[] = { 0xe9, 0x0b, 0, 0, 0 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	code_at(0x1010, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0x1000, 0);
	put_ip(&p, 0x01, 0x2000);
	check(&p, "[exec mode: 32-bit]\n0000000000001000\n0000000000001010\n"
		  "[disabled]\n");
}

/* A MODE.EXEC taking effect in the middle of a cached block: the rest is
 * decoded again in the new mode (48 is a REX prefix in 64-bit mode, an
 * instruction of its own in 32-bit mode). */
static void test_mode_mid_block(void **state)
{
	static const uint8_t c[] = { 0x90, 0x48, 0x89, 0xc3, 0xff, 0xe0 };
	static const uint8_t exec32[] = { 0x99, 0x02 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put(&p, exec32, sizeof(exec32));	/* binds to the tip's IP */
	put_ip(&p, 0x0d, 0x1001);
	put_ip(&p, 0x01, 0x3000);
	check(&p, "[exec mode: 64-bit]\n0000000000001000\n[exec mode: 32-bit]\n"
		  "0000000000001001\n0000000000001002\n0000000000001004\n"
		  "0000000000001001\n0000000000001002\n0000000000001004\n[disabled]\n");
}

/* A PSB+ that fails at offset 0 (a TNT in it): decoding goes on at the
 * next PSB, as after any other sync error.  libipt's ptxed loop stops
 * there (its "no progress" check counts from offset 0), so we say more. */
static void test_sync_error_at_start(void **state)
{
	static const uint8_t c[] = { 0x90, 0xff, 0xe0 };
	static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	struct img img;
	struct img_span span;
	struct pbuf p = { .n = 0 };
	char *a;

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put(&p, psb, sizeof(psb));
	put_byte(&p, 0x06);		/* a TNT inside PSB+ */
	put_byte(&p, 0x02);
	put_byte(&p, 0x23);		/* psbend */
	while (p.n % 8)
		put_byte(&p, 0);
	put_psb(&p, 0x1000, 1);
	put_ip(&p, 0x01, 0x2000);
	img_init_flat(&img, &span, p.b, p.n);
	a = ours(&img, 0);
	assert_string_equal(a, "[0: error: unexpected packet context]\n"
			    "[exec mode: 64-bit]\n0000000000001000\n"
			    "0000000000001001\n[disabled]\n");
	free(a);
}

/* Code looping with no packet (jmp $, and a TIP.PGD with no IP that binds
 * to no instruction of it): libipt follows it forever, and a window of
 * it grew until the memory ran out.  We stop after FLOW_SPIN_MAX
 * instructions with an error, and go on at the next PSB (none here). */
static void test_spin(void **state)
{
	static const uint8_t c[] = { 0x90, 0xeb, 0xfe };
	struct flow_config cfg = { .read = our_read, .read_ctx = code };
	struct flow_wopts bo = { .blocks = 1 };
	struct flow_window w = { 0 };
	struct pbuf p = { .n = 0 };
	struct img img;
	struct img_span span;
	struct flow_rec r;
	struct flow *f;
	size_t n = 0, i;

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x01);		/* tip.pgd, no IP */
	img_init_flat(&img, &span, p.b, p.n);
	cfg.img = &img;
	assert_int_equal(flow_new(&f, &cfg), 0);
	assert_int_equal(flow_seek(f, 0, UINT64_MAX), 0);
	while (!flow_next(f, &r) && r.kind != FLOW_ERROR)
		n += r.kind == FLOW_INSN;
	assert_int_equal(r.kind, FLOW_ERROR);
	assert_int_equal(r.err, -FLOW_E_SPIN);
	assert_int_equal(r.ip, 0x1001);
	assert_int_equal(n, FLOW_SPIN_MAX);
	assert_int_equal(flow_next(f, &r), -FLOW_E_EOS);
	assert_non_null(strstr(flow_strerror(FLOW_E_SPIN), "1048576 instructions"));
	/* a block window, as the call tree decodes: bounded */
	assert_int_equal(flow_window(f, 0, UINT64_MAX, &bo, &w), 0);
	for (i = 0, n = 0; i < w.nlines; i++)
		n += w.lines[i].ninsns;
	assert_int_equal(n, FLOW_SPIN_MAX);
	assert_int_equal(w.lines[w.nlines - 1].r.kind, FLOW_ERROR);
	flow_window_free(&w);
	flow_free(f);
}

/* XBEGIN and XEND are no branches for Intel PT (no TNT): Zydis files them
 * with the conditional jumps, which made every transaction desynchronise
 * the flow and end it at the XEND. */
static void test_tsx(void **state)
{
	/* xbegin 0x1020; mov eax, 1; xend; test eax, eax; jz +2; nop; nop;
	 * jmp rax */
	static const uint8_t c[] = { 0xc7, 0xf8, 0x1a, 0, 0, 0, 0xb8, 1, 0, 0, 0,
				     0x0f, 0x01, 0xd5, 0x85, 0xc0, 0x74, 0x02,
				     0x90, 0x90, 0xff, 0xe0 };
	static const uint8_t tsx_in[] = { 0x99, 0x21 }, tsx_out[] = { 0x99, 0x20 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put(&p, tsx_in, sizeof(tsx_in));
	put_ip(&p, 0x1d, 0x1000);	/* the transaction begins at the xbegin */
	put(&p, tsx_out, sizeof(tsx_out));
	put_ip(&p, 0x1d, 0x100b);	/* and commits at the xend */
	put_byte(&p, 0x04);		/* the jz: not taken */
	put_ip(&p, 0x01, 0x2000);
	check(&p, "[exec mode: 64-bit]\n[begin transaction]\n0000000000001000\n"
		  "0000000000001006\n[committed]\n000000000000100b\n"
		  "000000000000100e\n0000000000001010\n0000000000001012\n"
		  "0000000000001013\n0000000000001014\n[disabled]\n");
}

/* UIRET is a far transfer for libipt (a TIP gives its target, a PIP binds
 * to it), not an ordinary instruction. */
static void test_uiret(void **state)
{
	static const uint8_t c[] = { 0xf3, 0x0f, 0x01, 0xec, 0x90, 0xff, 0xe0 };
	static const uint8_t pip[] = { 0x02, 0x43, 0, 0x20, 0, 0, 0, 0 };
	struct pbuf p = { .n = 0 };

	(void)state;
	code_at(0x1000, c, sizeof(c));
	code_at(0x2000, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0x1000, 1);
	put(&p, pip, sizeof(pip));	/* binds to the uiret */
	put_ip(&p, 0x0d, 0x2000);	/* its target */
	put_ip(&p, 0x01, 0x3000);
	check(&p, "[exec mode: 64-bit]\n0000000000001000\n"
		  "[paging, cr3: 0000000000020000]\n0000000000002000\n[disabled]\n");
}

/* Two processes with other code at one address: the caller's address
 * space changes at the second enable (as sideband says), and the block
 * cache must not hand out the first process's block. */
static uint64_t switch_at;

static uint64_t two_asid(void *ctx, const struct flow_ctx *c)
{
	(void)ctx;
	return c->offset >= switch_at ? 2 : 1;
}

static int two_read(void *ctx, const struct flow_ctx *c, uint64_t ip,
		    uint8_t *buf, size_t size)
{
	return mi_read(ctx, two_asid(ctx, c), ip, buf, size);
}

static void test_asid_switch(void **state)
{
	static const uint8_t a[] = { 0xff, 0xe0 }, b[] = { 0x90, 0x90, 0xff, 0xe0 };
	struct flow_config cfg = { .read = two_read, .read_ctx = NULL, .asid = two_asid };
	struct pbuf p = { .n = 0 };
	struct img img;
	struct img_span span;
	struct flow_rec r;
	struct flow *f;
	uint64_t ips[8];
	int n = 0;

	(void)state;
	assert_int_equal(mi_add(code, 1, 0x1000, a, sizeof(a), "a"), 0);
	assert_int_equal(mi_add(code, 2, 0x1000, b, sizeof(b), "b"), 0);
	put_psb(&p, 0, 1);
	put_ip(&p, 0x11, 0x1000);
	put_ip(&p, 0x01, 0x2000);
	switch_at = p.n;
	put_ip(&p, 0x11, 0x1000);	/* the other process now */
	put_ip(&p, 0x01, 0x2000);
	img_init_flat(&img, &span, p.b, p.n);
	cfg.img = &img;
	cfg.read_ctx = code;
	assert_int_equal(flow_new(&f, &cfg), 0);
	assert_int_equal(flow_seek(f, 0, UINT64_MAX), 0);
	while (!flow_next(f, &r))
		if (r.kind == FLOW_INSN && n < 8)
			ips[n++] = r.ip;
		else
			assert_int_not_equal(r.kind, FLOW_ERROR);
	assert_int_equal(n, 4);
	assert_true(ips[0] == 0x1000 && ips[1] == 0x1000 && ips[2] == 0x1001 &&
		    ips[3] == 0x1002);
	flow_free(f);
}

/* One process's code at 0x1000 replaced between two TIPs of one stretch
 * (a mmap over it, a library opened again at its address: with the kernel
 * traced no TIP.PGD/PGE comes between): the block read before must not
 * stand for the new code, and each record says which space its code came
 * from (fails before: the jmp cached in space 1 ran again). */
static void test_asid_remap(void **state)
{
	static const uint8_t a[] = { 0xff, 0xe0 }, b[] = { 0x90, 0x90, 0xff, 0xe0 };
	struct flow_config cfg = { .read = two_read, .read_ctx = NULL, .asid = two_asid };
	struct pbuf p = { .n = 0 };
	struct img img;
	struct img_span span;
	struct flow_rec r;
	struct flow *f;
	uint64_t ips[8], asids[8];
	int n = 0;

	(void)state;
	assert_int_equal(mi_add(code, 1, 0x1000, a, sizeof(a), "a"), 0);
	assert_int_equal(mi_add(code, 2, 0x1000, b, sizeof(b), "b"), 0);
	put_psb(&p, 0, 1);
	put_ip(&p, 0x11, 0x1000);
	put_ip(&p, 0x0d, 0x1000);	/* the jmp again, in space 1 */
	switch_at = p.n;
	put_ip(&p, 0x0d, 0x1000);	/* the new code from here */
	put_ip(&p, 0x01, 0x2000);
	img_init_flat(&img, &span, p.b, p.n);
	cfg.img = &img;
	cfg.read_ctx = code;
	assert_int_equal(flow_new(&f, &cfg), 0);
	assert_int_equal(flow_seek(f, 0, UINT64_MAX), 0);
	while (!flow_next(f, &r))
		if (r.kind == FLOW_INSN && n < 8) {
			ips[n] = r.ip;
			asids[n++] = r.asid;
		} else {
			assert_int_not_equal(r.kind, FLOW_ERROR);
		}
	assert_int_equal(n, 5);
	assert_true(ips[0] == 0x1000 && ips[1] == 0x1000 && ips[2] == 0x1000 &&
		    ips[3] == 0x1001 && ips[4] == 0x1002);
	assert_true(asids[0] == 1 && asids[1] == 1 && asids[2] == 2 &&
		    asids[3] == 2 && asids[4] == 2);
	flow_free(f);
}

static void test_null(void **state)
{
	struct flow_config cfg = { 0 };
	struct flow *f = NULL;
	struct flow_rec r;

	(void)state;
	assert_int_equal(flow_new(NULL, &cfg), -FLOW_E_INVALID);
	assert_int_equal(flow_new(&f, &cfg), -FLOW_E_INVALID);
	assert_int_equal(flow_next(NULL, &r), -FLOW_E_INVALID);
	flow_free(NULL);
	assert_string_equal(flow_strerror(-FLOW_E_NOMAP),
			    "no memory mapped at this address");
	assert_string_equal(flow_strerror(12345), "unknown error");
}

/* Our messages are libipt's. */
static void test_messages(void **state)
{
	static const struct { int ours, theirs; } m[] = {
		{ FLOW_E_INTERNAL, ipt_pte_internal }, { FLOW_E_NOSYNC, ipt_pte_nosync },
		{ FLOW_E_BAD_OPC, ipt_pte_bad_opc }, { FLOW_E_BAD_PACKET, ipt_pte_bad_packet },
		{ FLOW_E_BAD_CONTEXT, ipt_pte_bad_context }, { FLOW_E_EOS, ipt_pte_eos },
		{ FLOW_E_BAD_QUERY, ipt_pte_bad_query }, { FLOW_E_NOMEM, ipt_pte_nomem },
		{ FLOW_E_NOIP, ipt_pte_noip }, { FLOW_E_IP_SUPPRESSED, ipt_pte_ip_suppressed },
		{ FLOW_E_NOMAP, ipt_pte_nomap }, { FLOW_E_BAD_INSN, ipt_pte_bad_insn },
		{ FLOW_E_RETSTACK_EMPTY, ipt_pte_retstack_empty },
		{ FLOW_E_BAD_RETCOMP, ipt_pte_bad_retcomp },
		{ FLOW_E_BAD_STATUS_UPDATE, ipt_pte_bad_status_update },
		{ FLOW_E_NO_ENABLE, ipt_pte_no_enable },
		{ FLOW_E_EVENT_IGNORED, ipt_pte_event_ignored },
		{ FLOW_E_INVALID, ipt_pte_invalid },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		assert_string_equal(flow_strerror(-m[i].ours), pt_errstr(m[i].theirs));
}

/*
 * Windows (flow_window())
 */

static struct flow *flow_of(const struct img *img)
{
	struct flow_config cfg = { .img = img, .read = our_read, .read_ctx = code };
	struct flow *f;

	assert_int_equal(flow_new(&f, &cfg), 0);
	return f;
}

static void assert_cyc(const struct flow_cyc *c, uint8_t flags, uint64_t lo, uint64_t hi)
{
	if (c->flags != flags || ((flags & FLOW_C_KNOWN) && c->lo != lo) ||
	    ((flags & FLOW_C_HI) && c->hi != hi))
		fprintf(stderr, "cycles: flags %u [%" PRIu64 ", %" PRIu64 "], wanted "
			"%u [%" PRIu64 ", %" PRIu64 "]\n", c->flags, c->lo, c->hi,
			flags, lo, hi);
	assert_int_equal(c->flags, flags);
	if (flags & FLOW_C_KNOWN)
		assert_int_equal(c->lo, lo);
	if (flags & FLOW_C_HI)
		assert_int_equal(c->hi, hi);
}

/* A jmp rax taken four times: runs with exact, bounded and unknown cycles. */
static void build_cyc(struct pbuf *p)
{
	code_at(0x1000, jmp_rax, sizeof(jmp_rax));
	put_psb(p, 0x1000, 1);
	put_byte(p, 0x1b);		/* cyc 3 */
	put_ip(p, 0x0d, 0x1000);	/* tip: at 3, exact */
	put_ip(p, 0x0d, 0x1000);	/* tip: no cyc, in [3, 7] */
	put_byte(p, 0x23);		/* cyc 4 */
	put_ip(p, 0x0d, 0x1000);	/* tip: at 7, exact */
	put_byte(p, 0x2b);		/* cyc 5 */
	put_ip(p, 0x01, 0x2000);	/* tip.pgd at the jmp: at 12, exact */
}

static void test_window_cycles(void **state)
{
	const uint8_t K = FLOW_C_KNOWN, H = FLOW_C_HI, X = FLOW_C_EXACT;
	struct pbuf p = { .n = 0 };
	struct flow_window w = { 0 };
	struct img img;
	struct img_span span;
	struct flow *f;
	size_t i;

	(void)state;
	build_cyc(&p);
	img_init_flat(&img, &span, p.b, p.n);
	f = flow_of(&img);
	assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &w), 0);
	assert_int_equal(w.psb, 0);
	assert_false(w.truncated);
	/* [exec mode], four jmps, [disabled] */
	assert_int_equal(w.nlines, 6);
	assert_int_equal(w.nruns, 4);
	for (i = 0; i < 4; i++) {
		const struct flow_line *l = &w.lines[1 + i];

		assert_int_equal(l->r.kind, FLOW_INSN);
		assert_int_equal(l->run, i);
		assert_int_equal(l->depth, 0);
		assert_int_equal(w.runs[i].first, 1 + i);
		assert_int_equal(w.runs[i].nlines, 1);
		assert_int_equal(w.runs[i].ninsns, 1);
		assert_int_equal(w.runs[i].offset, l->r.offset);
		if (i < 3)
			assert_int_equal(w.runs[i].end_offset, w.lines[2 + i].r.offset);
	}
	assert_int_equal(w.lines[0].run, UINT32_MAX);
	assert_int_equal(w.lines[5].r.ev, FLOW_EV_DISABLED);
	/* from a packet to its lines: the second TIP decided the third jmp */
	assert_int_equal(flow_window_line_at(&w, w.runs[2].offset), 3);
	assert_int_equal(flow_window_line_at(&w, w.runs[2].offset - 1), 3);
	assert_int_equal(flow_window_line_at(&w, UINT64_MAX), w.nlines);
	assert_int_equal(flow_window_line_at(NULL, 0), 0);
	assert_int_equal(w.runs[3].end_offset, w.lines[5].r.offset);
	/* the PSB: no CYC before it, so nothing is known of the first run */
	assert_cyc(&w.runs[0].at, 0, 0, 0);
	assert_cyc(&w.runs[0].cycles, 0, 0, 0);
	assert_cyc(&w.runs[1].at, K | H | X, 3, 3);
	assert_cyc(&w.runs[1].cycles, K | H, 0, 4);
	assert_cyc(&w.runs[2].at, K | H, 3, 7);
	assert_cyc(&w.runs[2].cycles, K | H, 0, 4);
	assert_cyc(&w.runs[3].at, K | H | X, 7, 7);
	assert_cyc(&w.runs[3].cycles, K | H | X, 5, 5);

	/* a carry from before the PSB: the counts go on from it */
	{
		struct tm_model tm;
		struct tm_carry carry;
		struct tm_stamp st;
		struct pkt cyc = { .type = PKT_CYC };
		struct flow_wopts o = { .carry = &carry };

		cyc.u.cyc = 1000;
		tm_init(&tm, NULL);
		tm_step(&tm, &cyc, &st);
		tm_save(&tm, &carry);
		assert_int_equal(flow_window(f, 0, UINT64_MAX, &o, &w), 0);
		assert_int_equal(w.nruns, 4);
		/* the PSB's time is bounded now: after the CYC of 1000 */
		assert_cyc(&w.runs[0].at, K | H, 1000, 1003);
		assert_cyc(&w.runs[0].cycles, K | H, 0, 3);
		assert_cyc(&w.runs[1].at, K | H | X, 1003, 1003);
		assert_cyc(&w.runs[3].at, K | H | X, 1007, 1007);
		assert_cyc(&w.runs[3].cycles, K | H | X, 5, 5);
	}

	/* a window that ends before the last packet: its last run ends at
	 * that packet, read past the window */
	assert_int_equal(flow_window(f, 0, w.runs[3].offset, NULL, &w), 0);
	assert_int_equal(w.nlines, 4);
	assert_int_equal(w.nruns, 3);
	assert_cyc(&w.runs[2].cycles, K | H, 0, 4);
	/* at most two lines */
	{
		struct flow_wopts o = { .max_lines = 2 };

		assert_int_equal(flow_window(f, 0, UINT64_MAX, &o, &w), 0);
		assert_int_equal(w.nlines, 2);
		assert_true(w.truncated);
		assert_int_equal(w.nruns, 1);
	}
	assert_int_equal(flow_window(NULL, 0, 1, NULL, &w), -FLOW_E_INVALID);
	assert_int_equal(flow_window(f, 5, 5, NULL, &w), -FLOW_E_INVALID);
	flow_window_free(&w);
	flow_window_free(NULL);
	flow_free(f);
}

/*
 * Data lost (a bad opcode, decoding on at the next PSB) ends the wait of
 * bounded packets before it for their CYC: the first CYC after the loss
 * is no upper bound of theirs, the cycles hidden in the loss unknown (as
 * the packet window's rows show them, window.c's win_bound_cycles()).
 */
static void test_window_cycles_error(void **state)
{
	const uint8_t K = FLOW_C_KNOWN, H = FLOW_C_HI, X = FLOW_C_EXACT;
	static const uint8_t bad[] = { 0x02, 0xff };
	struct pbuf p = { .n = 0 };
	struct flow_window w = { 0 };
	struct img img;
	struct img_span span;
	struct flow *f;
	size_t i;

	(void)state;
	code_at(0x1000, jmp_rax, sizeof(jmp_rax));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x1b);		/* cyc 3 */
	put_ip(&p, 0x0d, 0x1000);	/* tip: at 3, exact */
	put_ip(&p, 0x0d, 0x1000);	/* tip: no cyc, at least 3 */
	put_ip(&p, 0x0d, 0x1000);	/* tip: no cyc, at least 3 */
	put(&p, bad, sizeof(bad));	/* lost: 40 cycles hidden below */
	for (i = 0; i < 40; i++)
		put_byte(&p, (31 << 3) | 3);	/* cyc 31 */
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x3b);		/* cyc 7 */
	put_ip(&p, 0x0d, 0x1000);	/* tip: exact, after the loss */
	put_byte(&p, 0x4b);		/* cyc 9 */
	put_ip(&p, 0x01, 0x2000);	/* tip.pgd */
	img_init_flat(&img, &span, p.b, p.n);
	f = flow_of(&img);
	assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &w), 0);
	/* runs from the PSB and the first two TIPs (the third TIP is lost
	 * with the bad packet after it: no end), from the PSB after the
	 * loss and the TIP after it */
	assert_int_equal(w.nruns, 5);
	assert_cyc(&w.runs[1].at, K | H | X, 3, 3);
	/* ended by the second TIP, at least 3: no upper bound */
	assert_cyc(&w.runs[1].cycles, K, 0, 0);
	assert_cyc(&w.runs[2].at, K, 3, 0);
	/* after the loss, the CYCs bound what follows them as ever */
	assert_cyc(&w.runs[3].at, K | H, 3, 10);
	assert_cyc(&w.runs[4].cycles, K | H | X, 9, 9);
	flow_window_free(&w);
	flow_free(f);
}

/* Depth over calls that leave the traced range: calls of a stub
 * whose jump leaves (TIP.PGD), tracing enabled again at each call's
 * return address, are calls at one depth, not each one deeper; an
 * enable elsewhere pops nothing; an indirect call out resumed at its
 * return address is left there too. */
static void test_window_depth_out(void **state)
{
	/* 0x1000: call 0x1020 x3; call rax; nop; ret
	 * 0x1020: jmp rax (the stub) */
	static const uint8_t c[] = { 0xe8, 0x1b, 0, 0, 0, 0xe8, 0x16, 0, 0, 0,
				     0xe8, 0x11, 0, 0, 0, 0xff, 0xd0, 0x90,
				     0xc3 };
	static const uint8_t stub[] = { 0xff, 0xe0 };
	static const int32_t depth[] = { 0, 1, 0, 1, 1, 1, 1 };
	struct pbuf p = { .n = 0 };
	struct flow_window w = { 0 };
	struct img img;
	struct img_span span;
	struct flow *f;
	size_t i, k = 0;

	(void)state;
	code_at(0x1000, c, sizeof(c));
	code_at(0x1020, stub, sizeof(stub));
	put_psb(&p, 0x1000, 1);
	put_ip(&p, 0x01, 0x5000);	/* the stub's jump: out */
	put_ip(&p, 0x11, 0x1005);	/* back at the return address */
	put_ip(&p, 0x01, 0x5000);
	put_ip(&p, 0x11, 0x100f);	/* elsewhere: at call rax */
	put_ip(&p, 0x01, 0x5000);	/* call rax: out */
	put_ip(&p, 0x11, 0x1011);	/* resumed after it */
	put_ip(&p, 0x01, 0x5000);	/* the ret: out */
	img_init_flat(&img, &span, p.b, p.n);
	f = flow_of(&img);
	assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &w), 0);
	for (i = 0; i < w.nlines; i++) {
		if (w.lines[i].r.kind != FLOW_INSN)
			continue;
		assert_true(k < sizeof(depth) / sizeof(depth[0]));
		assert_int_equal(w.lines[i].depth, depth[k]);
		k++;
	}
	assert_int_equal(k, sizeof(depth) / sizeof(depth[0]));
	flow_window_free(&w);
	flow_free(f);
}

/* Depth: one more after a call, one less after a return. */
static void test_window_depth(void **state)
{
	/* call 0x1008; nop; jmp rax; ret */
	static const uint8_t c[] = { 0xe8, 0x03, 0, 0, 0, 0x90, 0xff, 0xe0, 0xc3 };
	static const int32_t depth[] = { 0, 1, 0, 0 };
	struct pbuf p = { .n = 0 };
	struct flow_window w = { 0 };
	struct img img;
	struct img_span span;
	struct flow *f;
	size_t i, k = 0;

	(void)state;
	code_at(0x1000, c, sizeof(c));
	put_psb(&p, 0x1000, 1);
	put_byte(&p, 0x06);		/* the ret, compressed */
	put_ip(&p, 0x01, 0x2000);
	img_init_flat(&img, &span, p.b, p.n);
	f = flow_of(&img);
	assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &w), 0);
	for (i = 0; i < w.nlines; i++) {
		if (w.lines[i].r.kind != FLOW_INSN)
			continue;
		assert_true(k < 4);
		assert_int_equal(w.lines[i].depth, depth[k]);
		k++;
	}
	assert_int_equal(k, 4);
	assert_int_equal(w.lines[1].r.iclass, FLOW_IC_CALL);
	assert_int_equal(w.lines[2].r.iclass, FLOW_IC_RETURN);
	/* the call and the ret's runs: the PSB's, then the TNT's */
	assert_int_equal(w.nruns, 2);
	assert_int_equal(w.runs[0].ninsns, 2);
	assert_int_equal(w.runs[1].ninsns, 2);
	flow_window_free(&w);
	flow_free(f);
}

/* The window's lines as `flow --insn-only` prints them. */
static char *window_text(const struct flow_window *w)
{
	struct text t = { 0 };
	char ev[128];
	size_t i;

	addf(&t, "");
	for (i = 0; i < w->nlines; i++) {
		const struct flow_rec *r = &w->lines[i].r;

		if (r->kind == FLOW_INSN)
			addf(&t, "%016" PRIx64 "\n", r->ip);
		else if (r->kind == FLOW_ERROR)
			addf(&t, "[%" PRIx64 ": error: %s]\n", r->offset, flow_strerror(r->err));
		else if (shown(r))
			addf(&t, "[%s]\n", flow_event_str(r, ev, sizeof(ev)));
	}
	return t.s;
}

/* Lines and runs agree: each instruction in its run, runs in order and
 * covering every instruction, cycle ranges well formed. */
static void check_runs(const struct flow_window *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->nruns; i++) {
		const struct flow_run *run = &w->runs[i];

		assert_true(run->first + run->nlines <= w->nlines);
		assert_int_equal(w->lines[run->first].run, i);
		assert_int_equal(w->lines[run->first + run->nlines - 1].run, i);
		assert_int_equal(w->lines[run->first].r.offset, run->offset);
		assert_true(run->end_offset == UINT64_MAX || run->end_offset > run->offset);
		if ((run->cycles.flags & FLOW_C_HI))
			assert_true(run->cycles.lo <= run->cycles.hi);
		if (run->cycles.flags & FLOW_C_EXACT)
			assert_int_equal(run->cycles.lo, run->cycles.hi);
		n += run->ninsns;
	}
	for (i = 0; i < w->nlines; i++)
		if (w->lines[i].r.kind == FLOW_INSN) {
			assert_true(w->lines[i].run < w->nruns);
			assert_int_equal(w->runs[w->lines[i].run].offset, w->lines[i].r.offset);
			n--;
		}
	assert_int_equal(n, 0);
}

/* Block window @b holds ordinary window @w's instructions in order, in
 * the same runs with the same cycles, and each block line's instructions
 * share one run and one depth (test_flow_blocks checks the grouping). */
static void same_as_blocks(const struct flow_window *w, const struct flow_window *b)
{
	size_t i, j = 0;
	uint32_t k;

	assert_int_equal(w->nruns, b->nruns);
	for (i = 0; i < w->nruns; i++) {
		assert_int_equal(w->runs[i].offset, b->runs[i].offset);
		assert_int_equal(w->runs[i].ninsns, b->runs[i].ninsns);
		assert_memory_equal(&w->runs[i].cycles, &b->runs[i].cycles,
				    sizeof(w->runs[i].cycles));
	}
	for (i = 0; i < b->nlines; i++) {
		const struct flow_line *l = &b->lines[i];

		for (k = 0; k < l->ninsns; k++, j++) {
			while (j < w->nlines && w->lines[j].r.kind != FLOW_INSN)
				j++;
			assert_true(j < w->nlines);
			assert_int_equal(flow_line_ip(b, l, k), w->lines[j].r.ip);
			assert_int_equal(w->lines[j].run, l->run);
			assert_int_equal(w->lines[j].depth, l->depth);
		}
	}
	while (j < w->nlines && w->lines[j].r.kind != FLOW_INSN)
		j++;
	assert_int_equal(j, w->nlines);
}

/*
 * Window by window: the windows between consecutive PSBs, one after the
 * other, give what the window from the start gives (status events aside:
 * PSB+ restates them, and a window begins with its PSB's).  A PSB is read
 * ahead, so its status events may come before the last instructions that
 * packets before it decided: those belong to the window before it.
 */
static void add_rec(struct text *t, const struct flow_rec *r, int insns)
{
	if (insns && r->kind != FLOW_INSN)
		return;
	if (r->kind == FLOW_INSN)
		addf(t, "%" PRIx64 "\n", r->ip);
	else if (r->kind == FLOW_ERROR)
		addf(t, "error %d\n", r->err);
	else if (!(r->flags & FLOW_F_STATUS))
		addf(t, "event %u\n", r->ev);
}

static char *window_recs(struct flow *f, uint64_t from, uint64_t to, int insns)
{
	struct flow_window w = { 0 };
	struct text t = { 0 };
	size_t i;

	assert_int_equal(flow_window(f, from, to, NULL, &w), 0);
	addf(&t, "");
	for (i = 0; i < w.nlines; i++)
		add_rec(&t, &w.lines[i].r, insns);
	flow_window_free(&w);
	return t.s;
}

/* The first line where @a and @b differ, for the message. */
static size_t first_diff(const char *a, const char *b)
{
	size_t i, line = 1;

	for (i = 0; a[i] && a[i] == b[i]; i++)
		line += a[i] == '\n';
	return line;
}

/* The windows between the consecutive PSBs @psb (@npsb of them, the first
 * where the trace's first window starts), concatenated, against the window
 * from the start; only their instructions if @insns. */
static void union_check(struct flow *f, const char *name, const uint64_t *psb,
			size_t npsb, int insns)
{
	struct text u = { 0 };
	char *whole = window_recs(f, 0, UINT64_MAX, insns), *part;
	size_t i;

	addf(&u, "");
	for (i = 0; i < npsb; i++) {
		part = window_recs(f, psb[i], i + 1 < npsb ? psb[i + 1] : UINT64_MAX,
				   insns);
		u.len += strlen(part);
		u.s = realloc(u.s, u.len + 1);
		assert_non_null(u.s);
		strcat(u.s, part);
		free(part);
	}
	if (strcmp(whole, u.s))
		fail_msg("%s: %zu windows: line %zu differs from the whole", name,
			 npsb, first_diff(whole, u.s));
	free(whole);
	free(u.s);
}

/* The window from the start is libipt's flow (@lib); each window between
 * two PSBs is the flow decoded from the first, cut at the second. */
static void kafl_windows(const struct img *img, const char *lib,
			 const uint64_t *psb, size_t npsb)
{
	struct flow_window w = { 0 }, b = { 0 };
	struct flow_wopts bo = { .blocks = 1 };
	struct flow *f = flow_of(img);
	struct flow_rec r;
	size_t i, k;
	char *s;

	assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &w), 0);
	s = window_text(&w);
	assert_string_equal(s, lib);
	free(s);
	check_runs(&w);
	assert_int_equal(flow_window(f, 0, UINT64_MAX, &bo, &b), 0);
	same_as_blocks(&w, &b);
	for (i = 0; i + 1 < npsb; i++) {
		assert_int_equal(flow_window(f, psb[i], psb[i + 1], NULL, &w), 0);
		check_runs(&w);
		assert_int_equal(flow_window(f, psb[i], psb[i + 1], &bo, &b), 0);
		same_as_blocks(&w, &b);
		assert_int_equal(flow_seek(f, psb[i], psb[i + 1]), 0);
		for (k = 0; !flow_next(f, &r); k++) {
			assert_true(k < w.nlines);
			const struct flow_rec *l = &w.lines[k].r;

			assert_true(r.kind == l->kind && r.offset == l->offset &&
				    r.ip == l->ip && r.a == l->a && r.b == l->b &&
				    r.err == l->err && r.size == l->size &&
				    r.mode == l->mode && r.iclass == l->iclass &&
				    r.ev == l->ev && r.flags == l->flags);
		}
		assert_int_equal(k, w.nlines);
	}
	flow_window_free(&w);
	flow_window_free(&b);
	flow_free(f);
}

/*
 * The kAFL traces
 */

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long sz;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)sz + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return b;
}

/* Load NAME.options (--raw lines) into the code image. */
static int load_options(const char *dir, const char *name)
{
	char path[4096], line[4096], spec[8192], err[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.options", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "--raw ", 6))
			continue;
		snprintf(spec, sizeof(spec), "%s/%s", dir, line + 6);
		assert_int_equal(mi_add_raw(code, spec, err, sizeof(err)), 0);
	}
	fclose(f);
	return 0;
}

/*
 * Whether decoding from a PSB (@part) gives the tail of decoding from the
 * start (@full), at once or after its own resynchronisation (a decode
 * error).  Where the trace says tracing is on at a PSB that follows a
 * TIP.PGD (KVM-PT's PSB+ carry a FUP then), the TIP.PGE after it says it
 * was not (flow.c: i_enable()).  "[resumed]" needs the IP where tracing
 * stopped, before the PSB: decoding from the PSB may say "[enabled]", so
 * the two count as one here.
 */
static void unresume(char *s)
{
	while ((s = strstr(s, "[resumed]")))
		memcpy(s, "[enabled]", 9);
}

static int converges(char *full, char *part)
{
	size_t lf = strlen(full);
	const char *p = part;

	unresume(full);
	unresume(part);

	for (;;) {
		size_t lp = strlen(p);

		if (lp <= lf && !strcmp(full + lf - lp, p))
			return 1;
		p = strstr(p, ": error: ");
		if (!p)
			return 0;
		p = strchr(p, '\n');
		if (!p)
			return 0;
		p++;
	}
}

/*
 * Whether libipt's instructions (@lib) are among ours (@ours), in order:
 * libipt refuses a TIP.PGE after a PSB+ with a FUP ("unexpected packet
 * context"), which KVM-PT's PSB+ have (dyn_test's every one: they restate
 * the IP where tracing stopped), and we take it as the enable it is
 * (flow.c: i_enable()); with flow_config.libipt set, the flows are
 * equal.
 */
static int lib_insns_in(const char *lib, const char *ours)
{
	const char *a = lib, *b = ours;

	for (; *a; a += strcspn(a, "\n") + !!a[strcspn(a, "\n")]) {
		size_t la = strcspn(a, "\n");

		if (*a == '[')
			continue;
		while (*b && (strncmp(a, b, la) || b[la] != a[la]))
			b += strcspn(b, "\n") + !!b[strcspn(b, "\n")];
		if (!*b)
			return 0;
		b += la + !!b[la];
	}
	return 1;
}

static void kafl_one(const char *dir, const char *name, const char *trace)
{
	char path[4096];
	struct img img;
	struct img_span span;
	struct img_cursor cur;
	uint8_t *b;
	size_t n = 0, npsb = 0;
	char *full, *lib, *whole, *strict;
	uint64_t off = 0, *psbs = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, trace);
	b = slurp(path, &n);
	assert_non_null(b);
	assert_int_equal(load_options(dir, name), 0);
	img_init_flat(&img, &span, b, n);
	libipt = 1;
	strict = ours(&img, 0);
	libipt = 0;
	full = ours(&img, 0);
	lib = theirs(b, n);
	assert_string_equal(strict, lib);
	assert_true(lib_insns_in(lib, full));
	whole = strdup(full);	/* converges() edits full */
	assert_non_null(whole);
	/* From every PSB: the tail of the whole. */
	assert_int_equal(img_cursor_init(&cur, &img, 0), 0);
	while (img_cursor_sync_forward(&cur, off) == 0) {
		uint64_t psb = img_cursor_offset(&cur);
		char *part = ours(&img, psb);

		if (!converges(full, part)) {
			fprintf(stderr, "%s: from the PSB at 0x%" PRIx64 ":\n%.400s\n",
				trace, psb, part);
			fail();
		}
		free(part);
		psbs = realloc(psbs, (npsb + 1) * sizeof(*psbs));
		assert_non_null(psbs);
		psbs[npsb] = psb;
		npsb++;
		off = psb + 1;
	}
	assert_true(npsb > 10);
	kafl_windows(&img, whole, psbs, npsb);
	{
		struct flow *f = flow_of(&img);

		/* dyn_test's code is not all there: after a "no memory
		 * mapped" error read ahead past the next PSB, decoding from
		 * the start resumes after it (as libipt), while that PSB's
		 * window decodes from it (another error, the same code) */
		union_check(f, trace, psbs, npsb, !strcmp(name, "dyn_test"));
		flow_free(f);
	}
	free(psbs);
	free(full);
	free(whole);
	free(strict);
	free(lib);
	free(b);
	mi_free(code);
	assert_int_equal(mi_new(&code), 0);
}

/*
 * A recorded program: tools/ptrecord --log-cycles logs each instruction's
 * start and retirement cycle in its model, which its CYC packets count.
 */

struct oracle {
	uint64_t *ip, *start, *end;
	size_t n;
};

static void oracle_load(const char *path, struct oracle *o)
{
	unsigned long long ip, a, b;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	memset(o, 0, sizeof(*o));
	while (fscanf(f, "%llx %llu %llu", &ip, &a, &b) == 3) {
		if (o->n == cap) {
			cap = cap ? 2 * cap : 4096;
			o->ip = realloc(o->ip, cap * sizeof(*o->ip));
			o->start = realloc(o->start, cap * sizeof(*o->start));
			o->end = realloc(o->end, cap * sizeof(*o->end));
			assert_true(o->ip && o->start && o->end);
		}
		o->ip[o->n] = ip;
		o->start[o->n] = a;
		o->end[o->n++] = b;
	}
	fclose(f);
}

/* Each run's cycles against the model's, @first being the log index of
 * @w's first instruction.  Returns how many runs were exact. */
static size_t runs_vs_oracle(const struct flow_window *w, const struct oracle *o,
			     size_t first)
{
	size_t i, k = first, exact = 0, *idx;

	idx = calloc(w->nlines + 1, sizeof(*idx));
	assert_non_null(idx);
	for (i = 0; i < w->nlines; i++)
		if (w->lines[i].r.kind == FLOW_INSN) {
			assert_true(k < o->n);
			assert_int_equal(w->lines[i].r.ip, o->ip[k]);
			idx[i] = k++;
		}
	for (i = 0; i < w->nruns; i++) {
		const struct flow_run *run = &w->runs[i];
		const struct flow_cyc *c = &run->cycles;
		size_t last = run->first + run->nlines - 1;
		uint64_t want = o->end[idx[last]] - o->start[idx[run->first]];

		if (!(c->flags & FLOW_C_KNOWN))
			continue;
		if ((c->flags & FLOW_C_EXACT) && c->lo != want)
			fail_msg("run at 0x%" PRIx64 ": %" PRIu64 " cycles exact, the "
				 "model's %" PRIu64, run->offset, c->lo, want);
		if (c->lo > want || ((c->flags & FLOW_C_HI) && c->hi < want))
			fail_msg("run at 0x%" PRIx64 ": [%" PRIu64 ", %" PRIu64 "] "
				 "cycles, the model's %" PRIu64, run->offset, c->lo,
				 c->hi, want);
		exact += !!(c->flags & FLOW_C_EXACT);
	}
	free(idx);
	return exact;
}

static void recorded_cycles(const char *prog)
{
	const char *build = getenv("BUILD");
	char dir[] = "/tmp/test_flow.XXXXXX", cmd[8192], path[4200];
	struct flow_window whole = { 0 }, part = { 0 };
	struct oracle o;
	struct img img;
	struct img_span span;
	struct img_cursor cur;
	struct tm_model tm;
	struct pkt pkt;
	struct flow *f;
	uint8_t *b;
	size_t n = 0, i, j, exact, nparts = 0;

	snprintf(path, sizeof(path), "%s/tools/ptrecord", build ? build : "build");
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s --log-cycles --psb-period 128 -q -o %s/r.pt "
		 "%s/progs/%s >/dev/null 2>&1", path, dir, build ? build : "build", prog);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(load_options(dir, "r.pt"), 0);
	snprintf(path, sizeof(path), "%s/r.pt.flow", dir);
	oracle_load(path, &o);
	assert_true(o.n > 1000);
	snprintf(path, sizeof(path), "%s/r.pt", dir);
	b = slurp(path, &n);
	img_init_flat(&img, &span, b, n);
	f = flow_of(&img);

	assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &whole), 0);
	check_runs(&whole);
	exact = runs_vs_oracle(&whole, &o, 0);
	{
		struct flow_wopts bo = { .blocks = 1 };
		struct flow_window bw = { 0 };

		assert_int_equal(flow_window(f, 0, UINT64_MAX, &bo, &bw), 0);
		same_as_blocks(&whole, &bw);
		flow_window_free(&bw);
	}
	/* CYC before every packet: most runs are exact (not those after a
	 * TIP.PGE: its MODE.Exec takes the CYC) */
	assert_true(exact * 4 > whole.nruns * 3);

	/* from every PSB, with the time model's state saved there: the
	 * same runs with the same cycles */
	tm_init(&tm, NULL);
	assert_int_equal(img_cursor_init(&cur, &img, 0), 0);
	while (img_cursor_next(&cur, &pkt) > 0) {
		struct tm_carry carry;
		struct flow_wopts wo = { .carry = &carry };
		size_t first = 0;

		if (pkt.type != PKT_PSB || !pkt.offset) {
			tm_advance(&tm, &pkt);
			continue;
		}
		tm_save(&tm, &carry);
		tm_advance(&tm, &pkt);
		assert_int_equal(flow_window(f, pkt.offset, UINT64_MAX, &wo, &part), 0);
		check_runs(&part);
		assert_true(part.nruns > 1);
		/* where the part's second run is in the whole */
		for (j = 0; j < whole.nruns && whole.runs[j].offset != part.runs[1].offset; j++)
			;
		assert_true(j < whole.nruns);
		for (i = 1; i < part.nruns; i++, j++) {
			const struct flow_run *x = &part.runs[i], *y = &whole.runs[j];

			assert_int_equal(x->offset, y->offset);
			assert_int_equal(x->ninsns, y->ninsns);
			assert_memory_equal(&x->at, &y->at, sizeof(x->at));
			assert_memory_equal(&x->cycles, &y->cycles, sizeof(x->cycles));
		}
		/* the part's first instruction in the log */
		for (i = 0, first = 0; i < whole.nlines && whole.lines[i].run !=
		     j - (part.nruns - 1); i++)
			first += whole.lines[i].r.kind == FLOW_INSN;
		first -= part.runs[0].ninsns;
		runs_vs_oracle(&part, &o, first);
		nparts++;
	}
	if (getenv("V"))
		fprintf(stderr, "%s: %zu instructions, %zu runs, %zu exact, windows "
			"from %zu PSBs\n", prog, o.n, whole.nruns, exact, nparts);
	assert_true(nparts > 3);
	flow_window_free(&whole);
	flow_window_free(&part);
	flow_free(f);
	free(b);
	free(o.ip);
	free(o.start);
	free(o.end);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	mi_free(code);
	assert_int_equal(mi_new(&code), 0);
}

static void windows_union(const char *prog)
{
	const char *build = getenv("BUILD");
	char dir[] = "/tmp/test_flow.XXXXXX", cmd[8192], path[4200];
	struct img img;
	struct img_span span;
	struct img_cursor cur;
	struct flow *f;
	uint64_t psb[4096];
	size_t n = 0, npsb = 0;
	uint8_t *b;

	snprintf(path, sizeof(path), "%s/tools/ptrecord", build ? build : "build");
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s --psb-period 64 -q -o %s/r.pt %s/progs/%s "
		 ">/dev/null 2>&1", path, dir, build ? build : "build", prog);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(load_options(dir, "r.pt"), 0);
	snprintf(path, sizeof(path), "%s/r.pt", dir);
	b = slurp(path, &n);
	assert_non_null(b);
	img_init_flat(&img, &span, b, n);
	f = flow_of(&img);
	assert_int_equal(img_cursor_init(&cur, &img, 0), 0);
	while (npsb < sizeof(psb) / sizeof(psb[0]) &&
	       !img_cursor_sync_forward(&cur, npsb ? psb[npsb - 1] + 1 : 0))
		psb[npsb++] = img_cursor_offset(&cur);
	assert_true(npsb > 20 && npsb < sizeof(psb) / sizeof(psb[0]));
	union_check(f, prog, psb, npsb, 0);
	flow_free(f);
	free(b);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	mi_free(code);
	assert_int_equal(mi_new(&code), 0);
}

static void test_windows_union(void **state)
{
	const char *build = getenv("BUILD");
	char path[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/tools/ptrecord", build ? build : "build");
	if (access(path, X_OK))
		skip();
	windows_union("p_loops");
	windows_union("p_signal");
	windows_union("p_longjmp");
	windows_union("p_sample");
}

static void test_recorded_cycles(void **state)
{
	const char *build = getenv("BUILD");
	char path[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/tools/ptrecord", build ? build : "build");
	if (access(path, X_OK))
		skip();
	recorded_cycles("p_loops");
	recorded_cycles("p_signal");
	recorded_cycles("p_longjmp");
}

static void test_kafl(void **state)
{
	const char *shared = getenv("SHARED");
	char dir[4096];
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/traces/libxdc-kafl-flow", shared ? shared : "../shared");
	{
		char probe[4200];

		snprintf(probe, sizeof(probe), "%s/unzip.options", dir);
		f = fopen(probe, "r");
		if (!f)
			skip();
		fclose(f);
	}
	kafl_one(dir, "unzip", "unzip_trace.pt");
	kafl_one(dir, "foo", "foo_trace.pt");
	kafl_one(dir, "dyn_test", "dyn_test_sample_raw_0.pt");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_messages),
		T(test_tnt_cond),
		T(test_not_taken),
		T(test_compressed_ret),
		T(test_uncompressed_ret),
		T(test_retstack_empty),
		T(test_retstack_psb),
		T(test_far_fup_tip),
		T(test_ovf),
		T(test_ovf_disabled),
		T(test_pge_pgd_resume),
		T(test_pge_elsewhere),
		T(test_tnt_without_branch),
		T(test_pge_after_event),
		T(test_nomap),
		T(test_mode32),
		T(test_mode_mid_block),
		T(test_tsx),
		T(test_uiret),
		T(test_sync_error_at_start),
		T(test_spin),
		T(test_asid_switch),
		T(test_asid_remap),
		T(test_window_cycles),
		T(test_window_cycles_error),
		T(test_window_depth),
		T(test_window_depth_out),
		T(test_kafl),
		T(test_recorded_cycles),
		T(test_windows_union),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
