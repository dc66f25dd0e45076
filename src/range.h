/* range -- TRACE[:FROM[-TO]] and TRACE:NAME on the command line (dump,
 * flow): a byte range, or a region of the trace's marks by name. */
#ifndef RANGE_H
#define RANGE_H

#include <stddef.h>
#include <stdint.h>

struct trace;

/* Split "FILE:FROM[-TO]" in @arg as ptdump does: only if @arg is not an
 * existing file (a file whose own name holds the colon is that file) and
 * the suffix parses as offsets, 0x hex or decimal.  On a split, @arg is
 * cut at the colon and *@from (and *@to, *@have_to) set.
 * Returns 1 if split, 0 if @arg is a plain file name (*@have_to 0), or -1
 * if TO is not above FROM, or FILE is a file and the suffix starts with a
 * digit or '-' (no name from the marks does) but is no range: 0020-0x,
 * -1, a number past 64 bits. */
int range_split(char *arg, uint64_t *from, uint64_t *to, int *have_to);

/* Split "FILE:NAME" in @arg, NAME a region (or mark, or bookmark) of
 * FILE's marks: only if @arg is not an existing file while FILE is one, and
 * NAME is not empty and holds no '/' (so "dir:x/trace.pt" stays whole).
 * Call it when range_split() did not split.  On a split, @arg is cut at
 * the colon and *@name points at NAME.
 * Returns 1 if split, 0 if not (*@name NULL). */
int range_split_name(char *arg, const char **name);

/* The bytes [*@from, *@to) that @name covers in stream @stream of @t, by
 * the trace's marks: a region's range, or from a mark or bookmark to the
 * end of the stream.
 * Returns 0, or -pte_invalid with one line in @err naming the trace and
 * @name if the marks have no such name, or what opening the marks
 * returned (-pte_sigbus, -pte_nomem) with a line in @err. */
int range_of_name(const struct trace *t, size_t stream, const char *name,
		  uint64_t *from, uint64_t *to, char *err, size_t errlen);

#endif /* RANGE_H */
