/* ctjob -- the call tree of a range, here or in a thread (see ctjob.h). */
#include "ctjob.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calltree.h"
#include "ctdec.h"
#include "ctflow.h"
#include "ctidx.h"
#include "ctx.h"
#include "ptdec.h"
#include "trace.h"

/* The options of @j's decode with decoder @d. */
static void ctjob_opts(struct ctjob *j, struct ctdec *d, struct ctf_opts *o)
{
	memset(o, 0, sizeof(*o));
	ctdec_opts(d, o);
	o->tm = j->tm;
	o->carry = j->have_carry ? &j->carry : NULL;
	if (j->restricted) {
		o->keep = j->keep;
		o->nkeep = j->nkeep;
	}
	o->cancel = &j->cancel;
	o->chunk = j->ci ? ctidx_grid(j->ci) : j->grid;
}

/* The range's last piece [cut, to), decoded into a fragment by a thread
 * of its own while the caller feeds the tree the part before. */
struct ctjob_piece {
	struct ctjob *j;
	struct ctidx_cut cut;
	struct ctdec *d;
	struct ct *frag;
	int ret;
	pthread_t th;
};

static int ctjob_piece_body(void *arg)
{
	struct ctjob_piece *p = arg;
	struct ctjob *j = p->j;
	struct ctf_opts o;

	ctjob_opts(j, p->d, &o);
	o.carry = &p->cut.at;
	o.resume = 1;
	o.resume_psb = p->cut.prev;
	o.resume_carry = &p->cut.before;
	return ctf_range(p->frag, ctdec_flow(p->d), &j->t->streams[j->stream].img,
			 p->cut.off, j->to, &o);
}

static void *ctjob_piece_thread(void *arg)
{
	struct ctjob_piece *p = arg;

	p->ret = trace_guard(ctjob_piece_body, p);
	return NULL;
}

/*
 * A restricted job (a range [FROM, TO) decoded from the PSB before FROM,
 * keeping what [FROM, TO) decides) cut by the code index: the pieces
 * after the first, fragments or the last, must be fed what the whole
 * decode feeds there, everything, so each must be decoded from a PSB at
 * or after FROM (a window is decoded from the PSB before its start, and
 * the lines there say which thread ran last: ctflow.c's ctf_before()).
 * Moves @pl's first chunk past those that are not.  Returns 0, or 1 if
 * the range cannot be cut so (another restriction: decode it whole).
 */
static int ctjob_plan_keep(const struct ctjob *j, struct ctidx_plan *pl)
{
	struct ctidx_cut c;

	if (!j->restricted)
		return 0;
	if (j->nkeep != 1 || j->keep[0].to < j->to)
		return 1;
	for (; pl->ka <= pl->kb; pl->ka++) {
		if (ctidx_cut(j->ci, pl->ka, &c) < 0)
			return 1;
		if (c.prev >= j->keep[0].from)
			break;
	}
	if (pl->ka > pl->kb)
		return 1;
	if (pl->kend < pl->ka)
		pl->kend = pl->ka;
	return 0;
}

/*
 * A range the code index cuts (ctidx_plan()): the first piece up to a
 * cut here, the last from the cut in a thread of its own into a fragment,
 * merged after the first (calltree.h's ct_merge()); where the index has
 * the fragments of the chunks between the first piece and the last, the
 * first piece is the start edge and the fragments follow it.  A restricted
 * job's first piece keeps what it keeps (ctjob_plan_keep()).  Returns as
 * ctf_range(), or 1 when the range cannot be cut (decode it whole).
 */
static int ctjob_split(struct ctjob *j)
{
	struct ctidx_plan pl;
	struct ctjob_piece p;
	struct ctf_opts o;
	size_t k;
	int covered, ret, th;

	if (ctidx_plan(j->ci, j->from, j->to, &pl) != 0 || ctjob_plan_keep(j, &pl))
		return 1;
	memset(&p, 0, sizeof(p));
	covered = pl.ka < pl.kend && ctidx_covers(j->ci, pl.ka, pl.kend);
	k = covered ? pl.kend : (pl.ka + pl.kb) / 2;
	if (ctidx_cut(j->ci, k, &p.cut) < 0)
		return 1;
	p.j = j;
	if (ctidx_dec_get(j->ci, &p.d) < 0 ||
	    ct_new_frag(&p.frag, ct_resolve_symfmt, ctdec_symfmt(p.d)) < 0) {
		ret = -pte_nomem;
		goto out;
	}
	th = !pthread_create(&p.th, NULL, ctjob_piece_thread, &p);
	ctjob_opts(j, j->dec, &o);
	o.ahead = j->to;
	o.done = &j->done;
	ret = ctf_range(j->ct, ctdec_flow(j->dec), &j->t->streams[j->stream].img,
			j->from, covered ? ctidx_cut_off(j->ci, pl.ka) : p.cut.off, &o);
	if (!ret && covered) {
		ret = ctidx_merge(j->ci, j->ct, pl.ka, pl.kend);
		j->merged = ret ? 0 : pl.kend - pl.ka;
	}
	if (th)
		pthread_join(p.th, NULL);
	else if (!ret)
		ctjob_piece_thread(&p);
	if (!ret)
		ret = p.ret;
	if (!ret)
		ret = ct_finish(p.frag);
	if (!ret)
		ret = ct_merge(j->ct, p.frag);
out:
	ct_free(p.frag);
	ctidx_dec_put(j->ci, p.d);
	return ret;
}

