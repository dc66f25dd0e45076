/* fuzz_perfdata -- the perf.data reader on any bytes.  An input without the
 * PERFILE2 magic gets a pipe-mode header in front, so the fuzzer reaches
 * the records from the first byte.  Loading must never read outside the
 * buffer; the streams it builds must lie inside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t pipe_hdr[16] = "PERFILE2\x10";
	const struct perfdata_event *ev;
	struct trace t;
	uint8_t *buf;
	size_t n = size, i, k, ne;
	char err[256];

	if (size >= 8 && !memcmp(data, "PERFILE2", 8)) {
		buf = malloc(n ? n : 1);
		if (!buf)
			return 0;
		memcpy(buf, data, size);
	} else {
		n = size + sizeof(pipe_hdr);
		buf = malloc(n);
		if (!buf)
			return 0;
		memcpy(buf, pipe_hdr, sizeof(pipe_hdr));
		memcpy(buf + sizeof(pipe_hdr), data, size);
	}
	memset(&t, 0, sizeof(t));
	t.path = "fuzz";
	t.map = buf;
	t.size = n;
	if (!perfdata_load(&t, err, sizeof(err))) {
		for (i = 0; i < t.nstreams; i++) {
			const struct img *img = &t.streams[i].img;
			uint64_t off = 0;

			for (k = 0; k < img->nspans; k++) {
				const struct img_span *s = &img->spans[k];

				if (s->data < buf || s->size > n ||
				    s->data + s->size > buf + n || s->off != off)
					abort();
				off += s->size;
			}
			if (off != img->size)
				abort();
			if (perfdata_events(&t, (int)i, &ev, &ne) < 0)
				abort();
		}
		perfdata_free(&t);
	}
	free(buf);
	return 0;
}
