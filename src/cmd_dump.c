/*
 * cmd_dump -- `ptbrowse dump`: packets in ptdump's exact line format.
 *
 * A line is: offset (16 hex digits, padded to 17), raw bytes (--raw,
 * padded to 33), the packet name (padded to 10 when a payload follows),
 * the payload (padded to 25 when a tracking column follows), the tracking
 * column's name (padded to 5) and value.  Columns are separated by one
 * space.  Diagnostics are "[<offset>: <message>]" lines.
 *
 * Deliberate differences from ptdump: offsets are stream offsets even with
 * TRACE:FROM-TO (ptdump counts from FROM); a packet cut by the end of the
 * trace is reported ("truncated packet") where libipt stops silently.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmds.h"
#include "ctx.h"
#include "dump.h"
#include "dump_fmt.h"
#include "esc.h"
#include "export.h"
#include "idxcache.h"
#include "image.h"
#include "index.h"
#include "offtsc.h"
#include "opt.h"
#include "perfdata.h"
#include "range.h"
#include "timing_opt.h"
#include "tm.h"
#include "trace.h"

enum { D_STREAM, D_NO_SYNC, D_QUIET, D_NO_PAD, D_NO_TIMING, D_NO_CYC,
       D_NO_OFFSET, D_RAW, D_LASTIP, D_EXEC_MODE, D_PID, D_TID, D_COMM };

static const struct opt dump_opts[] = {
	{ "stream", 0, "S", "the stream of a perf.data file (index, cpuN or name)", D_STREAM },
	{ "no-sync", 0, NULL, "start at the beginning, not at the first PSB", D_NO_SYNC },
	{ "quiet", 0, NULL, "print nothing but errors", D_QUIET },
	{ "no-pad", 0, NULL, "don't show PAD packets", D_NO_PAD },
	{ "no-timing", 0, NULL, "don't show timing packets", D_NO_TIMING },
	{ "no-cyc", 0, NULL, "don't show CYC packets (and ignore them for\n"
	  "--time and --tcal; --cycles still counts them)", D_NO_CYC },
	{ "no-offset", 0, NULL, "don't show the offset column", D_NO_OFFSET },
	{ "raw", 0, NULL, "show raw packet bytes", D_RAW },
	{ "lastip", 0, NULL, "show the last IP on packets with an IP payload", D_LASTIP },
	{ "exec-mode", 0, NULL, "show the execution mode on mode.exec packets", D_EXEC_MODE },
	{ "pid", 0, "N", "only the packets of process N (perf.data sideband)", D_PID },
	{ "tid", 0, "N", "only the packets of thread N", D_TID },
	{ "comm", 0, "NAME", "only the packets of tasks named NAME", D_COMM },
	{ 0 }
};

/* What dump's options set. */
struct dump_args {
	struct dump_state *st;
	char *path;		/* TRACE[:FROM[-TO]] or TRACE:REGION */
	const char *stream;
	struct ctx_filter filter;	/* --pid, --tid, --comm */
};

static int dump_take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		     const char *val)
{
	struct dump_args *a = ctx;
	struct dump_opts *d = &a->st->opts;

	switch (o->id) {
	case D_STREAM: a->stream = val; break;
	case D_NO_SYNC: d->no_sync = 1; break;
	case D_QUIET: d->quiet = 1; break;
	case D_NO_PAD: d->no_pad = 1; break;
	case D_NO_TIMING: d->no_timing = 1; break;
	case D_NO_CYC: d->no_cyc = 1; break;
	case D_NO_OFFSET: d->show_offset = 0; break;
	case D_RAW: d->show_raw = 1; break;
	case D_LASTIP: d->show_last_ip = 1; break;
	case D_PID: return ctx_filter_set(&a->filter, "--pid", val) ? -EINVAL : 0;
	case D_TID: return ctx_filter_set(&a->filter, "--tid", val) ? -EINVAL : 0;
	case D_COMM: return ctx_filter_set(&a->filter, "--comm", val) ? -EINVAL : 0;
	default: d->show_exec_mode = 1; break;
	}
	return 0;
}

/* Whether @a is an option of @groups that takes a value, given apart
 * ("--stream S", "-x V"): the word after it is that value. */
static int dump_takes_value(const struct opt_group *groups, size_t ngroups,
			    const char *a)
{
	const struct opt *o;
	size_t g;

	if (a[0] != '-' || !a[1] || (a[1] == '-' && strchr(a, '=')))
		return 0;
	for (g = 0; g < ngroups; g++)
		for (o = groups[g].opts; o->name || o->shortname; o++)
			if (o->arg && (a[1] == '-' ? o->name && !strcmp(a + 2, o->name) :
				       o->shortname == a[1] && !a[2]))
				return 1;
	return 0;
}

