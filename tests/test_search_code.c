/* test_search_code -- searches for instructions (ui/search_code.h): on
 * kAFL's unzip trace with its memory dump, the returns found on all cores,
 * in either order, from anywhere, equal those of one decode of the whole
 * stream; the first hit is the nearest in the search's direction; a task's
 * ranges keep only theirs; a name no image has is refused.  (Names, calls
 * and the flow's text are checked against `ptbrowse flow` in
 * tests/t_ui_codesearch.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code.h"
#include "ctx.h"
#include "ctxterm.h"
#include "flow.h"
#include "helpers.h"
#include "imgopt.h"
#include "ptdec.h"
#include "search_code.h"
#include "trace.h"

static char trace_path[4200], raw_spec[4200];

struct fixture {
	struct trace *t;
	struct imgset *set;
	struct imgopt io;
	const char *raw[1];
};

/* Open @path with --raw @raw (NULL: none).  Returns 0, or -1 (skip). */
static int open_fix(struct fixture *fx, const char *path, const char *raw)
{
	char err[512];

	memset(fx, 0, sizeof(*fx));
	if (access(path, R_OK) || trace_open(&fx->t, path, err, sizeof(err)) < 0)
		return -1;
	imgopt_init(&fx->io);
	if (raw) {
		fx->raw[0] = raw;
		fx->io.raw = fx->raw;
		fx->io.nraw = 1;
	}
	assert_int_equal(imgopt_load(&fx->set, &fx->io, fx->t, err, sizeof(err)), 0);
	return 0;
}

static void close_fix(struct fixture *fx)
{
	imgopt_free(fx->set);
	trace_close(fx->t);
}

/* The terms of search line @line. */
static struct search_code *terms(const struct fixture *fx, const char *line)
{
	struct search_code *sc;
	struct ctxterm ct;
	char rest[256], err[256];

	assert_int_equal(ctxterm_split(line, &ct, rest, sizeof(rest), err, sizeof(err)), 1);
	assert_int_equal(search_code_new(&sc, fx->set, &ct, err, sizeof(err)), 0);
	return sc;
}

