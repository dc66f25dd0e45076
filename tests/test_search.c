/* test_search -- predicates, the background search and the filter source
 * against a plain pkt_next walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "image.h"
#include "index.h"
#include "pkt.h"
#include "search.h"
#include "tm_config.h"
#include "window.h"

static const char *const traces[] = {
	"dynamorio-drpt2trace/head_test_simple.raw.pt.bin",
	"dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin",
	"dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin",
	"keeper-perf-event-sample/traced_data.bin",
	"quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt",
	"quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt",
	"quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx0.cpu0.pt",
	"quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx3.cpu3.pt",
};

/* A generated trace with OVFs and corrupt bytes (decode errors), made by
 * $BUILD/tools/ptgen; NULL path if ptgen is not built. */
static char gen_path[256];

static int map_generated(struct helpers_map *m)
{
	const char *build = getenv("BUILD");
	char cmd[1024];
	int fd;

	if (!gen_path[0]) {
		snprintf(gen_path, sizeof(gen_path), "/tmp/test_search.XXXXXX");
		fd = mkstemp(gen_path);
		if (fd < 0)
			return -1;
		close(fd);
		snprintf(cmd, sizeof(cmd),
			 "%s/tools/ptgen --seed 7 --size 3MiB --ovf-rate 0.002 "
			 "--corrupt-rate 0.000003 -o %s 2>/dev/null",
			 build ? build : "build", gen_path);
		if (system(cmd)) {
			unlink(gen_path);
			gen_path[0] = '\0';
			return -1;
		}
	}
	return helpers_map_file(gen_path, m);
}

/*
 * Parser.
 */

static void test_parse_table(void **state)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{ "tip", "tip" },
		{ "ovf", "ovf" },
		{ "tnt.8", "tnt.8" },
		{ "tnt", "branch" },
		{ "mode.exec 64", "mode.exec bits=0x40" },
		{ "branch", "branch" },
		{ "timing", "timing" },
		{ "error", "error" },
		{ "errors", "error" },
		{ "tip 0x401000", "tip ip=0x401000" },
		{ "ip 0x400000-0x4fffff", "ip ip=0x400000-0x4fffff" },
		{ "ip 0x400000 - 0x4fffff", "ip ip=0x400000-0x4fffff" },
		{ "ip 0x400000 -0x4fffff", "ip ip=0x400000-0x4fffff" },
		{ "cbr 0x20", "cbr cbr=0x20" },
		{ "cbr=32", "cbr cbr=0x20" },
		/* decimal or 0x hex, never octal */
		{ "cbr 010", "cbr cbr=0xa" },
		{ "cbr 08", "cbr cbr=0x8" },
		{ "cbr 0X1f", "cbr cbr=0x1f" },
		{ "mtc 0xe7", "mtc mtc=0xe7" },
		{ "pip cr3=0x1000", "pip cr3=0x1000" },
		{ "pip cr3 = 0x1000 nr=1", "pip cr3=0x1000 nr=0x1" },
		{ "tsc >= 0x100", "tsc tsc>=0x100" },
		{ "tsc>=0x100", "tsc tsc>=0x100" },
		{ "cyc > 1000", "cyc cyc>0x3e8" },
		{ "gap > 10us", "gap>10000ns" },
		{ "gap > 5000tsc", "gap>5000tsc" },
		{ "gap 5000", "gap>5000tsc" },
		{ "gap >= 1.5ms", "gap>=1500000ns" },
		/* a gap after a type keeps its field name, so it re-parses */
		{ "mtc gap > 5000", "mtc gap >5000tsc" },
		{ "tsc gap <= 3ms", "tsc gap <=3000000ns" },
		/* a range without an operator is a range; its upper end takes
		 * a unit, or the lower end's */
		{ "gap 100-200", "gap=100tsc-0xc8" },
		{ "tsc gap=1us-2000", "tsc gap =1000ns-0x1e8480" },
		{ "tsc gap=1us-2us", "tsc gap =1000ns-0x7d0" },
		{ "gap 1ms - 2", "gap=1000000ns-0x1e8480" },
		{ "bytes 02 f3", "bytes 02 f3" },
		{ "bytes 02f3", "bytes 02 f3" },
		{ "x:02f3", "bytes 02 f3" },
		{ "tip or fup", "tip | fup" },
		{ "tip and not fup", "tip & !fup" },
		{ "tip fup", "tip & fup" },
		{ "tip | fup & ovf", "tip | fup & ovf" },
		{ "(tip || fup) && !ovf", "(tip | fup) & !ovf" },
		/* parentheses only where the grouping needs them */
		{ "((tip) & (fup)) & ovf", "tip & fup & ovf" },
		{ "tip & (fup & ovf)", "tip & (fup & ovf)" },
		{ "tip | (fup | ovf)", "tip | (fup | ovf)" },
		{ "(tip | fup) | ovf", "tip | fup | ovf" },
		{ "!(tip & fup) | !!ovf", "!(tip & fup) | !!ovf" },
		{ "not not (tip or fup)", "!!(tip | fup)" },
		/* the canonical form has more words than the text: it parses */
		{ "mtc 1 mtc 2 mtc 3 mtc 4 mtc 5 mtc 6 mtc 7 mtc 8 mtc 9 mtc 10 "
		  "mtc 11 mtc 12 mtc 13 mtc 14 mtc 15 mtc 16 mtc 17",
		  "mtc mtc=0x1 & mtc mtc=0x2 & mtc mtc=0x3 & mtc mtc=0x4 & "
		  "mtc mtc=0x5 & mtc mtc=0x6 & mtc mtc=0x7 & mtc mtc=0x8 & "
		  "mtc mtc=0x9 & mtc mtc=0xa & mtc mtc=0xb & mtc mtc=0xc & "
		  "mtc mtc=0xd & mtc mtc=0xe & mtc mtc=0xf & mtc mtc=0x10 & "
		  "mtc mtc=0x11" },
		{ "not (cbr 1 or cbr 2)", "!(cbr cbr=0x1 | cbr cbr=0x2)" },
		{ "tnt", "branch" },
		{ "tip.pge", "tip.pge" },
		{ "tnt.64 nbits>5", "tnt.64 nbits>0x5" },
		{ "tma ctc=0x10 fc=3", "tma ctc=0x10 fc=0x3" },
	};
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "", "empty search" },
		{ "   ", "empty search" },
		{ "tipp", "unknown packet type or keyword 'tipp'" },
		{ "0x401000", "a value needs a packet type first: '0x401000'" },
		{ "psb 3", "'psb' takes no value" },
		{ "cbr cr3=1", "'cbr' has no field 'cr3'" },
		{ "tip >", "expected a value after '>'" },
		{ "tip 0xzz", "bad number '0xzz'" },
		{ "gap > 10parsecs", "bad unit in '10parsecs' (use tsc, ns, us, ms or s)" },
		{ "cbr 10us", "bad number '10us'" },
		{ "bytes", "'bytes' needs hex bytes, e.g. bytes 02 f3" },
		{ "x:0g", "bad hex bytes '0g'" },
		{ "(tip", "missing ')'" },
		{ "tip )", "unexpected ')'" },
		{ "tip and", "expected a packet type or keyword at the end" },
		{ "ip 5-3", "empty range 5-3" },
		{ "tsc > 1-2", "a range takes no operator" },
		{ "gap > 1-2", "a range takes no operator" },
		{ "gap 100-2us", "a range's ends are both times or both ticks: '2us'" },
		{ "mode 1", "'mode' takes no value" },
		{ "tip 99999999999999999999999", "number too large: '99999999999999999999999'" },
	};
	char err[128], buf[512];
	struct srch_pred *p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		p = NULL;
		if (srch_parse(ok[i].in, &p, err, sizeof(err)))
			fail_msg("'%s': %s", ok[i].in, err);
		srch_pred_format(p, buf, sizeof(buf));
		if (strcmp(buf, ok[i].out))
			fail_msg("'%s' -> '%s', want '%s'", ok[i].in, buf, ok[i].out);
		srch_pred_free(p);
		/* The canonical form parses to itself. */
		p = NULL;
		if (srch_parse(ok[i].out, &p, err, sizeof(err)))
			fail_msg("'%s' does not re-parse: %s", ok[i].out, err);
		srch_pred_format(p, buf, sizeof(buf));
		if (strcmp(buf, ok[i].out))
			fail_msg("'%s' re-parses as '%s'", ok[i].out, buf);
		srch_pred_free(p);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = NULL;
		if (srch_parse(bad[i].in, &p, err, sizeof(err)) != -pte_invalid)
			fail_msg("'%s' parsed", bad[i].in);
		assert_null(p);
		if (strcmp(err, bad[i].msg))
			fail_msg("'%s': '%s', want '%s'", bad[i].in, err, bad[i].msg);
	}
	assert_int_equal(srch_parse(NULL, &p, err, sizeof(err)), -pte_invalid);
	/* Nodes bound an expression, not words. */
	{
		char many[40 * 4 + 1] = "";

		for (i = 0; i < 40; i++)
			strcat(many, "tip ");
		p = NULL;
		assert_int_equal(srch_parse(many, &p, err, sizeof(err)), -pte_invalid);
		assert_null(p);
		assert_string_equal(err, "expression too long");
	}
	/* A tiny error buffer is fine. */
	assert_int_equal(srch_parse("tipp", &p, err, 4), -pte_invalid);
	assert_string_equal(err, "unk");
	assert_int_equal(srch_parse("tipp", &p, NULL, 0), -pte_invalid);
}