/*
 * "-:FROM-TO" (standard input with a range) is an operand, which
 * opt_parse() would take for an unknown option, as it begins with '-':
 * @argv's words before any "--" that begin with "-:", but for an
 * option's value, are moved after one, into @out (@argc + 2 entries).
 * Returns the number of words in @out.
 */
static int dump_stdin_ranges(const struct opt_group *groups, size_t ngroups,
			     int argc, char **argv, char **out)
{
	int i, n = 0, k, end = argc, moved = 0;
	static char dashes[] = "--";

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			end = i;
			break;
		}
	out[n++] = argv[0];
	for (i = 1; i < end; i++) {
		if (!strncmp(argv[i], "-:", 2) &&
		    !dump_takes_value(groups, ngroups, argv[i - 1]))
			moved++;
		else
			out[n++] = argv[i];
	}
	if (!moved) {
		for (i = end; i < argc; i++)
			out[n++] = argv[i];
		return n;
	}
	out[n++] = end < argc ? argv[end] : dashes;
	for (i = end + 1; i < argc; i++)
		out[n++] = argv[i];
	for (i = 1, k = 0; i < end && k < moved; i++)
		if (!strncmp(argv[i], "-:", 2) &&
		    !dump_takes_value(groups, ngroups, argv[i - 1])) {
			out[n++] = argv[i];
			k++;
		}
	return n;
}

/* Parse dump's command line into @a, whose state @a->st is set up.
 * Returns 0, or a negative errno after --help or a reported usage error
 * (opt_status() gives the exit status). */
static int dump_parse(int argc, char **argv, struct dump_args *a)
{
	const struct opt_group groups[] = {
		{ "options:", dump_opts, dump_take, a },
		{ "time options:", dump_time_opts, dump_time_take, a->st },
		{ TIMING_OPT_HEADING, timing_opts, dump_time_take_timing, a->st },
	};
	const struct opt_cmd cmd = { "ptbrowse dump",
"usage: ptbrowse dump [options] TRACE[:FROM[-TO]]\n"
"       ptbrowse dump [options] TRACE:REGION\n"
"\n"
"Print the packets of TRACE (a raw Intel PT file or a perf.data file) in\n"
"libipt ptdump's format.  FROM and TO are stream offsets (hex or decimal);\n"
"REGION is a region of the trace's marks (ptbrowse marks lists them), or a\n"
"mark or bookmark, from there to the end.  TRACE - (or a FIFO such as\n"
"/dev/stdin) is read whole from the pipe first.\n",
		groups, 3 };
	char **av = calloc((size_t)argc + 2, sizeof(*av));
	int r;

	a->path = NULL;
	a->stream = NULL;
	ctx_filter_init(&a->filter);
	if (!av) {
		esc_line(stderr, "ptbrowse dump: ", "out of memory");
		return -EIO;
	}
	r = opt_parse(&cmd, dump_stdin_ranges(groups, 3, argc, argv, av), av);
	if (r >= 0)
		r = opt_one_trace(&cmd, r, av);
	if (r >= 0)
		a->path = av[1];
	free(av);
	return r < 0 ? r : 0;
}

/* The output buffer: ptdump-sized lines, written in big blocks. */
struct out {
	char buf[1 << 16];
	size_t len;
};

static void out_flush(struct out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, stdout);
	o->len = 0;
}

static void out_put(struct out *o, const char *s, size_t n)
{
	if (o->len + n > sizeof(o->buf))
		out_flush(o);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void dump_diag(struct dump_state *st, uint64_t offset, const char *msg)
{
	char line[400];
	int n;

	n = snprintf(line, sizeof(line), "[%" PRIx64 ": %s]\n", offset, msg);
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	out_put(st->out, line, (size_t)n);
}

/* Short strings: an inline loop beats a call to strlen here. */
static inline size_t slen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* Append @s (of @n bytes) padded with spaces to @width at @p. */
static inline char *put_field(char *p, const char *s, size_t n, size_t width)
{
	memcpy(p, s, n);
	p += n;
	while (n++ < width)
		*p++ = ' ';
	return p;
}

/* Packet names padded to ptdump's 10 columns, so a line copies a fixed
 * 16 bytes instead of measuring and padding a string. */
static char padded_names[PKT_NTYPES][16];
static uint8_t name_len[PKT_NTYPES];

static void init_names(void)
{
	int t;

	for (t = 0; t < PKT_NTYPES; t++) {
		const char *n = pkt_type_name((enum pkt_type)t);
		size_t len = strlen(n);

		memset(padded_names[t], ' ', sizeof(padded_names[t]));
		memcpy(padded_names[t], n, len);
		name_len[t] = (uint8_t)len;
	}
}

/* "000102...ff": two hex digits per byte, for put_hex16. */
static char hex_pairs[512];

static void init_hex(void)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 256; i++) {
		hex_pairs[2 * i] = digits[i >> 4];
		hex_pairs[2 * i + 1] = digits[i & 0xf];
	}
}

