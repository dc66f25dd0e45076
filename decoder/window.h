/*
 * window -- lazily decoded rows of a trace, for the browser's panes.
 *
 * A window is one PSB segment (from a PSB to the next one), or a bounded
 * chunk of it when the segment is long, decoded into rows: one row per
 * packet, plus a visible error row where decoding fails (the error row
 * covers the bytes up to the next PSB, where rows resume).  Bytes before
 * the first PSB form their own window, decoded from offset 0.
 *
 * Segment boundaries are the PSBs found by a byte scan (the same ones the
 * index finds), so a window never runs into the next segment: a packet
 * that would straddle a PSB becomes an error row.  That is what makes
 * stepping across boundaries free of gaps and duplicates in both
 * directions.  A chunk after the first in a segment continues the
 * decoder state (last IP, cycles) of the chunk before it.
 *
 * Windows live in a small LRU cache bounded in bytes; iterators pin the
 * window they stand on.  The position of a row is its byte offset.
 */
#ifndef WINDOW_H
#define WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "pkt.h"
#include "ptdec.h"
#include "tm.h"

/* Row flags. */
enum win_flag {
	WIN_F_ERROR = 1 << 0,	/* an error row: pkt.type is PKT_INVALID */
	WIN_F_PSBPLUS = 1 << 1,	/* inside PSB+ (psb up to psbend) */
	WIN_F_HAVE_IP = 1 << 2,	/* ip holds the packet's full IP */
	WIN_F_IP_SUPP = 1 << 3,	/* an IP packet with a suppressed IP */
	WIN_F_GAP = 1 << 4,	/* data was lost before this row */
	WIN_F_HAVE_TSC = 1 << 5,/* tsc holds the last TSC seen */
	WIN_F_HAVE_CBR = 1 << 6,/* cbr holds the current core:bus ratio */
	WIN_F_PRE_PSB = 1 << 7,	/* before the trace's first PSB */
	WIN_F_SEG_REL = 1 << 8,	/* the time model started at this segment's
				 * PSB, not at the trace's start: cycles
				 * count from there (no carry was known) */
	WIN_F_GAP_END = 1 << 9,	/* the last row: data was lost after the end
				 * of the image (img_gap_at its size) */
};

/* One row: a packet (or an error) with the state after it. */
struct win_row {
	struct pkt pkt;		/* the packet; offset and size for any row */
	uint64_t size;		/* bytes covered (error rows may be large) */
	int err;		/* the negative pte code of an error row, or 0 */
	uint32_t flags;		/* enum win_flag */
	uint64_t ip;		/* last IP after this packet (SDM: reset at PSB) */
	uint64_t cyc_total;	/* core cycles since the segment's PSB */
	uint64_t tsc;		/* the last TSC payload seen in the segment */
	uint8_t cbr;		/* the last CBR seen in the segment */
	uint8_t ip_bits;	/* low bits of ip known: 64 after a PSB;
				 * before the first, only what the IP
				 * packets so far gave (16, 32, 48) */
	struct tm_stamp ts;	/* the time model's stamp (tm.h) */
	uint64_t cyc_hi;	/* TM_F_BOUNDED: cycles at the next CYC, the
				 * upper bound (0 if beyond the window) */
};

/* Whether @row is trouble: an OVF, an error row, or data lost before it
 * (or after it, at the end). */
static inline int win_row_trouble(const struct win_row *row)
{
	return (row->flags & (WIN_F_ERROR | WIN_F_GAP | WIN_F_GAP_END)) ||
	       row->pkt.type == PKT_OVF;
}

/* Where windows find PSBs: the defaults scan the image; the index can
 * answer the same questions faster.  Both return 0 or -pte_nosync. */
struct win_psb_ops {
	/* The last PSB at or before @off. */
	int (*psb_at_or_before)(void *ctx, uint64_t off, uint64_t *psb);
	/* The first PSB after @off (strictly). */
	int (*psb_after)(void *ctx, uint64_t off, uint64_t *psb);
	/* The time model's state at the PSB at @psb; 0, or non-zero if it is
	 * not known (the segment's times then continue from the segment
	 * before, if it was just decoded, or start afresh there, with rows
	 * flagged WIN_F_SEG_REL). */
	int (*carry)(void *ctx, uint64_t psb, struct tm_carry *out);
	void *ctx;
};

struct win_cache;
struct win;

/* An iterator over rows; it pins its window.  Zero it before first use,
 * release it with win_iter_release(). */
struct win_iter {
	struct win_cache *wc;
	struct win *w;		/* pinned, or NULL */
	size_t i;		/* row index in w */
};

/* Largest number of rows in one window (a chunk of a long segment). */
#define WIN_MAX_ROWS 4096

/* Create a cache of decoded windows over @img, holding at most about
 * @max_bytes of rows (pinned windows may exceed it).  @ops may be NULL.
 * Returns 0, -pte_invalid if @img is NULL, -pte_nomem. */
int win_cache_new(struct win_cache **out, const struct img *img,
		  const struct win_psb_ops *ops, size_t max_bytes);

/* Free @wc (NULL is fine).  Every iterator must have been released. */
void win_cache_free(struct win_cache *wc);

/* Replace the PSB lookups (e.g. once the index is ready); NULL restores
 * the image scans.  Cached windows stay valid: the answers are the same. */
