/* code -- the browser's code context: images, symbols, tasks, the decoder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "ctx.h"
#include "flow.h"
#include "image.h"
#include "imgopt.h"
#include "memimg.h"
#include "msg.h"
#include "offtsc.h"
#include "ptdec.h"
#include "symfmt.h"
#include "trace.h"
#include "ui.h"

struct code_dec {
	struct flow *f;
	const struct imgset *set;
	struct imgopt_reader rd;	/* the decoder's reads */
	struct imgopt_reader rrec;	/* the records' address spaces */
	struct offtsc *ot_read, *ot_read_end, *ot_rec, *ot_rec_end;
	const struct img *img;		/* what they read */
	struct tm_config tm;
	uint64_t cr3;			/* the last CR3 the decoder read with */
	uint64_t asid, asid_off;	/* code_dec_asid()'s last answer */
	uint8_t have_cr3, have_asid;
};

struct code {
	struct imgopt io;		/* the options (lists ours) */
	const struct trace *trace;	/* what was loaded for; NULL: nothing */
	struct imgset *set;
	char why[512];			/* code_why(), "" if there is code */
	struct symfmt *sf;
	struct ctx *ctx;
	struct code_dec *dec;
	int dec_stream;			/* what dec decodes */
	const struct img *dec_img;
	uint64_t dec_size;
};

/* The decoder's read callback: flow's (cmd_flow.c), the code of the
 * address space the sideband names at the deciding packet, else the
 * common one. */
static int code_read(void *vd, const struct flow_ctx *c, uint64_t ip,
		     uint8_t *buf, size_t size)
{
	struct code_dec *d = vd;
	struct flow_ctx cc = *c;

	if (c->have_cr3) {
		d->cr3 = c->cr3;
		d->have_cr3 = 1;
	}
	if (!d->set)
		return -pte_nomap;
	/* the space code_read_asid() named: the records carry it (flow.h) */
	if (imgopt_sb(d->set))
		return mi_read(imgopt_mi(d->set), c->asid, ip, buf, size);
	return imgopt_read(&d->rd, &cc, ip, buf, size);
}

/* The decoder's block cache key: the address space code_read() reads. */
static uint64_t code_read_asid(void *vd, const struct flow_ctx *c)
{
	struct code_dec *d = vd;
	struct flow_ctx cc = *c;

	if (c->have_cr3) {
		d->cr3 = c->cr3;
		d->have_cr3 = 1;
	}
	if (!d->set || !imgopt_sb(d->set))
		return c->have_cr3 ? c->cr3 : 0;
	cc.cr3 = d->cr3;
	cc.have_cr3 = d->have_cr3;
	return imgopt_reader_asid(&d->rd, &cc);
}

/* New readers for @d (the old ones freed).  Returns 0 or -pte_nomem. */
static int code_dec_readers(struct code_dec *d)
{
	offtsc_free(d->ot_read);
	offtsc_free(d->ot_read_end);
	offtsc_free(d->ot_rec);
	offtsc_free(d->ot_rec_end);
	d->ot_read = d->ot_read_end = d->ot_rec = d->ot_rec_end = NULL;
	if (offtsc_new(&d->ot_read, d->img, &d->tm) < 0 ||
	    offtsc_new(&d->ot_read_end, d->img, &d->tm) < 0 ||
	    offtsc_new(&d->ot_rec, d->img, &d->tm) < 0 ||
	    offtsc_new(&d->ot_rec_end, d->img, &d->tm) < 0)
		return -pte_nomem;
	d->rd.tsc_ctx = d->ot_read;
	d->rd.end_ctx = d->ot_read_end;
	d->rrec.tsc_ctx = d->ot_rec;
	d->rrec.end_ctx = d->ot_rec_end;
	d->have_asid = d->have_cr3 = 0;
	return 0;
}

int code_dec_new(struct code_dec **out, const struct imgset *set, int stream,
		 const struct img *img, const struct tm_config *tm)
{
	struct flow_config cfg;
	struct code_dec *d;

	if (!out || !img)
		return -pte_invalid;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -pte_nomem;
	d->set = set;
	d->img = img;
	if (tm)
		d->tm = *tm;
	d->rd.set = set;
	d->rd.stream = stream;
	d->rd.tsc_at = offtsc_at;
	d->rd.end_at = offtsc_stretch_end;
	d->rrec = d->rd;
	if (code_dec_readers(d) < 0)
		goto out_free;
	memset(&cfg, 0, sizeof(cfg));
	cfg.img = img;
	cfg.read = code_read;
	cfg.read_ctx = d;
	cfg.asid = code_read_asid;
	if (flow_new(&d->f, &cfg) < 0)
		goto out_free;
	*out = d;
	return 0;

out_free:
	code_dec_free(d);
	return -pte_nomem;
}

int code_dec_restart(struct code_dec *d)
{
	if (!d)
		return -pte_invalid;
	/* the decoded blocks stay: keyed by address space, they are the
	 * code's, whatever decoding met them first */
	return code_dec_readers(d);
}

void code_dec_free(struct code_dec *d)
{
	if (!d)
		return;
	flow_free(d->f);
	offtsc_free(d->ot_read);
	offtsc_free(d->ot_read_end);
	offtsc_free(d->ot_rec);
	offtsc_free(d->ot_rec_end);
	free(d);
}

struct flow *code_dec_flow(struct code_dec *d)
{
	return d ? d->f : NULL;
}

