/*
 * tmcheck -- run the time model over a raw Intel PT file and check what
 * must hold on any trace, however large or damaged: the estimated TSC and
 * the cycle count never decrease, and a model resumed from the state
 * carried at each PSB (tm_save/tm_restore) agrees with the one that
 * decoded from the start.  Prints counts of the trouble flags.
 *
 * usage: tmcheck [timing options] FILE...
 * Every FILE is checked with the same options.  Exit status: 0 all held,
 * 1 a check failed, 2 usage or I/O trouble (the worst over the files).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkt.h"
#include "safefile.h"
#include "tm.h"

static const struct {
	uint32_t flag;
	const char *name;
} flags[] = {
	{ TM_F_MTC_LOST, "mtc-lost" },
	{ TM_F_UNCAL, "uncalibrated" },
	{ TM_F_OVF, "ovf" },
	{ TM_F_TSC_BACK, "tsc-back" },
	{ TM_F_RESYNC, "resync" },
	{ TM_F_TMA_NO_TSC, "tma-no-tsc" },
	{ TM_F_CLAMPED, "clamped" },
	{ TM_F_SLEEP, "sleep" },
	{ TM_F_NO_CONFIG, "no-config" },
	{ TM_F_UNTIED, "untied-mtc" },
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

static int later(const struct tm_stamp *a, const struct tm_stamp *b)
{
	return a->tsc > b->tsc || (a->tsc == b->tsc && a->tsc_frac > b->tsc_frac);
}

/* Decode @p[0, @size) and check.  Returns the exit status. */
static int check(const char *path, const uint8_t *p, uint64_t size,
		 const struct tm_config *cfg)
{
	struct tm_model whole, seg;
	struct tm_stamp st, st2, last;
	struct pkt_decoder dec;
	struct tm_carry carry;
	uint64_t count[NFLAGS] = { 0 }, npkt = 0, npsb = 0, nerr = 0;
	const uint8_t *psb;
	struct pkt pkt;
	size_t i;
	int r;

	psb = pkt_find_psb(p, p + size);
	if (!psb) {
		fprintf(stderr, "tmcheck: %s: no PSB\n", path);
		return 2;
	}
	pkt_decoder_init(&dec, psb, p + size, (uint64_t)(psb - p));
	tm_init(&whole, cfg);
	tm_init(&seg, cfg);
	memset(&last, 0, sizeof(last));
	for (;;) {
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			nerr++;
			if (pkt_sync_set(&dec, pkt.offset + 1) < 0 ||
			    pkt_sync_forward(&dec) < 0)
				break;
			tm_gap(&whole);
			tm_gap(&seg);
			continue;
		}
		if (pkt.type == PKT_PSB) {
			tm_save(&whole, &carry);
			tm_init(&seg, cfg);
			tm_restore(&seg, &carry);
			npsb++;
		}
		tm_step(&whole, &pkt, &st);
		tm_step(&seg, &pkt, &st2);
		if (memcmp(&st, &st2, sizeof(st))) {
			fprintf(stderr, "tmcheck: %s: offset 0x%" PRIx64 ": the "
				"model resumed at the PSB disagrees\n", path,
				pkt.offset);
			return 1;
		}
		/* (but where a PSB+ TSC contradicts the time before and
		 * time goes back to it, TM_F_RESYNC, counted below) */
		if (npkt && later(&last, &st) && !(st.flags & TM_F_RESYNC)) {
			fprintf(stderr, "tmcheck: %s: offset 0x%" PRIx64 ": time "
				"went backwards (%" PRIx64 " after %" PRIx64 ")\n",
				path, pkt.offset, st.tsc, last.tsc);
			return 1;
		}
		if (st.cycles < last.cycles) {
			fprintf(stderr, "tmcheck: %s: offset 0x%" PRIx64 ": cycles "
				"went backwards\n", path, pkt.offset);
			return 1;
		}
		for (i = 0; i < NFLAGS; i++)
			if (st.flags & flags[i].flag)
				count[i]++;
		last = st;
		npkt++;
	}
	printf("%s: %" PRIu64 " packets, %" PRIu64 " PSBs, %" PRIu64
	       " decode errors, tsc %" PRIx64 ", %" PRIu64 " cycles:"
	       " monotonic, PSB carry exact\n", path, npkt, npsb, nerr,
	       last.tsc, last.cycles);
	for (i = 0; i < NFLAGS; i++)
		printf("  %-13s %" PRIu64 "\n", flags[i].name, count[i]);
	return 0;
}

/* Map @path and check it.  Returns the exit status. */
static int check_file(const char *path, const struct tm_config *cfg)
{
	struct stat sb;
	void *map;
	int fd, rc;

	/* a regular file only: a FIFO would block, a directory or device
	 * cannot be mapped */
	fd = safefile_open_read(path, 0);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		fprintf(stderr, "tmcheck: %s: %s\n", path, safefile_strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	if (!sb.st_size) {
		fprintf(stderr, "tmcheck: %s: empty\n", path);
		close(fd);
		return 2;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "tmcheck: %s: %s\n", path, strerror(errno));
		close(fd);
		return 2;
	}
	madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
	rc = check(path, map, (uint64_t)sb.st_size, cfg);
	munmap(map, (size_t)sb.st_size);
	close(fd);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tmcheck [timing options] FILE...\n");
	if (f == stdout)
		printf("Run the time model over raw Intel PT files and check that "
		       "time and cycles\nnever go back and that a model resumed "
		       "at each PSB agrees.  Timing options:\n--cpu F/M/S, "
		       "--mtc-freq N, --nom-freq N, --cpuid-0x15.eax N,\n"
		       "--cpuid-0x15.ebx N, --cpuid-0x15.ecx HZ, --tsc-freq HZ.\n"
		       "Exit status: 0 all held, 1 a check failed, 2 usage or "
		       "I/O trouble.\n");
}

int main(int argc, char **argv)
{
	struct tm_config cfg;
	int i, rc, worst = 0, nfiles = 0;

	memset(&cfg, 0, sizeof(cfg));
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	/* the options first: they apply to every FILE, wherever given */
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-') {
			nfiles++;
			continue;
		}
		rc = tm_config_option(&cfg, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		if (rc <= 0) {
			fprintf(stderr, "tmcheck: %s: %s\n", argv[i],
				rc ? "bad or missing value" : "unknown option");
			usage(stderr);
			return 2;
		}
		i++;
	}
	if (!nfiles) {
		usage(stderr);
		return 2;
	}
	/* every FILE, the worst status: one bad file does not hide the rest */
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			i++;
			continue;
		}
		rc = check_file(argv[i], &cfg);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}
