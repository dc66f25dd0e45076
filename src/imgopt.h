/*
 * imgopt -- the image options (`--raw`, `--elf`, `--sysroot`,
 * `--kallsyms`, `--buildid-dir`, and `--options FILE` reading them from a
 * file) that `flow`, `calls` and the browser share, and
 * the image set they build: the code (memimg.h) and the symbols
 * (symtab.h) of every address space, fed by the options and by a
 * perf.data's sideband (sideband.h).
 *
 * Where a mapping's file comes from, in order (the first whose build ID
 * matches the recorded one wins; without a recorded build ID the first
 * that exists, but for a file at the recorded path whose inode is not
 * MMAP2's in a recording made on this host -- replaced since; one used
 * without any check is said once, "no build ID recorded for PATH: used
 * unchecked"):
 *   1. DIR/PATH for --sysroot DIR;
 *   2. perf's build-ID cache, DIR/.build-id/XX/YYYY.../elf (XX the first
 *      two hex digits of the build ID, YYYY... the rest), else the older
 *      DIR/.build-id/XX/YYYY... file itself, with DIR from --buildid-dir,
 *      else $PERF_BUILDID_DIR, else $HOME/.debug;
 *   3. PATH as recorded (not when --sysroot is given and no build ID
 *      could prove it is the same file).
 * The kernel's code comes only from --elf vmlinux (or its build-ID cache
 * entry, relocated to where perf's kernel map says _text ran: KASLR's
 * offset included); its names from --kallsyms FILE, the cache's kallsyms,
 * or the vmlinux.  What is not found is said once per file, as "no code for PATH
 * (build ID X): its instructions are unknown", with the reason; nothing
 * is guessed.  Where an --elf file covers such a mapping, its code is read
 * there instead: the message says so, and says if its build ID is not the
 * recorded one.  A damaged symbol table is said once per file.
 */
#ifndef IMGOPT_H
#define IMGOPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opt.h"
#include "tm_config.h"

struct trace;
struct mi;
struct sb;
struct flow_ctx;
struct imgset;

/* The options as given; the strings stay the caller's (argv), but for
 * those an --options file gave, which are the struct's own. */
struct imgopt {
	const char **raw;	/* --raw FILE:ADDR, in order */
	size_t nraw;
	const char **elf;	/* --elf FILE[:BASE], in order */
	size_t nelf;
	const char *sysroot;	/* --sysroot DIR */
	const char *kallsyms;	/* --kallsyms FILE */
	const char *buildid_dir;	/* --buildid-dir DIR */
	struct mi *mi;		/* the image to fill (it stays the caller's,
				 * and may hold --raw dumps already), or
				 * NULL: a new one */
	struct tm_config timing;	/* the --options files' timing lines:
				 * the caller merges its command line's
				 * timing over them (tm_config_merge()) */
	char **own;		/* the --options files' values, which the
				 * lists above point to */
	size_t nown;
};

/* Empty options. */
void imgopt_init(struct imgopt *o);

/* Free the option lists (not the caller's strings; the --options
 * files' values, which the lists point to). */
void imgopt_release(struct imgopt *o);

/* The image options as a group of opt.h's tables, worded alike in every
 * command's --help (under IMGOPT_HEADING), with imgopt_take() as the
 * group's handler and a struct imgopt as its context. */
extern const struct opt imgopt_opts[];
#define IMGOPT_HEADING \
	"image options (where the code comes from; repeatable ones say so):"

/* opt.h's handler for imgopt_opts: option @opt's value @val into the
 * struct imgopt @ctx.  A --raw dump is loaded into ctx->mi at once when
 * one is set (a bad one is reported before the trace is opened), else
 * kept for imgopt_load().
 *
 * --options FILE reads FILE in TRACE.options' format (timing_file.h), as
 * tools/ptrecord writes it: each image option line is taken as the
 * option on the command line would be, a relative path from FILE's
 * directory; the timing lines go into ctx->timing.  A trace's own
 * TRACE.options is read by trace_open() for its timing alone: its image
 * lines count only when it is given with --options.
 * Returns 0 if taken.
 * Returns -ERANGE after reporting an empty value, or a --raw that is not
 * FILE:ADDR (usage errors, exit 2; checked also when the dump is kept).
 * Returns -EIO after reporting a --raw dump that cannot be loaded, or an
 * --options file that cannot be read or has a bad line (FILE:LINE).
 * Returns -ENOMEM after reporting it. */