uint64_t code_dec_rec_asid(const struct code_dec *d, const struct flow_rec *r)
{
	if (!d || !r || !d->set || !imgopt_sb(d->set))
		return 0;	/* no sideband: the common address space */
	return r->asid;
}

uint64_t code_dec_asid(struct code_dec *d, uint64_t offset)
{
	struct flow_ctx c;

	if (!d || !d->set || !imgopt_sb(d->set))
		return 0;	/* no sideband: the common address space */
	if (d->have_asid && d->asid_off == offset)
		return d->asid;
	memset(&c, 0, sizeof(c));
	c.offset = offset;
	c.cr3 = d->cr3;
	c.have_cr3 = d->have_cr3;
	d->asid = imgopt_reader_asid(&d->rrec, &c);
	d->asid_off = offset;
	d->have_asid = 1;
	return d->asid;
}

int code_new(struct code **out, const struct imgopt *io)
{
	struct code *c = calloc(1, sizeof(*c));
	size_t i;

	*out = NULL;
	if (!c)
		return -pte_nomem;
	imgopt_init(&c->io);
	if (io) {
		c->io.sysroot = io->sysroot;
		c->io.kallsyms = io->kallsyms;
		c->io.buildid_dir = io->buildid_dir;
		if ((io->nraw && !(c->io.raw = calloc(io->nraw, sizeof(*c->io.raw)))) ||
		    (io->nelf && !(c->io.elf = calloc(io->nelf, sizeof(*c->io.elf))))) {
			code_free(c);
			return -pte_nomem;
		}
		for (i = 0; i < io->nraw; i++)
			c->io.raw[i] = io->raw[i];
		for (i = 0; i < io->nelf; i++)
			c->io.elf[i] = io->elf[i];
		c->io.nraw = io->nraw;
		c->io.nelf = io->nelf;
	}
	*out = c;
	return 0;
}

/* Drop what was loaded (the options stay). */
static void code_unload(struct code *c)
{
	code_dec_free(c->dec);
	c->dec = NULL;
	ctx_free(c->ctx);
	c->ctx = NULL;
	symfmt_free(c->sf);
	c->sf = NULL;
	imgopt_free(c->set);
	c->set = NULL;
	c->trace = NULL;
	c->why[0] = 0;
}

void code_free(struct code *c)
{
	if (!c)
		return;
	code_unload(c);
	imgopt_release(&c->io);
	free(c);
}

void code_reset(struct ui *ui)
{
	if (ui->code)
		code_unload(ui->code);
}

/* Load the image set of ui->trace if not done yet; a failure is said once
 * on the message line and kept in why.  Returns the context, or NULL
 * without one. */
static struct code *code_load(struct ui *ui)
{
	struct code *c = ui->code;
	char err[sizeof(c->why)] = "";

	if (!c)
		return NULL;
	if (c->trace == ui->trace)
		return c;
	code_unload(c);
	c->trace = ui->trace;
	if (imgopt_load(&c->set, &c->io, ui->trace, err, sizeof(err)) < 0) {
		c->set = NULL;
		snprintf(c->why, sizeof(c->why), "%s", err);
		msg_report(ui, UI_ERROR, "code: %s", err);
	} else if (!mi_count(imgopt_mi(c->set))) {
		snprintf(c->why, sizeof(c->why), "no code given (--raw, --elf or a "
			 "perf.data's files): every instruction is unknown");
	}
	return c;
}

struct imgset *code_imgset(struct ui *ui)
{
	struct code *c = code_load(ui);

	return c ? c->set : NULL;
}

const struct imgopt *code_imgopt(struct ui *ui)
{
	struct code *c = code_load(ui);

	return c ? &c->io : NULL;
}

const char *code_why(struct ui *ui)
{
	struct code *c = code_load(ui);

	if (!c)
		return "no code context";
	return c->why[0] ? c->why : NULL;
}

struct symfmt *code_symfmt(struct ui *ui)
{
	struct code *c = code_load(ui);

	if (c && !c->sf && symfmt_new(&c->sf, c->set) < 0)
		c->sf = NULL;
	return c ? c->sf : NULL;
}

struct ctx *code_ctx(struct ui *ui)
{
	struct code *c = code_load(ui);

	if (c && !c->ctx && ctx_new(&c->ctx, ui->trace, imgopt_sb(c->set)) < 0)
		c->ctx = NULL;
	return c ? c->ctx : NULL;
}

struct code_dec *code_dec(struct ui *ui)
{
	struct code *c = code_load(ui);

	if (!c)
		return NULL;
	if (c->dec && (c->dec_stream != ui->stream_no || c->dec_img != ui->img ||
		       c->dec_size != ui->img->size)) {
		code_dec_free(c->dec);
		c->dec = NULL;
	}
	if (!c->dec && code_dec_new(&c->dec, c->set, ui->stream_no, ui->img,
				    &ui->tmcfg) < 0)
		return NULL;
	c->dec_stream = ui->stream_no;
	c->dec_img = ui->img;
	c->dec_size = ui->img->size;
	return c->dec;
}

const char *code_nocode(struct ui *ui, uint64_t asid, uint64_t ip)
{
	struct code *c = code_load(ui);
	const char *why;

	if (!c)
		return NULL;
	if (c->why[0])
		return c->why;
	why = imgopt_nocode(c->set, asid, ip);
	return why;
}
