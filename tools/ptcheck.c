/*
 * ptcheck -- run libipt's packet decoder over raw trace files: a second
 * opinion on what ptgen writes and on what our decoder reports.
 *
 * Prints one line per decode error ("FILE: offset 0x..: error") and a
 * summary "FILE: N packets, N errors, N bytes skipped".  With -v, a count
 * per packet type too.  Exit status 0 if no file had an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <intel-pt.h>

#include "safefile.h"

/* Names by enum pt_packet_type, as ptdump spells them. */
static const char *const type_names[] = {
	[ppt_invalid] = "invalid", [ppt_unknown] = "unknown",
	[ppt_pad] = "pad", [ppt_psb] = "psb", [ppt_psbend] = "psbend",
	[ppt_fup] = "fup", [ppt_tip] = "tip", [ppt_tip_pge] = "tip.pge",
	[ppt_tip_pgd] = "tip.pgd", [ppt_tnt_8] = "tnt.8",
	[ppt_tnt_64] = "tnt.64", [ppt_mode] = "mode", [ppt_pip] = "pip",
	[ppt_vmcs] = "vmcs", [ppt_cbr] = "cbr", [ppt_tsc] = "tsc",
	[ppt_tma] = "tma", [ppt_mtc] = "mtc", [ppt_cyc] = "cyc",
	[ppt_stop] = "stop", [ppt_ovf] = "ovf", [ppt_mnt] = "mnt",
	[ppt_exstop] = "exstop", [ppt_mwait] = "mwait", [ppt_pwre] = "pwre",
	[ppt_pwrx] = "pwrx", [ppt_ptw] = "ptw",
};
#define NTYPES (sizeof(type_names) / sizeof(type_names[0]))

/* At most this many error lines per file; the count is always exact. */
#define MAX_REPORTED 20

static int check(const char *path, int verbose)
{
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet pkt;
	unsigned long long counts[NTYPES] = { 0 };
	unsigned long long npkts = 0, nerr = 0, skipped = 0;
	uint64_t off = 0, last = 0;
	struct stat st;
	uint8_t *map;
	int fd, err, ret = 1;
	size_t i;

	/* a regular file only: a FIFO would block, a directory or device
	 * cannot be mapped */
	fd = safefile_open_read(path, 0);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "ptcheck: %s: %s\n", path, safefile_strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (!st.st_size) {
		printf("%s: 0 packets, 0 errors, 0 bytes skipped\n", path);
		ret = 0;
		goto out_close;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "ptcheck: %s: mmap: %s\n", path, strerror(errno));
		goto out_close;
	}
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	pt_config_init(&cfg);
	cfg.begin = map;
	cfg.end = map + st.st_size;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec) {
		fprintf(stderr, "ptcheck: %s: cannot allocate a libipt decoder\n", path);
		goto out_unmap;
	}
	err = pt_pkt_sync_forward(dec);
	for (;;) {
		if (err < 0) {
			/* no PSB after the last error (or at all) */
			skipped += (uint64_t)st.st_size - last;
			if (!npkts && !nerr++)
				printf("%s: offset 0x0: no PSB found\n", path);
			break;
		}
		pt_pkt_get_offset(dec, &off);
		skipped += off - last;
		for (;;) {
			err = pt_pkt_next(dec, &pkt, sizeof(pkt));
			if (err < 0)
				break;
			npkts++;
			if ((size_t)pkt.type < NTYPES)
				counts[pkt.type]++;
		}
		/* libipt reports a truncated last packet as a clean end */
		if (err == -pte_eos)
			break;
		pt_pkt_get_offset(dec, &off);
		if (nerr++ < MAX_REPORTED)
			printf("%s: offset 0x%llx: %s\n", path,
			       (unsigned long long)off, pt_errstr(pt_errcode(err)));
		last = off;
		err = pt_pkt_sync_forward(dec);
	}
	printf("%s: %llu packets, %llu errors, %llu bytes skipped\n", path,
	       npkts, nerr, skipped);
	if (verbose)
		for (i = 0; i < NTYPES; i++)
			if (counts[i])
				printf("  %-10s %llu\n", type_names[i], counts[i]);
	ret = nerr ? 1 : 0;
	pt_pkt_free_decoder(dec);
out_unmap:
	munmap(map, (size_t)st.st_size);
out_close:
	close(fd);
out:
	return ret;
}

int main(int argc, char **argv)
{
	int i = 1, verbose = 0, ret = 0;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		i++;
	}
	if (i >= argc || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
		fprintf(i >= argc ? stderr : stdout,
			"usage: ptcheck [-v] FILE...\n"
			"Decode raw Intel PT files with libipt's packet decoder "
			"and report errors.\n");
		return i >= argc ? 2 : 0;
	}
	for (; i < argc; i++)
		ret |= check(argv[i], verbose);
	return ret;
}
