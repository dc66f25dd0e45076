/* test_code -- the browser's code context (ui/code.h) on kAFL's unzip
 * trace with its memory dump: what `flow --raw` decodes, the same through
 * the context's decoder; without images the reason is said; a bad --raw
 * is its error; a reload loads again; a stream change makes a decoder of
 * its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "ctx.h"
#include "flow.h"
#include "helpers.h"
#include "imgopt.h"
#include "ptdec.h"
#include "symfmt.h"
#include "trace.h"
#include "ui.h"

static char trace_path[4200], raw_spec[4200], bad_spec[4200];

/* A browser state over stream 0 of the unzip trace with @nraw --raw
 * options @raw (the test's, kept). */
static struct ui *open_ui(const char **raw, size_t nraw)
{
	struct ui *ui = calloc(1, sizeof(*ui));
	struct imgopt io;
	char err[512];

	assert_non_null(ui);
	if (trace_open(&ui->trace, trace_path, err, sizeof(err)) < 0) {
		free(ui);
		return NULL;
	}
	ui->stream_no = 0;
	ui->img = &ui->trace->streams[0].img;
	ui->tmcfg = ui->trace->streams[0].timing;
	imgopt_init(&io);
	io.raw = raw;
	io.nraw = nraw;
	assert_int_equal(code_new(&ui->code, &io), 0);
	return ui;
}

static void close_ui(struct ui *ui)
{
	size_t i;

	code_free(ui->code);
	trace_close(ui->trace);
	for (i = 0; i < UI_MSGLOG; i++)
		free(ui->msglog[i]);
	free(ui);
}

/* The instructions of [@from, @to) as flow_next() gives them through @f,
 * counted, with the IPs summed (a cheap fingerprint). */
static void flow_count(struct flow *f, uint64_t from, uint64_t to,
		       uint64_t *n, uint64_t *sum, uint64_t *errs)
{
	struct flow_rec r;

	*n = *sum = *errs = 0;
	assert_int_equal(flow_seek(f, from, to), 0);
	while (!flow_next(f, &r)) {
		if (r.kind == FLOW_INSN) {
			(*n)++;
			*sum += r.ip;
		} else if (r.kind == FLOW_ERROR) {
			(*errs)++;
		}
	}
}

static void test_null(void **state)
{
	struct code *c;

	code_free(NULL);
	code_dec_free(NULL);
	assert_null(code_dec_flow(NULL));
	assert_int_equal(code_dec_asid(NULL, 0), 0);
	assert_int_equal(code_dec_new(NULL, NULL, 0, NULL, NULL), -pte_invalid);
	assert_int_equal(code_new(&c, NULL), 0);
	code_free(c);
}

/* No images: every instruction is unknown, and that is said. */
static void test_no_code(void **state)
{
	struct ui *ui = open_ui(NULL, 0);
	struct flow_window w = { 0 };
	struct flow_wopts o = { 0 };
	size_t i, errs = 0;

	if (!ui) {
		skip();
		return;
	}
	assert_non_null(code_why(ui));
	assert_non_null(strstr(code_why(ui), "no code given"));
	assert_non_null(code_symfmt(ui));
	assert_non_null(code_ctx(ui));
	assert_string_equal(code_nocode(ui, 0, 0x400000), code_why(ui));
	assert_non_null(code_dec(ui));
	assert_int_equal(flow_window(code_dec_flow(code_dec(ui)), 0, ui->img->size, &o, &w), 0);
	for (i = 0; i < w.nlines; i++) {
		assert_int_not_equal(w.lines[i].r.kind, FLOW_INSN);
		errs += w.lines[i].r.kind == FLOW_ERROR;
	}
	assert_true(errs > 0);
	flow_window_free(&w);
	close_ui(ui);
}

/* --raw: the context's decoder decodes what a decoder of flow's own does,
 * and a raw dump without symbols names its code by its file. */
