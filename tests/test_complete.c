/* test_complete -- prompt completion candidates by word position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>

#include "action_list.h"
#include "complete.h"
#include "complete_rl.h"
#include "pkt.h"
#include "ptdec.h"

static void fake_names(void *arg, enum compl_kind kind, struct compl_list *out)
{
	static const char *const marks[] = { "a", "b", "start", NULL };
	static const char *const regions[] = { "hot", "hotter", "cold", NULL };
	static const char *const streams[] = { "cpu0", "cpu1", NULL };
	static const char *const syms[] = { "main", "malloc", "malloc_usable_size",
					    "memcpy@plt", "main", NULL };
	const char *const *v = kind == COMPL_MARK ? marks :
			       kind == COMPL_REGION ? regions :
			       kind == COMPL_STREAM ? streams : NULL;
	char name[16];
	int i;

	(*(int *)arg)++;
	if (kind == COMPL_SYMBOL) {
		/* two tables, each its first COMPL_SYMBOL_MAX + 1: fn_000,
		 * fn_002 .. fn_400 and fn_599, fn_601 .. fn_999 */
		for (v = syms; *v; v++)
			assert_int_equal(compl_add(out, *v), 0);
		for (i = 0; i < 2 * (COMPL_SYMBOL_MAX + 1); i++) {
			snprintf(name, sizeof(name), "fn_%03d", i % 2 ? 1000 - i : i);
			assert_int_equal(compl_add(out, name), 0);
		}
		return;
	}
	for (; v && *v; v++)
		assert_int_equal(compl_add(out, *v), 0);
}

static int calls;
static const char *const options[] = { "keymap", "mouse", "timeline",
				       "time-unit", NULL };
static const struct compl_ctx ctx = {
	.arg = &calls,
	.names = fake_names,
	.options = options,
};

/* The candidates for @line with the cursor at its end, joined by spaces. */
static const char *cands(const char *line, enum compl_kind kind)
{
	static char buf[4096];
	struct compl_list l;
	size_t i, len = 0;
	int n;

	memset(&l, 0, sizeof(l));
	n = compl_candidates(line, strlen(line), &ctx, &l);
	assert_true(n >= 0);
	assert_int_equal((size_t)n, l.n);
	if (l.kind != kind)
		fail_msg("'%s': kind %d, want %d", line, l.kind, kind);
	buf[0] = '\0';
	for (i = 0; i < l.n; i++) {
		snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "",
			 l.v[i]);
		len = strlen(buf);
	}
	compl_free(&l);
	return buf;
}

static void test_null(void **state)
{
	struct compl_list l;
	char buf[16];

	memset(&l, 0, sizeof(l));
	assert_int_equal(compl_candidates(NULL, 0, &ctx, &l), -pte_invalid);
	assert_int_equal(compl_candidates("go", 2, &ctx, NULL), -pte_invalid);
	assert_int_equal(compl_add(NULL, "x"), -pte_invalid);
	compl_free(NULL);
	compl_free(&l);
	assert_string_equal(compl_common(&l, buf, sizeof(buf)), "");
	/* no context: names are simply missing */
	assert_int_equal(compl_candidates("delmark ", 8, NULL, &l), 0);
	assert_int_equal(l.kind, COMPL_MARK);
	/* a point past the end is the end */
	assert_int_equal(compl_candidates("quit", 99, NULL, &l), 1);
	compl_free(&l);
}

static void test_commands(void **state)
{
	struct compl_list l;
	char buf[64];
	int i, n;

	assert_string_equal(cands("go", COMPL_COMMAND),
			    "goto goto-end goto-offset goto-packet "
			    "goto-percent goto-start");
	assert_string_equal(cands("exp", COMPL_COMMAND),
			    "export export-marks");
	assert_string_equal(cands("  regi", COMPL_COMMAND),
			    "region region-add regions");
	assert_string_equal(cands("zzz", COMPL_COMMAND), "");
	/* every command once; count prefixes are keys only */
	memset(&l, 0, sizeof(l));
	n = compl_candidates("", 0, &ctx, &l);
	assert_int_equal(n, ACTION__N - 2);
	for (i = 0; i < n; i++)
		assert_int_not_equal(action_find(l.v[i]), ACTION_NONE);
	compl_free(&l);
	/* the word under the cursor, not the line's end */
	assert_int_equal(compl_candidates("mar x", 3, &ctx, &l), 2);
	assert_int_equal(l.start, 0);
	assert_string_equal(l.prefix, "mar");
	assert_string_equal(compl_common(&l, buf, sizeof(buf)), "mark");
	compl_free(&l);
}