static struct srch_pred *parse(const char *s)
{
	struct srch_pred *p = NULL;
	char err[128];

	if (srch_parse(s, &p, err, sizeof(err)))
		fail_msg("'%s': %s", s, err);
	return p;
}

static int m(const char *s, const struct pkt *pkt, const struct srch_ctx *ctx)
{
	struct srch_pred *p = parse(s);
	int r = srch_match(p, pkt, ctx);

	srch_pred_free(p);
	return r;
}

static void test_match_packets(void **state)
{
	struct pkt pkt;
	struct srch_ctx ctx;
	struct srch_pred *p;
	struct tm_config cfg;

	(void)state;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_OVF;
	pkt.size = 2;
	assert_true(m("ovf", &pkt, NULL));
	assert_true(m("error", &pkt, NULL));
	assert_false(m("tip", &pkt, NULL));
	assert_true(m("not tip", &pkt, NULL));
	assert_true(m("tip or ovf", &pkt, NULL));
	assert_false(m("tip and ovf", &pkt, NULL));

	pkt.type = PKT_INVALID;
	assert_true(m("error", &pkt, NULL));
	assert_false(m("ovf", &pkt, NULL));

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_CBR;
	pkt.u.cbr = 0x20;
	assert_true(m("cbr 0x20", &pkt, NULL));
	assert_true(m("cbr >= 0x20", &pkt, NULL));
	assert_false(m("cbr > 0x20", &pkt, NULL));
	assert_true(m("cbr 0x10-0x20", &pkt, NULL));
	assert_true(m("timing", &pkt, NULL));

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_TSC;
	pkt.u.tsc = 0x1000;
	assert_true(m("tsc >= 0x1000", &pkt, NULL));
	assert_false(m("tsc < 0x1000", &pkt, NULL));
	assert_true(m("tsc != 0x1", &pkt, NULL));

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_MODE_EXEC;
	pkt.u.exec.csl = 1;
	assert_true(m("mode.exec 64", &pkt, NULL));
	assert_false(m("mode.exec 32", &pkt, NULL));
	assert_true(m("mode", &pkt, NULL));
	/* CS.L and CS.D (byte 0x03) is reserved: no width, which the
	 * prefilter (byte & 0xe3 == 0x01 for 64) agreed with already */
	pkt.u.exec.csd = 1;
	assert_false(m("mode.exec 64", &pkt, NULL));
	assert_false(m("mode.exec 32", &pkt, NULL));
	assert_false(m("mode.exec 16", &pkt, NULL));
	assert_true(m("mode.exec", &pkt, NULL));

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_CYC;
	pkt.u.cyc = 1001;
	assert_true(m("cyc > 1000", &pkt, NULL));
	pkt.u.cyc = 1000;
	assert_false(m("cyc > 1000", &pkt, NULL));

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_PIP;
	pkt.u.pip.cr3 = 0x12340;
	pkt.u.pip.nr = 1;
	assert_true(m("pip cr3=0x12340", &pkt, NULL));
	assert_true(m("pip cr3=0x12340 nr=1", &pkt, NULL));
	assert_false(m("pip cr3=0x12340 nr=0", &pkt, NULL));

	/* A full IP needs no context; a compressed one does. */
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_TIP;
	pkt.u.ip.ipc = PKT_IPC_FULL;
	pkt.u.ip.ip = 0x401000;
	assert_true(m("tip 0x401000", &pkt, NULL));
	assert_true(m("ip 0x400000-0x4fffff", &pkt, NULL));
	assert_false(m("fup 0x401000", &pkt, NULL));
	pkt.u.ip.ipc = PKT_IPC_UPDATE16;
	pkt.u.ip.ip = 0x2000;
	assert_false(m("tip 0x402000", &pkt, NULL));

	p = parse("ip 0x402000");
	srch_ctx_init(&ctx, p, NULL);
	{
		struct pkt fup;

		memset(&fup, 0, sizeof(fup));
		fup.type = PKT_FUP;
		fup.u.ip.ipc = PKT_IPC_SEXT48;
		fup.u.ip.ip = 0x401234;
		srch_step(&ctx, &fup);
		assert_false(srch_match(p, &fup, &ctx));
	}
	srch_step(&ctx, &pkt);
	assert_true(srch_match(p, &pkt, &ctx));
	/* A PSB resets the compression state (SDM), so the same packet after
	 * it is 0x2000. */
	{
		struct pkt psb;

		memset(&psb, 0, sizeof(psb));
		psb.type = PKT_PSB;
		srch_step(&ctx, &psb);
	}
	srch_step(&ctx, &pkt);
	assert_false(srch_match(p, &pkt, &ctx));
	srch_pred_free(p);

	/* A suppressed IP never matches. */
	pkt.u.ip.ipc = PKT_IPC_SUPPRESSED;
	assert_false(m("tip 0", &pkt, NULL));

	/* Gaps between TSCs. */
	p = parse("gap > 100");
	assert_true(srch_pred_has_history(p));
	srch_ctx_init(&ctx, p, NULL);
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_TSC;
	pkt.u.tsc = 1000;
	srch_step(&ctx, &pkt);
	assert_false(srch_match(p, &pkt, &ctx));
	pkt.u.tsc = 1050;
	srch_step(&ctx, &pkt);
	assert_false(srch_match(p, &pkt, &ctx));
	pkt.u.tsc = 1200;
	srch_step(&ctx, &pkt);
	assert_true(srch_match(p, &pkt, &ctx));
	srch_pred_free(p);

	/* Time units need a TSC frequency. */
	p = parse("gap > 1us");
	assert_int_equal(srch_pred_set_config(p, NULL), -pte_no_calib);
	memset(&cfg, 0, sizeof(cfg));
	cfg.have_tsc_hz = 1;
	cfg.tsc_hz = 1000000000;
	assert_int_equal(srch_pred_set_config(p, &cfg), 0);
	srch_ctx_init(&ctx, p, NULL);
	pkt.u.tsc = 5000;
	srch_step(&ctx, &pkt);
	pkt.u.tsc = 6000;
	srch_step(&ctx, &pkt);
	assert_false(srch_match(p, &pkt, &ctx));
	pkt.u.tsc = 7001;
	srch_step(&ctx, &pkt);
	assert_true(srch_match(p, &pkt, &ctx));
	srch_pred_free(p);

	assert_false(srch_match(NULL, &pkt, NULL));
	srch_pred_free(NULL);
}

/* A gap in time past 2^63 ns, or past 2^64 ticks at 2 GHz, is that long:
 * it matched as "gap > 0" (llround() overflowed, the ticks wrapped). */
static void test_gap_huge(void **state)
{
	struct tm_config cfg = { .have_tsc_hz = 1, .tsc_hz = 2000000000 };
	struct srch_ctx ctx;
	struct srch_pred *p;
	struct pkt pkt;
	int i;

	(void)state;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_TSC;
	for (i = 0; i < 2; i++) {
		p = parse(i ? "gap > 10000000000s" : "gap > 9300000000s");
		assert_int_equal(srch_pred_set_config(p, &cfg), 0);
		srch_ctx_init(&ctx, p, NULL);
		pkt.u.tsc = 5000;
		srch_step(&ctx, &pkt);
		pkt.u.tsc = 5000 + (1ull << 62);
		srch_step(&ctx, &pkt);
		assert_false(srch_match(p, &pkt, &ctx));
		srch_pred_free(p);
	}
}

/* A time in whole ticks: at 1.2 GHz a gap of 400 ticks is 333.33 ns, so
 * it is not ">= 334ns" nor "= 334ns" and it is "< 334ns"; the ticks were
 * rounded down (334 ns -> 400), each of those was wrong.  The segment
 * test reads the same ticks. */