/* 16 hex digits of @v, a byte (two digits) per step. */
static inline char *put_hex16(char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--) {
		memcpy(p + 2 * i, hex_pairs + 2 * (v & 0xff), 2);
		v >>= 8;
	}
	return p + 16;
}

/* Build the line in one go and append it: this is the hot path of dumping
 * gigabytes, so no printf and no per-column calls into the buffer. */
static void print_line(struct dump_state *st, const struct dump_line *l)
{
	struct out *o = st->out;
	char *line, *p;
	int sep = 0;
	size_t npay;

	if (st->opts.quiet || l->skip)
		return;
	/* Write straight into the output buffer; a line is < 512 bytes. */
	if (o->len + 512 > sizeof(o->buf))
		out_flush(o);
	line = p = o->buf + o->len;
	if (l->prefix[0])
		p = put_field(p, l->prefix, slen(l->prefix), 0);
	if (st->opts.show_offset) {
		p = put_hex16(p, l->offset);
		*p++ = ' ';
		sep = 1;
	}
	if (l->raw[0]) {
		if (sep)
			*p++ = ' ';
		p = put_field(p, l->raw, slen(l->raw), 33);
		sep = 1;
	}
	if (sep)
		*p++ = ' ';
	npay = slen(l->payload);
	memcpy(p, padded_names[l->type], 16);
	p += npay ? 10 : name_len[l->type];
	if (l->track_id[0]) {
		*p++ = ' ';
		p = put_field(p, l->payload, npay, 25);
		*p++ = ' ';
		p = put_field(p, l->track_id, slen(l->track_id), 5);
		p = put_field(p, l->track, slen(l->track), 0);
	} else if (npay) {
		*p++ = ' ';
		memcpy(p, l->payload, sizeof(l->payload));
		p += npay;
	}
	*p++ = '\n';
	o->len += (size_t)(p - line);
}

/* ptdump's last-IP tracking: kept across PSBs (unlike the SDM's rule, which
 * the browser follows), reset only when decoding resynchronises. */
static void track_last_ip(struct dump_state *st, struct dump_line *l,
			  const struct pkt *pkt)
{
	snprintf(l->track_id, sizeof(l->track_id), "ip");
	if (pkt->u.ip.ipc == PKT_IPC_SUPPRESSED) {
		st->ip_suppressed = 1;
	} else if (pkt_ip_update(pkt, &st->last_ip) < 0) {
		snprintf(l->track, sizeof(l->track), "<unavailable>");
		dump_diag(st, pkt->offset, "error tracking last-ip: bad ipc");
		return;
	} else {
		st->have_ip = 1;
		st->ip_suppressed = 0;
	}
	if (!st->have_ip) {
		snprintf(l->track, sizeof(l->track), "<unavailable>");
		dump_diag(st, pkt->offset, "error tracking last-ip: no ip");
	} else if (st->ip_suppressed) {
		snprintf(l->track, sizeof(l->track), "<suppressed>");
	} else {
		dump_fmt_hex(l->track, st->last_ip, 16);
	}
}

static void dump_reset_ip(struct dump_state *st)
{
	st->last_ip = 0;
	st->have_ip = 0;
	st->ip_suppressed = 0;
}

/* After a resync: bytes were lost. */
static void dump_reset(struct dump_state *st)
{
	dump_reset_ip(st);
	dump_time_reset(st);
}

