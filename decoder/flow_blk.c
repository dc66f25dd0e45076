/*
 * flow_blk -- the flow decoder's code (see flow.c, flow_int.h): reading
 * it through the caller's callback, decoding it with Zydis into basic
 * blocks, and keeping them in a two-way table of fixed size.
 */
#include "flow_int.h"

#include <string.h>

/*
 * Code: instructions and the block cache
 */

static ZydisDecoder *zdec(struct flow *f, uint8_t mode)
{
	return mode >= FLOW_MODE_16 && mode <= FLOW_MODE_64 ? &f->zd[mode] : NULL;
}

/* Classify a Zydis instruction into @in. */
static void classify(const ZydisDecodedInstruction *z, struct insn *in)
{
	int far = z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	in->iclass = FLOW_IC_OTHER;
	in->direct = 0;
	in->far = in->cpl = in->cr3 = in->pip = in->vmcs = 0;
	in->disp = 0;
	switch (z->mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
		in->iclass = far ? FLOW_IC_FAR_CALL : FLOW_IC_CALL;
		break;
	case ZYDIS_MNEMONIC_JMP:
		in->iclass = far ? FLOW_IC_FAR_JUMP : FLOW_IC_JUMP;
		break;
	case ZYDIS_MNEMONIC_RET:
		in->iclass = far ? FLOW_IC_FAR_RETURN : FLOW_IC_RETURN;
		break;
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3: case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER:
		in->iclass = FLOW_IC_FAR_CALL;
		in->cpl = 1;
		break;
	case ZYDIS_MNEMONIC_VMCALL:
		in->iclass = FLOW_IC_FAR_CALL;
		break;
	case ZYDIS_MNEMONIC_UIRET:
		/* a far transfer for libipt: a TIP gives its target, and a
		 * PIP or a TIP.PGD without an IP binds to it */
		in->iclass = FLOW_IC_FAR_RETURN;
		break;
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ: case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
		in->iclass = FLOW_IC_FAR_RETURN;
		in->cpl = 1;
		break;
	case ZYDIS_MNEMONIC_VMLAUNCH: case ZYDIS_MNEMONIC_VMRESUME:
		in->iclass = FLOW_IC_FAR_RETURN;
		in->pip = in->vmcs = 1;
		break;
	case ZYDIS_MNEMONIC_VMPTRLD:
		in->vmcs = 1;
		break;
	case ZYDIS_MNEMONIC_PTWRITE:
		in->iclass = FLOW_IC_PTWRITE;
		break;
	case ZYDIS_MNEMONIC_MOV:
		if (z->opcode_map == ZYDIS_OPCODE_MAP_0F && z->opcode == 0x22 &&
		    z->raw.modrm.reg == 3)
			in->cr3 = in->pip = 1;
		break;
	case ZYDIS_MNEMONIC_XBEGIN: case ZYDIS_MNEMONIC_XEND:
		/* Zydis files them under COND_BR, but Intel PT sends no TNT
		 * for them (an abort is an asynchronous FUP + TIP) */
		break;
	default:
		/* COND_BR holds Jcc, JrCXZ and LOOPcc besides the above;
		 * UNCOND_BR's XABORT, like the other categories' members, is
		 * classified by mnemonic above or is an ordinary instruction */
		if (z->meta.category == ZYDIS_CATEGORY_COND_BR)
			in->iclass = FLOW_IC_COND_JUMP;
		break;
	}
	if (in->iclass >= FLOW_IC_FAR_CALL && in->iclass <= FLOW_IC_FAR_JUMP)
		in->far = 1;
	if (!in->far && in->iclass != FLOW_IC_OTHER && in->iclass != FLOW_IC_PTWRITE &&
	    z->raw.imm[0].is_relative) {
		in->direct = 1;
		in->disp = z->raw.imm[0].value.s;
	}
}

static int special(const struct insn *in)
{
	return in->iclass != FLOW_IC_OTHER || in->cr3 || in->pip || in->vmcs;
}

