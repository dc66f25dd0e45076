/*
 * sample_fix.h -- for the code index tests: the recorded sample
 * ($BUILD/sample-code/perf.data, made by `make sample-code`), its code
 * images and the index of one of its streams.  Include after cmocka.h,
 * imgopt.h, index.h and trace.h.
 */
#ifndef SAMPLE_FIX_H
#define SAMPLE_FIX_H

struct sample_fix {
	struct trace *t;
	struct imgopt io;
	struct imgset *set;
	struct idx *idx;
	int stream;
};

/* Open the sample with stream @stream indexed; -1: the largest, at least
 * half the sample whichever way a recording shared its threads out
 * between the two CPUs (the sizes differ from recording to recording, and
 * CI records its own); -2: the smallest if it holds six chunks of 4 KiB,
 * else the largest.  Returns 0, or -1 without a recording (skip). */
static inline int sample_fix_open(struct sample_fix *fx, int stream)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[4096], err[512];

	memset(fx, 0, sizeof(*fx));
	snprintf(path, sizeof(path), "%s/sample-code/perf.data", build);
	if (access(path, R_OK))
		return -1;
	assert_int_equal(trace_open(&fx->t, path, err, sizeof(err)), 0);
	if (stream < 0) {
		size_t i;
		int big = 0, small = 0;

		for (i = 1; i < fx->t->nstreams; i++) {
			if (fx->t->streams[i].img.size > fx->t->streams[big].img.size)
				big = (int)i;
			if (fx->t->streams[i].img.size < fx->t->streams[small].img.size)
				small = (int)i;
		}
		stream = stream == -2 && fx->t->streams[small].img.size >= 6 * 4096 ?
			 small : big;
	}
	assert_true((size_t)stream < fx->t->nstreams);
	fx->stream = stream;
	imgopt_init(&fx->io);
	assert_int_equal(imgopt_load(&fx->set, &fx->io, fx->t, err, sizeof(err)), 0);
	assert_int_equal(idx_new(&fx->idx, &fx->t->streams[stream].img,
				 &fx->t->streams[stream].timing), 0);
	assert_int_equal(idx_build(fx->idx), 0);
	return 0;
}

static inline void sample_fix_close(struct sample_fix *fx)
{
	idx_free(fx->idx);
	imgopt_free(fx->set);
	imgopt_release(&fx->io);
	trace_close(fx->t);
}

/* The index's carry at the first PSB at or after @from (funcs_sum.c's).
 * Returns 0, or -1 if there is none. */
static inline int sample_fix_carry(struct sample_fix *fx, uint64_t from,
				   struct tm_carry *c)
{
	struct idx_seek sk;
	size_t k = 0;

	if (idx_find(fx->idx, from, &k))
		k = 0;
	if (idx_seek(fx->idx, k, &sk))
		return -1;
	if (sk.offset < from && idx_seek(fx->idx, ++k, &sk))
		return -1;
	return idx_seek_carry(fx->idx, k, c) ? -1 : 0;
}

#endif /* SAMPLE_FIX_H */
