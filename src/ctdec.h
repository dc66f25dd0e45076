/*
 * ctdec -- a decoder of one stream with the sideband questions and the
 * symbol cache a call tree needs (ctflow.h's ctf_range() over it), for
 * ctjob.h's jobs and ctidx.h's workers: one thread uses it at a time, but
 * for ctf_range()'s own split (its decoder in one thread, its sideband
 * questions for the feed in the other).  The address space of each
 * instruction is the sideband's task at its deciding packet's time
 * (ctx.h), or PIP's CR3 without sideband.
 */
#ifndef CTDEC_H
#define CTDEC_H

struct ctdec;
struct ctf_opts;
struct flow;
struct imgset;
struct symfmt;
struct trace;

/* A decoder of stream @stream of @t with the code of @set (both outlive
 * it).  Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid for a
 * NULL or bad argument. */
int ctdec_new(struct ctdec **out, const struct trace *t, int stream,
	      const struct imgset *set);
/* Free @d (NULL is fine). */
void ctdec_free(struct ctdec *d);
/* Its decoder, and its symbol cache (a tree's resolver context). */
struct flow *ctdec_flow(struct ctdec *d);
struct symfmt *ctdec_symfmt(struct ctdec *d);
/* Set @o's stream and sideband context for decoding with @d (the rest of
 * @o is left as it is). */
void ctdec_opts(struct ctdec *d, struct ctf_opts *o);

#endif /* CTDEC_H */