static void test_raw(void **state)
{
	const char *raw[] = { raw_spec };
	struct ui *ui = open_ui(raw, 1);
	struct code_dec *d, *mine;
	uint64_t n1, s1, e1, n2, s2, e2;
	char buf[64];

	if (!ui) {
		skip();
		return;
	}
	assert_null(code_why(ui));
	assert_non_null(code_imgset(ui));
	d = code_dec(ui);
	assert_non_null(d);
	assert_ptr_equal(code_dec(ui), d);	/* kept while the stream stays */
	flow_count(code_dec_flow(d), 0, ui->img->size, &n1, &s1, &e1);
	assert_true(n1 > 1000);
	assert_int_equal(code_dec_new(&mine, code_imgset(ui), 0, ui->img, &ui->tmcfg), 0);
	flow_count(code_dec_flow(mine), 0, ui->img->size, &n2, &s2, &e2);
	assert_int_equal(n1, n2);
	assert_int_equal(s1, s2);
	assert_int_equal(e1, e2);
	code_dec_free(mine);
	/* restarted, it decodes the same again */
	assert_int_equal(code_dec_restart(d), 0);
	flow_count(code_dec_flow(d), 0, ui->img->size, &n2, &s2, &e2);
	assert_int_equal(n1, n2);
	assert_int_equal(s1, s2);
	assert_int_equal(code_dec_restart(NULL), -pte_invalid);
	assert_int_equal(code_dec_asid(d, 0), 0);	/* no sideband */
	assert_null(code_nocode(ui, 0, 0x400000));
	symfmt_ip(code_symfmt(ui), 0, 0x400010, 0, buf, sizeof(buf));
	assert_string_equal(buf, "unzip.0x400000.bin+0x10");
	close_ui(ui);
}

/* A bad --raw is its error, on the message line and as the reason. */
static void test_bad_raw(void **state)
{
	const char *raw[] = { bad_spec };
	struct ui *ui = open_ui(raw, 1);

	if (!ui) {
		skip();
		return;
	}
	assert_null(code_imgset(ui));
	assert_non_null(code_why(ui));
	assert_non_null(strstr(code_why(ui), "nothere.bin"));
	assert_non_null(strstr(ui->msg, "nothere.bin"));
	assert_int_equal(ui->msg_sev, UI_ERROR);
	/* the rest still works: hex symbols, a decoder without code */
	assert_non_null(code_symfmt(ui));
	assert_non_null(code_dec(ui));
	close_ui(ui);
}

/* A reload drops everything; the next question loads it again.  A new
 * stream (here: another img) gets a decoder of its own. */
static void test_reset(void **state)
{
	const char *raw[] = { raw_spec };
	struct ui *ui = open_ui(raw, 1);
	struct img other;
	struct code_dec *d;
	uint64_t n1, s1, e1, n2, s2, e2;

	if (!ui) {
		skip();
		return;
	}
	assert_non_null(code_imgset(ui));
	flow_count(code_dec_flow(code_dec(ui)), 0, ui->img->size, &n1, &s1, &e1);
	code_reset(ui);
	assert_null(code_why(ui));
	assert_non_null(code_imgset(ui));
	flow_count(code_dec_flow(code_dec(ui)), 0, ui->img->size, &n2, &s2, &e2);
	assert_int_equal(n1, n2);
	assert_int_equal(s1, s2);
	d = code_dec(ui);
	other = *ui->img;
	other.size /= 2;
	ui->img = &other;
	assert_non_null(code_dec(ui));
	flow_count(code_dec_flow(code_dec(ui)), 0, other.size, &n2, &s2, &e2);
	assert_true(n2 < n1);
	ui->img = &ui->trace->streams[0].img;
	(void)d;
	close_ui(ui);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_no_code),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_bad_raw),
		cmocka_unit_test(test_reset),
	};
	char dir[4096];

	helpers_shared_path(dir, sizeof(dir), "libxdc-kafl-flow");
	snprintf(trace_path, sizeof(trace_path), "%s/unzip_trace.pt", dir);
	snprintf(raw_spec, sizeof(raw_spec), "%s/unzip.0x400000.bin:0x400000", dir);
	snprintf(bad_spec, sizeof(bad_spec), "%s/nothere.bin:0x400000", dir);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
