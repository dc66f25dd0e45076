/* fuzz_flow -- the instruction flow decoder on random packets over random
 * code, against libipt's instruction decoder.
 *
 * Input: byte 0 picks the kind; bytes 1-2 the code length N (mod 512);
 * then N bytes of code and the rest is trace.  The trace is decoded after
 * a PSB+ that puts tracing on at the code in 64-bit mode (and as is, too).
 *   kind even: the code bytes pick instructions from a table both decoders
 *     agree on (nop, jcc, jmp, call, ret, jmp/call through a register, far
 *     and privileged transfers), so every difference in the flow, its
 *     events or its errors is a finding (abort);
 *   kind odd: the code bytes are the code, and our decoder must only not
 *     crash, hang or read outside its buffers (Zydis and libipt's length
 *     decoder disagree on some odd encodings). */
#include "../../tools/ipt_compat.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CODE_AT 0x1000ull

static uint8_t code[512 * 8];
static size_t ncode;

static int our_read(void *ctx, const struct flow_ctx *c, uint64_t ip,
		    uint8_t *buf, size_t n)
{
	(void)ctx;
	(void)c;
	if (ip < CODE_AT || ip - CODE_AT >= ncode)
		return -1;
	if (n > ncode - (ip - CODE_AT))
		n = ncode - (ip - CODE_AT);
	memcpy(buf, code + (ip - CODE_AT), n);
	return (int)n;
}

static int ipt_read(uint8_t *buf, size_t n, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	int r = our_read(ctx, NULL, ip, buf, n);

	(void)asid;
	return r < 0 ? -ipt_pte_nomap : r;
}

/* Instructions both decoders classify alike (64-bit), each in an 8-byte
 * slot padded with NOPs; branches land on slot starts, so the code is
 * never decoded from the middle of an instruction (where Zydis and
 * libipt's length decoder may disagree about invalid opcodes). */
static const struct { uint8_t n, b[6]; } insns[] = {
	{ 1, { 0x90 } },			/* nop */
	{ 2, { 0x74, 0x06 } },			/* je the next slot */
	{ 2, { 0x75, 0xf6 } },			/* jne the previous slot */
	{ 2, { 0xeb, 0x0e } },			/* jmp over a slot */
	{ 5, { 0xe8, 0x0b, 0, 0, 0 } },		/* call over a slot */
	{ 5, { 0xe8, 0, 0, 0, 0 } },		/* call next (not pushed) */
	{ 1, { 0xc3 } },			/* ret */
	{ 2, { 0xff, 0xe0 } },			/* jmp rax */
	{ 2, { 0xff, 0xd0 } },			/* call rax */
	{ 2, { 0x0f, 0x05 } },			/* syscall */
	{ 2, { 0x48, 0xcf } },			/* iretq */
	{ 2, { 0xcd, 0x80 } },			/* int 0x80 */
	{ 3, { 0x48, 0x89, 0xc3 } },		/* mov rbx, rax */
	{ 6, { 0x0f, 0x84, 0xf2, 0xff, 0xff, 0xff } },	/* je the previous slot */
	{ 2, { 0xe2, 0xfe } },			/* loop this one */
	{ 3, { 0x0f, 0x22, 0xd8 } },		/* mov cr3, rax */
};

static char *render(struct flow *f)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap), ev[128];
	struct flow_rec r;
	unsigned steps = 0;

	if (!s)
		abort();
	s[0] = 0;
	while (!flow_next(f, &r) && steps++ < 200000) {
		if (len + 200 > cap) {
			cap *= 2;
			s = realloc(s, cap);
			if (!s)
				abort();
		}
		if (r.kind == FLOW_INSN)
			len += (size_t)sprintf(s + len, "%" PRIx64 "\n", r.ip);
		else if (r.kind == FLOW_ERROR)
			len += (size_t)sprintf(s + len, "[%" PRIx64 ": %s]\n", r.offset,
					       flow_strerror(r.err));
		else if (r.ev == FLOW_EV_ENABLED || r.ev == FLOW_EV_DISABLED ||
			 r.ev == FLOW_EV_ASYNC_DISABLED || r.ev == FLOW_EV_OVERFLOW ||
			 r.ev == FLOW_EV_ASYNC_BRANCH)
			len += (size_t)sprintf(s + len, "[%s]\n",
					       flow_event_str(&r, ev, sizeof(ev)));
	}
	return s;
}

static char *render_ipt(const uint8_t *b, size_t n)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	uint64_t sync = 0, off = 0;
	unsigned steps = 0;

	if (!s)
		abort();
	s[0] = 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)b;
	cfg.end = (uint8_t *)b + n;
	d = pt_insn_alloc_decoder(&cfg);
	if (!d)
		abort();
	pt_image_set_callback(pt_insn_get_image(d), ipt_read, NULL);