static void test_gap_ticks(void **state)
{
	static const struct {
		const char *q;
		int match, seg;	/* a 400-tick gap; a segment of them */
	} t[] = {
		{ "gap >= 334ns", 0, 0 }, { "gap = 334ns", 0, 0 },
		{ "gap < 334ns", 1, 1 }, { "gap != 334ns", 1, 1 },
		{ "gap > 333ns", 1, 1 }, { "gap <= 333ns", 0, 1 },
		{ "gap >= 333ns", 1, 1 }, { "gap <= 334ns", 1, 1 },
		{ "gap 333ns-334ns", 1, 1 }, { "gap 334ns-335ns", 0, 0 },
		{ "gap 300ns-333ns", 0, 1 }, { "gap > 334ns", 0, 0 },
		{ "gap = 332ns", 0, 0 },	/* 398.4 ticks: none */
	};
	struct tm_config cfg = { .have_tsc_hz = 1, .tsc_hz = 1200000000 };
	struct idx_summary sum;
	struct srch_ctx ctx;
	struct srch_pred *p;
	struct pkt pkt;
	size_t i;

	(void)state;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_TSC;
	memset(&sum, 0, sizeof(sum));
	sum.per_class[PKC_TIMING] = 2;
	sum.have_time = 1;
	sum.has_gap = 1;
	sum.max_gap = 400;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		p = parse(t[i].q);
		assert_int_equal(srch_pred_set_config(p, &cfg), 0);
		srch_ctx_init(&ctx, p, NULL);
		pkt.u.tsc = 5000;
		srch_step(&ctx, &pkt);
		pkt.u.tsc = 5400;
		srch_step(&ctx, &pkt);
		if (srch_match(p, &pkt, &ctx) != t[i].match)
			fail_msg("%s: %d", t[i].q, !t[i].match);
		/* a segment whose largest gap is 400 ticks (shorter gaps
		 * may match "<=", the lower ones of a range) */
		if (srch_segment_may_match(p, &sum) != t[i].seg)
			fail_msg("%s: segment %d", t[i].q, !t[i].seg);
		srch_pred_free(p);
	}
}

/* Deep nesting is refused with a reason: 40,000 '(' or 60,000 '!'
 * overflowed the stack of the recursive parser. */
static void test_deep_nesting(void **state)
{
	size_t n = 100000, i;
	char *t = malloc(2 * n + 8), err[128];
	struct srch_pred *p = NULL;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < n; i++) {
		t[i] = '(';
		t[n + 3 + i] = ')';
	}
	memcpy(t + n, "tip", 3);
	t[2 * n + 3] = '\0';
	assert_int_equal(srch_parse(t, &p, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "nested too deeply"));
	memset(t, '!', n);
	strcpy(t + n, "tip");
	assert_int_equal(srch_parse(t, &p, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "nested too deeply"));
	/* 200 levels are fine */
	strcpy(t + 200, "tip");
	memset(t + 203, ')', 200);
	memset(t, '(', 200);
	t[403] = '\0';
	assert_int_equal(srch_parse(t, &p, err, sizeof(err)), 0);
	srch_pred_free(p);
	free(t);
}

