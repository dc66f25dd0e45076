/* script -- --script FILE: keys, ":command" lines and directives
 * (wait-index, wait-index-built, wait-code-index, wait-search, wait-iterations,
 * wait-iterations-partial, resize=, click=, bench ...) on a virtual
 * screen, for tests and benchmarks. */
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "browser.h"
#include "cmd.h"
#include "esc.h"
#include "funcs_idx.h"
#include "iterations.h"
#include "msg.h"
#include "opengoto.h"
#include "options.h"
#include "reload.h"
#include "script.h"
#include "search_ui.h"
#include "session.h"
#include "stalls.h"
#include "term.h"
#include "tl.h"
#include "ui.h"

double script_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The CPU seconds this process (all its threads) has used. */
static double script_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds from the start to the first screen (bench-startup). */
static double script_startup;

static int script_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Run one script token as a key (a key name, or text typed character by
 * character).  Returns nothing: the screen is drawn by the caller. */
static void script_key(struct ui *ui, const char *tok)
{
	int k = km_key_parse(tok);
	const char *q;

	if (k >= 0) {
		browser_input(ui, k);
		return;
	}
	/* Plain text types its characters: "50%". */
	for (q = tok; *q; q++)
		browser_input(ui, (unsigned char)*q);
}

/* @cmd into @line (of @size) with every "{i}" as @round. */
static void script_bench_cmd(char *line, size_t size, const char *cmd, int round)
{
	size_t n = 0;
	const char *p;

	while (*cmd && n + 1 < size) {
		p = strstr(cmd, "{i}");
		if (!p) {
			snprintf(line + n, size - n, "%s", cmd);
			return;
		}
		n += (size_t)snprintf(line + n, size - n, "%.*s%d", (int)(p - cmd), cmd, round);
		if (n >= size)
			return;
		cmd = p + 3;
	}
	line[n < size ? n : size - 1] = 0;
}

/*
 * "bench NAME N TOKEN... [:COMMAND]": run the tokens N times, timing each
 * token (or the command, where every "{i}" becomes the round number) from
 * the key to the finished screen (an :iterations walk's end included);
 * print the median and the 99th percentile, and the median of the CPU
 * time the process used meanwhile (all threads: a loaded machine
 * stretches the first, not the second).
 * A token written !TOKEN sets the round up untimed, "{i}"
 * in it the round too (!q closes the view the command opened, !{i}%
 * moves).  An :iterations command's time to its first picture (the
 * partial one of the part walked first) is printed too.
 * Returns 0, -EINVAL if NAME or N is missing or bad, or -ENOMEM.
 */