int imgopt_take(const struct opt_cmd *cmd, void *ctx, const struct opt *opt,
		const char *val);

/* Build the image set of @o and of @t's sideband (@t may be NULL, or a raw
 * trace: options only).  Errors in what the options name (a bad --raw or
 * --elf, a --kallsyms that cannot be read) fail with one line in @err;
 * files of the recording that cannot be found become messages.
 * Returns 0 and sets *@out.
 * Returns a negative pte code (-pte_io, -pte_bad_file, -pte_invalid,
 * -pte_nomem) with @err set. */
int imgopt_load(struct imgset **out, const struct imgopt *o,
		const struct trace *t, char *err, size_t errlen);

/* Free @s (NULL is fine).  A caller's image (imgopt.mi) stays, but the
 * segments @s added to it point into mappings freed here: read it no more. */
void imgopt_free(struct imgset *s);

/* What image set @s, loaded with options @o, was made from, one line
 * each, to @f: its options, and every file it read (the ELF files and
 * the kernel's it opened, the --raw dumps, --kallsyms) with its size and
 * mtime, whether kernel modules and kallsyms were found, and the messages
 * about missing code, so that a cache of what it decoded (the code index) can tell
 * when the code could differ.  Returns 0, or -pte_io if @f failed. */
int imgopt_key(const struct imgopt *o, const struct imgset *s, FILE *f);

/* The messages about missing code, one per file. */
size_t imgopt_nmessages(const struct imgset *s);
const char *imgopt_message(const struct imgset *s, size_t i);

/* Why there is no code at @ip in address space @asid: the message about
 * the recorded mapping that holds it ("no code for [vdso]: its
 * instructions are unknown (the vDSO has no file; ...)"), a kernel
 * mapping's in every address space.
 * Returns the message (the set's), or NULL if no mapping without code
 * holds @ip (nothing was recorded there). */
const char *imgopt_nocode(const struct imgset *s, uint64_t asid, uint64_t ip);

/* The code and the sideband (NULL for a raw trace). */
struct mi *imgopt_mi(const struct imgset *s);
struct sb *imgopt_sb(const struct imgset *s);

/* The address space of stream @stream at TSC @tsc (if @have_tsc) with
 * PIP's @cr3 (if @have_cr3): the sideband's process, else the one learned
 * for @cr3.  Returns it, or 0 if unknown (then only code present in every
 * address space -- options, kernel -- is read). */
uint64_t imgopt_asid(const struct imgset *s, int stream, uint64_t tsc,
		     int have_tsc, uint64_t cr3, int have_cr3);

/* Write "function+0xoff" for @ip in address space @asid into @buf.
 * Returns its length, or 0 if no symbol is known there (@buf ""). */
size_t imgopt_symbol(const struct imgset *s, uint64_t asid, uint64_t ip,
		     char *buf, size_t size);

/* The function holding @ip in @asid: its name and runtime range [*@start,
 * *@end) (a kallsyms function ends where the next begins, the last one at
 * @ip + 1).  Returns 0, or -pte_invalid if no symbol is known there. */
int imgopt_function(const struct imgset *s, uint64_t asid, uint64_t ip,
		    const char **name, uint64_t *start, uint64_t *end);

/* As imgopt_function(), and the addresses around @ip it gives the same
 * answer for, [*@from, *@until) (either may be NULL): inside the
 * function, short of any function nested in it (symtab_lookup_span()). */
int imgopt_function_span(const struct imgset *s, uint64_t asid, uint64_t ip,
			 const char **name, uint64_t *start, uint64_t *end,
			 uint64_t *from, uint64_t *until);