/* Decode the instruction at @ip in @mode.  Returns 0 or a negative error. */
static int decode_one(struct flow *f, uint64_t ip, uint8_t mode, struct insn *in)
{
	ZydisDecodedInstruction z;
	ZydisDecoderContext zc;
	struct flow_ctx c;
	uint8_t buf[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZydisDecoder *d;
	int n;

	make_ctx(f, &c);
	f->st.code_reads++;
	n = f->cfg.read(f->cfg.read_ctx, &c, ip, buf, sizeof(buf));
	if (n <= 0)
		return -FLOW_E_NOMAP;
	d = zdec(f, mode);
	if (!d)
		return -FLOW_E_BAD_INSN;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(d, &zc, buf, (ZyanUSize)n, &z)))
		return -FLOW_E_BAD_INSN;
	in->ip = ip;
	in->size = z.length;
	classify(&z, in);
	if (in->direct)
		in->target = ip + in->size + (uint64_t)in->disp;
	return 0;
}

/* The block starting at @ip (decoded now if not cached).
 * Returns it, or NULL and *@err if not even one instruction decodes. */
static struct blk *blk_get(struct flow *f, uint64_t ip, int *err)
{
	uint64_t asid = f->asid;
	struct blk *set = &f->cache[fb_hash(ip, asid, f->mode, f->ncache)], *b;
	uint64_t at = ip;
	struct insn in;
	int e, i;

	/* two ways a set: two hot blocks on one slot would take turns */
	for (i = 0; i < 2; i++) {
		b = &set[i];
		if (b->ip == ip && b->asid == asid && b->mode == f->mode && b->n) {
			f->st.cache_hits++;
			b->used = ++f->tick;
			return b;
		}
	}
	f->st.cache_misses++;
	b = set[0].used <= set[1].used ? &set[0] : &set[1];
	b->used = ++f->tick;
	b->ip = UINT64_MAX;
	b->n = 0;
	b->last_special = 0;
	for (;;) {
		e = decode_one(f, at, f->mode, &in);
		if (e) {
			if (!b->n) {
				*err = e;
				return NULL;
			}
			break;
		}
		b->len[b->n++] = in.size;
		b->last = in;
		at += in.size;
		if (special(&in)) {
			b->last_special = 1;
			break;
		}
		if (b->n == BLK_MAX)
			break;
	}
	b->ip = ip;
	b->asid = asid;
	b->mode = f->mode;
	return b;
}

void fb_asid(struct flow *f)
{
	struct flow_ctx c;
	uint64_t asid;

	if (f->cfg.asid) {
		make_ctx(f, &c);
		asid = f->cfg.asid(f->cfg.read_ctx, &c);
	} else {
		asid = f->have_cr3 ? f->cr3 : 0;
	}
	if (asid != f->asid) {
		f->blk = NULL;
		f->seek_err = 0;	/* a failure in the old space */
	}
	f->asid = asid;
	f->asid_at = f->decided;
}

void flow_cache_flush(struct flow *f)
{
	uint32_t i;

	if (!f)
		return;
	for (i = 0; i < f->ncache; i++) {
		f->cache[i].ip = UINT64_MAX;
		f->cache[i].n = 0;
		f->cache[i].used = 0;
	}
	f->blk = NULL;
	f->seek_err = 0;
}

int fb_seek_slow(struct flow *f)
{
	struct blk *b = f->blk;
	int err = f->seek_err;

	/* the slow path asking again right after a fast path failed: the
	 * same answer, without reading the code (and counting) twice */
	f->seek_err = 0;
	if (err && f->seek_ip == f->ip) {
		f->blk = NULL;
		return err;
	}
	err = 0;
	if (!b || f->bip != f->ip || b->asid != f->asid || b->mode != f->mode ||
	    f->bi >= b->n) {
		b = blk_get(f, f->ip, &err);
		if (!b) {
			f->blk = NULL;
			f->seek_err = err;
			f->seek_ip = f->ip;
			return err;
		}
		/* blk_get may have replaced the slot f->blk pointed to */
		f->blk = b;
		f->bi = 0;
		f->bip = f->ip;
	}
	return 0;
}

/* The instruction at f->ip into @in, through the block cache. */
int fb_insn_at(struct flow *f, struct insn *in)
{
	struct blk *b;
	int err = fb_seek(f);

	if (err)
		return err;
	b = f->blk;
	f->insn_asid = b->asid;
	if (f->bi + 1 == b->n && b->last.size == b->len[f->bi]) {
		*in = b->last;
	} else {
		in->ip = f->ip;
		in->size = b->len[f->bi];
		in->iclass = FLOW_IC_OTHER;
		in->direct = in->far = in->cpl = in->cr3 = in->pip = in->vmcs = 0;
		in->disp = 0;
	}
	in->ip = f->ip;
	return 0;
}