static int script_bench(struct ui *ui, char *args)
{
	char name[64], *cmd, *save, *tok, *toks[16];
	int n, i, ntoks = 0, k, consumed = 0;
	double *t, *c, *f;
	size_t nt = 0, nf = 0;

	if (sscanf(args, "%63s %d %n", name, &n, &consumed) < 2 || n <= 0 || n > 100000)
		return -EINVAL;
	args += consumed;
	cmd = strchr(args, ':');
	if (cmd)
		*cmd++ = 0;
	for (tok = strtok_r(args, " \t", &save); tok && ntoks < 16;
	     tok = strtok_r(NULL, " \t", &save))
		toks[ntoks++] = tok;
	t = calloc((size_t)n * (size_t)(ntoks + 1), sizeof(*t));
	c = calloc((size_t)n * (size_t)(ntoks + 1), sizeof(*c));
	f = calloc((size_t)n, sizeof(*f));
	if (!t || !c || !f) {
		free(t);
		free(c);
		free(f);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k <= ntoks; k++) {
			char line[256];
			double t0 = script_now(), c0 = script_cpu();

			if (k < ntoks && toks[k][0] == '!' && toks[k][1]) {
				script_bench_cmd(line, sizeof(line), toks[k] + 1, i + 1);
				script_key(ui, line);
				view_draw(&ui->vs);
				term_flush();
				continue;
			}
			if (k < ntoks) {
				script_key(ui, toks[k]);
			} else if (cmd) {
				script_bench_cmd(line, sizeof(line), cmd, i + 1);
				cmd_line(ui, line, 0);
				if (iterations_busy(ui)) {
					iterations_wait_partial(ui);
					view_draw(&ui->vs);
					term_flush();
					f[nf++] = script_now() - t0;
				}
				/* :iterations' and :stalls' walks are part
				 * of their time */
				iterations_wait(ui);
				stalls_wait(ui);
			} else {
				continue;
			}
			view_draw(&ui->vs);
			term_flush();
			c[nt] = script_cpu() - c0;
			t[nt++] = script_now() - t0;
		}
	}
	qsort(t, nt, sizeof(*t), script_cmp_double);
	qsort(c, nt, sizeof(*c), script_cmp_double);
	qsort(f, nf, sizeof(*f), script_cmp_double);
	if (nf)
		printf("browse  %-14s first picture median %7.3f ms  max %7.3f ms\n"
		       "result browse-%s-first-median-ms %.3f\n", name, f[nf / 2] * 1e3,
		       f[nf - 1] * 1e3, name, f[nf / 2] * 1e3);
	if (nt)
		printf("browse  %-14s median %7.3f ms  p99 %7.3f ms  max %7.3f ms  cpu %7.3f ms  (%zu keys)\n"
		       "result browse-%s-median-ms %.3f\nresult browse-%s-p99-ms %.3f\n"
		       "result browse-%s-cpu-median-ms %.3f\n",
		       name, t[nt / 2] * 1e3, t[(nt * 99) / 100] * 1e3, t[nt - 1] * 1e3,
		       c[nt / 2] * 1e3, nt, name, t[nt / 2] * 1e3, name, t[(nt * 99) / 100] * 1e3,
		       name, c[nt / 2] * 1e3);
	fflush(stdout);
	free(t);
	free(c);
	free(f);
	return 0;
}

/* "wait-index": wait for the index to finish, and take it in. */
static void script_wait_index(struct ui *ui)
{
	if (ui->idx)
		idx_wait(ui->idx);
	session_poll(ui);
}

/* "bench-index": wait for the index, then for its cache's save, saying
 * how long each took. */
static void script_bench_index(struct ui *ui)
{
	double t0 = script_now();

	script_wait_index(ui);
	printf("browse  index wait     %7.3f s (after the first screen)\n",
	       script_now() - t0);
	/* a fresh index is being saved, hashing the whole trace: the keys
	 * timed next must not share the CPU with it */
	t0 = script_now();
	session_cache_wait(ui);
	printf("browse  cache save     %7.3f s (waited for after the index)\n",
	       script_now() - t0);
	fflush(stdout);
}

/* "bench-rss": the resident set now and at most. */
static void script_bench_rss(void)
{
	struct rusage ru;
	FILE *st = fopen("/proc/self/status", "r");
	char l[256];
	long cur = -1, file = 0;

	while (st && fgets(l, sizeof(l), st)) {
		if (!strncmp(l, "VmRSS:", 6))
			cur = atol(l + 6);
		else if (!strncmp(l, "RssFile:", 8))
			file = atol(l + 8);
	}
	if (st)
		fclose(st);
	getrusage(RUSAGE_SELF, &ru);
	/* File pages are the trace's, shared with the page cache. */
	printf("browse  RSS            %7.1f MiB now (%.1f MiB of it file pages), %.1f MiB at most\n"
	       "result browse-rss-mib %.1f\nresult browse-rss-file-mib %.1f\n"
	       "result browse-max-rss-mib %.1f\n",
	       cur / 1024.0, file / 1024.0, ru.ru_maxrss / 1024.0,
	       cur / 1024.0, file / 1024.0, ru.ru_maxrss / 1024.0);
	fflush(stdout);
}

/* The directives a script's token or line may be, for the misspelled
 * ones (script_misspelt()). */
static const char *const script_directives[] = {
	"wait-index", "wait-index-built", "wait-code-index", "wait-carry",
	"wait-search", "wait-iterations", "wait-iterations-partial", "resize",
	"click", "bench", "bench-startup", "bench-rss", "bench-index",
	"bench-code-index",
};

