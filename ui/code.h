/*
 * code -- the browser's code context: the images, symbols, tasks and the
 * flow decoder of the stream shown, as `ptbrowse flow` builds them.
 *
 * The image options (--raw, --elf, --sysroot, --kallsyms, --buildid-dir,
 * src/imgopt.h) are kept from the command line; the image set is loaded
 * from them and from the perf.data's sideband (its binaries found as flow
 * finds them) the first time something asks, so the first screen does not
 * wait for it.  The image set, the symbol formatter (src/symfmt.h) and the
 * task reader (src/ctx.h) belong to the trace: a reload drops them
 * (code_reset()); the decoder belongs to the stream and is made afresh
 * when ui->stream_no or ui->img changes (a stream switch, a grown trace),
 * with no call needed.
 *
 * Everything here is for the UI thread.  A job in the background makes
 * its own decoder with code_dec_new() (and its own ctx_new()/symfmt_new()
 * over code_imgset()), and must be stopped before code_reset() frees the
 * image set (reload.c stops jobs first).
 */
#ifndef CODE_H
#define CODE_H

#include <stddef.h>
#include <stdint.h>

struct ctx;
struct flow;
struct flow_rec;
struct imgopt;
struct imgset;
struct img;
struct symfmt;
struct tm_config;
struct ui;
struct code;
struct code_dec;

/* A code context keeping a copy of @io's option lists (the strings stay
 * the caller's and must outlive it; @io may be NULL: no options).
 * Nothing is loaded yet.
 * Returns 0 and sets *@out, or -pte_nomem. */
int code_new(struct code **out, const struct imgopt *io);

/* Free @c and everything it loaded (NULL is fine). */
void code_free(struct code *c);

/* The trace changed (a reload): drop the image set, symbols, tasks and
 * decoder, to be loaded again on the next question.  Call it before the
 * old trace is closed or remapped. */
void code_reset(struct ui *ui);

/* The image set of ui->trace, loaded on the first call.
 * Returns it, or NULL if the options name something that cannot be
 * loaded (code_why() says what). */
struct imgset *code_imgset(struct ui *ui);

/* The image options code_imgset() was loaded with. */
const struct imgopt *code_imgopt(struct ui *ui);

/* Why there is no code at all, for rows that would show it.
 * Returns NULL if some code is known (then imgopt_nocode() or
 * code_nocode() says why an address has none), else the reason: a bad
 * option's error, or "no code given (--raw, --elf or a perf.data's
 * files): every instruction is unknown". */
const char *code_why(struct ui *ui);

/* The symbol formatter over the image set (every IP in hex if it could not
 * be loaded).  Returns it, or NULL when out of memory. */
struct symfmt *code_symfmt(struct ui *ui);

/* The task reader of ui->trace (pid/tid/comm/CPU at an offset; nothing
 * but the CPU known without sideband).  Returns it, or NULL when out of
 * memory. */
struct ctx *code_ctx(struct ui *ui);

/* The decoder bundle of the current stream (the flow decoder and the
 * readers that give it code by address space, as flow's).
 * Returns it, or NULL when out of memory. */
struct code_dec *code_dec(struct ui *ui);

/* Why @ip in address space @asid has no code, as flow says it ("no code
 * for [vdso]: ..."), or the reason code_why() gives.
 * Returns a string of the context's, or NULL if nothing is known. */
const char *code_nocode(struct ui *ui, uint64_t asid, uint64_t ip);

/*
 * A decoder bundle: a flow decoder over one stream reading code from the
 * image set in the address space the sideband (or PIP's CR3) names at the
 * deciding packet, exactly as `ptbrowse flow` reads it.  One thread at a
 * time.
 */

/* A bundle over stream @stream (@img, timed by @tm, copied) of the trace
 * @set was loaded for; @set may be NULL (no code: every read fails) and
 * must outlive the bundle, as must @img.
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid for a NULL
 * @out or @img. */
int code_dec_new(struct code_dec **out, const struct imgset *set, int stream,
		 const struct img *img, const struct tm_config *tm);

/* Free @d (NULL is fine). */
void code_dec_free(struct code_dec *d);

/* Forget what @d learnt from earlier decoding (the readers' time models
 * and positions; decoded blocks are the code's and stay), so that
 * decoding from a PSB gives
 * what `ptbrowse flow TRACE:PSB-...` gives, whatever was decoded before:
 * the address space of a stretch of tracing is matched by estimated time,
 * and an estimate carried from earlier packets can differ from one made
 * from the PSB.
 * Returns 0, or -pte_nomem (@d then reads no code until restarted), or
 * -pte_invalid for a NULL @d. */
int code_dec_restart(struct code_dec *d);

/* Its flow decoder (flow_window(), flow_seek() ...). */
struct flow *code_dec_flow(struct code_dec *d);

/* The address space the code of record @r (of @d's decoder) was read in
 * (flow_rec.asid), for its symbol and disassembly: the image the decoder
 * followed, even where the sideband maps another between two of its
 * packets; 0 is the common one (no sideband). */
uint64_t code_dec_rec_asid(const struct code_dec *d, const struct flow_rec *r);

/* The address space of the instructions the packet at @offset decided
 * (flow's, for symbols and disassembly); 0 is the common one (no
 * sideband).  Cached for repeated questions about one offset. */
uint64_t code_dec_asid(struct code_dec *d, uint64_t offset);

#endif /* CODE_H */
