/* perfdata -- perf.data (file and pipe mode) to Intel PT streams. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata.h"
#include "ptdec.h"

#include "perfdata_int.h"


static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Whether [@off, @off + @len) lies inside the file. */
static int perfdata_inside(const struct perfdata_state *st, uint64_t off, uint64_t len)
{
	return off <= st->size && len <= st->size - off;
}

/* Write "PATH: offset 0xOFF: MESSAGE" into st->err. */
static int perfdata_fail(struct perfdata_state *st, uint64_t off, int code,
		   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int perfdata_fail(struct perfdata_state *st, uint64_t off, int code,
		   const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (st->err && st->errlen)
		snprintf(st->err, st->errlen, "%s: offset %#" PRIx64 ": %s",
			 st->path, off, msg);
	return -code;
}

/* Note a recoverable problem; the first one is kept for `info`. */
static void perfdata_warn(struct perfdata_state *st, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void perfdata_warn(struct perfdata_state *st, uint64_t off, const char *fmt, ...)
{
	char *w = st->info.warning;
	size_t n = sizeof(st->info.warning);
	int len;
	va_list ap;

	if (st->info.nwarnings++)
		return;
	len = snprintf(w, n, "offset %#" PRIx64 ": ", off);
	if (len < 0 || (size_t)len >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(w + len, n - (size_t)len, fmt, ap);
	va_end(ap);
}

/* The file is cut short or damaged at @off: the records after it, of any
 * stream, may be lost.  The first such place is kept; every stream then
 * ends in a gap (perfdata_end_gaps). */
static void perfdata_cut(struct perfdata_state *st, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void perfdata_cut(struct perfdata_state *st, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (st->cut)
		return;
	st->cut = 1;
	st->cut_off = off;
	va_start(ap, fmt);
	vsnprintf(st->cut_why, sizeof(st->cut_why), fmt, ap);
	va_end(ap);
}

/* Grow *@arr (of @elem-byte elements) to hold one more than *@cap. */
static int perfdata_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -pte_nomem;
	*arr = p;
	*cap = ncap;
	return 0;
}

int perfdata_is_swapped(const uint8_t *map, uint64_t size)
{
	return map && size >= 8 && rd64(map) == PD_MAGIC_SWAPPED;
}

int perfdata_is(const uint8_t *map, uint64_t size)
{
	uint64_t hsize;

	if (!map || size < 8 || rd64(map) != PD_MAGIC)
		return 0;
	/* the magic alone: a perf.data cut short, not a raw trace */
	if (size < PD_PIPE_HDR_SIZE)
		return 1;
	hsize = rd64(map + 8);
	if (hsize == PD_PIPE_HDR_SIZE)
		return 2;
	return 1;
}

/* Read one attr at @p (@len bytes available) with ids at [@ids, +@nids). */
static int perfdata_add_attr(struct perfdata_state *st, uint64_t off, const uint8_t *p,
		       uint64_t len, const uint8_t *ids, size_t nids)
{
	struct perfdata_attr *a;
	size_t ncap = st->nattrs + 1;

	/* type, size, config, sample_period, sample_type, read_format, flags */
	if (len < 48)
		return perfdata_fail(st, off, pte_bad_file,
			       "perf_event_attr too short (%" PRIu64 " bytes)",
			       len);
	a = realloc(st->attrs, ncap * sizeof(*a));
	if (!a)
		return -pte_nomem;
	st->attrs = a;
	a += st->nattrs++;
	a->type = rd32(p);
	a->config = rd64(p + 8);
	a->sample_type = rd64(p + 24);
	a->sample_id_all = !!(rd64(p + 40) & PD_ATTR_SAMPLE_ID_ALL);
	a->exclude_kernel = !!(rd64(p + 40) & PD_ATTR_EXCLUDE_KERNEL);
	a->ids = ids;
	a->nids = nids;
	st->ids_stale = 1;
	return 0;
}

/* File mode: the attrs section, each attr followed by its ids section. */
static int perfdata_file_attrs(struct perfdata_state *st)
{
	uint64_t attr_size = rd64(st->map + 16);
	uint64_t off = rd64(st->map + 24), size = rd64(st->map + 32);
	uint64_t i, n, ids_off, ids_size;
	const uint8_t *e;
	int err;

	if (attr_size < 48 + 16 || attr_size > 4096)
		return perfdata_fail(st, 16, pte_bad_file,
			       "bad attr size %" PRIu64, attr_size);
	if (!perfdata_inside(st, off, size))
		return perfdata_fail(st, 24, pte_bad_file,
			       "attr section [%#" PRIx64 ", +%" PRIu64
			       ") is outside the file", off, size);
	n = size / attr_size;
	for (i = 0; i < n; i++) {
		e = st->map + off + i * attr_size;
		ids_off = rd64(e + attr_size - 16);
		ids_size = rd64(e + attr_size - 8);
		if (!perfdata_inside(st, ids_off, ids_size)) {
			perfdata_warn(st, off + i * attr_size,
				"attr ids outside the file");
			ids_off = 0;
			ids_size = 0;
		}
		err = perfdata_add_attr(st, off + i * attr_size, e, attr_size - 16,
				  st->map + ids_off, ids_size / 8);
		if (err)
			return err;
	}
	return 0;
}

/* The AUXTRACE index's entries and whether their offsets ascend, so
 * that perfdata_index_next() can search it for every AUXTRACE record. */
static void perfdata_index_order(struct perfdata_state *st)
{
	uint64_t i, n = rd64(st->index);

	if (n > (st->index_size - 8) / 16)
		n = (st->index_size - 8) / 16;
	st->index_n = n;
	st->index_sorted = 1;
	for (i = 1; i < n && st->index_sorted; i++)
		st->index_sorted = rd64(st->index + 8 + 16 * i) >=
				   rd64(st->index + 8 + 16 * (i - 1));
}

/* A perf_header_string feature (u32 length, then the text) at @p of
 * @size bytes into @out (@outlen bytes), to its first newline. */
static void perfdata_feature_str(const uint8_t *p, uint64_t size, char *out,
				 size_t outlen)
{
	uint32_t len;

	if (size < 4)
		return;
	len = rd32(p);
	if (len > size - 4)
		len = (uint32_t)(size - 4);
	if (len >= outlen)
		len = (uint32_t)(outlen - 1);
	memcpy(out, p + 4, len);
	out[len] = 0;
	out[strcspn(out, "\n")] = 0;
}

/* A feature section's contents: HEADER_CPUID, HOSTNAME, OSRELEASE,
 * BUILD_ID or AUXTRACE. */
static void perfdata_feature(struct perfdata_state *st, uint64_t feat, uint64_t off,
		       uint64_t size)
{
	const uint8_t *p = st->map + off;

	if (feat == PD_FEAT_CPUID) {
		perfdata_feature_str(p, size, st->info.cpuid,
				     sizeof(st->info.cpuid));
	} else if (feat == PD_FEAT_HOSTNAME) {
		perfdata_feature_str(p, size, st->info.hostname,
				     sizeof(st->info.hostname));
	} else if (feat == PD_FEAT_OSRELEASE) {
		perfdata_feature_str(p, size, st->info.osrelease,
				     sizeof(st->info.osrelease));
	} else if (feat == PD_FEAT_BUILD_ID) {
		st->build_ids = p;
		st->build_ids_size = size;
	} else if (feat == PD_FEAT_AUXTRACE && size >= 8) {
		st->index = p;
		st->index_size = size;
		st->index_off = off;
		st->have_index = 1;
		perfdata_index_order(st);
	}
}

/* File mode: the feature sections after the data section. */
static void perfdata_file_features(struct perfdata_state *st, uint64_t sec)
{
	const uint8_t *bits = st->map + 72;
	uint64_t off, size;
	int feat;

	for (feat = 0; feat < 256; feat++) {
		if (!(bits[feat / 8] & (1u << (feat % 8))))
			continue;
		if (!perfdata_inside(st, sec, 16)) {
			perfdata_warn(st, sec, "feature table runs past the end");
			return;
		}
		off = rd64(st->map + sec);
		size = rd64(st->map + sec + 8);
		if (perfdata_inside(st, off, size))
			perfdata_feature(st, feat, off, size);
		else
			perfdata_warn(st, sec, "feature %d outside the file", feat);
		sec += 16;
	}
}

/* AUXTRACE_INFO: the Intel PT private words. */
static int perfdata_auxtrace_info(struct perfdata_state *st, uint64_t off, uint64_t len)
{
	const uint8_t *p = st->map + off;
	uint64_t n, flen, fbytes, room, i;
	uint32_t type;

	if (len < 16)
		return perfdata_fail(st, off, pte_bad_file,
			       "AUXTRACE_INFO record too short");
	type = rd32(p + 8);
	if (type != PD_AUXTRACE_INTEL_PT)
		return perfdata_fail(st, off, pte_bad_file,
			       "AUX area data of type %u, not Intel PT "
			       "(1)", type);
	n = (len - 16) / 8;
	if (n > PD_PT_NPRIV)
		n = PD_PT_NPRIV;
	for (i = 0; i < n; i++)
		st->priv[i] = rd64(p + 16 + 8 * i);
	st->npriv = n;
	st->info.have_auxtrace_info = 1;
	if (n > PD_PT_FILTER_STR_LEN) {
		flen = st->priv[PD_PT_FILTER_STR_LEN];
		room = len - 16 - 8 * PD_PT_NPRIV;
		/* the string and its NUL, padded to 8 bytes */
		fbytes = flen ? ((flen | 7) + 1) : 0;
		if (flen && flen < room && fbytes <= room) {
			if (flen >= sizeof(st->info.filter))
				flen = sizeof(st->info.filter) - 1;
			memcpy(st->info.filter, p + 16 + 8 * PD_PT_NPRIV, flen);
			st->info.filter[flen] = 0;
		}
		/* then cap_event_trace, if the record is long enough */
		if (fbytes <= room && room - fbytes >= 8) {
			st->info.have_cap_event_trace = 1;
			st->info.cap_event_trace =
				!!rd64(p + 16 + 8 * PD_PT_NPRIV + fbytes);
		}
	}
	return 0;
}

/*
 * The @n (at most 64) bytes at @off.  Far from the last bytes read, they
 * come through pread: touching the mapping there would fault in a window
 * of pages around each of thousands of scattered AUXTRACE records, which
 * costs more than ten times as much on a big file.  @c is the walk's own
 * cursor: it holds the pread bytes the pointer returned may point into.
 */
static const uint8_t *perfdata_peek(const struct perfdata_state *st,
				    struct perfdata_cursor *c, uint64_t off,
				    size_t n)
{
	if (c->peek_n && off >= c->peek_off &&
	    off + n <= c->peek_off + c->peek_n)
		return c->peek + (off - c->peek_off);
	if (st->fd >= 0 && n <= sizeof(c->peek) &&
	    (off < c->near || off - c->near > 65536) &&
	    pread(st->fd, c->peek, n, (off_t)off) == (ssize_t)n) {
		c->peek_off = off;
		c->peek_n = n;
		/* Small records that follow come through the mapping: a
		 * pread each would cost more than the one fault. */
		c->near = off;
		return c->peek;
	}
	c->near = off;
	return st->map + off;
}

/* The lowest file offset in [@from, @end) that HEADER_AUXTRACE's index
 * names, or @end if none (or no index).  A binary search in perf's index
 * (offsets ascending), as it is asked for every AUXTRACE record. */
static uint64_t perfdata_index_next(const struct perfdata_state *st, uint64_t from,
			      uint64_t end)
{
	uint64_t lo = 0, hi = st->index_n, mid, i, roff, best = end;

	if (!st->have_index)
		return end;
	if (st->index_sorted) {
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (rd64(st->index + 8 + 16 * mid) < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		roff = lo < st->index_n ? rd64(st->index + 8 + 16 * lo) : end;
		return roff < end ? roff : end;
	}
	for (i = 0; i < st->index_n; i++) {
		roff = rd64(st->index + 8 + 16 * i);
		if (roff >= from && roff < best)
			best = roff;
	}
	return best;
}

/* A record perf writes with nothing after it that its size leaves out
 * (not AUXTRACE or tracing data): kernel types, perf's own. */
static int perfdata_plain_type(uint32_t type)
{
	return (type >= 1 && type < 32) ||
	       (type >= PD_REC_HEADER_ATTR && type < 96 &&
		type != PD_REC_HEADER_TRACING_DATA && type != PD_REC_AUXTRACE);
}

/*
 * Where, in [@from, @to], the records that end at @to begin: the lowest
 * place from which record headers (a plain type, a size a multiple of 8,
 * as perf writes them) step exactly to @to; @to if none (or no memory).
 * A payload whose size is damaged ends there: the sideband records between
 * it and the next AUXTRACE record are not trace data.  Worked back from
 * @to, a place at a time (every 8 bytes: sizes are multiples of 8).
 */
static uint64_t perfdata_records_to(const struct perfdata_state *st,
				    uint64_t from, uint64_t to)
{
	uint64_t n = (to - from) / 8, i, p, len, best = to;
	uint8_t *good = calloc(n + 1, 1);	/* good[k]: to - 8k leads to @to */

	if (!good)
		return to;
	good[0] = 1;
	for (i = 1; i <= n; i++) {
		p = to - 8 * i;
		len = rd16(st->map + p + 6);
		if (len < 8 || len % 8 || len > 8 * i ||
		    !perfdata_plain_type(rd32(st->map + p)))
			continue;
		good[i] = good[i - len / 8];
		if (good[i])
			best = p;
	}
	free(good);
	return best;
}

/* The AUXTRACE record at @off (@hsize bytes, its payload after it, cut at
 * @end with a warning): sets *@total to the bytes both take.  A payload
 * that runs over the next AUXTRACE record the index names ends where the
 * records before that one begin (its size is wrong: the index gives no
 * payload sizes, only where records start); one that runs past @end with
 * no index entry after it is cut at @end (then the file is cut:
 * perfdata_cut); either way what followed it in its stream is lost.
 * Returns 0, or a negative pte code. */
static int perfdata_auxtrace(struct perfdata_state *st, uint64_t off, uint64_t hsize,
		       uint64_t end, uint64_t *total)
{
	const uint8_t *p = perfdata_peek(st, &st->cur, off,
					  PD_AUXTRACE_HDR_SIZE);
	struct perfdata_aux *a;
	uint64_t size, claim, next, rec;
	int err, lost = 0;

	if (hsize < PD_AUXTRACE_HDR_SIZE) {
		perfdata_warn(st, off, "AUXTRACE record too short (%" PRIu64
			" bytes); skipped", hsize);
		*total = hsize;
		return 0;
	}
	size = rd64(p + 8);
	*total = hsize + size;
	/* a size that runs over the next AUXTRACE record perf's index lists
	 * is wrong, inside the file too (an unordered index, not perf's,
	 * is searched only for one that runs past the end) */
	next = end;
	if (st->index_sorted || size > end - off - hsize)
		next = perfdata_index_next(st, off + hsize, end);
	if (size > next - off - hsize && next < end &&
	    (end - next < 8 || rd32(st->map + next) != PD_REC_AUXTRACE))
		next = end;	/* the entry is wrong, not the size */
	if (size > next - off - hsize) {
		claim = size;
		if (next < end) {
			/* the payload ends where the sideband records
			 * before that AUXTRACE record begin */
			size = perfdata_records_to(st, off + hsize, next) -
			       off - hsize;
			*total = hsize + size;
			perfdata_warn(st, off, "AUXTRACE payload of %" PRIu64 " bytes "
				"runs over the next AUXTRACE record the index "
				"lists (at %#" PRIx64 "); %" PRIu64 " kept, up "
				"to the records before it", claim, next, size);
		} else if (st->end_known &&
			   (rec = perfdata_records_to(st, off + hsize, end)) < end) {
			/* the data section ends with records, not a cut
			 * payload: they are sideband, never trace data */
			size = rec - off - hsize;
			*total = hsize + size;
			perfdata_warn(st, off, "AUXTRACE payload of %" PRIu64 " bytes "
				"runs past the end of the data section (%#"
				PRIx64 "); %" PRIu64 " kept, up to the records "
				"before it", claim, end, size);
		} else {
			size = end - off - hsize;
			*total = end - off;
			perfdata_warn(st, off, "AUXTRACE payload of %" PRIu64 " bytes "
				"runs past the end; %" PRIu64 " kept", claim,
				size);
			perfdata_cut(st, off, "AUXTRACE payload at %#" PRIx64 " runs "
			       "past the end of the file (%" PRIu64 " of %"
			       PRIu64 " bytes there): the file is cut short "
			       "or the size is wrong", off, size, claim);
			st->cut_aux = st->cut_off == off;
		}
		lost = 1;
	}
	err = perfdata_grow((void **)&st->aux, &st->aux_cap, st->naux, sizeof(*a));
	if (err)
		return err;
	a = &st->aux[st->naux++];
	a->lost_after = lost;
	a->rec_off = off;
	a->data_off = off + hsize;
	a->size = size;
	a->offset = rd64(p + 16);
	a->idx = rd32(p + 32);
	a->tid = (int32_t)rd32(p + 36);
	a->cpu = (int32_t)rd32(p + 40);
	st->info.nauxtrace++;
	return 0;
}

static int perfdata_id_cmp(const void *a, const void *b)
{
	const struct perfdata_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sort every attr's ids into st->ids (many records, many ids per attr
 * with many CPUs: a search per record must be cheap). */
static int perfdata_sort_ids(struct perfdata_state *st)
{
	size_t i, j, n = 0;
	struct perfdata_id *t;

	for (i = 0; i < st->nattrs; i++)
		n += st->attrs[i].nids;
	t = realloc(st->ids, (n ? n : 1) * sizeof(*t));
	if (!t)
		return -pte_nomem;
	st->ids = t;
	st->nids = 0;
	for (i = 0; i < st->nattrs; i++)
		for (j = 0; j < st->attrs[i].nids; j++) {
			t[st->nids].id = rd64(st->attrs[i].ids + 8 * j);
			t[st->nids++].attr = i;
		}
	qsort(t, st->nids, sizeof(*t), perfdata_id_cmp);
	st->ids_stale = 0;
	return 0;
}

/* The attr a non-sample record at [@p, @p + @len) belongs to: with
 * IDENTIFIER in every attr its last word names it, else the first attr
 * (perf requires the sample_id layouts to agree then). */
static const struct perfdata_attr *perfdata_attr_of(struct perfdata_state *st,
					const uint8_t *p, uint64_t len)
{
	struct perfdata_id key, *hit;
	size_t i;

	if (!st->nattrs)
		return NULL;
	if (st->nattrs == 1 || len < 16)
		return &st->attrs[0];
	for (i = 0; i < st->nattrs; i++)
		if (!(st->attrs[i].sample_type & PD_ST_IDENTIFIER))
			return &st->attrs[0];
	if (st->ids_stale && perfdata_sort_ids(st) < 0)
		return &st->attrs[0];
	key.id = rd64(p + len - 8);
	hit = bsearch(&key, st->ids, st->nids, sizeof(*st->ids), perfdata_id_cmp);
	return hit ? &st->attrs[hit->attr] : &st->attrs[0];
}

/* Fill @ev's time, cpu and task from the sample_id trailer of the record
 * at [@p, @p + @len) whose fixed part is @fixed bytes.  Returns the start
 * of the trailer (len if there is none). */
static uint64_t perfdata_sample_id(struct perfdata_state *st, const uint8_t *p,
			     uint64_t len, uint64_t fixed, struct perfdata_event *ev)
{
	const struct perfdata_attr *a = perfdata_attr_of(st, p, len);
	uint64_t st_bits, n = 0, pos;

	if (!a || !a->sample_id_all)
		return len;
	st_bits = a->sample_type;
	n += !!(st_bits & PD_ST_TID) + !!(st_bits & PD_ST_TIME) +
	     !!(st_bits & PD_ST_ID) + !!(st_bits & PD_ST_STREAM_ID) +
	     !!(st_bits & PD_ST_CPU) + !!(st_bits & PD_ST_IDENTIFIER);
	if (8 * n > len || len - 8 * n < fixed)
		return len;
	pos = len - 8 * n;
	if (st_bits & PD_ST_TID) {
		if (ev->pid < 0 && ev->tid < 0) {
			ev->pid = (int32_t)rd32(p + pos);
			ev->tid = (int32_t)rd32(p + pos + 4);
		}
		pos += 8;
	}
	if (st_bits & PD_ST_TIME) {
		ev->time = rd64(p + pos);
		ev->have_time = 1;
		pos += 8;
	}
	pos += 8 * (!!(st_bits & PD_ST_ID) + !!(st_bits & PD_ST_STREAM_ID));
	if (st_bits & PD_ST_CPU)
		ev->cpu = (int32_t)rd32(p + pos);
	return len - 8 * n;
}

/* Add @n to *@sum, saturating: counts from the file may be anything. */
static void perfdata_add_sat(uint64_t *sum, uint64_t n)
{
	*sum = n > UINT64_MAX - *sum ? UINT64_MAX : *sum + n;
}

/* LOST (id, lost) or LOST_SAMPLES (lost): count them and what they say
 * was dropped, for `info` and for the sideband's readers. */
static void perfdata_lost(struct perfdata_state *st, uint64_t off,
			  uint32_t type, uint64_t len)
{
	const uint8_t *p = st->map + off;
	uint64_t at = type == PD_REC_LOST ? 16 : 8;

	if (len < at + 8) {
		perfdata_warn(st, off, "record of type %u too short (%" PRIu64
			      " bytes)", type, len);
		return;
	}
	if (type == PD_REC_LOST) {
		st->info.nlost++;
		perfdata_add_sat(&st->info.lost, rd64(p + at));
	} else {
		st->info.nlost_samples++;
		perfdata_add_sat(&st->info.lost_samples, rd64(p + at));
	}
}

/* A sideband record worth a marker: AUX, ITRACE_START, SWITCH*, COMM. */
static int perfdata_sideband(struct perfdata_state *st, uint64_t off, uint32_t type,
		       uint16_t misc, uint64_t len)
{
	const uint8_t *p = st->map + off;
	struct perfdata_event ev;
	uint64_t fixed, end;
	int err;

	memset(&ev, 0, sizeof(ev));
	ev.file_off = off;
	ev.cpu = ev.pid = ev.tid = -1;
	switch (type) {
	case PD_REC_AUX:
		fixed = 32;
		if (len < fixed)
			goto short_rec;
		ev.kind = PD_EV_AUX;
		ev.aux_offset = rd64(p + 8);
		ev.aux_size = rd64(p + 16);
		ev.flags = (uint32_t)rd64(p + 24);
		break;
	case PD_REC_ITRACE_START:
		fixed = 16;
		if (len < fixed)
			goto short_rec;
		ev.kind = PD_EV_ITRACE_START;
		ev.pid = (int32_t)rd32(p + 8);
		ev.tid = (int32_t)rd32(p + 12);
		break;
	case PD_REC_SWITCH:
	case PD_REC_SWITCH_CPU_WIDE:
		fixed = type == PD_REC_SWITCH ? 8 : 16;
		if (len < fixed)
			goto short_rec;
		ev.kind = misc & PD_MISC_SWITCH_OUT ? PD_EV_SWITCH_OUT :
						      PD_EV_SWITCH_IN;
		ev.flags = !!(misc & PD_MISC_SWITCH_PREEMPT);
		break;
	case PD_REC_COMM:
		fixed = 17;
		if (len < fixed)
			goto short_rec;
		ev.kind = PD_EV_COMM;
		ev.pid = (int32_t)rd32(p + 8);
		ev.tid = (int32_t)rd32(p + 12);
		break;
	case PD_REC_LOST:
	case PD_REC_LOST_SAMPLES:
		perfdata_lost(st, off, type, len);
		return 0;
	default:
		return 0;
	}
	end = perfdata_sample_id(st, p, len, fixed, &ev);
	if (type == PD_REC_COMM) {
		size_t n = strnlen((const char *)p + 16, end - 16);

		if (n >= sizeof(ev.comm))
			n = sizeof(ev.comm) - 1;
		memcpy(ev.comm, p + 16, n);
	}
	err = perfdata_grow((void **)&st->ev, &st->ev_cap, st->nev, sizeof(ev));
	if (err)
		return err;
	st->ev[st->nev++] = ev;
	st->info.nevents[ev.kind]++;
	return 0;

short_rec:
	perfdata_warn(st, off, "record of type %u too short (%" PRIu64 " bytes)",
		type, len);
	return 0;
}

/* Note that the record at @off took @total bytes, not its header's size.
 * Returns 0 or -pte_nomem. */
static int perfdata_skip_add(struct perfdata_state *st, uint64_t off, uint64_t total)
{
	int err = perfdata_grow((void **)&st->skip, &st->skip_cap, st->nskip,
				sizeof(*st->skip));

	if (err)
		return err;
	st->skip[st->nskip].off = off;
	st->skip[st->nskip++].total = total;
	return 0;
}

/* Walk the records in [@off, @end).  A record cut by the end or with an
 * impossible size ends the walk with a warning: what came before stays. */
static int perfdata_walk_records(struct perfdata_state *st, uint64_t off, uint64_t end, int pipe)
{
	uint64_t len, total, flen;
	uint32_t type;
	uint16_t misc;
	int err;

	while (off < end) {
		if (end - off < 8) {
			perfdata_warn(st, off, "%" PRIu64 " stray bytes at the end",
				end - off);
			perfdata_cut(st, off, "a perf.data record cut short at %#"
			       PRIx64 ": the file is cut short", off);
			break;
		}
		{
			const uint8_t *h = perfdata_peek(st, &st->cur, off,
				end - off < 48 ? (size_t)(end - off) : 48);

			type = rd32(h);
			misc = rd16(h + 4);
			len = rd16(h + 6);
		}
		if (len < 8) {
			perfdata_warn(st, off, "record of type %u with impossible "
				"size %" PRIu64 "; the rest is ignored", type,
				len);
			perfdata_cut(st, off, "a perf.data record of impossible size "
			       "at %#" PRIx64 ": the rest of the file is "
			       "unreadable", off);
			break;
		}
		if (len > end - off) {
			perfdata_warn(st, off, "record of type %u and %" PRIu64
				" bytes runs past the end (%" PRIu64 " left); "
				"the rest is ignored", type, len, end - off);
			perfdata_cut(st, off, "a perf.data record at %#" PRIx64
			       " runs past the end of the file: the file is "
			       "cut short", off);
			break;
		}
		st->info.nrecords++;
		total = len;
		err = 0;
		switch (type) {
		case PD_REC_AUXTRACE:
			err = perfdata_auxtrace(st, off, len, end, &total);
			break;
		case PD_REC_AUXTRACE_INFO:
			err = perfdata_auxtrace_info(st, off, len);
			break;
		case PD_REC_TIME_CONV:
			/* a newer record says whether the conversion holds */
			if (len >= 32 && (len < 56 || st->map[off + 48])) {
				st->have_tc = 1;
				st->tc_shift = (uint16_t)rd64(st->map + off + 8);
				st->tc_mult = (uint32_t)rd64(st->map + off + 16);
				st->tc_zero = rd64(st->map + off + 24);
			}
			break;
		case PD_REC_HEADER_ATTR:
			if (pipe && len >= 8 + 48) {
				uint64_t asz = rd32(st->map + off + 12);

				if (asz < 48 || asz > len - 8)
					asz = len - 8;
				err = perfdata_add_attr(st, off, st->map + off + 8,
						  asz, st->map + off + 8 + asz,
						  (len - 8 - asz) / 8);
			}
			break;
		case PD_REC_HEADER_FEATURE:
			if (pipe && len >= 16)
				perfdata_feature(st, rd64(st->map + off + 8),
					   off + 16, len - 16);
			break;
		case PD_REC_HEADER_TRACING_DATA:
			/* its payload follows, unaccounted, padded to 8 */
			if (len >= 12) {
				flen = rd32(st->map + off + 8);
				flen = (flen + 7) & ~7ull;
				total = len + flen;
				if (flen > end - off - len) {
					perfdata_warn(st, off, "tracing data runs "
						"past the end");
					perfdata_cut(st, off, "tracing data at %#"
					       PRIx64 " runs past the end of the "
					       "file: the file is cut short", off);
					total = end - off;
				}
			}
			break;
		case PD_REC_COMPRESSED:
		case PD_REC_COMPRESSED2:
			st->info.ncompressed++;
			break;
		default:
			err = perfdata_sideband(st, off, type, misc, len);
			break;
		}
		if (!err && total != len)
			err = perfdata_skip_add(st, off, total);
		if (err)
			return err;
		off += total;
	}
	st->walk_end = off;
	return 0;
}

/* Add the AUXTRACE records HEADER_AUXTRACE's index knows and the walk did
 * not reach (it stopped at a damaged record).  Sets *@whole if the index
 * is complete and every entry named an AUXTRACE record: then no trace data
 * was lost with the records the walk skipped. */
static int perfdata_use_index(struct perfdata_state *st, uint64_t walk_end, int *whole)
{
	uint64_t n, i, roff, total;
	size_t lo, hi, mid, nscanned = st->naux;
	int err;

	*whole = 1;
	n = rd64(st->index);
	if (n > (st->index_size - 8) / 16) {
		perfdata_warn(st, st->index_off, "AUXTRACE index is truncated");
		n = (st->index_size - 8) / 16;
		*whole = 0;
	}
	for (i = 0; i < n; i++) {
		roff = rd64(st->index + 8 + 16 * i);
		/* the walk found its records in file order */
		for (lo = 0, hi = nscanned; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (st->aux[mid].rec_off < roff)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nscanned && st->aux[lo].rec_off == roff)
			continue;
		if (roff >= walk_end ||
		    walk_end - roff < PD_AUXTRACE_HDR_SIZE ||
		    !perfdata_inside(st, roff, PD_AUXTRACE_HDR_SIZE) ||
		    rd32(st->map + roff) != PD_REC_AUXTRACE ||
		    rd16(st->map + roff + 6) < PD_AUXTRACE_HDR_SIZE ||
		    rd16(st->map + roff + 6) > walk_end - roff) {
			perfdata_warn(st, st->index_off, "AUXTRACE index entry %"
				PRIu64 " does not point at an AUXTRACE record",
				i);
			*whole = 0;
			continue;
		}
		err = perfdata_auxtrace(st, roff, rd16(st->map + roff + 6),
				  walk_end, &total);
		if (err)
			return err;
	}
	return 0;
}

/* Order AUXTRACE records by buffer, then by position in the buffer. */
int perfdata_aux_cmp(const void *a, const void *b)
{
	const struct perfdata_aux *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->rec_off != y->rec_off)
		return x->rec_off < y->rec_off ? -1 : 1;
	return 0;
}

/* Order AUXTRACE records by buffer, then by place in the file: in
 * snapshot mode, where the offset is a place in a buffer that wraps, not a
 * running count, perf queues them so. */
int perfdata_aux_file_cmp(const void *a, const void *b)
{
	const struct perfdata_aux *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	if (x->rec_off != y->rec_off)
		return x->rec_off < y->rec_off ? -1 : 1;
	return 0;
}

/* The lowest set bit's position in @mask (mask != 0). */
static unsigned perfdata_shift(uint64_t mask)
{
	unsigned s = 0;

	while (!(mask & 1)) {
		mask >>= 1;
		s++;
	}
	return s;
}

/* Decode the intel_pt attr's config and the private words into info. */
static void perfdata_fill_info(struct perfdata_state *st)
{
	struct perfdata_info *in = &st->info;
	uint64_t mask;
	size_t i;

	if (st->npriv > PD_PT_PMU_TYPE)
		in->pmu_type = (uint32_t)st->priv[PD_PT_PMU_TYPE];
	if (st->npriv > PD_PT_CAP_USER_TIME_ZERO) {
		in->time_shift = (uint16_t)st->priv[PD_PT_TIME_SHIFT];
		in->time_mult = (uint32_t)st->priv[PD_PT_TIME_MULT];
		in->time_zero = st->priv[PD_PT_TIME_ZERO];
		in->cap_user_time_zero = !!st->priv[PD_PT_CAP_USER_TIME_ZERO];
		in->have_time_conv = in->cap_user_time_zero && in->time_mult;
	}
	if (st->have_tc && st->tc_mult) {
		in->time_shift = st->tc_shift;
		in->time_mult = st->tc_mult;
		in->time_zero = st->tc_zero;
		in->have_time_conv = 1;
	}
	if (st->npriv > PD_PT_PER_CPU_MMAPS) {
		in->have_sched_switch =
			(uint8_t)st->priv[PD_PT_HAVE_SCHED_SWITCH];
		in->snapshot_mode = !!st->priv[PD_PT_SNAPSHOT_MODE];
		in->per_cpu_mmaps = !!st->priv[PD_PT_PER_CPU_MMAPS];
	}
	if (st->npriv > PD_PT_TSC_CTC_D) {
		in->tsc_ctc_ratio_n = (uint32_t)st->priv[PD_PT_TSC_CTC_N];
		in->tsc_ctc_ratio_d = (uint32_t)st->priv[PD_PT_TSC_CTC_D];
	}
	if (st->npriv > PD_PT_MAX_NONTURBO_RATIO)
		in->max_non_turbo_ratio =
			(uint32_t)st->priv[PD_PT_MAX_NONTURBO_RATIO];

	for (i = 0; i < st->nattrs; i++)
		if (st->attrs[i].type == in->pmu_type)
			break;
	if (i == st->nattrs || !in->have_auxtrace_info)
		return;
	in->config = st->attrs[i].config;
	in->have_config = 1;
	in->exclude_kernel = st->attrs[i].exclude_kernel;
	if (st->npriv > PD_PT_TSC_BIT)
		in->tsc = !!(in->config & st->priv[PD_PT_TSC_BIT]);
	if (st->npriv > PD_PT_NORETCOMP_BIT)
		in->noretcomp = !!(in->config & st->priv[PD_PT_NORETCOMP_BIT]);
	if (st->npriv > PD_PT_MTC_FREQ_BITS) {
		in->mtc = !!(in->config & st->priv[PD_PT_MTC_BIT]);
		mask = st->priv[PD_PT_MTC_FREQ_BITS];
		if (!mask)
			mask = PD_CFG_MTC_PERIOD_MASK;
		in->mtc_period = (uint8_t)((in->config & mask) >>
					   perfdata_shift(mask));
	}
	if (st->npriv > PD_PT_CYC_BIT)
		in->cyc = !!(in->config & st->priv[PD_PT_CYC_BIT]);
	in->cyc_thresh = (in->config >> PD_CFG_CYC_THRESH_SHIFT) & 0xf;
	in->psb_period = (in->config >> PD_CFG_PSB_PERIOD_SHIFT) & 0xf;
}

/* Parse "GenuineIntel,6,78,3" into @cfg. */
static void perfdata_cpuid(const char *s, struct tm_config *cfg)
{
	unsigned fam, mod, step;
	const char *c = strchr(s, ',');

	if (!c || sscanf(c + 1, "%u,%u,%u", &fam, &mod, &step) != 3)
		return;
	cfg->have_cpu = 1;
	cfg->cpu_family = (uint16_t)fam;
	cfg->cpu_model = (uint8_t)mod;
	cfg->cpu_stepping = (uint8_t)step;
}

/* The timing configuration every stream shares. */
void perfdata_timing(const struct perfdata_state *st, struct tm_config *cfg)
{
	const struct perfdata_info *in = &st->info;

	memset(cfg, 0, sizeof(*cfg));
	if (in->have_config && st->npriv > PD_PT_MTC_FREQ_BITS) {
		cfg->have_mtc_freq = 1;
		cfg->mtc_freq = in->mtc_period;
	}
	if (in->max_non_turbo_ratio) {
		cfg->have_nom_freq = 1;
		cfg->nom_freq = (uint8_t)in->max_non_turbo_ratio;
	}
	if (in->tsc_ctc_ratio_n && in->tsc_ctc_ratio_d) {
		cfg->have_cpuid_15 = 1;
		cfg->cpuid_15_eax = in->tsc_ctc_ratio_d;
		cfg->cpuid_15_ebx = in->tsc_ctc_ratio_n;
	}
	if (in->have_time_conv) {
		cfg->have_perf_conv = 1;
		cfg->time_shift = in->time_shift;
		cfg->time_mult = in->time_mult;
		cfg->time_zero = in->time_zero;
	}
	perfdata_cpuid(in->cpuid, cfg);
	if (in->have_config && in->cyc) {
		cfg->have_cyc_thresh = 1;
		cfg->cyc_thresh = in->cyc_thresh;
	}
}

/* Free the reader state @st (not the streams). */
static void perfdata_state_free(struct perfdata_state *st, size_t nstreams)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < nstreams && st->streams; i++) {
		free(st->streams[i].ev);
		free(st->streams[i].aux_off);
	}
	free(st->streams);
	free(st->attrs);
	free(st->ids);
	free(st->aux);
	free(st->skip);
	free(st->ev);
	free(st);
}

/*
 * A perf.data file's header (not a pipe's): its attrs, and its data
 * section's [*@start, *@end), cut to the file with a warning where perf
 * did not finish or the file is cut short.  Returns 0 or a negative pte_
 * code with st->err set.
 */
static int perfdata_file_section(struct perfdata_state *st, uint64_t *start,
				 uint64_t *end)
{
	uint64_t dsize;
	int ret;

	if (st->size < PD_FILE_HDR_SIZE) {
		ret = perfdata_fail(st, st->size, pte_bad_file, "perf.data header "
				    "cut short: the file ends after %" PRIu64 " of its "
				    "%u bytes", st->size, (unsigned)PD_FILE_HDR_SIZE);
		return ret;
	}
	if (rd64(st->map + 8) < PD_FILE_HDR_SIZE) {
		ret = perfdata_fail(st, 8, pte_bad_file, "perf.data header size %"
				    PRIu64 " is below the %u bytes of a header "
				    "(damaged)", rd64(st->map + 8), (unsigned)PD_FILE_HDR_SIZE);
		return ret;
	}
	ret = perfdata_file_attrs(st);
	if (ret)
		return ret;
	*start = rd64(st->map + 40);
	dsize = rd64(st->map + 48);
	if (*start > st->size) {
		ret = perfdata_fail(st, 40, pte_bad_file, "data section at %#"
			      PRIx64 " is past the end of the file",
			      *start);
		return ret;
	}
	/* perf writes the data size last: 0 if it was killed */
	if (!dsize) {
		perfdata_warn(st, 48, "data size 0 (perf did not finish); "
			"reading to the end of the file");
		*end = st->size;
	} else if (dsize > st->size - *start) {
		perfdata_warn(st, 48, "data section runs %" PRIu64 " bytes "
			"past the end of the file",
			dsize - (st->size - *start));
		perfdata_cut(st, st->size, "the perf.data file is cut short: "
		       "its data section runs %" PRIu64 " bytes past "
		       "the end", dsize - (st->size - *start));
		*end = st->size;
	} else {
		*end = *start + dsize;
		st->end_known = 1;
		perfdata_file_features(st, *end);
	}
	return 0;
}

/*
 * After the walk of [@start, @end): the AUXTRACE index's records past
 * damage the walk stopped at, then whether any Intel PT data was found.
 * Returns 0 or a negative pte_ code with st->err set.
 */
static int perfdata_check_aux(struct perfdata_state *st, uint64_t start, uint64_t end)
{
	int ret;

	if (st->have_index && st->walk_end < end) {
		/* the walk stopped at damage: if the index finds every
		 * AUXTRACE record after it, no trace data was lost there */
		uint8_t cut = st->cut;
		int whole;

		if (st->cut && st->cut_off == st->walk_end)
			st->cut = 0;
		ret = perfdata_use_index(st, end, &whole);
		if (ret)
			return ret;
		if (!whole)
			st->cut |= cut;
	}
	/* the walk stopped at damage before any: that is the news */
	if (!st->naux && st->cut && st->cut_why[0])
		return perfdata_fail(st, st->cut_off, pte_bad_file, "%s; no Intel PT "
				     "data before it", st->cut_why);
	if (!st->info.have_auxtrace_info && !st->naux) {
		ret = perfdata_fail(st, start, pte_bad_file, "no Intel PT data: no "
			      "AUXTRACE_INFO or AUXTRACE records (record with "
			      "'perf record -e intel_pt//')");
		return ret;
	}
	if (!st->naux) {
		ret = perfdata_fail(st, start, pte_bad_file, "Intel PT was recorded "
			      "but the file holds no AUXTRACE data");
		return ret;
	}
	return 0;
}

int perfdata_load(struct trace *t, char *err, size_t errlen)
{
	struct perfdata_state *st;
	uint64_t start = 0, end = 0;
	int mode, ret;
	size_t i;

	if (!t || !t->map)
		return -pte_invalid;
	if (err && errlen)
		err[0] = 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -pte_nomem;
	st->map = t->map;
	st->size = t->size;
	st->fd = t->fd_reads ? t->fd : -1;
	st->path = t->path ? t->path : "perf.data";
	st->err = err;
	st->errlen = errlen;

	mode = perfdata_is(t->map, t->size);
	if (!mode) {
		ret = perfdata_fail(st, 0, pte_bad_file,
			      perfdata_is_swapped(t->map, t->size) ?
			      "byte-swapped perf.data is not supported (a "
			      "big-endian machine's \"2ELIFREP\" magic)" :
			      "not a perf.data file (no PERFILE2 magic)");
		goto out_free;
	}
	if (mode == 1) {
		ret = perfdata_file_section(st, &start, &end);
		if (ret)
			goto out_free;
		t->kind = TRACE_PERF_FILE;
	} else {
		start = PD_PIPE_HDR_SIZE;
		end = t->size;
		t->kind = TRACE_PERF_PIPE;
	}
	st->walk_start = start;
	ret = perfdata_walk_records(st, start, end, mode == 2);
	if (ret)
		goto out_free;
	ret = perfdata_check_aux(st, start, end);
	/* walks in several threads look ids up: none may sort them */
	if (!ret && st->ids_stale)
		ret = perfdata_sort_ids(st);
	if (ret)
		goto out_free;
	perfdata_fill_info(st);
	ret = perfdata_streams(st, t);
	if (ret)
		goto out_streams;
	ret = perfdata_assign_events(st, t);
	if (ret)
		goto out_streams;
	for (i = 0; i < t->nstreams; i++) {
		ret = perfdata_split_losses(&t->streams[i], &st->streams[i]);
		if (ret)
			goto out_streams;
	}
	ret = perfdata_end_gaps(st, t);
	if (ret)
		goto out_streams;
	/* the spans hold what the AUXTRACE list said */
	free(st->aux);
	st->aux = NULL;
	st->naux = st->aux_cap = 0;
	/* the state must not point at the caller's buffer any longer */
	st->err = NULL;
	st->errlen = 0;
	st->path = NULL;
	t->perf = st;
	return 0;

out_streams:
	if (ret == -pte_nomem)
		perfdata_fail(st, 0, pte_nomem, "out of memory");
	perfdata_state_free(st, st->nstreams);
	for (i = 0; i < t->nstreams; i++)
		free(t->streams[i].spans);
	free(t->streams);
	t->streams = NULL;
	t->nstreams = 0;
	return ret;
out_free:
	if (ret == -pte_nomem)
		perfdata_fail(st, 0, pte_nomem, "out of memory");
	perfdata_state_free(st, 0);
	return ret;
}

void perfdata_free(struct trace *t)
{
	size_t i;

	if (!t || !t->perf)
		return;
	perfdata_state_free(t->perf, t->nstreams);
	for (i = 0; i < t->nstreams; i++)
		free(t->streams[i].spans);
	free(t->streams);
	t->streams = NULL;
	t->nstreams = 0;
	t->perf = NULL;
}

const struct perfdata_info *perfdata_info(const struct trace *t)
{
	const struct perfdata_state *st = t ? t->perf : NULL;

	return st ? &st->info : NULL;
}

uint64_t perfdata_lost_records(const struct trace *t)
{
	const struct perfdata_state *st = t ? t->perf : NULL;

	if (!st)
		return 0;
	return st->info.lost > st->info.nlost ? st->info.lost : st->info.nlost;
}

int perfdata_events(const struct trace *t, int stream,
		    const struct perfdata_event **ev, size_t *n)
{
	const struct perfdata_state *st = t ? t->perf : NULL;

	if (!st || !ev || !n || stream < 0 || (size_t)stream >= st->nstreams)
		return -pte_invalid;
	*ev = st->streams[stream].ev;
	*n = st->streams[stream].nev;
	return 0;
}

int perfdata_walk(const struct trace *t, perfdata_record_fn fn, void *ctx)
{
	struct perfdata_state *st = t ? t->perf : NULL;
	struct perfdata_cursor cur = { 0 };
	struct perfdata_record r;
	struct perfdata_event ev;
	const uint8_t *h;
	uint64_t off, end, len, total;
	size_t k = 0;
	int ret;

	if (!st || !fn)
		return -pte_invalid;
	end = st->walk_end;
	/* perfdata_walk_records() checked every size up to walk_end, and
	 * noted where a record took more than its size: the same records */
	for (off = st->walk_start; end - off >= 8; off += total) {
		h = perfdata_peek(st, &cur, off,
				  end - off < 16 ? (size_t)(end - off) : 16);
		memset(&r, 0, sizeof(r));
		r.type = rd32(h);
		r.misc = rd16(h + 4);
		len = rd16(h + 6);
		if (len < 8 || len > end - off)
			break;
		total = len;
		while (k < st->nskip && st->skip[k].off < off)
			k++;
		if (k < st->nskip && st->skip[k].off == off)
			total = st->skip[k].total;
		if (!total || total > end - off)
			break;
		if (r.type == PD_REC_AUXTRACE ||
		    r.type == PD_REC_HEADER_TRACING_DATA)
			continue;
		r.file_off = off;
		r.data = st->map + off;
		r.size = (uint32_t)len;
		memset(&ev, 0, sizeof(ev));
		ev.pid = ev.tid = ev.cpu = -1;
		r.body_end = r.size;
		if (r.type != PD_REC_SAMPLE && r.type < PD_REC_HEADER_ATTR)
			r.body_end = (uint32_t)perfdata_sample_id(st, r.data, len, 8,
							    &ev);
		r.pid = ev.pid;
		r.tid = ev.tid;
		r.cpu = ev.cpu;
		r.time = ev.time;
		r.have_time = ev.have_time;
		ret = fn(ctx, &r);
		if (ret)
			return ret;
	}
	return 0;
}

int perfdata_build_ids(const struct trace *t, const uint8_t **p,
		       uint64_t *size)
{
	const struct perfdata_state *st = t ? t->perf : NULL;

	if (!st || !p || !size)
		return -pte_invalid;
	*p = st->build_ids;
	*size = st->build_ids ? st->build_ids_size : 0;
	return 0;
}

const char *perfdata_event_name(enum perfdata_event_kind kind)
{
	static const char *const names[PD_EV_NKINDS] = {
		[PD_EV_AUX] = "aux",
		[PD_EV_ITRACE_START] = "itrace_start",
		[PD_EV_SWITCH_IN] = "switch_in",
		[PD_EV_SWITCH_OUT] = "switch_out",
		[PD_EV_COMM] = "comm",
	};

	if ((unsigned)kind >= PD_EV_NKINDS)
		return "?";
	return names[kind];
}

/*
 * perf's conversion: ns = zero + (tsc >> shift) * mult +
 * ((tsc & (2^shift - 1)) * mult >> shift); its inverse splits the
 * nanoseconds by mult the same way, so neither step overflows 64 bits for
 * realistic values.
 */
int perfdata_time_to_tsc(const struct tm_config *cfg, uint64_t ns,
			 uint64_t *tsc)
{
	uint64_t t, quot, rem;

	if (!cfg || !tsc || !cfg->have_perf_conv || !cfg->time_mult ||
	    cfg->time_shift >= 64)
		return -pte_no_time;
	t = ns - cfg->time_zero;
	quot = t / cfg->time_mult;
	rem = t % cfg->time_mult;
	*tsc = (quot << cfg->time_shift) +
	       (rem << cfg->time_shift) / cfg->time_mult;
	return 0;
}

int perfdata_tsc_to_time(const struct tm_config *cfg, uint64_t tsc,
			 uint64_t *ns)
{
	uint64_t quot, rem;

	if (!cfg || !ns || !cfg->have_perf_conv || !cfg->time_mult ||
	    cfg->time_shift >= 64)
		return -pte_no_time;
	quot = tsc >> cfg->time_shift;
	rem = tsc & ((1ull << cfg->time_shift) - 1);
	*ns = cfg->time_zero + quot * cfg->time_mult +
	      ((rem * cfg->time_mult) >> cfg->time_shift);
	return 0;
}

/* Append " " (unless first) and a formatted option to @buf. */
static void perfdata_append(char *buf, size_t size, size_t *len, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));

