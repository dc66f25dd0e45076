/* fuzz_pkt -- the packet decoder and dump's payload formatting on any bytes. */
#include <stdint.h>
#include <stddef.h>

#include "dump_fmt.h"
#include "pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	uint64_t ip = 0;
	char buf[DUMP_PAYLOAD_MAX];
	int r, steps = 0;

	if (pkt_decoder_init(&dec, data, data + size, 0) < 0)
		return 0;
	for (;;) {
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			if (pkt_sync_forward(&dec) < 0)
				break;
			continue;
		}
		if (pkt.offset + pkt.size > size)
			__builtin_trap();
		dump_fmt_payload(buf, sizeof(buf), &pkt);
		if (pkt.type == PKT_TIP || pkt.type == PKT_FUP ||
		    pkt.type == PKT_TIP_PGE || pkt.type == PKT_TIP_PGD)
			pkt_ip_update(&pkt, &ip);
		if (++steps > 1000000)
			break;
	}
	/* Backward sync from 17 offsets must land on a PSB before it. */
	for (size_t off = 0; off <= size; off += size / 16 + 1) {
		pkt_sync_set(&dec, off);
		if (!pkt_sync_backward(&dec)) {
			uint64_t p = pkt_offset(&dec);

			if (p >= off || pkt_find_psb(data + p, data + size) != data + p)
				__builtin_trap();
		}
	}
	return 0;
}