static void dump_packet(struct dump_state *st, const struct pkt *pkt)
{
	struct dump_line l;

	l.offset = pkt->offset;
	l.skip = 0;
	l.raw[0] = 0;
	l.track_id[0] = 0;
	l.track[0] = 0;
	l.prefix[0] = 0;
	l.type = pkt->type;
	l.name = pkt_type_name((enum pkt_type)pkt->type);
	dump_fmt_payload(l.payload, sizeof(l.payload), pkt);

	if (st->opts.show_raw) {
		uint8_t bytes[32];
		size_t n = img_read(st->img, pkt->offset, bytes,
				    pkt->size < sizeof(bytes) ? pkt->size : sizeof(bytes));

		if (n > 16) {
			dump_diag(st, pkt->offset, "truncating raw packet");
			n = 16;
		}
		dump_fmt_raw(l.raw, sizeof(l.raw), bytes, n);
	}

	switch (pkt->type) {
	case PKT_PAD:
		l.skip = st->opts.no_pad;
		break;
	case PKT_PSB:
		st->in_psb = 1;
		break;
	case PKT_PSBEND:
		st->in_psb = 0;
		break;
	case PKT_TIP:
	case PKT_TIP_PGE:
	case PKT_TIP_PGD:
	case PKT_FUP:
		if (st->opts.show_last_ip)
			track_last_ip(st, &l, pkt);
		break;
	case PKT_PIP:
		snprintf(l.track_id, sizeof(l.track_id), "cr3");
		dump_fmt_hex(l.track, pkt->u.pip.cr3, 16);
		break;
	case PKT_VMCS:
		snprintf(l.track_id, sizeof(l.track_id), "vmcs");
		dump_fmt_hex(l.track, pkt->u.vmcs, 16);
		break;
	case PKT_MODE_EXEC:
		if (st->opts.show_exec_mode) {
			snprintf(l.track_id, sizeof(l.track_id), "em");
			snprintf(l.track, sizeof(l.track), "%s",
				 dump_fmt_exec_mode(pkt));
		}
		break;
	case PKT_TSC:
	case PKT_TMA:
	case PKT_MTC:
	case PKT_CBR:
		l.skip = st->opts.no_timing;
		break;
	case PKT_CYC:
		l.skip = st->opts.no_timing || st->opts.no_cyc;
		break;
	default:
		break;
	}
	dump_time_packet(st, &l, pkt);
	/* --pid, --tid, --comm: other tasks' packets are decoded, not shown */
	if (st->keep_only && !ctx_ranges_has(st->keep, st->nkeep, pkt->offset))
		l.skip = 1;
	print_line(st, &l);
}

/* A decode error in libipt's words (pt_errstr()), which ptdump prints: a
 * reserved IP compression or payload is an "unknown packet" there. */
static const char *dump_errstr(int err)
{
	switch (-err) {
	case pte_bad_opc: return "unknown opcode";
	case pte_bad_packet:
	case pte_bad_ipc: return "unknown packet";
	default: return pte_strerror(err);
	}
}

/* Decode from the cursor until the end, resyncing after errors as ptdump
 * does.  Returns 0 or a negative pte code for trouble worth an exit 1. */
/* Data lost after the end of the image (a perf.data file cut short):
 * said at the end, with the reason, however the decode got there. */
static void dump_end_gap(struct dump_state *st, uint64_t at)
{
	char msg[320];

	if (st->end_loss)
		snprintf(msg, sizeof(msg), "gap in the trace: data lost at the "
			 "end: %s", st->end_loss);
	else
		snprintf(msg, sizeof(msg), "gap in the trace: data lost at the "
			 "end");
	dump_diag(st, at, msg);
}

static int dump_run(struct dump_state *st, struct img_cursor *cur, uint64_t from)
{
	const struct img *img = cur->img;
	int end_gap = img_gap_at(img, img->size);
	struct pkt pkt;
	int errors = 0;
	int err;

	if (!st->opts.no_sync) {
		err = img_cursor_sync_forward(cur, from);
		if (err < 0) {
			/* nothing to print, like ptdump; but a loss is said */
			if (end_gap)
				dump_end_gap(st, img->size);
			return -pte_nosync;
		}
	}
	for (;;) {
		err = img_cursor_next(cur, &pkt);
		if (err == -pte_gap) {
			uint64_t psb = img_cursor_offset(cur);
			char msg[320];

			/* The cursor is on the next PSB already. */
			cur->gap = 0;
			if (psb > pkt.offset && psb < cur->img->size) {
				snprintf(msg, sizeof(msg), "gap in the trace: data lost; "
					 "%" PRIu64 " bytes skipped to the next PSB",
					 psb - pkt.offset);
			} else if (end_gap) {
				/* nothing decodes from here to the end, after
				 * which the file lost data */
				dump_end_gap(st, pkt.offset);
				end_gap = 0;
				dump_reset(st);
				continue;
			} else {
				snprintf(msg, sizeof(msg), "gap in the trace: data lost");
			}
			dump_diag(st, pkt.offset, msg);
			dump_reset(st);
			continue;
		}
		if (cur->gap) {
			dump_diag(st, img_cursor_offset(cur),
				  "gap in the trace: data lost before here");
			cur->gap = 0;
			dump_reset(st);
		}
		if (err == -pte_eos)
			break;
		if (err < 0) {
			char msg[96];

			errors++;
			snprintf(msg, sizeof(msg), "error decoding packet: %s",
				 dump_errstr(err));
			dump_diag(st, pkt.offset, msg);
			if (img_cursor_sync_forward(cur, pkt.offset + 1) < 0)
				break;
			dump_reset(st);
			continue;
		}
		dump_packet(st, &pkt);
	}
	/* stopped early (no PSB after an error): the loss is said anyway */
	if (end_gap)
		dump_end_gap(st, img->size);
	return errors ? -pte_bad_packet : 0;
}

