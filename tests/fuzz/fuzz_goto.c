/* fuzz_goto -- the goto grammar: goto_parse() on any text, and
 * goto_resolve() of what parses against fake index callbacks whose
 * answers come from the input too.  A resolved offset lies in [0, size];
 * messages are one line and start with "goto: ". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "goto.h"
#include "ptdec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fakes answer from 8 bytes of input; bit 0 of byte 0 says fail. */
struct fake {
	uint64_t v[8];
	uint64_t size;
};

static int answer(struct fake *f, int slot, uint64_t *out)
{
	uint64_t v = f->v[slot];

	if (v & 1)
		return (v & 2) ? -pte_eos : -pte_no_time;
	*out = (v >> 2) % (f->size + 1);
	return 0;
}

static int f_psb_offset(void *a, uint64_t n, uint64_t *off, char *e, size_t l)
{
	(void)n; (void)e; (void)l;
	return answer(a, 0, off);
}

static int f_psb_number(void *a, uint64_t off, int64_t *n, char *e, size_t l)
{
	uint64_t v;
	int r = answer(a, 1, &v);

	(void)off; (void)e; (void)l;
	*n = r ? -1 : (int64_t)v - 1;
	return r;
}

static int f_tsc(void *a, uint64_t x, uint64_t *off, char *e, size_t l)
{
	(void)x;
	if (l)
		strncpy(e, "goto: no time here", l - 1), e[l - 1] = 0;
	return answer(a, 2, off);
}

static int f_time_offset(void *a, uint64_t x, uint64_t *off, char *e, size_t l)
{
	(void)x; (void)e; (void)l;
	return answer(a, 3, off);
}

static int f_time_at(void *a, uint64_t x, uint64_t *ns, char *e, size_t l)
{
	(void)x; (void)e; (void)l;
	return answer(a, 4, ns);
}

static int f_cyc_offset(void *a, uint64_t x, uint64_t *off, char *e, size_t l)
{
	(void)x; (void)e; (void)l;
	return answer(a, 5, off);
}

static int f_cyc_at(void *a, uint64_t x, uint64_t *c, char *e, size_t l)
{
	(void)x; (void)e; (void)l;
	return answer(a, 6, c);
}

static int f_ord(void *a, uint64_t x, uint64_t *off, char *e, size_t l)
{
	(void)x; (void)e; (void)l;
	return answer(a, 7, off);
}

static int f_name(void *a, const char *name, uint64_t *off, char *e, size_t l)
{
	(void)e; (void)l;
	if (!name || strlen(name) >= GOTO_NAME_MAX)
		abort();
	return name[0] == 'x' ? -pte_invalid : answer(a, 0, off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct goto_target t;
	struct goto_ctx ctx;
	struct fake f;
	char *text, err[160];
	uint64_t off;
	size_t i;
	int r;

	if (size < 2)
		return 0;
	memset(&f, 0, sizeof(f));
	memset(&ctx, 0, sizeof(ctx));
	/* Byte 0: which callbacks exist; byte 1: size class; the rest is
	 * the text, then (after a NUL) the callbacks' answers. */
	f.size = data[1] & 0x80 ? (uint64_t)data[1] << 33 : (uint64_t)data[1] << 4;
	ctx.size = f.size;
	ctx.cursor = f.size / 2;
	ctx.arg = &f;
	if (data[0] & 1)
		ctx.psb_offset = f_psb_offset, ctx.psb_number = f_psb_number;
	if (data[0] & 2)
		ctx.tsc_offset = f_tsc;
	if (data[0] & 4)
		ctx.time_offset = f_time_offset, ctx.time_at = f_time_at;
	if (data[0] & 8)
		ctx.cycles_offset = f_cyc_offset, ctx.cycles_at = f_cyc_at;
	if (data[0] & 16)
		ctx.ordinal_offset = f_ord;
	if (data[0] & 32)
		ctx.mark_offset = f_name, ctx.region_offset = f_name;
	text = malloc(size - 1);
	if (!text)
		return 0;
	memcpy(text, data + 2, size - 2);
	text[size - 2] = 0;
	i = strlen(text) + 1;
	if (i < size - 2)
		memcpy(f.v, data + 2 + i, size - 2 - i < sizeof(f.v) ? size - 2 - i : sizeof(f.v));
	err[0] = 0;
	r = goto_parse(text, &t, err, sizeof(err));
	if (r < 0) {
		if (r != -pte_invalid || strncmp(err, "goto: ", 6) || strchr(err, '\n'))
			abort();
	} else {
		err[0] = 0;
		off = UINT64_MAX;
		r = goto_resolve(&t, &ctx, &off, err, sizeof(err));
		if (r == 0 && off > ctx.size)
			abort();
		if (r < 0 && (!err[0] || strchr(err, '\n')))
			abort();
	}
	goto_is_target(text);
	free(text);
	return 0;
}
