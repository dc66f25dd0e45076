/* fuzz_tm -- the time models over any bytes: the input's first bytes also
 * choose the timing configuration and ptdump's flags.  Our estimate must
 * never decrease but where a PSB+ TSC re-synchronises (TM_F_RESYNC), cycles
 * never decrease, a model resumed from the carry saved at each PSB must
 * agree, and libipt's estimator must not crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkt.h"
#include "tm.h"
#include "tm_ptdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int later(const struct tm_stamp *a, const struct tm_stamp *b)
{
	return a->tsc > b->tsc || (a->tsc == b->tsc && a->tsc_frac > b->tsc_frac);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_model whole, seg;
	struct tm_stamp st, st2, last;
	struct tm_config cfg;
	struct tm_carry carry;
	struct pkt_decoder dec;
	struct tm_ptdump tmp;
	struct tm_ptdump_out out;
	struct pkt pkt;
	int r, first = 1;

	if (size < 4)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.have_mtc_freq = data[0] & 1;
	cfg.mtc_freq = (data[0] >> 1) & 0x1f;	/* up to 31: must be safe */
	cfg.have_nom_freq = (data[0] >> 6) & 1;
	cfg.nom_freq = data[1];
	cfg.have_cpuid_15 = data[0] >> 7;
	cfg.cpuid_15_eax = data[2] & 0xf;
	cfg.cpuid_15_ebx = data[3];
	cfg.have_cpu = 1;
	cfg.cpu_family = 6;
	cfg.cpu_model = data[1] & 1 ? 0x4e : 0x55;
	cfg.have_tsc_hz = data[2] >> 7;
	cfg.tsc_hz = 1000000ull * (1 + data[3]);

	tm_init(&whole, &cfg);
	tm_init(&seg, &cfg);
	tm_ptdump_init(&tmp, &cfg, (data[2] >> 4) & 0x3f);
	memset(&last, 0, sizeof(last));
	pkt_decoder_init(&dec, data, data + size, 0);
	for (;;) {
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			if (pkt_sync_set(&dec, pkt.offset + 1) < 0 ||
			    pkt_sync_forward(&dec) < 0)
				break;
			tm_gap(&whole);
			tm_gap(&seg);
			tm_ptdump_reset(&tmp);
			continue;
		}
		if (pkt.type == PKT_PSB) {
			tm_save(&whole, &carry);
			tm_init(&seg, &cfg);
			tm_restore(&seg, &carry);
		}
		tm_step(&whole, &pkt, &st);
		tm_step(&seg, &pkt, &st2);
		tm_ptdump_step(&tmp, &pkt, &out);
		if (memcmp(&st, &st2, sizeof(st)))
			abort();
		if (!first && ((later(&last, &st) && !(st.flags & TM_F_RESYNC)) ||
			       st.cycles < last.cycles))
			abort();
		if (out.ndiag > 4)
			abort();
		last = st;
		first = 0;
	}
	return 0;
}