struct dump_job {
	struct dump_state *st;
	struct img_cursor *cur;
	uint64_t from;
};

/* dump_run() under trace_guard(): the file may shrink while we read it. */
static int dump_body(void *arg)
{
	struct dump_job *j = arg;

	return dump_run(j->st, j->cur, j->from);
}

/* Restrict @src to [@from, @to) in @dst, with @spans as storage. */
static int clip_image(const struct img *src, uint64_t from, uint64_t to,
		      struct img *dst, struct img_span **spans)
{
	size_t i, n = 0;
	struct img_span *s = calloc(src->nspans ? src->nspans : 1, sizeof(*s));

	if (!s)
		return -pte_nomem;
	for (i = 0; i < src->nspans; i++) {
		const struct img_span *in = &src->spans[i];
		uint64_t b = in->off, e = in->off + in->size;

		/* an empty last span after a gap: data lost after the end */
		if ((e <= from || b >= to) && !(!in->size && b == to))
			continue;
		s[n] = *in;
		if (b < from) {
			s[n].data += from - b;
			s[n].file_off += from - b;
			s[n].off = from;
			b = from;
		}
		if (e > to)
			e = to;
		s[n].size = e - b;
		if (!n)
			s[n].gap_before = 0;
		n++;
	}
	dst->spans = s;
	dst->nspans = n;
	dst->size = to;
	*spans = s;
	return 0;
}

/* What "ns since the time origin" counts from, as the browser's
 * cycle pane: the wall-clock time of @img's first TSC, or of the time
 * origin index @x (NULL: none) gives where the first segment's TSC
 * contradicts its neighbours' (idx_time_origin(): a damaged one).
 * Returns 0 and sets *@ns, or -1 without a TSC or a wall clock. */
static int dump_ns0(const struct img *img, const struct tm_config *cfg,
		    const struct idx *x, uint64_t *ns)
{
	uint64_t t0;

	if (offtsc_first(img, cfg, &t0) < 0)
		return -1;
	if (x)
		idx_time_origin(x, &t0);
	return tm_tsc_to_ns(cfg, t0, ns) ? -1 : 0;
}

/* PSB segments the head index of dump_head_ns0() covers, at most, and
 * its bytes at most: idx_time_outlier() looks 4 segments each side. */
#define DUMP_HEAD_SEGS	16
#define DUMP_HEAD_BYTES	(4u << 20)

/* dump_head_ns0()'s state, which its guarded body leaves to it to free. */
struct dump_head {
	struct dump_state *st;
	const struct img *img;
	struct img_span *spans;		/* the clipped images' */
	struct idx *x;
};

/* dump_head_ns0()'s work, under trace_guard(): the file may shrink (the
 * decode after says so).  Frees nothing: the caller does. */
static int dump_head_body(void *arg)
{
	struct dump_head *h = arg;
	const struct img *img = h->img;
	struct img_cursor cur;
	struct img head;
	uint64_t start, end, ns0;
	int k;

	if (img_cursor_init(&cur, img, 0) < 0 || img_cursor_sync_forward(&cur, 0) < 0)
		return 0;
	start = img_cursor_offset(&cur);
	end = img->size - start > DUMP_HEAD_BYTES ? start + DUMP_HEAD_BYTES : img->size;
	/* Its PSBs are looked for in those bytes only; fewer than
	 * DUMP_HEAD_SEGS there, it covers them all. */
	if (clip_image(img, 0, end, &head, &h->spans) < 0 ||
	    img_cursor_init(&cur, &head, start) < 0)
		return 0;
	for (k = 0; k < DUMP_HEAD_SEGS; k++)
		if (img_cursor_sync_forward(&cur, img_cursor_offset(&cur) + 1) < 0)
			break;
	if (k == DUMP_HEAD_SEGS) {
		end = img_cursor_offset(&cur);
		free(h->spans);
		h->spans = NULL;
		if (clip_image(img, 0, end, &head, &h->spans) < 0)
			return 0;
	}
	if (idx_new(&h->x, &head, dump_time_config(h->st)) < 0)
		return 0;
	idx_set_guard(h->x, trace_guard);
	idx_set_time_pass(h->x, 1);
	if (idx_build(h->x) < 0)
		return 0;
	if (!dump_ns0(img, dump_time_config(h->st), h->x, &ns0))
		dump_time_ns0(h->st, ns0);
	return 0;
}

/*
 * A dump from the start has no index, and ptdump's plain dump must not
 * wait for one.  Whether the first segment's TSC is damaged shows in the
 * segments after it, so --cycles indexes the trace's first 16 (4 MiB at
 * most; a few milliseconds) for the time origin: the browser's but where
 * the trace's earliest sound TSC lies further on.  Sets st's origin
 * (dump_time_ns0()) if it finds one.
 */
