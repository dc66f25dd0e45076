/* test_tl_draw -- drawing the timeline (ui/tl.c) decodes no trace for the
 * view's offsets: on a trace with 8 MiB PSB segments every window lookup
 * far from a PSB decodes megabytes on the UI thread (the marker row's
 * halving on the rows' times took 20-30 s a drawing on a 2 GiB trace with
 * 64 MB segments); and the rows' times it looked up stay kept (ui/tl_cols.c),
 * also two that fall in one slot.  Counted as the windows' chunks
 * decoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "index.h"
#include "term.h"
#include "tl.h"
#include "tl_cols.h"
#include "tl_zoom.h"
#include "trace.h"
#include "ui.h"
#include "window.h"

#define COLS 100

static char dir[64], path[128];

/* A browser state over @path with a window cache of @bytes, its index
 * complete, on a virtual screen if @term. */
static struct ui *open_ui(size_t bytes, int term)
{
	struct ui *ui = calloc(1, sizeof(*ui));
	char err[512];

	assert_non_null(ui);
	ui->vs.ui = ui;
	assert_true(trace_open(&ui->trace, path, err, sizeof(err)) >= 0);
	ui->img = &ui->trace->streams[0].img;
	ui->tmcfg = ui->trace->streams[0].timing;
	ui->tl_time = 1;
	ui->no_state = 1;
	assert_int_equal(win_cache_new(&ui->wc, ui->img, NULL, bytes), 0);
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	assert_int_equal(idx_new(&ui->idx, ui->img, &ui->tmcfg), 0);
	assert_int_equal(idx_build(ui->idx), 0);
	assert_true(idx_complete(ui->idx));
	if (term)
		assert_int_equal(term_start(ui, 1, COLS, 30, 1), 0);
	return ui;
}

static void close_ui(struct ui *ui)
{
	idx_free(ui->idx);
	win_cache_free(ui->wc);
	trace_close(ui->trace);
	free(ui);
}

/* Decode what a first drawing needs besides the view's offsets: the
 * rows at the top and the cursor (the packet pane's, which the browser
 * decodes anyway), and the last rows' time (tl_cols.c: a window 64 KiB
 * past the last PSB, as the trace's last segment is long). */
static void warm(struct ui *ui)
{
	struct win_iter it = { 0 };
	struct idx_seek sk;

	assert_int_equal(win_seek(&it, ui->wc, ui->top), 0);
	win_iter_release(&it);
	assert_int_equal(idx_seek(ui->idx, idx_nseeks(ui->idx) - 1, &sk), 0);
	assert_int_equal(win_seek(&it, ui->wc, sk.offset + (64u << 10)), 0);
	win_iter_release(&it);
}

/* The chunks one drawing of the timeline's three rows decoded. */
static uint64_t draw(struct ui *ui)
{
	struct pane p = { &tl_ops, 0, 0, 3, COLS, NULL };
	uint64_t before = win_cache_decoded(ui->wc);

	tl_ops.draw(ui, &p);
	return win_cache_decoded(ui->wc) - before;
}

static void test_long_segments(void **state)
{
	struct ui *ui = open_ui(64u << 20, 1);
	struct idx_summary s1, s2;
	uint64_t first, n;
	int i;

	assert_int_equal(idx_nseeks(ui->idx), 4);
	/* the cursor in the middle of the second segment */
	ui->cursor = ui->top = (12u << 20) + 1000;
	warm(ui);
	first = draw(ui);
	if (getenv("V"))
		fprintf(stderr, "first drawing: %llu chunks\n", (unsigned long long)first);
	assert_int_equal(first, 0);
	/* again: nothing new to decode */
	assert_int_equal(draw(ui), 0);
	/* zoomed in around the cursor, to views inside the second segment:
	 * each drawing a new time range, nothing decoded for it */
	assert_int_equal(idx_summary(ui->idx, 1, &s1), 0);
	assert_int_equal(idx_summary(ui->idx, 2, &s2), 0);
	for (i = 0; i < 6; i++) {
		tl_zoom_step(ui, 1);
		n = draw(ui);
		/* (an eighth of the trace and less: inside the segment) */
		assert_true(i < 2 || (ui->tl_lo >= s1.first_tsc && ui->tl_hi <= s2.first_tsc));
		if (getenv("V"))
			fprintf(stderr, "zoom %d: %llu chunks\n", i + 1, (unsigned long long)n);
		assert_int_equal(n, 0);
	}
	term_end();
	close_ui(ui);
}

/* The slot tl_cols_row_tsc() kept a row's time in before it had two ways
 * a set. */
static uint64_t slot_of(uint64_t off)
{
	return (off * 0x9e3779b97f4a7c15ull) >> 52;
}

/* Two rows' times in one slot, asked for in turn (two search hits the
 * marker row places at every drawing) with their windows gone from the
 * cache: both kept, neither decoded again. */
static void test_row_tsc_kept(void **state)
{
	struct ui *ui = open_ui(256u << 10, 0);
	struct win_iter it = { 0 };
	uint64_t a = 9u << 20, b, ta, tb, before, off;

	for (b = 18u << 20; slot_of(b) != slot_of(a); b++)
		assert_true(b < (26u << 20));
	ta = tl_cols_row_tsc(ui, a);
	tb = tl_cols_row_tsc(ui, b);
	assert_true(ta && tb && ta < tb);
	/* other windows push theirs out */
	for (off = 1u << 20; off < (32u << 20); off += 1u << 20) {
		assert_int_equal(win_seek(&it, ui->wc, off), 0);
		win_iter_release(&it);
	}
	before = win_cache_decoded(ui->wc);
	assert_true(tl_cols_row_tsc(ui, a) == ta);
	assert_true(tl_cols_row_tsc(ui, b) == tb);
	assert_true(tl_cols_row_tsc(ui, a) == ta);
	assert_int_equal(win_cache_decoded(ui->wc) - before, 0);
	/* (they were gone: a lookup decodes) */
	assert_int_equal(win_seek(&it, ui->wc, a), 0);
	win_iter_release(&it);
	assert_true(win_cache_decoded(ui->wc) > before);
	close_ui(ui);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_segments),
		cmocka_unit_test(test_row_tsc_kept),
	};
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[512];
	int r;

	snprintf(dir, sizeof(dir), "/tmp/test_tl_draw.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	/* four segments of 8 MiB, no OVF (whose trouble the timeline walks
	 * for, tl_cols.c, bounded) */
	snprintf(path, sizeof(path), "%s/l.pt", dir);
	snprintf(cmd, sizeof(cmd), "%s/tools/ptgen --seed 3 --size 32MiB --psb-period 8388608 "
		 "--ovf-rate 0 -o %s >/dev/null", build, path);
	if (system(cmd)) {
		helpers_rm_rf(dir);
		return 1;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	helpers_rm_rf(dir);
	return r;
}
