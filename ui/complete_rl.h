/*
 * complete_rl -- compl_candidates() as a readline completion function.
 *
 *	compl_rl_set_ctx(&ctx);		// marks, regions, streams, options
 *	rl_attempted_completion_function = compl_rl_attempt;
 *
 * File arguments fall back to readline's filename completion; everything
 * else offers exactly the candidates of complete.h, whatever readline's
 * word-break characters are (so "goto 'a" completes marks).
 */
#ifndef COMPLETE_RL_H
#define COMPLETE_RL_H

#include "complete.h"

/* Use @ctx (kept by pointer; NULL for none) for later completions. */
void compl_rl_set_ctx(const struct compl_ctx *ctx);

/* A rl_attempted_completion_function over rl_line_buffer.
 * Returns readline's match array, or NULL (for file names: readline then
 * completes them itself; otherwise: no match). */
char **compl_rl_attempt(const char *text, int start, int end);

#endif /* COMPLETE_RL_H */