static int ctjob_body(void *arg)
{
	struct ctjob *j = arg;
	struct ctf_opts o;
	int r;

	if (j->ci && j->have_carry) {
		r = ctjob_split(j);
		if (r <= 0)
			return r;
	}
	ctjob_opts(j, j->dec, &o);
	o.done = &j->done;
	return ctf_range(j->ct, ctdec_flow(j->dec), &j->t->streams[j->stream].img,
			 j->from, j->to, &o);
}

int ctjob_run(struct ctjob *j)
{
	int r;

	if (!j)
		return -pte_invalid;
	j->merged = 0;
	if (!j->t || !j->set || j->to <= j->from || j->stream < 0 ||
	    (size_t)j->stream >= j->t->nstreams) {
		r = -pte_invalid;
		goto out;
	}
	/* with the code index, a warm decoder of its */
	r = j->ci ? ctidx_dec_get(j->ci, &j->dec) :
	    ctdec_new(&j->dec, j->t, j->stream, j->set);
	if (!r && ct_new(&j->ct, ct_resolve_symfmt, ctdec_symfmt(j->dec)) < 0)
		r = -pte_nomem;
	if (r < 0)
		goto out;
	/* with a restriction and nothing kept, the tree stays empty */
	r = j->restricted && !j->nkeep ? 0 : trace_guard(ctjob_body, j);
	if (r == -pte_sigbus) {
		/* abandoned midway: the tree may be inconsistent */
		ct_free(j->ct);
		j->ct = NULL;
		goto out;
	}
	if (j->ct)
		ct_finish(j->ct);
out:
	/* a finished tree asks its resolver nothing: its names are the
	 * image set's */
	ctidx_dec_put(j->ci, j->dec);	/* without the index: freed */
	j->dec = NULL;
	j->result = r;
	atomic_store(&j->finished, 1);
	return r;
}

static void *ctjob_thread(void *arg)
{
	ctjob_run(arg);
	return NULL;
}

int ctjob_start(struct ctjob *j)
{
	if (!j)
		return -pte_invalid;
	atomic_store(&j->finished, 0);
	if (pthread_create(&j->thread, NULL, ctjob_thread, j))
		return -pte_nomem;
	j->started = 1;
	return 0;
}

void ctjob_cancel(struct ctjob *j)
{
	if (j)
		atomic_store(&j->cancel, 1);
}

int ctjob_join(struct ctjob *j)
{
	if (!j || !j->started)
		return j ? j->result : -pte_invalid;
	pthread_join(j->thread, NULL);
	j->started = 0;
	return j->result;
}

void ctjob_release(struct ctjob *j)
{
	if (!j)
		return;
	if (j->started) {
		ctjob_cancel(j);
		ctjob_join(j);
	}
	ct_free(j->ct);
	j->ct = NULL;
	ctdec_free(j->dec);
	j->dec = NULL;
}

int ctjob_range(struct ctjob *j, const struct img *img, uint64_t psb, uint64_t from,
		uint64_t to, struct ctx_range *keep)
{
	j->from = psb < from ? psb : from;
	j->to = to;
	j->restricted = psb < from;
	if (psb < from) {
		keep->from = from;
		keep->to = to;
		j->keep = keep;
		j->nkeep = 1;
		return 0;
	}
	return img_find_psb_before(img, to, &psb) != 0;
}

const char *ctjob_none(const struct ct *ct, int nopsb, char *buf, size_t size)
{
	if (nopsb)
		snprintf(buf, size, "no code decoded (no PSB before its end)");
	else if (ct && ct_breaks(ct))
		snprintf(buf, size, "no code decoded (%" PRIu64 " breaks)", ct_breaks(ct));
	else
		snprintf(buf, size, "%s", "");
	return buf;
}