/* Run @sc on stream @stream: hits into *@hits (free them), their number. */
static size_t run(const struct fixture *fx, const struct search_code *sc, int stream,
		  uint64_t from, int dir, unsigned nthreads, const struct ctx_range *keep,
		  size_t nkeep, uint64_t **hits, struct search_code_job *out)
{
	static _Atomic int cancel;
	struct search_code_job *j = out;

	memset(j, 0, sizeof(*j));
	cancel = 0;
	j->sc = sc;
	j->set = fx->set;
	j->stream = stream;
	j->img = &fx->t->streams[stream].img;
	j->tm = &fx->t->streams[stream].timing;
	j->keep = keep;
	j->nkeep = nkeep;
	j->from = from;
	j->dir = dir;
	j->nthreads = nthreads;
	j->cancel = &cancel;
	assert_int_equal(search_code_find(j), 0);
	assert_int_equal(atomic_load(&j->done), atomic_load(&j->total));
	*hits = j->hits;
	return j->nhits;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* What one decode of the whole stream gives: the offsets of its returns,
 * sorted, unique, into *@out (free it).  Returns their number. */
static size_t whole_rets(const struct fixture *fx, int stream, uint64_t **out)
{
	struct code_dec *d;
	struct flow_rec r;
	uint64_t *v = NULL, *p;
	size_t n = 0, cap = 0, i, k;

	assert_int_equal(code_dec_new(&d, fx->set, stream, &fx->t->streams[stream].img,
				      &fx->t->streams[stream].timing), 0);
	assert_int_equal(flow_seek(code_dec_flow(d), 0, UINT64_MAX), 0);
	while (!flow_next(code_dec_flow(d), &r)) {
		if (r.kind != FLOW_INSN || (r.iclass != FLOW_IC_RETURN &&
					    r.iclass != FLOW_IC_FAR_RETURN))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			p = realloc(v, cap * sizeof(*v));
			assert_non_null(p);
			v = p;
		}
		v[n++] = r.offset;
	}
	code_dec_free(d);
	if (n)
		qsort(v, n, sizeof(*v), u64_cmp);
	for (i = k = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	return k;
}

static void test_errors(void **state)
{
	struct search_code *sc;
	struct ctxterm ct;
	char rest[64], err[256];
	struct search_code_job j;

	(void)state;
	search_code_free(NULL);
	memset(&ct, 0, sizeof(ct));
	assert_int_equal(search_code_new(&sc, (struct imgset *)1, &ct, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(ctxterm_split("sym main", &ct, rest, sizeof(rest), err, sizeof(err)), 1);
	assert_int_equal(search_code_new(&sc, NULL, &ct, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "no code"));
	assert_int_equal(search_code_find(NULL), -pte_invalid);
	memset(&j, 0, sizeof(j));
	assert_int_equal(search_code_find(&j), -pte_invalid);
}

static void test_raw_ret(void **state)
{
	struct fixture fx;
	struct search_code *sc;
	struct search_code_job j;
	struct ctxterm ct;
	uint64_t *h1, *h2, *want, mid;
	size_t n1, n2, nw, i;
	char rest[64], err[256];

	(void)state;
	if (open_fix(&fx, trace_path, raw_spec) < 0) {
		skip();
		return;
	}
	/* a raw dump has no names, and says so (d05cd33) */
	assert_int_equal(ctxterm_split("sym main", &ct, rest, sizeof(rest), err, sizeof(err)), 1);
	assert_int_equal(search_code_new(&sc, fx.set, &ct, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "no symbols in the code given"));
	sc = terms(&fx, "ret");
	nw = whole_rets(&fx, 0, &want);
	n1 = run(&fx, sc, 0, 0, 1, 1, NULL, 0, &h1, &j);
	assert_true(n1 > 100);
	assert_int_equal(n1, nw);
	assert_memory_equal(h1, want, n1 * sizeof(*h1));
	free(want);
	/* all cores, backward, from the middle: the same hits; the first
	 * is the nearest before the middle */
	mid = fx.t->streams[0].img.size / 2;
	n2 = run(&fx, sc, 0, mid, -1, 4, NULL, 0, &h2, &j);
	assert_int_equal(n1, n2);
	assert_memory_equal(h1, h2, n1 * sizeof(*h1));
	assert_true(atomic_load(&j.have_first));
	for (i = 0; i + 1 < n1 && h1[i + 1] < mid; i++)
		;
	assert_int_equal(atomic_load(&j.first), h1[i]);
	assert_false(atomic_load(&j.first_wrapped));
	free(h2);
	/* forward from past the last hit: the first wraps to the first */
	n2 = run(&fx, sc, 0, h1[n1 - 1], 1, 2, NULL, 0, &h2, &j);
	assert_int_equal(atomic_load(&j.first), h1[0]);
	assert_true(atomic_load(&j.first_wrapped));
	free(h2);
	/* a task's ranges keep theirs only */
	{
		struct ctx_range k = { h1[n1 / 4], h1[n1 / 2] };
		size_t inside = 0;

		for (i = 0; i < n1; i++)
			inside += h1[i] >= k.from && h1[i] < k.to;
		n2 = run(&fx, sc, 0, 0, 1, 2, &k, 1, &h2, &j);
		assert_int_equal(n2, inside);
		assert_int_equal(h2[0], k.from);
		free(h2);
	}
	free(h1);
	search_code_free(sc);
	search_code_flush();	/* the decoders kept read the image set */
	close_fix(&fx);
}

static void *find_thread(void *arg)
{
	search_code_find(arg);
	return NULL;
}

/* While a search runs, what search_code_known() answers is the next or
 * previous hit of the finished search; after, it knows nothing. */
static void test_known(void **state)
{
	static _Atomic int cancel;
	struct fixture fx;
	struct search_code *sc;
	struct search_code_job j, *jp = &j;
	uint64_t *all, hit, k = 0, asked = 0, answered = 0;
	size_t n, i;
	pthread_t th;

	(void)state;
	if (open_fix(&fx, trace_path, raw_spec) < 0) {
		skip();
		return;
	}
	sc = terms(&fx, "ret");
	n = whole_rets(&fx, 0, &all);
	assert_true(n > 100);
	memset(&j, 0, sizeof(j));
	j.sc = sc;
	j.set = fx.set;
	j.img = &fx.t->streams[0].img;
	j.tm = &fx.t->streams[0].timing;
	j.from = all[n / 2];
	j.dir = 1;
	j.nthreads = 1;
	j.cancel = &cancel;
	assert_int_equal(search_code_known(jp, 0, 1, &hit), 1);	/* not running */
	assert_int_equal(pthread_create(&th, NULL, find_thread, jp), 0);
	while (atomic_load(&j.done) < atomic_load(&j.total) || !atomic_load(&j.total)) {
		i = (size_t)(k++ % (n - 2)) + 1;
		asked++;
		if (!search_code_known(jp, all[i], 1, &hit)) {
			assert_int_equal(hit, all[i + 1]);
			answered++;
		}
		if (!search_code_known(jp, all[i], -1, &hit)) {
			assert_int_equal(hit, all[i - 1]);
			answered++;
		}
		usleep(20);	/* the merge takes the lock too */
	}
	pthread_join(th, NULL);
	assert_int_equal(j.nhits, n);
	assert_int_equal(search_code_known(jp, all[n / 2], 1, &hit), 1);
	print_message("known: %" PRIu64 " of %" PRIu64 " asked answered while running\n",
		      answered, 2 * asked);
	free(j.hits);
	free(all);
	search_code_free(sc);
	search_code_flush();
	close_fix(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_raw_ret),
		cmocka_unit_test(test_known),
	};
	char dir[4096];

	helpers_shared_path(dir, sizeof(dir), "libxdc-kafl-flow");
	snprintf(trace_path, sizeof(trace_path), "%s/unzip_trace.pt", dir);
	snprintf(raw_spec, sizeof(raw_spec), "%s/unzip.0x400000.bin:0x400000", dir);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