/* The edit distance of @a (@n bytes) and @b, or 99 for words over 32
 * bytes. */
static int script_distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b), i, j;
	int row[33], prev, cur, d;

	if (n > 32 || m > 32)
		return 99;
	for (j = 0; j <= m; j++)
		row[j] = (int)j;
	for (i = 1; i <= n; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= m; j++) {
			cur = row[j];
			d = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < d)
				d = row[j] + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			row[j] = d;
			prev = cur;
		}
	}
	return row[m];
}

/* Whether token @tok, which is no directive and no key name, looks like a
 * misspelled directive: a word of lowercase letters and '-' that starts
 * as "wait-" or "bench-", or has a '-' or 8 letters and is two edits from
 * such a directive (wait-indx, waitindex), or one edit from resize= or
 * click= (resise=40x10).  Typed as text it moved the cursor and toggled
 * panes; other text (click, size=64k at a prompt) is still typed. */
static int script_misspelt(const char *tok)
{
	size_t n = strspn(tok, "abcdefghijklmnopqrstuvwxyz-"), i;
	const char *d;

	if (n < 4 || (tok[n] && tok[n] != '=') || km_key_parse(tok) >= 0)
		return 0;
	if (tok[n] == '=')
		return script_distance(tok, n, "resize") <= 1 ||
		       script_distance(tok, n, "click") <= 1;
	if (!strncmp(tok, "wait-", 5) || !strncmp(tok, "bench-", 6))
		return 1;
	for (i = 0; i < sizeof(script_directives) / sizeof(script_directives[0]); i++) {
		d = script_directives[i];
		if (strchr(d, '-') && (memchr(tok, '-', n) || n >= 8) &&
		    script_distance(tok, n, d) <= 2)
			return 1;
	}
	return 0;
}

/* "click=COL" or "click=COL,ROW" (a row of the timeline pane: 3 is the
 * first CPU lane) at @s, each 0 to 1000.
 * Returns 0, or -EINVAL if @s is not that. */
static int script_click(struct ui *ui, const char *s)
{
	unsigned long v[2] = { 0, 0 };
	char *end;
	int i;

	for (i = 0; i < 2; i++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		errno = 0;
		v[i] = strtoul(s, &end, 10);
		if (errno || v[i] > 1000 || (*end && (*end != ',' || i)))
			return -EINVAL;
		if (!*end)
			break;
		s = end + 1;
	}
	if (ui->panes[UI_PANE_TIMELINE].h)
		tl_pick(ui, (int)v[1], (int)v[0]);
	return 0;
}

/* Run token @tok of a line of keys and directives (@where: "FILE:LINE",
 * for what is wrong in it). */
static void script_token(struct ui *ui, const char *tok, const char *where)
{
	int w, h;

	if (!strcmp(tok, "wait-index")) {
		script_wait_index(ui);
	} else if (!strcmp(tok, "wait-index-built")) {
		/* built, not yet taken in: as a key right then */
		if (ui->idx)
			idx_wait(ui->idx);
	} else if (!strcmp(tok, "wait-code-index")) {
		script_wait_index(ui);
		session_cache_wait(ui);	/* the code index's key is its hash */
		funcs_idx_wait(ui, 0);
	} else if (!strcmp(tok, "wait-carry")) {
		session_wait_carry(ui);
	} else if (!strcmp(tok, "wait-search")) {
		search_ui_wait(ui);
	} else if (!strcmp(tok, "wait-iterations")) {
		iterations_wait(ui);
	} else if (!strcmp(tok, "wait-iterations-partial")) {
		iterations_wait_partial(ui);
	} else if (!strncmp(tok, "resize=", 7)) {
		if (options_size(tok + 7, &w, &h) < 0) {
			msg_report(ui, UI_ERROR, "%.40s: want resize=COLSxROWS, "
				   "each 1 to 1000", tok);
			esc_line(stderr, "ptbrowse: ", "%s: %.40s: want resize=COLSxROWS, "
				 "each 1 to 1000", where, tok);
		} else {
			resizeterm(h, w);
			ui->rows = h;
			ui->cols = w;
			browser_input(ui, KEY_RESIZE);
		}
	} else if (!strncmp(tok, "click=", 6)) {
		if (script_click(ui, tok + 6) < 0)
			esc_line(stderr, "ptbrowse: ", "%s: %.40s: want click=COL or "
				 "click=COL,ROW", where, tok);
	} else if (script_misspelt(tok)) {
		esc_line(stderr, "ptbrowse: ", "%s: %.40s: no such directive "
			 "(not typed)", where, tok);
	} else {
		script_key(ui, tok);
	}
}