static void dump_head_ns0(struct dump_state *st, const struct img *img)
{
	struct dump_head h = { .st = st, .img = img };

	(void)trace_guard(dump_head_body, &h);
	idx_free(h.x);
	free(h.spans);
}

/* Resume the time model at PSB @psb of stream @stream of @t (not its
 * first) with the state decoding from the start has there: the index's
 * carry, from the cache when it is there, else from a time pass (as the
 * browser's windows do), and the index's time origin.
 * Returns 0, or -1 after printing an error. */
static int dump_resume_at(struct dump_state *st, const struct trace *t,
			  int stream, uint64_t psb, const char *name)
{
	const struct img *img = &t->streams[stream].img;
	struct idx_seek seek;
	struct tm_carry carry;
	struct idx *x = NULL;
	uint64_t ns0 = 0;
	size_t i;
	int r, ret = -1;

	r = idx_new(&x, img, dump_time_config(st));
	if (r < 0)
		goto out_err;
	/* A partial or grown cache is completed by the build, which is
	 * saved: the next range of this trace then starts at once (a time
	 * pass over 4 GiB is about 30 s). */
	idx_set_time_pass(x, 1);
	r = idxcache_load_or_build(x, t, stream, NULL);
	if (r < 0)
		goto out_err;
	if (idx_find(x, psb, &i) < 0 || idx_seek(x, i, &seek) < 0 ||
	    seek.offset != psb) {
		r = -pte_internal;
		goto out_err;
	}
	r = idx_seek_carry(x, i, &carry);
	if (r != 0)
		goto out_err;
	r = dump_ns0(img, dump_time_config(st), x, &ns0);
	dump_time_resume(st, &carry, ns0, !r);
	ret = 0;
	goto out_free;
out_err:
	esc_line(stderr, "ptbrowse dump: ", "%s: no time model state at 0x%" PRIx64
		": %s", name, psb, pte_strerror(r > 0 ? -pte_no_time : r));
out_free:
	idx_free(x);
	return ret;
}

/* dump_walk()'s packets: from @start to @from of @img. */
struct dump_walk {
	struct dump_state *st;
	const struct img *img;
	uint64_t start, from;
};

/* Feed the packets from w->start up to w->from to the time model, as the
 * decode from w->start has them, under trace_guard().  Returns 0 if one
 * of them ends at w->from, 1 if none does (one straddles it, or a decode
 * error or a gap lies between: that decode resyncs past w->from). */
static int dump_walk_body(void *arg)
{
	const struct dump_walk *w = arg;
	struct img_cursor cur;
	struct pkt pkt;

	if (img_cursor_init(&cur, w->img, w->start) < 0)
		return 1;
	while (img_cursor_offset(&cur) < w->from) {
		if (img_cursor_next(&cur, &pkt) <= 0 || cur.gap)
			return 1;
		dump_time_feed(w->st, &pkt);
	}
	return img_cursor_offset(&cur) == w->from ? 0 : 1;
}

/*
 * --cycles --no-sync over TRACE:FROM-TO decodes from FROM itself, inside
 * the segment of the last PSB at or before FROM (or before the first
 * PSB, from the stream's start).  The model takes the state the decode
 * from the start has at that PSB and the packets from there up to FROM,
 * so its rows are the whole decode's.  Where FROM is not where one of
 * those packets begins, the packets decoded from it are not the trace's:
 * the model starts from nothing, said on stderr.  Returns 0, or -1 after
 * printing an error.
 */
static int dump_seek_nosync(struct dump_state *st, const struct trace *t,
			    int stream, uint64_t from, const char *name)
{
	const struct img *img = &t->streams[stream].img;
	struct dump_walk w = { .st = st, .img = img, .from = from };
	struct img_cursor cur;
	uint64_t first = UINT64_MAX;
	int r;

	if (!img_cursor_init(&cur, img, 0) && !img_cursor_sync_forward(&cur, 0))
		first = img_cursor_offset(&cur);
	if (img_find_psb_before(img, from + 1, &w.start) < 0 || w.start < first)
		w.start = 0;
	if (w.start <= first)
		dump_head_ns0(st, img);	/* the model as at the start */
	else if (dump_resume_at(st, t, stream, w.start, name) < 0)
		return -1;
	if (w.start == from)
		return 0;
	r = trace_guard(dump_walk_body, &w);
	if (r == 0)
		return 0;
	dump_time_restart(st);
	if (r == -pte_sigbus)
		return 0;	/* the decode after says so */
	esc_line(stderr, "ptbrowse dump: ", "%s: no time model state at 0x%" PRIx64
		": no packet of the decode from 0x%" PRIx64 " begins there; "
		"--cycles counts from nothing", name, from, w.start);
	return 0;
}

