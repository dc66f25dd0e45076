/*
 * flowtime -- the cycle time of the flow decoder's records: the time
 * model's stamp (tm.h) of the packet at a trace offset, the packet that
 * decided an instruction (flow.h).
 *
 * A packet cursor and a time model fed forward from the last question;
 * a question about an earlier offset starts again at the last PSB before
 * it.  Questions in stream order cost one pass over the stream.
 */
#ifndef FLOWTIME_H
#define FLOWTIME_H

#include <stdint.h>

#include "image.h"
#include "tm.h"
#include "tm_config.h"

struct flowtime;

/* A new reader of @img (which must outlive it) timed with @cfg (copied;
 * NULL: nothing known, cycles still count).
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid. */
int ft_new(struct flowtime **out, const struct img *img, const struct tm_config *cfg);

/* Free @ft (NULL is fine). */
void ft_free(struct flowtime *ft);

/* The stamp of the packet that starts at @off into @st.
 * Returns 0 if filled.
 * Returns 1 if no packet starts at @off (a decode error, a gap there).
 * Returns -pte_invalid for NULL arguments. */
int ft_stamp(struct flowtime *ft, uint64_t off, struct tm_stamp *st);

#endif /* FLOWTIME_H */
