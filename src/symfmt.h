/*
 * symfmt -- an IP as the browser shows it: "function+0xoff" (or 16 hex
 * digits, toggled), the function holding it, and its source file:line;
 * cached, so a status line or a column of IPs costs a table probe per IP.
 *
 * Names come from the image set (imgopt.h: ELF .symtab/.dynsym, kallsyms)
 * of the address space the caller names (ctx.h gives it at an offset).
 * Where no symbol holds an IP but code is mapped there, the function is
 * the code segment, named after its file ("libc.so.6"), and said to be
 * one (SYMFMT_SEGMENT); where no code is mapped either, it is unknown
 * (SYMFMT_NONE).  Nothing is guessed.  A struct symfmt is for one thread.
 */
#ifndef SYMFMT_H
#define SYMFMT_H

#include <stddef.h>
#include <stdint.h>

struct imgset;
struct symfmt;

/* What holds an IP. */
enum symfmt_kind {
	SYMFMT_NONE,		/* no code mapped: name "(unknown)" */
	SYMFMT_SEGMENT,		/* code without a symbol: the file's name */
	SYMFMT_FUNC,		/* a symbol */
};

struct symfmt_fn {
	const char *name;	/* never NULL; lives as long as the image set */
	uint64_t start, end;	/* the function's (or segment's) runtime
				 * range [start, end); NONE: [ip, ip + 1) */
	uint8_t kind;		/* enum symfmt_kind */
	uint64_t file_off;	/* SYMFMT_SEGMENT: the offset of start in its
				 * file (0 for a dump, which starts there);
				 * else 0 */
	uint64_t until;		/* the same answer holds for certain for
				 * every address of [ip, until), the ip
				 * asked (a function: its end, or where a
				 * function nested in it begins; a segment:
				 * as far as no symbol or other segment may
				 * begin; 0 or ip + 1: for ip alone) */
	uint64_t from;		/* and of [from, ip]: a function's start,
				 * or the end of one nested in it before ip;
				 * else ip */
};

/* A formatter over @set (which must outlive it; NULL: nothing known, every
 * IP is hex).
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid if @out is
 * NULL. */
int symfmt_new(struct symfmt **out, const struct imgset *set);

/* Free @sf (NULL is fine). */
void symfmt_free(struct symfmt *sf);

/* What holds @ip in address space @asid (0: the common one) into @fn.
 * Returns 0 (also for SYMFMT_NONE), or -pte_invalid for NULL arguments. */
int symfmt_function(struct symfmt *sf, uint64_t asid, uint64_t ip,
		    struct symfmt_fn *fn);

/* Write @ip as "function+0xoff" into @buf, or as 16 hex digits if @hex is
 * set or no symbol holds it ("libc.so.6+0x1234" for a code segment without
 * symbols: its file and @ip's offset in the file, as objdump and perf
 * give it, not the offset from where the mapping was loaded).  Names are written
 * as stored: escape them (esc.h) before a terminal sees them.
 * Returns @buf ("" if @size is 0 or @sf/@buf NULL). */
const char *symfmt_ip(struct symfmt *sf, uint64_t asid, uint64_t ip, int hex,
		      char *buf, size_t size);

/* "name+0xoff" (symfmt_ip()'s text @s) fitted to @width columns into @buf,
 * as the packet pane and the code view show a function in a column: the
 * name's head, "..", then the whole offset (a cut offset would read as
 * another address); bytes outside printable ASCII become '?'.
 * Returns 0, or -pte_invalid (@buf "") if @s has no "+" after a name, not
 * one letter of the name fits, @width >= @size, or an argument is NULL. */
int symfmt_fit(const char *s, int width, char *buf, size_t size);

/* The source of @ip as "file:line" into @buf (the file's last two path
 * components when @brief is set, for a status line).
 * Returns 0, or -pte_invalid if DWARF does not know @ip, the build has no
 * libdw, or an argument is NULL (@buf is then ""). */
int symfmt_srcline(struct symfmt *sf, uint64_t asid, uint64_t ip, int brief,
		   char *buf, size_t size);

/* Cache statistics, for tests and benchmarks. */
struct symfmt_stats {
	uint64_t fn_lookups, fn_hits;
	uint64_t line_lookups, line_hits;
};
void symfmt_stats(const struct symfmt *sf, struct symfmt_stats *st);

#endif /* SYMFMT_H */
