/* fuzz_search -- the search expression parser (srch_parse) on any text;
 * what parses is formatted, re-parsed (the canonical form must parse to
 * the same canonical form) and matched against the packets of the bytes
 * after the text's first NUL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srch_pred *pred = NULL, *again = NULL;
	struct srch_ctx ctx;
	struct pkt_decoder dec;
	struct pkt pkt;
	struct img img;
	struct img_span span;
	struct tm_config cfg;
	const uint8_t *bytes;
	char *text, err[256], f1[1024], f2[1024];
	size_t tlen, nbytes;
	int r, steps = 0;

	bytes = memchr(data, 0, size);
	tlen = bytes ? (size_t)(bytes - data) : size;
	nbytes = bytes ? size - tlen - 1 : 0;
	if (bytes)
		bytes++;
	text = malloc(tlen + 1);
	if (!text)
		return 0;
	memcpy(text, data, tlen);
	text[tlen] = 0;
	r = srch_parse(text, &pred, err, sizeof(err));
	if (r < 0) {
		if (pred || strchr(err, '\n'))
			abort();
		goto out;
	}
	if (srch_pred_format(pred, f1, sizeof(f1)) < 0)
		abort();
	if ((size_t)srch_pred_format(pred, f1, sizeof(f1)) < sizeof(f1)) {
		if (srch_parse(f1, &again, err, sizeof(err)) < 0)
			abort();
		srch_pred_format(again, f2, sizeof(f2));
		if (strcmp(f1, f2))
			abort();
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.have_nom_freq = 1;
	cfg.nom_freq = 20;
	srch_pred_set_config(pred, &cfg);
	srch_pred_has_history(pred);
	if (!nbytes)
		goto out;
	img_init_flat(&img, &span, bytes, nbytes);
	srch_ctx_init(&ctx, pred, &img);
	if (pkt_decoder_init(&dec, bytes, bytes + nbytes, 0) < 0 ||
	    pkt_sync_forward(&dec) < 0)
		goto out;
	while (steps++ < 100000) {
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			memset(&pkt, 0, sizeof(pkt));
			pkt.type = PKT_INVALID;
			pkt.offset = pkt_offset(&dec);
			srch_step(&ctx, &pkt);
			srch_match(pred, &pkt, &ctx);
			if (pkt_sync_forward(&dec) < 0)
				break;
			srch_ctx_init(&ctx, pred, &img);
			continue;
		}
		if (pkt.type == PKT_PSB)
			srch_ctx_init(&ctx, pred, &img);
		srch_step(&ctx, &pkt);
		srch_match(pred, &pkt, &ctx);
		srch_match(pred, &pkt, NULL);
	}
out:
	srch_pred_free(pred);
	srch_pred_free(again);
	free(text);
	return 0;
}
