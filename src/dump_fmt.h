/*
 * dump_fmt -- a packet's payload in ptdump's vocabulary.  Shared by
 * `ptbrowse dump` and the browser's packet pane so both say the same.
 */
#ifndef DUMP_FMT_H
#define DUMP_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

/* Longest payload text (a tnt.64 with 47 bits, or an ip with a note). */
#define DUMP_PAYLOAD_MAX 64

/* Write @pkt's payload as ptdump prints it ("3: ????????????6be0", "!!.",
 * "3f35, 0", "cs.l", ...) into @buf of @size bytes; "" for packets without
 * a payload.  Returns the length written. */
int dump_fmt_payload(char *buf, size_t size, const struct pkt *pkt);

/* Write @pkt's raw bytes @bytes as hex (at most @size - 1 characters). */
int dump_fmt_raw(char *buf, size_t size, const uint8_t *bytes, size_t n);

/* Write @v in lower-case hex into @buf (17 bytes at least): without
 * leading zeros if @width is 0, else zero-padded to @width digits.
 * Returns the length. */
int dump_fmt_hex(char *buf, uint64_t v, int width);

/* The execution mode named by a mode.exec packet ("64-bit", ...). */
const char *dump_fmt_exec_mode(const struct pkt *pkt);

#endif /* DUMP_FMT_H */
