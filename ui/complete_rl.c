/* complete_rl -- compl_candidates() as a readline completion function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>

#include "complete_rl.h"

static const struct compl_ctx *compl_rl_ctx;
static struct compl_list compl_rl_list;
static size_t compl_rl_skip;	/* bytes of each candidate before @text */
static size_t compl_rl_next;
static char compl_rl_lead[8];	/* put before each candidate ("/" of "/ti") */

void compl_rl_set_ctx(const struct compl_ctx *ctx)
{
	compl_rl_ctx = ctx;
}

/* readline's generator over compl_rl_list. */
static char *compl_rl_gen(const char *text, int state)
{
	if (!state)
		compl_rl_next = 0;
	while (compl_rl_next < compl_rl_list.n) {
		const char *c = compl_rl_list.v[compl_rl_next++];

		if (strlen(c) >= compl_rl_skip) {
			size_t n = strlen(compl_rl_lead), m = strlen(c + compl_rl_skip);
			char *r = malloc(n + m + 1);

			if (r) {
				memcpy(r, compl_rl_lead, n);
				memcpy(r + n, c + compl_rl_skip, m + 1);
			}
			return r;
		}
	}
	return NULL;
}

/* readline's matches for @text; where there are more candidates than
 * the list holds (compl_list.more), the common part readline puts in is
 * only @text: those not held may differ right after it. */
static char **compl_rl_matches(const char *text)
{
	char **m = rl_completion_matches(text, compl_rl_gen);
	char *t;

	if (m && m[1] && compl_rl_list.more && (t = strdup(text))) {
		free(m[0]);
		m[0] = t;
	}
	return m;
}

char **compl_rl_attempt(const char *text, int start, int end)
{
	int n;

	rl_attempted_completion_over = 1;
	if (!rl_line_buffer || start < 0 || end < start)
		return NULL;
	compl_rl_lead[0] = 0;
	if (strchr("/?&", rl_line_buffer[0]) && rl_line_buffer[0] && end > 0) {
		/* "/ti", "?ip 0x..", "&ov": complete as ":search ti" or
		 * ":filter ov" would, then shift back. */
		const char *cmd = rl_line_buffer[0] == '&' ? "filter " : "search ";
		size_t cl = strlen(cmd), ll = strlen(rl_line_buffer);
		char *line = malloc(cl + ll);

		if (!line)
			return NULL;
		memcpy(line, cmd, cl);
		memcpy(line + cl, rl_line_buffer + 1, ll);
		n = compl_candidates(line, (size_t)end - 1 + cl, compl_rl_ctx,
				     &compl_rl_list);
		free(line);
		if (compl_rl_list.kind == COMPL_FILE || n <= 0)
			return NULL;
		compl_rl_list.start = compl_rl_list.start + 1 - cl;
		/* readline's word may start before ours: at the lead. */
		if ((size_t)start < compl_rl_list.start &&
		    compl_rl_list.start - (size_t)start < sizeof(compl_rl_lead)) {
			memcpy(compl_rl_lead, rl_line_buffer + start,
			       compl_rl_list.start - (size_t)start);
			compl_rl_lead[compl_rl_list.start - (size_t)start] = 0;
		}
		compl_rl_skip = 0;
		if ((size_t)start > compl_rl_list.start)
			compl_rl_skip = (size_t)start - compl_rl_list.start;
		return compl_rl_matches(text);
	}
	n = compl_candidates(rl_line_buffer, (size_t)end, compl_rl_ctx,
			     &compl_rl_list);
	if (compl_rl_list.kind == COMPL_FILE) {
		rl_attempted_completion_over = 0;
		return NULL;
	}
	if (n <= 0)
		return NULL;
	/* readline may start the word later (after a ' or $): drop the
	 * part of each candidate before it */
	compl_rl_skip = 0;
	if ((size_t)start > compl_rl_list.start)
		compl_rl_skip = (size_t)start - compl_rl_list.start;
	if (compl_rl_skip > strlen(compl_rl_list.prefix))
		return NULL;
	return compl_rl_matches(text);
}