static void perfdata_append(char *buf, size_t size, size_t *len, const char *fmt,
		      ...)
{
	va_list ap;
	int n;

	if (*len && *len + 1 < size) {
		buf[(*len)++] = ' ';
		buf[*len] = 0;
	}
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

size_t perfdata_ptdump_options(const struct tm_config *cfg, char *buf,
			       size_t size)
{
	size_t len = 0;

	if (!size)
		return 0;
	buf[0] = 0;
	if (!cfg)
		return 0;
	if (cfg->have_cpu)
		perfdata_append(buf, size, &len, "--cpu %u/%u/%u", cfg->cpu_family,
			  cfg->cpu_model, cfg->cpu_stepping);
	else if (cfg->cpu_none)	/* said: no CPU, not the file's */
		perfdata_append(buf, size, &len, "--cpu none");
	if (cfg->have_mtc_freq)
		perfdata_append(buf, size, &len, "--mtc-freq %u", cfg->mtc_freq);
	if (cfg->have_nom_freq)
		perfdata_append(buf, size, &len, "--nom-freq %u", cfg->nom_freq);
	if (cfg->have_cpuid_15) {
		perfdata_append(buf, size, &len, "--cpuid-0x15.eax %" PRIu32,
			  cfg->cpuid_15_eax);
		perfdata_append(buf, size, &len, "--cpuid-0x15.ebx %" PRIu32,
			  cfg->cpuid_15_ebx);
	}
	/* Ours, not ptdump's, but a raw trace has no other way to keep them:
	 * in whole Hz, which --tsc-freq reads back exactly.  A crystal the
	 * CPU model implies is left out: --cpu implies it again, and a
	 * time from it stays one from the model, not from a value given. */
	if (cfg->have_tsc_hz && cfg->tsc_hz)
		perfdata_append(buf, size, &len, "--tsc-freq %" PRIu64, cfg->tsc_hz);
	if (cfg->have_crystal_hz && cfg->crystal_hz && !cfg->crystal_model)
		perfdata_append(buf, size, &len, "--cpuid-0x15.ecx %" PRIu32,
			  cfg->crystal_hz);
	return len;
}