/* Run script line @p (a command, a directive or keys) and draw; @where
 * is "FILE:LINE", for what is wrong in it. */
static int script_line(struct ui *ui, char *p, const char *where)
{
	char *save, *tok;

	if (*p == ':' && p[1]) {
		cmd_line(ui, p + 1, 0);
		stalls_wait(ui);	/* the screen is the list */
		view_draw(&ui->vs);
		term_flush();
		return 0;
	}
	if (!strncmp(p, "bench", 5) && (!p[5] || isspace((unsigned char)p[5]))) {
		if (script_bench(ui, p + 5) == -EINVAL)
			esc_line(stderr, "ptbrowse: ", "%s: want bench NAME N "
				 "TOKEN... [:COMMAND] (N 1 to 100000)", where);
		return 0;
	}
	if (!strcmp(p, "bench-startup")) {
		printf("browse  first screen   %7.3f ms (start to first drawn screen)\n"
		       "result browse-first-screen-ms %.3f\n",
		       script_startup * 1e3, script_startup * 1e3);
		fflush(stdout);
		return 0;
	}
	if (!strcmp(p, "bench-rss")) {
		script_bench_rss();
		return 0;
	}
	if (!strcmp(p, "bench-index")) {
		script_bench_index(ui);
		return 0;
	}
	if (!strcmp(p, "bench-code-index")) {
		script_wait_index(ui);
		session_cache_wait(ui);
		funcs_idx_wait(ui, 1);
		return 0;
	}
	for (tok = strtok_r(p, " \t", &save); tok && !ui->quit;
	     tok = strtok_r(NULL, " \t", &save)) {
		script_token(ui, tok, where);
		view_draw(&ui->vs);
		term_flush();
	}
	return 0;
}

struct script_step {
	struct ui *ui;
	char *line;
	const char *where;	/* "FILE:LINE" */
};

static int script_body(void *arg)
{
	struct script_step *st = arg;
	int r;

	/* +GOTO waiting for the index: a line is the script's idle tick. */
	opengoto_poll(st->ui);
	r = script_line(st->ui, st->line, st->where);

	if (st->ui->worker_sigbus) {
		st->ui->worker_sigbus = 0;
		return -pte_sigbus;	/* as the loop does */
	}
	return r;
}

/* A script: lines of key names, or ":command" lines, or directives. */
int script_run(struct ui *ui, const char *path, double startup)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int lineno = 0, ret = 0, r;

	script_startup = startup;
	if (!f) {
		esc_line(stderr, "ptbrowse: ", "%s: %s", path, strerror(errno));
		return 1;
	}
	while (!ui->quit && (r = options_read_line(f, line, sizeof(line)))) {
		char *p = line;

		lineno++;
		if (r < 0) {
			esc_line(stderr, "ptbrowse: ", "%s:%d: %s", path, lineno,
				 options_line_error(r));
			ret = 1;
			break;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		{
			char where[300];
			struct script_step st = { ui, p, where };

			snprintf(where, sizeof(where), "%.280s:%d", path, lineno);
			reload_guarded(ui, script_body, &st);
		}
	}
	if (ferror(f)) {
		esc_line(stderr, "ptbrowse: ", "%s:%d: read error", path, lineno);
		ret = 1;
	}
	fclose(f);
	return ret;
}