static void test_args(void **state)
{
	char want[2048] = "";
	size_t len = 0;
	int i;
	struct compl_list l;

	/* every packet type name, for search and filter */
	for (i = 1; i < PKT_NTYPES; i++) {
		snprintf(want + len, sizeof(want) - len, "%s ",
			 pkt_type_name((enum pkt_type)i));
		len = strlen(want);
	}
	assert_true(len > 0);
	memset(&l, 0, sizeof(l));
	assert_int_equal(compl_candidates("search ", 7, &ctx, &l),
			 PKT_NTYPES - 1);
	assert_int_equal(l.kind, COMPL_TYPE);
	assert_int_equal(l.start, 7);
	compl_free(&l);
	assert_string_equal(cands("filter ti", COMPL_TYPE),
			    "tip tip.pgd tip.pge");
	assert_string_equal(cands("search-backward ov", COMPL_TYPE), "ovf");
	/* later words of a search are free */
	assert_string_equal(cands("search tip 0x4", COMPL_NONE), "");

	calls = 0;
	assert_string_equal(cands("delmark ", COMPL_MARK), "a b start");
	assert_string_equal(cands("delmark a s", COMPL_MARK), "start");
	assert_true(calls == 2);
	assert_string_equal(cands("delregion hot", COMPL_REGION), "hot hotter");
	assert_string_equal(cands("export h", COMPL_REGION), "hot hotter");
	assert_string_equal(cands("export hot ./o", COMPL_FILE), "");
	assert_string_equal(cands("source ", COMPL_FILE), "");
	assert_string_equal(cands("save-screen x", COMPL_FILE), "");
	assert_string_equal(cands("import-marks ", COMPL_FILE), "");
	assert_string_equal(cands("set ", COMPL_OPTION),
			    "keymap mouse time-unit timeline");
	assert_string_equal(cands("set time", COMPL_OPTION),
			    "time-unit timeline");
	/* values: on|off, time|bytes, and the keymaps --keymap knows */
	assert_string_equal(cands("set mouse ", COMPL_WORDS), "off on");
	assert_string_equal(cands("set axis b", COMPL_WORDS), "bytes");
	assert_string_equal(cands("set keymap ", COMPL_WORDS), "default emacs");
	assert_string_equal(cands("help goto-", COMPL_COMMAND),
			    "goto-end goto-offset goto-packet goto-percent "
			    "goto-start");
	assert_string_equal(cands("timeline-zoom ", COMPL_WORDS),
			    "all hit in out region selection");
	assert_string_equal(cands("streams c", COMPL_STREAM), "cpu0 cpu1");
	/* STREAM|next|prev: the streams and the literals, never "STREAM" */
	assert_string_equal(cands("lane ", COMPL_STREAM), "cpu0 cpu1 next prev");
	assert_string_equal(cands("lane S", COMPL_STREAM), "");
	assert_string_equal(cands("lane c", COMPL_STREAM), "cpu0 cpu1");
	assert_string_equal(cands("lane n", COMPL_STREAM), "next");
	assert_string_equal(cands("mark ", COMPL_NONE), "");
	assert_string_equal(cands("quit ", COMPL_NONE), "");
	assert_string_equal(cands("nosuch ", COMPL_NONE), "");
}

