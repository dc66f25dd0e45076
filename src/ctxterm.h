/*
 * ctxterm -- the sideband terms of a search, filter or goto line: "comm
 * NAME", "pid N", "tid N" (ctx.h's restriction) and "switch" (where the
 * task running changes), and its code terms: "sym NAME" (an instruction
 * of function NAME), "call NAME" (a call into NAME), "ret" (a return),
 * taken out of the line so that the rest is a packet search
 * (decoder/search.h) for the packets inside their ranges.
 *
 * The code terms together describe one instruction ("ret sym foo": a
 * return from foo; "call bar & sym foo": a call from foo into bar); a hit
 * is the packet that decided such an instruction.  "switch" does not
 * combine with them (a switch is no instruction).  A NAME is one word,
 * as the flow shows it ("memcpy@plt").
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

/* struct ctxterm.code */
enum ctxterm_code {
	CTXTERM_SYM = 1 << 0,	/* sym NAME */
	CTXTERM_CALL = 1 << 1,	/* call NAME */
	CTXTERM_RET = 1 << 2,	/* ret */
};

struct ctxterm {
	struct ctx_filter f;	/* comm/pid/tid; f.comm points into name */
	int has_filter;		/* any of comm, pid, tid */
	int sw;			/* "switch" */
	char name[64];		/* the comm's copy */
	unsigned code;		/* enum ctxterm_code: the code terms */
	char sym[128];		/* sym's NAME */
	char call[128];		/* call's NAME */
};

/* Words a line may have (the terms' and the rest's). */
#define CTXTERM_MAXW 127

/* Bytes @rest needs for a line of @len bytes (strlen): its words are
 * joined again with a blank, and an "&" where a term went. */
#define CTXTERM_RESTLEN(len) ((len) + 3 * CTXTERM_MAXW + 1)

/* Take the sideband terms out of @text into @t, and the rest (the packet
 * expression, "" if none) into @rest (@restlen bytes, CTXTERM_RESTLEN()).
 * Returns 1 if there was a term, 0 if none (@rest is @text), or
 * -pte_invalid with a one-line message in @err (a term without its value,
 * a pid that is not a number, a term under or/not/parentheses, more
 * than CTXTERM_MAXW words, a rest longer than @restlen, a code term
 * twice, call with ret, switch with a code term). */
int ctxterm_split(const char *text, struct ctxterm *t, char *rest,
		  size_t restlen, char *err, size_t errlen);

#endif /* CTXTERM_H */
