/*
 * image -- a trace as a list of byte spans over caller-owned memory.
 *
 * A raw trace file is one span over its mapping.  A perf.data stream is one
 * span per AUXTRACE payload, in stream order, scattered through the file.
 * Logical offsets run contiguously over the spans; a span may be marked as
 * following a gap (snapshot mode, lost data), and decoding never joins a
 * packet across a gap.  Data lost after the end is an empty last span
 * marked gap_before: the cursor reports it as any other gap.  Packets that straddle two contiguous spans are
 * decoded from a small stitch buffer (img_cursor).
 */
#ifndef IMAGE_H
#define IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

/* One contiguous run of trace bytes. */
struct img_span {
	const uint8_t *data;	/* the bytes (inside a mapping) */
	uint64_t off;		/* logical offset of data[0] in the stream */
	uint64_t size;		/* bytes */
	uint64_t file_off;	/* where data[0] lies in its file */
	uint8_t gap_before;	/* data before this span was lost */
};

/* A trace image: spans sorted by off, covering [0, size). */
struct img {
	const struct img_span *spans;
	size_t nspans;
	uint64_t size;
};

/* Make @img a single span over [@data, @data + @size).  @span is the
 * caller's storage for it. */
void img_init_flat(struct img *img, struct img_span *span,
		   const uint8_t *data, uint64_t size);

/* The index of the span holding logical offset @off, or -1 if none. */
long img_span_of(const struct img *img, uint64_t off);

/* Whether data was lost just before logical offset @off: a span that
 * follows a gap starts there (at the image's size: data was lost after
 * the end). */
int img_gap_at(const struct img *img, uint64_t off);

/* Copy up to @n bytes at logical offset @off into @buf, stopping at a gap.
 * Returns the number of bytes copied (0 at the end or at a gap). */
size_t img_read(const struct img *img, uint64_t off, void *buf, size_t n);

/*
 * A packet cursor over a whole image.  Within a span it is pkt_decoder;
 * at a span boundary a packet cut by the end is re-decoded from a stitch
 * buffer holding the bytes of both spans (unless a gap separates them).
 */
struct img_cursor {
	const struct img *img;
	size_t span;			/* current span */
	struct pkt_decoder dec;		/* over the current span */
	int gap;			/* set when the cursor crossed a gap */
	struct pkt_runs *runs;		/* for img_cursor_sync_forward() in a
					 * single span; NULL (the default):
					 * remember nothing */
};

/* Put @cur at logical offset @off of @img (with no struct pkt_runs).
 * Returns 0, or -pte_eos if @off is past the end. */
int img_cursor_init(struct img_cursor *cur, const struct img *img, uint64_t off);

/* Decode the next packet, as pkt_next(), across span boundaries.
 * Returns the packet size, -pte_eos at the end of the image, or the
 * decode error (the cursor stays on the bad byte).  When the cursor
 * steps over a gap, cur->gap is set to 1 (the caller clears it): at the
 * end of a span followed by a gap it returns -pte_gap with @pkt->offset
 * at the gap (or at the start of a packet the gap cuts), and the cursor
 * already on the next PSB (or at the end), as bytes after a gap cannot be
 * decoded before one. */
int img_cursor_next(struct img_cursor *cur, struct pkt *pkt);

/* The cursor's logical offset. */
uint64_t img_cursor_offset(const struct img_cursor *cur);

/* Move to the first PSB at or after logical offset @off (searching across
 * spans; sets cur->gap if that crosses a gap).  Returns 0, or -pte_nosync
 * if there is none. */
int img_cursor_sync_forward(struct img_cursor *cur, uint64_t off);

/* The logical offset of the last PSB that starts before @off, searching
 * back through the spans.  Returns 0 and sets *@psb, or -pte_nosync. */
int img_find_psb_before(const struct img *img, uint64_t off, uint64_t *psb);

/* img_find_psb_before(), remembering long runs of 02 82 pairs in @runs
 * (may be NULL) where the image is a single span. */
int img_find_psb_before_runs(const struct img *img, struct pkt_runs *runs,
			     uint64_t off, uint64_t *psb);

/* The number of PSBs in the image, as img_cursor_sync_forward() finds them
 * one by one, in one pass: a run of 02 82 pairs counts at once. */
uint64_t img_count_psbs(const struct img *img);

#endif /* IMAGE_H */