/* The options the prompt offers are those :set takes, with their values. */
static void test_set(void **state)
{
	const struct compl_ctx real = { .options = compl_set_options };
	struct compl_list l;

	memset(&l, 0, sizeof(l));
	assert_int_equal(compl_candidates("set ", 4, &real, &l), 8);
	assert_int_equal(l.kind, COMPL_OPTION);
	compl_free(&l);
	assert_int_equal(compl_candidates("set sy", 6, &real, &l), 1);
	assert_string_equal(l.v[0], "symbols");
	compl_free(&l);
	assert_int_equal(compl_candidates("set v", 5, &real, &l), 1);
	assert_string_equal(l.v[0], "view");
	compl_free(&l);
	assert_string_equal(cands("set symbols ", COMPL_WORDS), "off on");
	assert_string_equal(cands("set view ", COMPL_WORDS), "code packets");
	assert_string_equal(cands("set raw o", COMPL_WORDS), "off on");
	/* columns: a comma list, each name once, none alone */
	assert_string_equal(cands("set columns ", COMPL_WORDS),
			    "cbr cycles dcyc dref mhz none time tsc");
	assert_string_equal(cands("set columns time,c", COMPL_WORDS),
			    "time,cbr time,cycles");
	assert_string_equal(cands("set columns time,cbr,", COMPL_WORDS),
			    "time,cbr,cycles time,cbr,dcyc time,cbr,dref time,cbr,mhz "
			    "time,cbr,tsc");
}

static void test_goto(void **state)
{
	assert_string_equal(cands("goto ", COMPL_TARGET),
			    "$ ^ call cold comm hot hotter pid psb region ret switch "
			    "sym t tid tsc");
	assert_string_equal(cands("goto s", COMPL_TARGET), "switch sym");
	/* :ref takes regions too */
	assert_string_equal(cands("ref ", COMPL_MARK), "a b cold hot hotter start");
	assert_string_equal(cands("ref h", COMPL_MARK), "hot hotter");
	assert_string_equal(cands("goto h", COMPL_TARGET), "hot hotter");
	assert_string_equal(cands("goto '", COMPL_TARGET), "'a 'b 'start");
	assert_string_equal(cands("g 's", COMPL_TARGET), "'start");
	assert_string_equal(cands("goto region c", COMPL_REGION), "cold");
	assert_string_equal(cands("goto psb ", COMPL_NONE), "");
	/* a bare target at the prompt (":'a") */
	assert_string_equal(cands("'", COMPL_TARGET), "'a 'b 'start");
	assert_string_equal(cands("0x", COMPL_NONE), "");
	/* the region command's FROM and TO are targets */
	assert_string_equal(cands("region r1 '", COMPL_TARGET),
			    "'a 'b 'start");
	/* (the task and function words are :goto's only) */
	assert_string_equal(cands("region r1 s", COMPL_TARGET), "");
}

/* The NAME after sym or call: the loaded symbols' function names, at most
 * COMPL_SYMBOL_MAX (the first in order; their common part then only what
 * is typed). */
static void test_symbols(void **state)
{
	struct compl_list l;
	char buf[64];

	assert_string_equal(cands("goto sym ma", COMPL_SYMBOL),
			    "main malloc malloc_usable_size");
	assert_string_equal(cands("goto call m", COMPL_SYMBOL),
			    "main malloc malloc_usable_size memcpy@plt");
	assert_string_equal(cands("search sym mal", COMPL_SYMBOL),
			    "malloc malloc_usable_size");
	assert_string_equal(cands("search -b call me", COMPL_SYMBOL), "memcpy@plt");
	assert_string_equal(cands("filter tip & sym mai", COMPL_SYMBOL), "main");
	assert_string_equal(cands("search comm sorter & call mai", COMPL_SYMBOL), "main");
	assert_string_equal(cands("filter tip&sym mai", COMPL_SYMBOL), "main");
	/* ret takes no name; other commands' sym is no search term */
	assert_string_equal(cands("goto ret ", COMPL_NONE), "");
	assert_string_equal(cands("mark sym ", COMPL_NONE), "");
	/* the common part of a few is theirs */
	memset(&l, 0, sizeof(l));
	assert_int_equal(compl_candidates("goto sym mall", 13, &ctx, &l), 2);
	assert_int_equal(l.more, 0);
	assert_string_equal(compl_common(&l, buf, sizeof(buf)), "malloc");
	/* past the bound: the first COMPL_SYMBOL_MAX, and more said */
	assert_int_equal(compl_candidates("goto sym fn", 11, &ctx, &l), COMPL_SYMBOL_MAX);
	assert_int_equal(l.kind, COMPL_SYMBOL);
	assert_int_equal(l.more, 1);
	assert_string_equal(l.v[0], "fn_000");
	assert_string_equal(l.v[COMPL_SYMBOL_MAX - 1], "fn_398");
	assert_string_equal(compl_common(&l, buf, sizeof(buf)), "fn");
	compl_free(&l);
}

