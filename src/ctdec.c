/* ctdec -- a decoder of one stream for a call tree (see ctdec.h). */
#include "ctdec.h"

#include <stdlib.h>
#include <string.h>

#include "ctflow.h"
#include "ctx.h"
#include "flow.h"
#include "imgopt.h"
#include "memimg.h"
#include "ptdec.h"
#include "symfmt.h"
#include "trace.h"

struct ctdec {
	const struct trace *t;
	int stream;
	const struct imgset *set;
	struct ctx *ctx_dec, *ctx_feed;	/* the decoder's, the feeder's */
	struct flow *f;
	struct symfmt *sf;
	int32_t *migrants;	/* ctf_migrants() (NULL: none made) */
	size_t nmigrants;
};

/* The flow decoder's code: the address space the sideband names at the
 * deciding packet's time, or PIP's CR3 without sideband. */
static uint64_t ctdec_asid(void *vctx, const struct flow_ctx *c)
{
	struct ctdec *d = vctx;
	struct ctx_task task;

	if (!imgopt_sb(d->set))
		return c->have_cr3 ? c->cr3 : 0;
	if (ctx_at(d->ctx_dec, d->stream, c->offset, &task) < 0)
		return 0;
	return task.asid;
}

/* The code of the address space ctdec_asid() named (flow.h: the block
 * cache files it there, and the records carry it). */
static int ctdec_read(void *vctx, const struct flow_ctx *c, uint64_t ip,
		      uint8_t *buf, size_t size)
{
	struct ctdec *d = vctx;
	uint64_t asid = imgopt_sb(d->set) ? c->asid : 0;

	return mi_read(imgopt_mi(d->set), asid, ip, buf, size);
}

int ctdec_new(struct ctdec **out, const struct trace *t, int stream,
	      const struct imgset *set)
{
	struct flow_config cfg;
	struct ctdec *d;

	if (!out || !t || !set || stream < 0 || (size_t)stream >= t->nstreams)
		return -pte_invalid;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -pte_nomem;
	d->t = t;
	d->stream = stream;
	d->set = set;
	memset(&cfg, 0, sizeof(cfg));
	cfg.img = &t->streams[stream].img;
	cfg.read = ctdec_read;
	cfg.read_ctx = d;
	cfg.asid = ctdec_asid;
	if (ctx_new(&d->ctx_dec, t, imgopt_sb(set)) < 0 ||
	    ctx_new(&d->ctx_feed, t, imgopt_sb(set)) < 0 ||
	    flow_new(&d->f, &cfg) < 0 || symfmt_new(&d->sf, set) < 0 ||
	    (imgopt_sb(set) && ctf_migrants(imgopt_sb(set), (int)t->nstreams,
					    &d->migrants, &d->nmigrants) < 0)) {
		ctdec_free(d);
		return -pte_nomem;
	}
	*out = d;
	return 0;
}

void ctdec_free(struct ctdec *d)
{
	if (!d)
		return;
	flow_free(d->f);
	ctx_free(d->ctx_dec);
	ctx_free(d->ctx_feed);
	symfmt_free(d->sf);
	free(d->migrants);
	free(d);
}

struct flow *ctdec_flow(struct ctdec *d)
{
	return d ? d->f : NULL;
}

struct symfmt *ctdec_symfmt(struct ctdec *d)
{
	return d ? d->sf : NULL;
}

void ctdec_opts(struct ctdec *d, struct ctf_opts *o)
{
	o->stream = d->stream;
	/* without sideband a CPU's stream has one task, the unknown one
	 * (ctx.h: the common address space, no thread): asking for it at
	 * every packet cost a tenth of the decode */
	o->ctx = imgopt_sb(d->set) || d->t->streams[d->stream].tid >= 0 ? d->ctx_feed : NULL;
	o->sb = imgopt_sb(d->set);
	o->nstreams = (int)d->t->nstreams;
	o->migrants = d->migrants;
	o->nmigrants = d->nmigrants;
}