/* With --cycles over TRACE:FROM-TO, resume the time model where the
 * window's decode starts with the state decoding from the start has
 * there: at the window's first PSB, or with --no-sync at FROM
 * (dump_seek_nosync()).  Without it the window's rows would start from
 * nothing.  Returns 0, or -1 after printing an error. */
static int dump_seek_time(struct dump_state *st, const struct trace *t,
			  int stream, uint64_t from, uint64_t to, const char *name)
{
	const struct img *img = &t->streams[stream].img;
	struct img_cursor cur;
	uint64_t psb;

	if (st->opts.no_sync)
		return dump_seek_nosync(st, t, stream, from, name);
	if (img_cursor_init(&cur, img, from) < 0 ||
	    img_cursor_sync_forward(&cur, from) < 0)
		return 0;	/* no PSB in the window: nothing to decode */
	psb = img_cursor_offset(&cur);
	if (psb >= to)
		return 0;	/* likewise */
	if (img_cursor_init(&cur, img, 0) < 0 ||
	    img_cursor_sync_forward(&cur, 0) < 0 || img_cursor_offset(&cur) == psb) {
		/* the first PSB: the same as from the start */
		dump_head_ns0(st, img);
		return 0;
	}
	return dump_resume_at(st, t, stream, psb, name);
}

/* -:NAME, when no file has that name: standard input and a region or
 * mark NAME, as -:FROM-TO is standard input and a range
 * (range_split_name() splits only at a regular file, which - is not). */
static void dump_stdin_name(char *path, const char **region)
{
	struct stat st;

	if (!strncmp(path, "-:", 2) && path[2] && !strchr(path + 2, '/') &&
	    stat(path, &st) < 0) {
		path[1] = 0;
		*region = path + 2;
	}
}

/* Open the trace @a names (TRACE, TRACE:FROM-TO or TRACE:REGION), pick its
 * stream and check the range: *@tp, *@idxp, *@from, *@to and st->img set,
 * @name the trace's name escaped for messages, and with --pid/--tid/--comm
 * st->keep the ranges kept.  Returns 0, or the exit status (1 or 2) after
 * printing one line (*@tp may be set then: the caller closes it). */