static void test_segment_may_match(void **state)
{
	struct idx_summary sum;
	struct srch_pred *p;

	(void)state;
	memset(&sum, 0, sizeof(sum));
	sum.per_class[PKC_SYNC] = 3;
	sum.per_class[PKC_BRANCH] = 10;
	p = parse("ovf");
	assert_false(srch_segment_may_match(p, &sum));
	sum.novf = 1;
	assert_true(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	p = parse("tip 0x1000");
	assert_false(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	p = parse("tnt.8 or tip");
	assert_true(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	p = parse("tnt.8 and tip");
	assert_false(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	p = parse("not tip");
	assert_true(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	p = parse("error");
	sum.novf = 0;
	assert_false(srch_segment_may_match(p, &sum));
	sum.nerrors = 1;
	assert_true(srch_segment_may_match(p, &sum));
	sum.nerrors = 0;
	sum.ngaps = 1;		/* a gap is an error row too */
	assert_true(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	/* A CYC larger than the segment's largest cannot be there. */
	sum.per_class[PKC_TIMING] = 5;
	sum.max_cyc = 1000;
	p = parse("cyc > 1000");
	assert_false(srch_segment_may_match(p, &sum));
	sum.max_cyc = 1001;
	assert_true(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	p = parse("cyc >= 1002 or ovf");
	assert_false(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	p = parse("cyc < 3");
	assert_true(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
}

/*
 * Whole traces.
 */

/* The reference: a plain pkt_next walk from the first PSB, segment by
 * segment as the packet pane decodes them: a packet running into the next
 * PSB is cut there as an error (*@ncut counts them; may be NULL), and after
 * an error (a PKT_INVALID packet) the walk goes on at the next PSB. */
static size_t ref_walk(const struct srch_pred *p, const struct img *img,
		       uint64_t **out, size_t *ncut)
{
	const struct img_span *s = &img->spans[0];
	const uint8_t *seg_end;
	struct pkt_decoder dec;
	struct srch_ctx ctx;
	struct pkt pkt;
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;

	assert_int_equal(pkt_decoder_init(&dec, s->data, s->data + s->size, 0), 0);
	srch_ctx_init(&ctx, p, img);
	*out = NULL;
	if (ncut)
		*ncut = 0;
	if (!(dec.pos = pkt_find_psb(dec.begin, dec.end)))
		return 0;
	seg_end = dec.end;
	for (;;) {
		const uint8_t *at = dec.pos;
		int r = pkt_next(&dec, &pkt);

		if (r == -pte_eos)
			break;
		if (r > 0 && pkt.type == PKT_PSB &&
		    !(seg_end = pkt_find_psb(at + 1, dec.end)))
			seg_end = dec.end;
		if (r > 0 && dec.pos > seg_end) {
			memset(&pkt, 0, sizeof(pkt));
			pkt.type = PKT_INVALID;
			pkt.offset = (uint64_t)(at - dec.begin);
			pkt.size = (uint8_t)(seg_end - at);
			r = -pte_truncated;
			if (ncut)
				++*ncut;
		}
		srch_step(&ctx, &pkt);
		if (srch_match(p, &pkt, &ctx)) {
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				v = realloc(v, cap * sizeof(*v));
				assert_non_null(v);
			}
			v[n++] = pkt.offset;
		}
		if (r < 0 && !(dec.pos = pkt_find_psb(at + 1, dec.end)))
			break;
	}
	*out = v;
	return n;
}

static size_t ref_matches(const struct srch_pred *p, const struct img *img,
			  uint64_t **out)
{
	return ref_walk(p, img, out, NULL);
}

/* The index of the first hit > @from (or >= with @eq) in @ref. */
static size_t first_above(const uint64_t *ref, size_t n, uint64_t from, int eq)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ref[mid] < from || (!eq && ref[mid] == from))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The k-th hit after (dir > 0) or before @from in @ref, wrapping. */
static uint64_t ref_step(const uint64_t *ref, size_t n, uint64_t from, int dir,
			 size_t k)
{
	size_t i;

	if (dir > 0)
		return ref[(first_above(ref, n, from, 0) + k) % n];
	i = first_above(ref, n, from, 1);
	return ref[(i + n - 1 - k % n) % n];
}

/* Search with @opts and compare every hit with @ref. */
static void check_search(const struct srch_pred *p, const struct img *img,
			 struct idx *idx, const uint64_t *ref, size_t n,
			 uint64_t from, int dir, const struct srch_opts *opts,
			 const char *what)
{
	struct srch *s = NULL;
	struct srch_status st;
	uint64_t *got, off, hit;
	size_t k, ng;
	int wrapped, rc;
	struct srch_opts o = { .max_hits = 0 };

	if (opts)
		o = *opts;
	/* Keep every hit, so all can be compared. */
	if (!o.max_hits)
		o.max_hits = n + 16;
	assert_int_equal(srch_start_opts(&s, img, idx, p, from, dir, &o), 0);
	assert_int_equal(srch_wait(s), 0);
	srch_status(s, &st);
	assert_true(st.finished);
	assert_int_equal(st.status, 0);
	assert_int_equal(st.done, st.total);
	if (st.nhits != n)
		fail_msg("%s from %" PRIu64 " dir %d: %" PRIu64 " hits, want %zu",
			 what, from, dir, st.nhits, n);
	got = calloc(n + 1, sizeof(*got));
	assert_non_null(got);
	ng = srch_hits(s, 0, UINT64_MAX, got, n + 1);
	assert_int_equal(ng, n);
	for (k = 0; k < n; k++)
		if (got[k] != ref[k])
			fail_msg("%s: hit %zu at %" PRIu64 ", want %" PRIu64,
				 what, k, got[k], ref[k]);
	free(got);
	if (!n) {
		assert_int_equal(srch_next_hit(s, from, dir, &hit, NULL), -pte_eos);
		assert_false(st.have_first);
		srch_free(s);
		return;
	}
	assert_true(st.have_first);
	assert_int_equal(st.first, ref_step(ref, n, from, dir, 0));
	assert_int_equal(st.first_wrapped, dir > 0 ? st.first <= from : st.first >= from);
	/* n and N from the start, around the whole trace and back. */
	off = from;
	for (k = 0; k < n + 1 && k < 300; k++) {
		rc = srch_next_hit(s, off, dir, &hit, &wrapped);
		assert_int_equal(rc, 0);
		assert_int_equal(hit, ref_step(ref, n, off, dir, 0));
		assert_int_equal(wrapped, dir > 0 ? hit <= off : hit >= off);
		off = hit;
	}
	/* Across both ends. */
	for (k = 0; k < n + 1 && k < 300; k++) {
		off = k % 2 ? ref[n - 1 - k / 2 % n] : ref[k / 2 % n];
		rc = srch_next_hit(s, off, dir, &hit, &wrapped);
		assert_int_equal(rc, 0);
		assert_int_equal(hit, ref_step(ref, n, off, dir, 0));
	}
	for (k = 0; k < n + 1 && k < 300; k++) {
		rc = srch_next_hit(s, off, -dir, &hit, &wrapped);
		assert_int_equal(rc, 0);
		if (hit != ref_step(ref, n, off, -dir, 0))
			fail_msg("%s from %" PRIu64 " dir %d: reverse from %" PRIu64
				 " at %" PRIu64 ", want %" PRIu64, what, from, dir,
				 off, hit, ref_step(ref, n, off, -dir, 0));
		off = hit;
	}
	srch_free(s);
}

/* Filter iteration both ways with a small budget. */
static void check_filter(const struct srch_pred *p, const struct img *img,
			 struct idx *idx, const uint64_t *ref, size_t n)
{
	uint64_t off = 0, resume;
	struct pkt hit;
	size_t k = 0;
	int rc;

	/* The first and last few hundred hits: a floods takes long this way. */
	for (;;) {
		if (k == 300 && n > 600) {
			k = n - 300;
			off = ref[k - 1] + 1;
		}
		rc = srch_filter_next(p, img, idx, off, 1024, &hit, &resume);
		if (rc == -pte_eos)
			break;
		if (rc == 1) {
			assert_true(resume > off);
			off = resume;
			continue;
		}
		assert_int_equal(rc, 0);
		assert_true(k < n);
		assert_int_equal(hit.offset, ref[k]);
		k++;
		off = hit.offset + 1;
	}
	assert_int_equal(k, n);
	off = img->size;
	for (;;) {
		if (k == n - 300 && n > 600) {
			k = 300;
			off = ref[k];
		}
		rc = srch_filter_prev(p, img, idx, off, 1024, &hit, &resume);
		if (rc == -pte_eos)
			break;
		if (rc == 1) {
			assert_true(resume < off);
			off = resume;
			continue;
		}
		assert_int_equal(rc, 0);
		assert_true(k > 0);
		k--;
		assert_int_equal(hit.offset, ref[k]);
		off = hit.offset;
	}
	assert_int_equal(k, 0);
}

/* Screens of the filter view, both ways, from the middle. */
static void check_fill(const struct srch_pred *p, const struct img *img,
		       struct idx *idx, const uint64_t *ref, size_t n)
{
	struct pkt out[7];
	uint64_t off, resume;
	size_t got, k, i, first;
	int rc, dir;

	for (dir = -1; dir <= 1; dir += 2) {
		off = img->size / 2;
		/* The reference position: first hit >= off, or last < off. */
		for (first = 0; first < n && ref[first] < off; first++)
			;
		k = 0;
		for (;;) {
			rc = srch_filter_fill(p, img, idx, off, dir, 2048, out, 7,
					      &got, &resume);
			assert_true(rc == 0 || rc == 1 || rc == -pte_eos);
			for (i = 0; i < got; i++, k++) {
				size_t want = dir > 0 ? first + k : first - 1 - k;

				assert_true(dir > 0 ? want < n : k < first);
				assert_int_equal(out[i].offset, ref[want]);
			}
			if (rc == -pte_eos || k > 40)
				break;
			off = resume;
		}
		if (rc == -pte_eos)
			assert_int_equal(k, dir > 0 ? n - first : first);
	}
}

/* Some value of field-bearing packets that occurs in the trace: the
 * middle one of type @type. */
static int some_packet(const struct img *img, enum pkt_type type, struct pkt *out,
		       uint64_t *ip)
{
	const struct img_span *s = &img->spans[0];
	struct pkt_decoder dec;
	struct pkt pkt;
	uint64_t last = 0, *offs = NULL;
	struct pkt *all = NULL;
	uint64_t *ips = NULL;
	size_t n = 0, cap = 0;
	int found = 0;

	pkt_decoder_init(&dec, s->data, s->data + s->size, 0);
	if (!(dec.pos = pkt_find_psb(dec.begin, dec.end)))
		return 0;
	for (;;) {
		int r = pkt_next(&dec, &pkt);

		if (r == -pte_eos)
			break;
		if (r < 0) {
			if (!(dec.pos = pkt_find_psb(dec.pos + 1, dec.end)))
				break;
			continue;
		}
		if (pkt.type == PKT_PSB)
			last = 0;
		if (pkt.type == PKT_TIP || pkt.type == PKT_FUP ||
		    pkt.type == PKT_TIP_PGE || pkt.type == PKT_TIP_PGD)
			if (pkt_ip_update(&pkt, &last))
				continue;
		if (pkt.type != type)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			all = realloc(all, cap * sizeof(*all));
			ips = realloc(ips, cap * sizeof(*ips));
		}
		all[n] = pkt;
		ips[n++] = last;
	}
	if (n) {
		*out = all[n / 2];
		*ip = ips[n / 2];
		found = 1;
	}
	free(all);
	free(ips);
	free(offs);
	return found;
}

static const char *const queries[] = {
	"tip", "ovf", "psb", "error", "tnt.8", "psbend", "mode.exec 64",
	"bytes 02 f3", "x:0282", "ip 0x400000-0x4fffff", "tip 0x7f0000000000-0x7fffffffffff",
	"fup or tip.pgd", "timing and not mtc", "gap > 2000", "cyc > 100",
	"cyc > 20", "cyc >= 31", "cyc > 3000", "cyc 7",
	"cyc > 100 and gap > 100",
};

/* Guards as trace_guard() would run them: one passes, one fails later. */
static int pass_guard(int (*body)(void *), void *arg)
{
	return body(arg);
}

static atomic_int guard_calls;

static int failing_guard(int (*body)(void *), void *arg)
{
	if (atomic_fetch_add(&guard_calls, 1) >= 2)
		return -pte_sigbus;
	return body(arg);
}

static void check_one(const char *q, const struct img *img, struct idx *idx,
		      const char *name)
{
	static const struct srch_opts plain = { .no_skip = 1, .no_prefilter = 1 };
	struct srch_opts small = { .job_size = 4096, .nthreads = 3,
				   .guard = pass_guard };
	struct srch_pred *p = parse(q);
	uint64_t *ref, froms[3];
	size_t n, f;
	char what[256];

	n = ref_matches(p, img, &ref);
	froms[0] = 0;
	froms[1] = img->size / 2;
	froms[2] = n ? ref[n / 2] : img->size - 1;
	snprintf(what, sizeof(what), "%s: '%s'", name, q);
	if (n > 100000) {
		/* A flood: counts and the nearest hits only (test_result_flood). */
		struct srch_opts few = { .max_hits = 1000 };
		struct srch_status st;
		struct srch *s;

		assert_int_equal(srch_start_opts(&s, img, idx, p, froms[1], 1, &few), 0);
		assert_int_equal(srch_wait(s), 0);
		srch_status(s, &st);
		assert_int_equal(st.nhits, n);
		assert_int_equal(st.first, ref_step(ref, n, froms[1], 1, 0));
		srch_free(s);
		free(ref);
		srch_pred_free(p);
		return;
	}
	for (f = 1; f < 3; f++) {
		check_search(p, img, idx, ref, n, froms[f], 1, NULL, what);
		check_search(p, img, idx, ref, n, froms[f], -1, NULL, what);
	}
	check_search(p, img, idx, ref, n, froms[0], 1, NULL, what);
	check_search(p, img, idx, ref, n, froms[1], 1, &small, what);
	check_search(p, img, idx, ref, n, froms[2], -1, &small, what);
	check_search(p, img, idx, ref, n, froms[1], 1, &plain, what);
	/* Without the index's time-model carry, times after a PSB are
	 * estimates: gaps may differ. */
	if (!srch_pred_has_history(p))
		check_search(p, img, NULL, ref, n, froms[1], -1, NULL, what);
	check_filter(p, img, idx, ref, n);
	check_fill(p, img, idx, ref, n);
	free(ref);
	srch_pred_free(p);
}

static void check_trace(const struct helpers_map *mp, const char *name)
{
	struct img_span span;
	struct img img;
	struct idx *idx = NULL;
	struct pkt pkt;
	uint64_t ip;
	size_t i;
	char q[128];

	img_init_flat(&img, &span, mp->data, mp->size);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_set_chunk_size(idx, 4096), 0);
	assert_int_equal(idx_build(idx), 0);
	for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
		check_one(queries[i], &img, idx, name);
	/* Values that occur: a TIP's IP, a CBR, an MTC, a TSC. */
	if (some_packet(&img, PKT_TIP, &pkt, &ip)) {
		snprintf(q, sizeof(q), "tip 0x%" PRIx64, ip);
		check_one(q, &img, idx, name);
		snprintf(q, sizeof(q), "ip 0x%" PRIx64 "-0x%" PRIx64, ip & ~(uint64_t)0xfff,
			 ip | (uint64_t)0xfff);
		check_one(q, &img, idx, name);
	}
	if (some_packet(&img, PKT_CBR, &pkt, &ip)) {
		snprintf(q, sizeof(q), "cbr 0x%x", pkt.u.cbr);
		check_one(q, &img, idx, name);
	}
	if (some_packet(&img, PKT_MTC, &pkt, &ip)) {
		snprintf(q, sizeof(q), "mtc 0x%x", pkt.u.mtc);
		check_one(q, &img, idx, name);
	}
	if (some_packet(&img, PKT_TSC, &pkt, &ip)) {
		snprintf(q, sizeof(q), "tsc 0x%" PRIx64, pkt.u.tsc);
		check_one(q, &img, idx, name);
		snprintf(q, sizeof(q), "tsc >= 0x%" PRIx64, pkt.u.tsc);
		check_one(q, &img, idx, name);
	}
	idx_free(idx);
}

static void test_shared_traces(void **state)
{
	struct helpers_map mp;
	size_t t;

	(void)state;
	for (t = 0; t < sizeof(traces) / sizeof(traces[0]); t++) {
		if (helpers_map_shared(traces[t], &mp))
			fail_msg("cannot open %s (SHARED?)", traces[t]);
		check_trace(&mp, traces[t]);
		munmap(mp.data, mp.size);
	}
}

static void test_generated_trace(void **state)
{
	struct helpers_map mp;

	(void)state;
	if (map_generated(&mp))
		skip();
	check_trace(&mp, "generated");
	munmap(mp.data, mp.size);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ptgen writes the trace's options next to it. */
static void unlink_options(const char *path)
{
	char opts[300];

	snprintf(opts, sizeof(opts), "%s.options", path);
	unlink(opts);
}

/* Generate the trace ptgen makes with @args into @mp, and its time
 * configuration into @cfg.  Returns 0, or -1 if ptgen is not built. */
static int gen_trace(const char *args, struct helpers_map *mp,
		     struct tm_config *cfg)
{
	const char *build = getenv("BUILD");
	char cmd[1024], line[512], *tok, *save = NULL, *opt = NULL;
	char path[] = "/tmp/test_search_gen.XXXXXX";
	FILE *f;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/tools/ptgen %s -o %s 2>/dev/null",
		 build ? build : "build", args, path);
	if (system(cmd)) {
		unlink(path);
		unlink_options(path);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "%s/tools/ptgen %s --print-config",
		 build ? build : "build", args);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	pclose(f);
	memset(cfg, 0, sizeof(*cfg));
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (!opt) {
			opt = tok;
			continue;
		}
		assert_int_equal(tm_config_option(cfg, opt, tok), 1);
		opt = NULL;
	}
	assert_int_equal(helpers_map_file(path, mp), 0);
	unlink(path);
	unlink_options(path);
	return 0;
}

/*
 * A search on a gap skips the segments whose largest gap (the time pass's
 * summary) rules it out, carrying the time of the last timing packet
 * across the skip: the same hits as a decode of everything, on a trace
 * whose MTCs are placed (so most gaps are one MTC period and a few,
 * around sleeps and OVFs, are long).
 */
static void test_gap_skip(void **state)
{
	static const char args[] = "--seed 11 --size 3MiB --ovf-rate 0.0005";
	static const struct srch_opts plain = { .no_skip = 1, .no_prefilter = 1 };
	struct tm_config cfg;
	struct img_span span;
	struct img img;
	struct helpers_map mp;
	struct idx *idx;
	uint64_t *gaps, *ref;
	size_t ns, i, k, n, ruled;

	(void)state;
	if (gen_trace(args, &mp, &cfg))
		skip();
	img_init_flat(&img, &span, mp.data, mp.size);
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_set_chunk_size(idx, 64 << 10), 0);
	assert_int_equal(idx_build(idx), 0);
	ns = idx_nseeks(idx);
	gaps = calloc(ns, sizeof(*gaps));
	assert_non_null(gaps);
	for (i = 0; i < ns; i++) {
		struct idx_summary sum;

		assert_int_equal(idx_summary(idx, i, &sum), 0);
		assert_true(sum.have_time);
		gaps[i] = sum.has_gap ? sum.max_gap : 0;
	}
	qsort(gaps, ns, sizeof(*gaps), cmp_u64);
	/* Thresholds from the segments' largest gaps: most segments ruled
	 * out, some hits left. */
	for (k = 0; k < 4; k++) {
		static const double q[] = { 0.5, 0.9, 0.99, 0.999 };
		uint64_t t = gaps[(size_t)(q[k] * (double)(ns - 1))];
		const char *fmt[] = { "gap > %llu", "gap >= %llu", "mtc gap > %llu or ovf",
				      "tsc gap > %llu" };
		char qs[128];
		struct srch_pred *p;

		/* the first two rule out at least half; the others keep hits */
		snprintf(qs, sizeof(qs), fmt[k],
			 (unsigned long long)(k < 2 || !t ? t : t - 1));
		p = parse(qs);
		assert_int_equal(srch_pred_set_config(p, &cfg), 0);
		ruled = 0;
		for (i = 0; i < ns; i++) {
			struct idx_summary sum;

			assert_int_equal(idx_summary(idx, i, &sum), 0);
			ruled += !srch_segment_may_match(p, &sum);
		}
		n = ref_matches(p, &img, &ref);
		if (k < 2)
			assert_true(ruled >= ns / 2);
		else
			assert_true(n > 0);
		check_search(p, &img, idx, ref, n, 0, 1, NULL, qs);
		check_search(p, &img, idx, ref, n, mp.size / 2, 1, NULL, qs);
		check_search(p, &img, idx, ref, n, mp.size / 2, -1, NULL, qs);
		check_search(p, &img, idx, ref, n, mp.size / 3, 1, &plain, qs);
		check_filter(p, &img, idx, ref, n);
		free(ref);
		srch_pred_free(p);
	}
	/* TSC and CYC conditions: the summaries' TSC range and largest CYC
	 * rule segments out, hits equal a decode of everything. */
	{
		struct idx_summary tot;
		uint64_t a, b, tspan;
		size_t maxcyc = 0;
		char qs[8][128];

		assert_int_equal(idx_totals(idx, &tot), 0);
		assert_true(tot.have_tsc && tot.last_tsc > tot.first_tsc);
		tspan = tot.last_tsc - tot.first_tsc;
		a = tot.first_tsc + tspan / 10;
		b = tot.first_tsc + tspan / 10 * 8;
		maxcyc = (size_t)tot.max_cyc;
		snprintf(qs[0], sizeof(qs[0]), "tsc > %#llx", (unsigned long long)b);
		snprintf(qs[1], sizeof(qs[1]), "tsc <= %#llx", (unsigned long long)a);
		snprintf(qs[2], sizeof(qs[2]), "tsc %#llx-%#llx", (unsigned long long)a,
			 (unsigned long long)(a + tspan / 10));
		snprintf(qs[3], sizeof(qs[3]), "tsc >= %#llx or ovf", (unsigned long long)b);
		snprintf(qs[4], sizeof(qs[4]), "tsc < %#llx", (unsigned long long)a);
		snprintf(qs[5], sizeof(qs[5]), "cyc > %zu", maxcyc / 2);
		snprintf(qs[6], sizeof(qs[6]), "cyc >= %zu", maxcyc);
		snprintf(qs[7], sizeof(qs[7]), "tsc != %#llx", (unsigned long long)a);
		for (k = 0; k < 8; k++) {
			struct srch_pred *p = parse(qs[k]);

			assert_int_equal(srch_pred_set_config(p, &cfg), 0);
			ruled = 0;
			for (i = 0; i < ns; i++) {
				struct idx_summary sum;

				assert_int_equal(idx_summary(idx, i, &sum), 0);
				ruled += !srch_segment_may_match(p, &sum);
			}
			n = ref_matches(p, &img, &ref);
			/* the range ones rule most segments out */
			if (k < 3)
				assert_true(ruled >= ns / 2);
			assert_true(n > 0);
			check_search(p, &img, idx, ref, n, 0, 1, NULL, qs[k]);
			check_search(p, &img, idx, ref, n, mp.size / 2, -1, NULL, qs[k]);
			check_search(p, &img, idx, ref, n, mp.size / 3, 1, &plain, qs[k]);
			check_filter(p, &img, idx, ref, n);
			free(ref);
			srch_pred_free(p);
		}
	}
	free(gaps);
	idx_free(idx);
	munmap(mp.data, mp.size);
}

/* The packet pane's rows: its error rows are at the @n offsets @ref (the
 * reference's "error" hits) and its PSBs at the @npsb offsets @psb. */
static void check_panes(const struct img *img, const uint64_t *ref, size_t n,
			const uint64_t *psb, size_t npsb)
{
	struct win_cache *wc;
	struct win_iter it = { 0 };
	size_t ne = 0, np = 0;

	assert_int_equal(win_cache_new(&wc, img, NULL, 1 << 20), 0);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	do {
		const struct win_row *row = win_row(&it);

		if (row->flags & WIN_F_PRE_PSB)
			continue;
		if (row->flags & WIN_F_ERROR) {
			assert_true(ne < n);
			assert_int_equal(row->pkt.offset, ref[ne]);
			ne++;
		} else if (row->pkt.type == PKT_PSB) {
			assert_true(np < npsb);
			assert_int_equal(row->pkt.offset, psb[np]);
			np++;
		}
	} while (win_next(&it) == 0);
	assert_int_equal(ne, n);
	assert_int_equal(np, npsb);
	win_iter_release(&it);
	win_cache_free(wc);
}

/*
 * A corrupted packet that runs into the next PSB (a TIP.PGD whose payload
 * swallows the PSB's first bytes, a stray 19 reading them as a TSC's) is
 * cut there as an error, as the packet pane and the index cut it, and the
 * search decodes on from that PSB.  A decode of everything read such a
 * packet whole and went on inside the PSB, so it never saw the segment
 * that PSB starts, while the skipping and prefilter paths decoded it from
 * its PSB: their hits differed ("gap > N", "tsc > T", "error", "psb").
 */
static void test_psb_cut(void **state)
{
	static const char args[] = "--seed 2 --size 128KiB --psb-period 200 "
				   "--corrupt-rate 0.002";
	static const struct srch_opts plain = { .no_skip = 1, .no_prefilter = 1 };
	static const struct srch_opts nopf = { .no_prefilter = 1 };
	static const char *const fixed[] = {
		"error", "psb", "tsc", "tip.pgd", "gap > 10us", "x:0282",
	};
	struct tm_config cfg;
	struct img_span span;
	struct img img;
	struct helpers_map mp;
	struct idx_summary tot;
	struct idx *idx;
	uint64_t *ref, *gaps;
	size_t ns, i, k, n, ncut;
	char qs[128];

	(void)state;
	if (gen_trace(args, &mp, &cfg))
		skip();
	img_init_flat(&img, &span, mp.data, mp.size);
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_set_chunk_size(idx, 4096), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_totals(idx, &tot), 0);
	ns = idx_nseeks(idx);
	gaps = calloc(ns + 1, sizeof(*gaps));
	assert_non_null(gaps);
	for (i = 0; i < ns; i++) {
		struct idx_summary sum;

		assert_int_equal(idx_summary(idx, i, &sum), 0);
		gaps[i] = sum.has_gap ? sum.max_gap : 0;
	}
	qsort(gaps, ns, sizeof(*gaps), cmp_u64);
	for (k = 0; k < 10; k++) {
		struct srch_pred *p;

		if (k < sizeof(fixed) / sizeof(fixed[0]))
			snprintf(qs, sizeof(qs), "%s", fixed[k]);
		else if (k < 8)		/* the segments' largest gaps */
			snprintf(qs, sizeof(qs), "gap > %" PRIu64,
				 gaps[(ns - 1) * (k == 6 ? 5 : 9) / 10]);
		else			/* the last tenth of the time */
			snprintf(qs, sizeof(qs), "tsc %s %#" PRIx64,
				 k == 8 ? ">" : "<=", tot.last_tsc -
				 (tot.last_tsc - tot.first_tsc) / 10);
		p = parse(qs);
		assert_int_equal(srch_pred_set_config(p, &cfg), 0);
		n = ref_walk(p, &img, &ref, &ncut);
		assert_true(ncut > 0);	/* the trace has such a packet */
		if (k == 0) {		/* the reference is what the pane shows */
			struct srch_pred *q = parse("psb");
			uint64_t *psb;
			size_t npsb = ref_matches(q, &img, &psb);

			check_panes(&img, ref, n, psb, npsb);
			free(psb);
			srch_pred_free(q);
		}
		check_search(p, &img, idx, ref, n, 0, 1, NULL, qs);
		check_search(p, &img, idx, ref, n, mp.size / 2, -1, NULL, qs);
		check_search(p, &img, idx, ref, n, 0, 1, &plain, qs);
		check_search(p, &img, idx, ref, n, mp.size / 3, 1, &nopf, qs);
		if (!srch_pred_has_history(p))
			check_search(p, &img, NULL, ref, n, 0, 1, &nopf, qs);
		check_filter(p, &img, idx, ref, n);
		free(ref);
		srch_pred_free(p);
	}
	free(gaps);
	idx_free(idx);
	munmap(mp.data, mp.size);
}

/* A search for pad keeps at most max_hits, counts all, and answers n/N
 * only where it knows. */
static void test_result_flood(void **state)
{
	struct srch_opts o = { .max_hits = 100 };
	struct img_span span;
	struct img img;
	struct helpers_map mp;
	struct srch_pred *p = parse("pad");
	struct srch_status st;
	struct srch *s;
	uint64_t *ref, from, off, hit;
	size_t n, k;

	(void)state;
	if (map_generated(&mp))
		skip();
	img_init_flat(&img, &span, mp.data, mp.size);
	n = ref_matches(p, &img, &ref);
	assert_true(n > 10000);
	from = ref[n / 3];
	assert_int_equal(srch_start_opts(&s, &img, NULL, p, from, 1, &o), 0);
	assert_int_equal(srch_wait(s), 0);
	srch_status(s, &st);
	assert_int_equal(st.nhits, n);
	assert_int_equal(st.nkept, 100);
	assert_true(st.have_first);
	assert_int_equal(st.first, ref_step(ref, n, from, 1, 0));
	off = from;
	for (k = 0; k < 100; k++) {
		assert_int_equal(srch_next_hit(s, off, 1, &hit, NULL), 0);
		assert_int_equal(hit, ref_step(ref, n, from, 1, k));
		off = hit;
	}
	/* The 101st is not kept: run a new search from there. */
	assert_int_equal(srch_next_hit(s, off, 1, &hit, NULL), 1);
	/* Backward within the kept ones works, before the start does not. */
	assert_int_equal(srch_next_hit(s, off, -1, &hit, NULL), 0);
	assert_int_equal(hit, ref_step(ref, n, from, 1, 98));
	assert_int_equal(srch_next_hit(s, from, -1, &hit, NULL), 1);
	srch_free(s);

	/* Backward flood too. */
	assert_int_equal(srch_start_opts(&s, &img, NULL, p, from, -1, &o), 0);
	assert_int_equal(srch_wait(s), 0);
	srch_status(s, &st);
	assert_int_equal(st.nhits, n);
	assert_int_equal(st.nkept, 100);
	assert_int_equal(st.first, ref_step(ref, n, from, -1, 0));
	off = from;
	for (k = 0; k < 100; k++) {
		assert_int_equal(srch_next_hit(s, off, -1, &hit, NULL), 0);
		assert_int_equal(hit, ref_step(ref, n, from, -1, k));
		off = hit;
	}
	assert_int_equal(srch_next_hit(s, off, -1, &hit, NULL), 1);
	srch_free(s);

	/* N past the kept ones (and across the wrap): a new search that
	 * knows the count keeps it and finds the nearest hits, the same as
	 * one that counts; small jobs, so most are skipped. */
	o.known_hits = n;
	o.job_size = 64 << 10;
	for (k = 0; k < 2; k++) {
		int dir = k ? -1 : 1;
		uint64_t at = k ? ref[5] : ref[n - 6];
		size_t j;

		assert_int_equal(srch_start_opts(&s, &img, NULL, p, at, dir, &o), 0);
		assert_int_equal(srch_wait(s), 0);
		srch_status(s, &st);
		assert_true(st.finished);
		assert_int_equal(st.status, 0);
		assert_int_equal(st.nhits, n);
		assert_true(st.count_known);
		assert_int_equal(st.nkept, 100);
		assert_true(st.have_first);
		assert_int_equal(st.first, ref_step(ref, n, at, dir, 0));
		off = at;
		for (j = 0; j < 100; j++) {
			int wrapped = 0;

			assert_int_equal(srch_next_hit(s, off, dir, &hit, &wrapped), 0);
			assert_int_equal(hit, ref_step(ref, n, at, dir, j));
			/* five hits to the end, then the other end */
			assert_int_equal(wrapped, j == 5);
			off = hit;
		}
		assert_int_equal(srch_next_hit(s, off, dir, &hit, NULL), 1);
		srch_free(s);
	}
	free(ref);
	srch_pred_free(p);
	munmap(mp.data, mp.size);
}

static void test_cancel(void **state)
{
	struct srch_opts o = { .job_size = 64 << 10, .nthreads = 2, .no_prefilter = 1 };
	struct img_span span;
	struct img img;
	struct helpers_map mp;
	struct srch_pred *p = parse("tip 0x1234 or cyc > 1000000000");
	struct srch_status st;
	struct srch *s;

	(void)state;
	if (map_generated(&mp))
		skip();
	img_init_flat(&img, &span, mp.data, mp.size);
	assert_int_equal(srch_start_opts(&s, &img, NULL, p, 0, 1, &o), 0);
	srch_cancel(s);
	assert_int_equal(srch_wait(s), -pte_canceled);
	srch_status(s, &st);
	assert_true(st.finished);
	assert_int_equal(st.status, -pte_canceled);
	assert_true(st.done < st.total);
	srch_free(s);
	/* A mapping that vanishes (the guard says so) stops the search. */
	o.guard = failing_guard;
	atomic_store(&guard_calls, 0);
	assert_int_equal(srch_start_opts(&s, &img, NULL, p, 0, 1, &o), 0);
	assert_int_equal(srch_wait(s), -pte_sigbus);
	srch_status(s, &st);
	assert_int_equal(st.status, -pte_sigbus);
	srch_free(s);
	o.guard = NULL;
	/* Cancel twice and free a finished search. */
	assert_int_equal(srch_start_opts(&s, &img, NULL, p, 0, -1, &o), 0);
	srch_cancel(s);
	srch_cancel(s);
	srch_free(s);
	srch_free(NULL);
	srch_cancel(NULL);
	srch_pred_free(p);
	munmap(mp.data, mp.size);
}

static void test_no_wrap_and_edges(void **state)
{
	struct srch_opts o = { .no_wrap = 1 };
	struct img_span span;
	struct img img;
	struct helpers_map mp;
	struct srch_pred *p = parse("psb");
	struct srch_status st;
	struct srch *s;
	uint64_t *ref, hit;
	size_t n;

	(void)state;
	if (helpers_map_shared(traces[5], &mp))
		fail_msg("cannot open %s (SHARED?)", traces[5]);
	img_init_flat(&img, &span, mp.data, mp.size);
	n = ref_matches(p, &img, &ref);
	assert_true(n >= 2);
	/* Forward from the last PSB without wrapping finds nothing. */
	assert_int_equal(srch_start_opts(&s, &img, NULL, p, ref[n - 1], 1, &o), 0);
	assert_int_equal(srch_wait(s), 0);
	srch_status(s, &st);
	assert_int_equal(st.nhits, 0);
	assert_int_equal(srch_next_hit(s, ref[n - 1], 1, &hit, NULL), -pte_eos);
	srch_free(s);
	/* From past the end and from 0 backward. */
	assert_int_equal(srch_start(&s, &img, NULL, p, UINT64_MAX, 1), 0);
	assert_int_equal(srch_wait(s), 0);
	srch_status(s, &st);
	assert_int_equal(st.nhits, n);
	assert_int_equal(st.first, ref[0]);
	assert_true(st.first_wrapped);
	assert_int_equal(srch_next_hit(s, ref[n - 1], 1, &hit, NULL), 0);
	assert_int_equal(hit, ref[0]);
	assert_int_equal(srch_next_hit(s, img.size, 1, &hit, NULL), 0);
	assert_int_equal(hit, ref[0]);
	assert_int_equal(srch_next_hit(s, img.size, -1, &hit, NULL), 0);
	assert_int_equal(hit, ref[n - 1]);
	assert_int_equal(srch_next_hit(s, ref[0], -1, &hit, NULL), 0);
	assert_int_equal(hit, ref[n - 1]);
	srch_free(s);
	assert_int_equal(srch_start(&s, &img, NULL, p, 0, -1), 0);
	assert_int_equal(srch_wait(s), 0);
	srch_status(s, &st);
	assert_int_equal(st.first, ref[n - 1]);
	assert_true(st.first_wrapped);
	srch_free(s);
	assert_int_equal(srch_start(NULL, &img, NULL, p, 0, 1), -pte_invalid);
	{
		/* A gap in time units needs a TSC frequency first. */
		struct srch_pred *g = parse("gap > 1us");
		struct tm_config cfg;

		assert_int_equal(srch_start(&s, &img, NULL, g, 0, 1), -pte_no_calib);
		memset(&cfg, 0, sizeof(cfg));
		cfg.have_nom_freq = 1;
		cfg.nom_freq = 12;
		assert_int_equal(srch_pred_set_config(g, &cfg), 0);
		assert_int_equal(srch_start(&s, &img, NULL, g, 0, 1), 0);
		assert_int_equal(srch_wait(s), 0);
		srch_free(s);
		srch_pred_free(g);
	}
	assert_int_equal(srch_start(&s, &img, NULL, p, 0, 0), -pte_invalid);
	free(ref);
	srch_pred_free(p);
	munmap(mp.data, mp.size);
}

/*
 * What "gap" measures, as the man page says: the time model's times at
 * the two timing packets, not their payloads.  A PSB+ TSC behind the
 * estimate is held (TM_F_CLAMPED), and the gap after it counts from the
 * time held: on this trace (the srch review's) the TSC after such a one
 * is "gap = model difference", not "gap = payload difference".
 */
static void test_gap_held(void **state)
{
	static const char args[] = "--seed 10 --size 2MiB --no-mtc "
				   "--sleep-at 0x1000:400000";
	static const struct srch_opts o = { .max_hits = 16 };
	const struct img_span *sp;
	struct tm_config cfg;
	struct img_span span;
	struct img img;
	struct helpers_map mp;
	struct pkt_decoder dec;
	struct tm_model tm;
	struct tm_stamp st;
	struct pkt pkt;
	struct idx *idx;
	uint64_t held = 0, pay = 0, want = 0, gaps[2] = { 0, 0 }, hits[16];
	int found = 0, clamped = 0, k, in;
	struct srch_pred *p;
	struct srch *s;
	size_t n, i;
	char qs[64];

	(void)state;
	if (gen_trace(args, &mp, &cfg))
		skip();
	img_init_flat(&img, &span, mp.data, mp.size);
	sp = &img.spans[0];
	pkt_decoder_init(&dec, sp->data, sp->data + sp->size, 0);
	tm_init(&tm, &cfg);
	/* A held TSC, then one that is not: the gap between them by the
	 * model's times and by their payloads. */
	while (!found && pkt_next(&dec, &pkt) > 0) {
		tm_step(&tm, &pkt, &st);
		if (pkt.type != PKT_TSC)
			continue;
		if (clamped && !(st.flags & TM_F_CLAMPED)) {
			want = pkt.offset;
			gaps[0] = st.tsc - held;
			gaps[1] = pkt.u.tsc - pay;
			found = 1;
		}
		clamped = (st.flags & TM_F_CLAMPED) && st.tsc > pkt.u.tsc;
		held = st.tsc;
		pay = pkt.u.tsc;
	}
	assert_true(found);
	assert_true(gaps[0] < gaps[1]);
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_build(idx), 0);
	for (k = 0; k < 2; k++) {
		/* k 0: by the model's times, a hit; 1: by the payloads, none */
		snprintf(qs, sizeof(qs), "tsc & gap = %" PRIu64, gaps[k]);
		p = parse(qs);
		assert_int_equal(srch_pred_set_config(p, &cfg), 0);
		assert_int_equal(srch_start_opts(&s, &img, idx, p, 0, 1, &o), 0);
		assert_int_equal(srch_wait(s), 0);
		n = srch_hits(s, 0, UINT64_MAX, hits, 16);
		for (i = 0, in = 0; i < n; i++)
			in |= hits[i] == want;
		if (in != !k)
			fail_msg("'%s' (%zu hits) %s the TSC at %#" PRIx64
				 " after a held one (gaps %" PRIu64 " by the model, %"
				 PRIu64 " by the payloads)", qs, n, k ? "hits" : "misses",
				 want, gaps[0], gaps[1]);
		srch_free(s);
		srch_pred_free(p);
	}
	idx_free(idx);
	munmap(mp.data, mp.size);
}

/*
 * "bytes" and "x:" look inside error rows too: an unknown opcode in a
 * corrupted segment (its row, and its bytes, run to the next PSB: the
 * pattern may start thousands of bytes in), a packet cut by the end of
 * the file, one cut by a gap (up to the gap) -- the bytes the packet pane
 * shows on those rows.  Before, a bytes term never matched an error row:
 * "x:19a0" missed a TSC cut by the end of the file.  The hits here are
 * worked out by hand, not by srch_match(), and every path is checked (the
 * summaries' skipping, the prefilter, decoding everything, no index, the
 * filter view); the pane shows an error row at each.
 */
#define BE_PSB	"\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82"
#define BE_JUNK	10000	/* the corrupted bytes after the bad opcode */

/* Append @n bytes of @b to @buf at *@at. */
static void be_put(uint8_t *buf, size_t *at, const void *b, size_t n)
{
	memcpy(buf + *at, b, n);
	*at += n;
}

/* Check @q's hits in @img (with an index, and without) against @want[@n],
 * and that the pane shows error rows at @errs[@nerr]. */
static void check_bytes_rows(const struct img *img, const char *q,
			     const uint64_t *want, size_t n)
{
	static const struct srch_opts plain = { .no_skip = 1, .no_prefilter = 1 };
	static const struct srch_opts nopf = { .no_prefilter = 1 };
	struct srch_pred *p = parse(q);
	struct idx *idx;
	uint64_t from[2] = { 0, img->size / 2 };
	size_t f;

	assert_int_equal(idx_new(&idx, img, NULL), 0);
	assert_int_equal(idx_set_chunk_size(idx, 4096), 0);
	assert_int_equal(idx_build(idx), 0);
	for (f = 0; f < 2; f++) {
		check_search(p, img, idx, want, n, from[f], 1, NULL, q);
		check_search(p, img, idx, want, n, from[f], -1, NULL, q);
		check_search(p, img, idx, want, n, from[f], 1, &plain, q);
		check_search(p, img, idx, want, n, from[f], -1, &nopf, q);
		check_search(p, img, NULL, want, n, from[f], 1, NULL, q);
		check_search(p, img, NULL, want, n, from[f], -1, &plain, q);
	}
	check_filter(p, img, idx, want, n);
	check_filter(p, img, NULL, want, n);
	idx_free(idx);
	srch_pred_free(p);
}

/* Whether the pane shows an error row at @off of @img. */
static int pane_error_at(const struct img *img, uint64_t off)
{
	struct win_cache *wc;
	struct win_iter it = { 0 };
	int found = 0;

	assert_int_equal(win_cache_new(&wc, img, NULL, 1 << 20), 0);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	do {
		const struct win_row *row = win_row(&it);

		if ((row->flags & WIN_F_ERROR) && row->pkt.offset == off)
			found = 1;
	} while (win_next(&it) == 0);
	win_iter_release(&it);
	win_cache_free(wc);
	return found;
}

static void test_bytes_errors(void **state)
{
	static const uint8_t tsc[] = { 0x19, 0xa0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 };
	static const uint8_t cut[] = { 0x19, 0xa0, 0x06, 0x0b };
	struct img_span span, spans[2];
	struct idx_summary sum;
	struct srch_pred *p;
	struct img img;
	uint8_t *buf = calloc(1, BE_JUNK + 256);
	uint64_t bad, seg2, tsc2, last, gapped;
	size_t at = 0;

	(void)state;
	assert_non_null(buf);
	/* A segment with an unknown opcode (05), its junk holding de ad
	 * across the first ERR_CHUNK bytes' end and be ef far in. */
	be_put(buf, &at, BE_PSB "\x02\x23\x00", 19);
	bad = at;
	memset(buf + at, 0xcc, BE_JUNK);
	buf[at] = 0x05;
	memcpy(buf + at + 4095, "\xde\xad", 2);
	memcpy(buf + at + 9000, "\xbe\xef", 2);
	at += BE_JUNK;
	/* One whole TSC, then one cut by the end of the file. */
	seg2 = at;
	be_put(buf, &at, BE_PSB "\x02\x23\x00", 19);
	tsc2 = at;
	be_put(buf, &at, tsc, sizeof(tsc));
	be_put(buf, &at, "\x00", 1);
	last = at;
	be_put(buf, &at, cut, sizeof(cut));
	img_init_flat(&img, &span, buf, at);
	assert_true(pane_error_at(&img, bad));
	assert_true(pane_error_at(&img, last));
	{
		const uint64_t w1[] = { tsc2, last }, w2[] = { bad }, w3[] = { last };
		const uint64_t w4[] = { bad, last };

		check_bytes_rows(&img, "x:19a0", w1, 2);
		check_bytes_rows(&img, "bytes 19", w1, 2);
		check_bytes_rows(&img, "x:05cc", w2, 1);
		check_bytes_rows(&img, "bytes de ad", w2, 1);
		check_bytes_rows(&img, "x:beef", w2, 1);
		check_bytes_rows(&img, "x:a0060b", w3, 1);
		check_bytes_rows(&img, "x:0b", w3, 1);
		check_bytes_rows(&img, "x:cccc | x:060b", w4, 2);
		check_bytes_rows(&img, "x:0b00", NULL, 0);	/* past the end */
		/* starting inside the row, as inside a packet: on past it */
		check_bytes_rows(&img, "x:cc02", w2, 1);
		check_bytes_rows(&img, "error & x:cc", w2, 1);
		check_bytes_rows(&img, "tsc & x:19", w1, 1);
	}
	(void)seg2;
	/* A TSC cut by a gap: its row's bytes end at the gap. */
	at = 0;
	be_put(buf, &at, BE_PSB "\x02\x23\x00", 19);
	gapped = at;
	be_put(buf, &at, cut, 3);
	spans[0] = (struct img_span){ .data = buf, .off = 0, .size = at };
	be_put(buf, &at, "\x77\x66", 2);
	be_put(buf, &at, BE_PSB "\x02\x23\x00", 19);
	spans[1] = (struct img_span){ .data = buf + spans[0].size,
				      .off = spans[0].size,
				      .size = at - spans[0].size, .gap_before = 1 };
	img.spans = spans;
	img.nspans = 2;
	img.size = at;
	assert_true(pane_error_at(&img, gapped));
	{
		const uint64_t w[] = { gapped };

		check_bytes_rows(&img, "x:19a006", w, 1);
		check_bytes_rows(&img, "x:0677", NULL, 0);	/* across the gap */
	}
	/* A segment whose only match can be an error row is not skipped. */
	p = parse("x:19a0");
	memset(&sum, 0, sizeof(sum));
	sum.npackets = 1;
	sum.per_class[PKC_ERROR] = 1;
	sum.nerrors = 1;
	assert_true(srch_segment_may_match(p, &sum));
	sum.nerrors = 0;
	sum.ngaps = 1;
	assert_true(srch_segment_may_match(p, &sum));
	srch_pred_free(p);
	free(buf);
}

static int teardown(void **state)
{
	(void)state;
	if (gen_path[0]) {
		unlink(gen_path);
		unlink_options(gen_path);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_match_packets),
		cmocka_unit_test(test_segment_may_match),
		cmocka_unit_test(test_gap_skip),
		cmocka_unit_test(test_psb_cut),
		cmocka_unit_test(test_bytes_errors),
		cmocka_unit_test(test_gap_held),
		cmocka_unit_test(test_gap_huge),
		cmocka_unit_test(test_gap_ticks),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_no_wrap_and_edges),
		cmocka_unit_test(test_shared_traces),
		cmocka_unit_test(test_generated_trace),
		cmocka_unit_test(test_result_flood),
		cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