void win_cache_set_psb_ops(struct win_cache *wc, const struct win_psb_ops *ops);

/* Use timing configuration @cfg (copied) for the time model; cached
 * windows are dropped unless pinned. */
void win_cache_set_timing(struct win_cache *wc, const struct tm_config *cfg);

/* Drop the unpinned windows of segments whose PSB is before @below that
 * were decoded without the time model's carry (rows WIN_F_SEG_REL), and
 * their chunk starts, so they decode again from the carry the psb ops'
 * carry() now gives (the index's time pass got past them).  Windows
 * decoded with a carry, or from the trace's start, stay.
 * Returns the number of windows dropped. */
size_t win_cache_drop_seg_rel(struct win_cache *wc, uint64_t below);

/* The first PSB after @off, or the last at or before it, with the same
 * answers the windows use.  Return 0, or -pte_nosync if there is none. */
int win_psb_after(struct win_cache *wc, uint64_t off, uint64_t *psb);
int win_psb_at_or_before(struct win_cache *wc, uint64_t off, uint64_t *psb);

/*
 * Someone watching long walks.  A window deep in a long segment is had by
 * decoding every chunk from the segment's PSB (or the nearest chunk start
 * known) up to it: seconds in a segment of tens of MiB.  tick() is called
 * after each chunk passed on the way (WIN_MAX_ROWS rows), with the
 * segment [@seg, @seg_end), the offset reached and the offset @want whose
 * window the walk is for; it returns non-zero to stop the walk, and the
 * call that wanted the window then fails with -pte_canceled.  The chunk
 * starts passed are kept: a walk asked for again resumes where this one
 * stopped, and win_cache_copy_chunks() hands them to another cache.
 */
struct win_watch {
	int (*tick)(void *ctx, uint64_t seg, uint64_t at, uint64_t seg_end, uint64_t want);
	void *ctx;
};

/* Watch @wc's walks with @w (copied); NULL: nobody watches. */
void win_cache_set_watch(struct win_cache *wc, const struct win_watch *w);

/*
 * A long walk done on another thread.  win_cache_new_like() makes an empty
 * cache over @like's image, with its PSB lookups and timing configuration
 * (not its watch), holding about @max_bytes of rows: it decodes what @like
 * would.  @like's psb ops are then called from the thread that uses the
 * new cache as well: they must be safe there.  Returns 0, -pte_invalid,
 * -pte_nomem.
 *
 * win_cache_copy_chunks() gives @dst the chunk starts of the segment whose
 * PSB is at @seg that @src knows and @dst does not, so that a walk @src did
 * is not done again in @dst.  The two caches must decode alike: one made
 * like the other, and neither given another timing configuration since.
 * Returns the number of starts added (0 or more), -pte_invalid if the two
 * do not decode alike, -pte_nomem.  Neither cache may be in use by another
 * thread during the call.
 */
int win_cache_new_like(struct win_cache **out, const struct win_cache *like,
		       size_t max_bytes);
int win_cache_copy_chunks(struct win_cache *dst, const struct win_cache *src, uint64_t seg);
/* Whether @a and @b decode alike (as win_cache_copy_chunks() needs):
 * 1 or 0. */
int win_cache_alike(const struct win_cache *a, const struct win_cache *b);

/* Bytes of rows currently cached, and the number of chunks decoded so
 * far, kept as windows or not (for tests and the info screen). */
size_t win_cache_bytes(const struct win_cache *wc);
uint64_t win_cache_decoded(const struct win_cache *wc);

/* The chunk starts remembered in long segments, and their limit (16384
 * by default; for tests and tight memory). */
size_t win_cache_chunks(const struct win_cache *wc);
void win_cache_set_max_chunks(struct win_cache *wc, size_t n);

/* Put @it on the row that contains byte offset @off (offsets past the
 * end land on the last row).
 * Returns 0, -pte_eos if the trace is empty, -pte_nomem, -pte_canceled
 * if the watch stopped the walk to it (@it is then left as it was). */
int win_seek(struct win_iter *it, struct win_cache *wc, uint64_t off);

/* Step to the next row, crossing into the next window as needed.
 * Returns 0, or -pte_eos at the last row, -pte_canceled if the watch
 * stopped the walk to the next window (the iterator stays put). */
int win_next(struct win_iter *it);

/* Step to the previous row.
 * Returns 0, or -pte_eos at the first row, -pte_canceled if the watch
 * stopped the walk to the window before (the iterator stays put). */
int win_prev(struct win_iter *it);

/* The row under @it (NULL if the iterator is not placed). */
const struct win_row *win_row(const struct win_iter *it);

/* Unpin @it's window; @it may then be reused with win_seek(). */
void win_iter_release(struct win_iter *it);

/* Decode, if not cached, the window after (@dir > 0) or before (@dir < 0)
 * the one holding @off, so the next step in that direction is quick.
 * Returns 0, -pte_eos if there is none, -pte_nomem, -pte_canceled (the
 * watch stopped the walk). */
int win_prefetch(struct win_cache *wc, uint64_t off, int dir);

/* Copy up to @n raw bytes of the row under @it into @buf.
 * Returns the number copied. */
size_t win_row_bytes(const struct win_iter *it, uint8_t *buf, size_t n);

#endif /* WINDOW_H */