static void test_bind(void **state)
{
	const char *s;

	assert_string_equal(cands("bind -T ", COMPL_TABLE),
			    "global packets prompt timeline timing visual");
	assert_string_equal(cands("unbind -T t", COMPL_TABLE),
			    "timeline timing");
	assert_string_equal(cands("bind -", COMPL_WORDS), "-N -T");
	assert_string_equal(cands("unbind -", COMPL_WORDS), "-T -a");
	assert_string_equal(cands("bind -N ", COMPL_NONE), "");
	/* keys, or the command */
	assert_string_equal(cands("bind j cursor-d", COMPL_KEY), "cursor-down");
	assert_string_equal(cands("bind j no", COMPL_KEY), "none");
	assert_string_equal(cands("bind Pg", COMPL_KEY), "PgDn PgUp");
	assert_string_equal(cands("unbind Pa", COMPL_KEY), "PageDown PageUp");
	s = cands("bind -T timeline z ", COMPL_KEY);
	assert_non_null(strstr(s, "timeline-zoom"));
	/* after the command, its arguments */
	assert_string_equal(cands("bind z timeline-zoom ", COMPL_NONE), "");
	/* a table or a note named like a command is no command */
	assert_string_equal(cands("bind -T visual Es", COMPL_KEY), "Escape");
	assert_string_equal(cands("bind -T visual -N quit Es", COMPL_KEY), "Escape");
	s = cands("bind -T visual v ", COMPL_KEY);
	assert_non_null(strstr(s, "cancel"));
	assert_string_equal(cands("bind -T visual v cancel ", COMPL_NONE), "");
	/* quoted words */
	assert_string_equal(cands("bind -N \"a b\" j cursor-u", COMPL_KEY),
			    "cursor-up");
}

/* The readline adapter, without a terminal: rl_line_buffer is all it reads. */
static void test_readline(void **state)
{
	char line[64];
	char **m;
	int i;

	compl_rl_set_ctx(&ctx);
	/* readline breaks words at ', so its word is "s" after "goto '" */
	strcpy(line, "goto 's");
	rl_line_buffer = line;
	m = compl_rl_attempt("s", 6, 7);
	assert_non_null(m);
	assert_string_equal(m[0], "start");
	assert_null(m[1]);
	free(m[0]);
	free(m);
	strcpy(line, "filter tip.p");
	m = compl_rl_attempt("tip.p", 7, 12);
	assert_non_null(m);
	assert_string_equal(m[0], "tip.pg");	/* the common part */
	assert_string_equal(m[1], "tip.pgd");
	assert_string_equal(m[2], "tip.pge");
	assert_null(m[3]);
	for (i = 0; m[i]; i++)
		free(m[i]);
	free(m);
	/* more names than held: readline puts in nothing past the word */
	strcpy(line, "goto sym fn");
	m = compl_rl_attempt("fn", 9, 11);
	assert_non_null(m);
	assert_string_equal(m[0], "fn");
	assert_string_equal(m[1], "fn_000");
	for (i = 0; m[i]; i++)
		free(m[i]);
	free(m);
	strcpy(line, "/sym mall");
	m = compl_rl_attempt("mall", 5, 9);
	assert_non_null(m);
	assert_string_equal(m[0], "malloc");
	for (i = 0; m[i]; i++)
		free(m[i]);
	free(m);
	/* files are readline's */
	strcpy(line, "source ");
	assert_null(compl_rl_attempt("", 7, 7));
	assert_int_equal(rl_attempted_completion_over, 0);
	strcpy(line, "zzz");
	assert_null(compl_rl_attempt("zzz", 0, 3));
	assert_int_equal(rl_attempted_completion_over, 1);
	rl_line_buffer = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_goto),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_bind),
		cmocka_unit_test(test_readline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
