/* fuzz_sideband -- the sideband (sb_load() through perfdata_walk()) of a
 * perf.data on any bytes, and every question asked of it.  An input
 * without the PERFILE2 magic gets a pipe-mode header in front, as in
 * fuzz_perfdata.  The answers must be inside what was loaded: a space's
 * maps exist, a stream's timeline is in time order, its changes fewer
 * than its points, a CR3 learned is the one asked for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"
#include "ptdec.h"
#include "sideband.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Ask everything about stream @i. */
static void fz_stream(struct sb *sb, int i)
{
	size_t k, n = sb_nslices(sb, i);
	uint64_t last = 0;
	struct sb_slice sl;
	struct sb_task tk;
	int r;

	for (k = 0; k < n; k++) {
		if (sb_slice(sb, i, k, &sl) || sl.tsc < last || !sl.comm)
			abort();
		last = sl.tsc;
		r = sb_task_at(sb, i, sl.tsc, 0x1000 + k, &tk);
		if ((r && r != -pte_no_time) || !tk.comm)
			abort();
		(void)strlen(tk.comm);
	}
	for (k = 0; k < 4; k++) {
		r = sb_task_at(sb, i, k * 1000, 0, &tk);
		if ((r && r != -pte_no_time) || !tk.comm)
			abort();
	}
	if (sb_changes(sb, i, 0, UINT64_MAX) > n)
		abort();
}

/* Ask everything that is not per stream. */
static void fz_global(struct sb *sb)
{
	const struct sb_event *e;
	const struct sb_space *s;
	struct sb_stats st;
	size_t k, j;

	for (k = 0; k < sb_nspaces(sb); k++) {
		s = sb_space(sb, k);
		for (j = 0; j < s->nmaps; j++)
			if (s->maps[j] >= sb_nmaps(sb))
				abort();
		(void)sb_pid_asid(sb, s->pid, 5000);
	}
	for (k = 0; k < sb_nmaps(sb); k++)
		(void)strlen(sb_map(sb, k)->filename);
	for (k = 0; k < sb_nevents(sb); k++) {
		e = sb_event(sb, k);
		(void)strlen(e->name);
		(void)strlen(sb_comm(sb, e->tid, e->tsc));
	}
	sb_stats(sb, &st);
	sb_learn_cr3(sb, 0x5000, 7);
	if (sb_cr3_asid(sb, 0x5000) != 7)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t pipe_hdr[16] = "PERFILE2\x10";
	struct trace t;
	struct sb *sb;
	uint8_t *buf;
	size_t n = size, i;
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
	t.fd = -1;
	if (!perfdata_load(&t, err, sizeof(err))) {
		if (!sb_load(&sb, &t, err, sizeof(err))) {
			for (i = 0; i < t.nstreams; i++)
				fz_stream(sb, (int)i);
			fz_global(sb);
			sb_free(sb);
		}
		perfdata_free(&t);
	}
	free(buf);
	return 0;
}