/* Whether a symbol may hold an address of [@lo, @hi) in @asid (as
 * imgopt_function() looks: the maps of @asid's and every space's
 * objects with symbols, and kallsyms): 1 if one may, 0 if none does, so
 * that code without symbols is known to stay without them.  A NULL @s
 * has none. */
int imgopt_symbols_in(const struct imgset *s, uint64_t asid, uint64_t lo,
		      uint64_t hi);

/* Where a function is: its runtime range [start, end) in an address space
 * (MI_ASID_ANY: every one -- the options' code, the kernel's). */
struct imgopt_frange {
	uint64_t asid, start, end;
};

/* Every place a function named @name (exactly, as imgopt_function() names
 * it) lies, in every address space of @s, into *@out (malloc'd, free() it;
 * sorted by start, no duplicates) and *@n: so that a search for the
 * instructions of one function asks about an address once, and only then
 * about its address space.  Each range holds every address the function
 * is found at; where a symbol has no size and is its object's last, it
 * may hold more (up to the mapping's end, or 4 KiB of kallsyms):
 * imgopt_function() then tells.
 * Returns 0 (*@n may be 0: no such function), -pte_nomem, or -pte_invalid
 * for NULL arguments. */
int imgopt_find_function(const struct imgset *s, const char *name,
			 struct imgopt_frange **out, size_t *n);

/* The function names of every symbol table of @s starting with
 * @prefix, each table's first @max in strcmp() order
 * (symtab_names()), given to @each(@arg, name): a table's names may
 * repeat another's.  For completing a function's name (sym NAME).
 * Returns 0, or @each's negative error, -pte_nomem, or -pte_invalid for
 * NULL arguments. */
int imgopt_symbol_names(const struct imgset *s, const char *prefix, size_t max,
			int (*each)(void *arg, const char *name), void *arg);

/* The source file and line of @ip in @asid (libdw builds only).
 * Returns 0, or -pte_invalid if unknown. */
int imgopt_srcline(const struct imgset *s, uint64_t asid, uint64_t ip,
		   const char **file, int *line);

/* The flow decoder's read callback's context: which stream is decoded,
 * and how its trace offsets map to TSC (NULL: no time, CR3 only). */
struct imgopt_reader {
	const struct imgset *set;
	int stream;
	int (*tsc_at)(void *ctx, uint64_t offset, uint64_t *tsc);
	void *tsc_ctx;
	/* where the stretch of tracing holding an offset ends, and its TSC
	 * (offtsc_stretch_end(), on a reader of its own); NULL: the
	 * address space is matched by time alone */
	int (*end_at)(void *ctx, uint64_t offset, uint64_t *end, uint64_t *tsc);
	void *end_ctx;
};

/*
 * The address space of the code at the packet @c->offset decided.
 *
 * By time: the sideband's process at the packet's estimated TSC.  But a
 * context switch happens in the kernel, where user-only tracing is off,
 * and the estimate of an enable right after a switch can lie before the
 * switch's time (between two timing packets it is a lower bound): the
 * stretch of tracing from the enable would be given to the process
 * switched out.  So, as perf's decoder ties a switch to where the trace
 * leaves the kernel rather than to the switch's time alone: where the
 * stretch holding the packet ends (its TIP.PGD or OVF) with the process
 * changed exactly once since the packet's time, the stretch is the new
 * process's, decided by the end's time.  This holds for user-only tracing
 * (the intel_pt event's exclude_kernel): with the kernel traced, switches
 * happen inside a stretch, and time alone decides.
 * Returns the asid as imgopt_asid() does.
 */
uint64_t imgopt_reader_asid(const struct imgopt_reader *r, const struct flow_ctx *c);

/* A flow_read_fn: the code at @ip in the address space @c says (through
 * imgopt_reader_asid()); @reader is a struct imgopt_reader.
 * Returns the bytes copied, or -pte_nomap where there is no code. */
int imgopt_read(void *reader, const struct flow_ctx *c, uint64_t ip,
		uint8_t *buf, size_t size);

#endif /* IMGOPT_H */
