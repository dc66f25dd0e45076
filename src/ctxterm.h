/*
 * ctxterm -- the sideband terms of a search, filter or goto line: "comm
 * NAME", "pid N", "tid N" (ctx.h's restriction) and "switch" (where the
 * task running changes), taken out of the line so that the rest is a
 * packet search (decoder/search.h) for the packets inside their ranges.
 *
 * Grammar: the terms stand at the top level of the line, joined to each
 * other and to the packet expression by "and", "&" or nothing ("comm
 * sorter & tip", "tid 12 switch"); under "or", "|", "not", "!" or
 * parentheses they are an error, as a term the packet search does not
 * know.  The words comm, pid, tid and switch are not packet types.
 */
#ifndef CTXTERM_H
#define CTXTERM_H

#include <stddef.h>

#include "ctx.h"

struct ctxterm {
	struct ctx_filter f;	/* comm/pid/tid; f.comm points into name */
	int has_filter;		/* any of comm, pid, tid */
	int sw;			/* "switch" */
	char name[64];		/* the comm's copy */
};

/* Take the sideband terms out of @text into @t, and the rest (the packet
 * expression, "" if none) into @rest (@restlen bytes).
 * Returns 1 if there was a term, 0 if none (@rest is @text), or
 * -pte_invalid with a one-line message in @err (a term without its value,
 * a pid that is not a number, a term under or/not/parentheses, a line
 * longer than @restlen). */
int ctxterm_split(const char *text, struct ctxterm *t, char *rest,
		  size_t restlen, char *err, size_t errlen);

#endif /* CTXTERM_H */