#define GROW() do { if (len + 200 > cap) { cap *= 2; s = realloc(s, cap); if (!s) abort(); } } while (0)
	for (;;) {
		struct pt_insn in;
		int st = pt_insn_sync_forward(d);

		if (st < 0) {
			uint64_t ns;

			if (st == -ipt_pte_eos)
				break;
			pt_insn_get_offset(d, &off);
			GROW();
			len += (size_t)sprintf(s + len, "[%" PRIx64 ": %s]\n", off,
					       pt_errstr(pt_errcode(st)));
			if (pt_insn_get_offset(d, &ns) < 0 || ns <= sync)
				break;
			sync = ns;
			continue;
		}
		for (;;) {
			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event e;

				st = pt_insn_event(d, &e, sizeof(e));
				if (st < 0)
					break;
				GROW();
				switch (e.type) {
				case ptev_enabled:
					len += (size_t)sprintf(s + len, "[%s]\n",
						e.variant.enabled.resumed ? "resumed" : "enabled");
					break;
				case ptev_disabled:
				case ptev_async_disabled:
					len += (size_t)sprintf(s + len, "[disabled]\n");
					break;
				case ptev_overflow:
					len += (size_t)sprintf(s + len, "[overflow]\n");
					break;
				case ptev_async_branch:
					len += (size_t)sprintf(s + len, "[interrupt]\n");
					break;
				default:
					break;
				}
			}
			if (st < 0)
				break;
			if (st & pts_eos) {
				st = -ipt_pte_eos;
				break;
			}
			memset(&in, 0, sizeof(in));
			st = pt_insn_next(d, &in, sizeof(in));
			GROW();
			if (st < 0) {
				if (in.iclass != ptic_error)
					len += (size_t)sprintf(s + len, "%" PRIx64 "\n", in.ip);
				break;
			}
			len += (size_t)sprintf(s + len, "%" PRIx64 "\n", in.ip);
			if (steps++ >= 200000)
				goto out;
		}
		if (st == -ipt_pte_eos)
			break;
		pt_insn_get_offset(d, &off);
		GROW();
		len += (size_t)sprintf(s + len, "[%" PRIx64 ": %s]\n", off,
				       pt_errstr(pt_errcode(st)));
	}
out:
	pt_insn_free_decoder(d);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t head[] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
		0x99, 0x01,				/* mode.exec 64-bit */
		0xdd, 0x00, 0x10, 0, 0, 0, 0, 0, 0,	/* fup 0x1000 */
		0x02, 0x23,				/* psbend */
	};
	struct flow_config cfg;
	struct img img;
	struct img_span span;
	struct flow *f;
	uint8_t *trace;
	size_t n, i, tn;
	int kind;

	if (size < 3)
		return 0;
	kind = data[0];
	n = (size_t)(data[1] | data[2] << 8) % 512;
	if (n > size - 3)
		n = size - 3;
	ncode = 0;
	if (kind & 1) {
		memcpy(code, data + 3, n);
		ncode = n;
	} else {
		for (i = 0; i < n; i++) {
			unsigned k = data[3 + i] % (sizeof(insns) / sizeof(insns[0]));

			memset(code + ncode, 0x90, 8);
			memcpy(code + ncode, insns[k].b, insns[k].n);
			ncode += 8;
		}
	}
	tn = sizeof(head) + (size - 3 - n);
	trace = malloc(tn ? tn : 1);
	if (!trace)
		return 0;
	memcpy(trace, head, sizeof(head));
	memcpy(trace + sizeof(head), data + 3 + n, size - 3 - n);

	memset(&cfg, 0, sizeof(cfg));
	cfg.img = &img;
	cfg.read = our_read;
	cfg.cache_blocks = 64;	/* small: evictions get exercised */
	cfg.libipt = 1;		/* libipt's verdicts where we do better */
	if (flow_new(&f, &cfg))
		abort();
	/* with the PSB+ in front, and the fuzzer's bytes alone */
	for (i = 0; i < 2; i++) {
		const uint8_t *b = i ? trace + sizeof(head) : trace;
		size_t bn = i ? tn - sizeof(head) : tn;
		char *ours, *theirs;

		img_init_flat(&img, &span, b, bn);
		flow_seek(f, 0, UINT64_MAX);
		ours = render(f);
		if (!(kind & 1) && strlen(ours) < 60000) {
			theirs = render_ipt(b, bn);
			/* A MODE.EXEC may switch to 16 or 32 bits, where the
			 * slots decode differently and may hit an undefined
			 * opcode: Zydis rejects those, libipt's length decoder
			 * does not.  Not a flow difference. */
			/* And we empty the call stack at a PSB (the SDM: none
			 * is needed across one), libipt does not: a compressed
			 * return across a PSB is an error for us only. */
			if (strcmp(ours, theirs) && !strstr(ours, "unknown instruction") &&
			    !strstr(theirs, "unknown instruction") &&
			    !(strstr(ours, "compressed return without call") &&
			      !strstr(theirs, "compressed return without call"))) {
				fprintf(stderr, "ours:\n%s\nlibipt:\n%s\n", ours, theirs);
				abort();
			}
			free(theirs);
		}
		free(ours);
	}
	flow_free(f);
	free(trace);
	return 0;
}
