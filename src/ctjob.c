/* ctjob -- the call tree of a range, here or in a thread (see ctjob.h). */
#include "ctjob.h"

#include <string.h>

#include "calltree.h"
#include "ctflow.h"
#include "ctx.h"
#include "flow.h"
#include "imgopt.h"
#include "memimg.h"
#include "ptdec.h"
#include "symfmt.h"
#include "trace.h"

/* The flow decoder's code: the address space the sideband names at the
 * deciding packet's time, or PIP's CR3 without sideband. */
static uint64_t ctjob_asid(void *vctx, const struct flow_ctx *c)
{
	struct ctjob *j = vctx;
	struct ctx_task task;

	if (!imgopt_sb(j->set))
		return c->have_cr3 ? c->cr3 : 0;
	if (ctx_at(j->ctx_dec, j->stream, c->offset, &task) < 0)
		return 0;
	return task.asid;
}

static int ctjob_read(void *vctx, const struct flow_ctx *c, uint64_t ip,
		      uint8_t *buf, size_t size)
{
	struct ctjob *j = vctx;
	uint64_t asid = imgopt_sb(j->set) ? ctjob_asid(vctx, c) : 0;

	return mi_read(imgopt_mi(j->set), asid, ip, buf, size);
}

static int ctjob_body(void *arg)
{
	struct ctjob *j = arg;
	struct ctf_opts o;

	memset(&o, 0, sizeof(o));
	o.stream = j->stream;
	/* without sideband a CPU's stream has one task, the unknown one
	 * (ctx.h: the common address space, no thread): asking for it at
	 * every packet cost a tenth of the decode */
	o.ctx = imgopt_sb(j->set) || j->t->streams[j->stream].tid >= 0 ? j->ctx_feed : NULL;
	o.tm = j->tm;
	o.carry = j->have_carry ? &j->carry : NULL;
	if (j->restricted) {
		o.keep = j->keep;
		o.nkeep = j->nkeep;
	}
	o.cancel = &j->cancel;
	o.done = &j->done;
	return ctf_range(j->ct, j->f, &j->t->streams[j->stream].img, j->from,
			 j->to, &o);
}

/* The decoder, the names and the contexts of @j.  Returns 0 or
 * -pte_nomem. */
static int ctjob_setup(struct ctjob *j)
{
	struct flow_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.img = &j->t->streams[j->stream].img;
	cfg.read = ctjob_read;
	cfg.read_ctx = j;
	cfg.asid = ctjob_asid;
	if (ctx_new(&j->ctx_dec, j->t, imgopt_sb(j->set)) < 0 ||
	    ctx_new(&j->ctx_feed, j->t, imgopt_sb(j->set)) < 0 ||
	    flow_new(&j->f, &cfg) < 0 || symfmt_new(&j->sf, j->set) < 0 ||
	    ct_new(&j->ct, ct_resolve_symfmt, j->sf) < 0)
		return -pte_nomem;
	return 0;
}

int ctjob_run(struct ctjob *j)
{
	int r;

	if (!j)
		return -pte_invalid;
	if (!j->t || !j->set || j->to <= j->from || j->stream < 0 ||
	    (size_t)j->stream >= j->t->nstreams) {
		r = -pte_invalid;
		goto out;
	}
	r = ctjob_setup(j);
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
	flow_free(j->f);
	j->f = NULL;
	ctx_free(j->ctx_dec);
	ctx_free(j->ctx_feed);
	j->ctx_dec = j->ctx_feed = NULL;
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
	symfmt_free(j->sf);
	j->sf = NULL;
}