static int dump_open(const struct dump_args *a, struct dump_state *st,
		     struct trace **tp, int *idxp, uint64_t *from,
		     uint64_t *to, char *name, size_t size)
{
	char err[512], ebuf[4 * sizeof(err)];
	const char *region = NULL;
	struct trace *t;
	int have_to = 0, idx = 0, r;

	esc_str(name, size, a->path);
	r = range_split(a->path, from, to, &have_to);
	if (r < 0) {
		esc_line(stderr, "ptbrowse dump: ", "%s: bad range (FROM-TO: 0x hex or decimal, TO above FROM)",
			name);
		return 2;
	}
	if (!r && !range_split_name(a->path, &region))
		dump_stdin_name(a->path, &region);
	esc_str(name, size, a->path);
	if (trace_open_input(tp, a->path, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse dump: ", "%s", esc_str(ebuf, sizeof(ebuf), err));
		return 1;
	}
	t = *tp;
	/* (>> onto the trace: the shell does not truncate it first) */
	if (export_refuse(t, "-", err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse dump: ", "%s", err);
		return 1;
	}
	if (a->stream) {
		idx = perfdata_stream_named(t, a->stream, "ptbrowse dump: ", name);
		if (idx < 0)
			return 1;
	} else if (t->nstreams > 1) {
		esc_line(stderr, "ptbrowse dump: ", "%s has %zu streams; dumping '%s' "
				"(choose with --stream)", name, t->nstreams,
			t->streams[0].name);
	}
	if (!t->nstreams) {
		esc_line(stderr, "ptbrowse dump: ", "%s: no Intel PT data", name);
		return 1;
	}
	*idxp = idx;
	if (region) {
		if (range_of_name(t, (size_t)idx, region, from, to, err,
				  sizeof(err)) < 0) {
			esc_line(stderr, "ptbrowse dump: ", "%s", esc_str(ebuf,
				 sizeof(ebuf), err));
			return 1;
		}
		have_to = 1;
	}
	if (ctx_filter_active(&a->filter)) {
		st->keep_only = 1;
		if (ctx_restrict(t, idx, &a->filter, *from,
				 have_to ? *to : UINT64_MAX, &st->keep, &st->nkeep,
				 err, sizeof(err)) < 0) {
			esc_line(stderr, "ptbrowse dump: ", "%s", esc_str(ebuf,
				 sizeof(ebuf), err));
			return 1;
		}
		/* an empty dump says why */
		if (ctx_sideband_doubt(t, err, sizeof(err)))
			esc_line(stderr, "ptbrowse dump: ", "%s", err);
		if (!st->nkeep)
			esc_line(stderr, "ptbrowse dump: ", "%s: nothing in stream "
				 "'%s' ran as the task asked for", t->path,
				 t->streams[idx].name);
	}
	st->img = &t->streams[idx].img;
	if (!have_to)
		*to = st->img->size;
	/* no range was given wrong: say why there are no bytes */
	if (perfdata_empty_why(t, idx, err, sizeof(err))) {
		esc_line(stderr, "ptbrowse dump: ", "%s", esc_str(ebuf,
			 sizeof(ebuf), err));
		return 1;
	}
	if (*from >= st->img->size || *to > st->img->size) {
		esc_line(stderr, "ptbrowse dump: ", "%s: range 0x%" PRIx64 "-0x%" PRIx64
				" is outside the trace (size 0x%" PRIx64 ")",
			name, *from, *to, st->img->size);
		return 1;
	}
	return 0;
}

/* After the decode of [@from, @to) of stream @idx of @t ended with @r
 * (trace_guard()'s), say what the output cannot: no PSB, the perf.data
 * file's problems, a file that shrank, a write error.  Decode errors are
 * in the output, as ptdump has them, not in the exit status.
 * Returns the exit status, 0 or 1. */
static int dump_report(const struct dump_state *st, const struct trace *t,
		       int idx, int r, uint64_t from, uint64_t to,
		       const char *name)
{
	int rc = 0;

	if (r == -pte_nosync && (from || to != t->streams[idx].img.size))
		esc_line(stderr, "ptbrowse dump: ", "%s: no PSB in 0x%" PRIx64 "-0x%"
			PRIx64 "", name, from, to);
	else if (r == -pte_nosync)
		esc_line(stderr, "ptbrowse dump: ", "%s: no PSB found: this is not an "
			"Intel PT trace, or it starts mid-stream without a "
			"synchronisation point", name);
	/* what info warns of, when the gap at the end did not say it */
	if (perfdata_info(t) && perfdata_info(t)->nwarnings && !st->end_loss) {
		char e[4 * sizeof(perfdata_info(t)->warning)];

		esc_line(stderr, "ptbrowse dump: ", "%s: %u problem%s in the "
			"perf.data file (ptbrowse info); the first: %s", name,
			perfdata_info(t)->nwarnings,
			perfdata_info(t)->nwarnings > 1 ? "s" : "",
			esc_str(e, sizeof(e), perfdata_info(t)->warning));
	}
	if (r == -pte_sigbus) {
		esc_line(stderr, "ptbrowse dump: ", "%s: the file shrank while being "
			"read", name);
		rc = 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		esc_line(stderr, "ptbrowse dump: ", "write error: %s", strerror(errno));
		rc = 1;
	}
	return rc;
}

int cmd_dump_main(int argc, char **argv)
{
	static struct out out;
	struct dump_state st;
	struct trace *t = NULL;
	struct img clipped;
	struct img_span *spans = NULL;
	struct img_cursor cur;
	struct dump_job job;
	struct dump_args args;
	char name[4 * PATH_MAX];
	uint64_t from = 0, to = 0;
	int idx = 0, rc = 1, r;

	memset(&st, 0, sizeof(st));
	st.opts.show_offset = 1;
	init_names();
	init_hex();
	st.out = &out;
	args.st = &st;
	r = dump_parse(argc, argv, &args);
	if (r < 0) {
		rc = opt_status(r);
		goto out_close;
	}
	rc = dump_open(&args, &st, &t, &idx, &from, &to, name, sizeof(name));
	if (rc)
		goto out_close;
	rc = 1;
	if (from || to != st.img->size) {
		if (clip_image(st.img, from, to, &clipped, &spans) < 0) {
			esc_line(stderr, "ptbrowse dump: ", "out of memory");
			goto out_close;
		}
		st.img = &clipped;
	}
	if (dump_time_setup(&st, &t->streams[idx].timing) < 0)
		goto out_free;
	st.end_loss = perfdata_end_loss(t, idx);
	img_cursor_init(&cur, st.img, from);
	dump_reset_ip(&st);
	if (dump_time_cycles(&st) && from &&
	    dump_seek_time(&st, t, idx, from, to, name) < 0)
		goto out_free;
	if (dump_time_cycles(&st) && !from)
		dump_head_ns0(&st, &t->streams[idx].img);
	job.st = &st;
	job.cur = &cur;
	job.from = from;
	r = trace_guard(dump_body, &job);
	out_flush(&out);
	rc = dump_report(&st, t, idx, r, from, to, name);
out_free:
	free(spans);
out_close:
	free(st.keep);
	free(st.time);	/* dump_time.c's state, if any */
	trace_close(t);
	return rc;
}
