/*
 * symtab -- the functions of one object (an ELF file, or the kernel from
 * /proc/kallsyms), sorted by address, with O(log n) lookup and, where the
 * build has libdw (HAVE_LIBDW) and the file has DWARF, source lines.
 *
 * Addresses are the object's own (an ELF file's link-time addresses, the
 * kernel's absolute ones); the address-space layer (imgopt.h) subtracts
 * each mapping's bias before asking.  Symbols come from .symtab, else
 * .dynsym: STT_FUNC and STT_GNU_IFUNC symbols that are defined, plus the
 * PLT stubs as "function@plt" (x86, as objdump and perf name them).  Of
 * several names at one address the global one wins, then the weak one,
 * then the first, with its own size (an alias's only if it has none).  An
 * ELF symbol of size 0 (hand-written assembly) reaches
 * up to the next symbol or the end of its section, whichever is first;
 * kallsyms has no sizes: each reaches up to the next symbol (the last one
 * 4 KiB at most).
 */
#ifndef SYMTAB_H
#define SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct elfimg;
struct symtab;

/* One function. */
struct symtab_sym {
	uint64_t addr;
	uint64_t size;		/* 0 (kallsyms): up to the next symbol */
	const char *name;	/* owned by the table */
};

/* The functions of @e (which must outlive the table: source lines read
 * its DWARF).  A file without any symbol table gives an empty table.
 * A damaged .symtab is dropped for .dynsym if that one is readable: then
 * 0 is returned with @err saying "PATH: symbol table unreadable (...)".
 * Returns 0 and sets *@out.
 * Returns -pte_bad_file (message "PATH: symbol table unreadable (...)" in
 * @err) if the symbol table is damaged (and .dynsym too, if any), or the
 * section headers run past the end of the file.
 * Returns -pte_nomem if out of memory; -pte_invalid on NULL arguments. */
int symtab_from_elf(struct symtab **out, struct elfimg *e, char *err,
		    size_t errlen);

/* The kernel's functions from @path in /proc/kallsyms format ("ADDR TYPE
 * NAME [MODULE]"; text types t T w W only).
 * Returns 0 and sets *@out.
 * Returns -pte_io if @path cannot be read (message in @err).
 * Returns -pte_bad_file if a line is malformed (@err names the line) or
 * every address is 0 (kptr_restrict hid them).
 * Returns -pte_nomem if out of memory; -pte_invalid on NULL arguments. */
int symtab_from_kallsyms(struct symtab **out, const char *path, char *err,
			 size_t errlen);

/* Free @s (NULL is fine). */
void symtab_free(struct symtab *s);

/* Where the symbols came from: ".symtab", ".dynsym", "kallsyms" or "". */
const char *symtab_origin(const struct symtab *s);

/* The address of the function named @name into *@addr: for a kallsyms
 * table any of its names, aliases that lookups do not show included (a
 * global one before a weak or local one of that name); for an ELF
 * table the names lookups show.
 * Returns 1 if found, 0 if not (or NULL arguments). */
int symtab_addr_of(const struct symtab *s, const char *name, uint64_t *addr);

/* The names lookups show (one per address, as symtab_lookup() names it)
 * that start with @prefix ("" for all), in strcmp() order, each once,
 * given to @each(@arg, name) -- at most @max of them, so that a prefix of
 * one letter over a kernel's 100000 names costs what @max costs: a
 * completion's bounded candidates.  The sorted names are made at the
 * first call (thread-safe; a pointer each, kept until the table is freed).
 * @each returns 0 to go on, or a negative error code that stops the walk.
 * Returns the number of names given, or @each's error, -pte_nomem, or
 * -pte_invalid for NULL arguments. */
int symtab_names(struct symtab *s, const char *prefix, size_t max,
		 int (*each)(void *arg, const char *name), void *arg);

/* The number of functions; symtab_get(@s, i) for i below it, by address. */
size_t symtab_count(const struct symtab *s);
const struct symtab_sym *symtab_get(const struct symtab *s, size_t i);

/* The function holding address @addr: of nested or overlapping ones, the
 * one starting last (the innermost).
 * Returns it, or NULL if no function holds @addr. */
const struct symtab_sym *symtab_lookup(const struct symtab *s, uint64_t addr);

/* As symtab_lookup(), and the addresses around @addr with the same
 * answer (the same function, or none), [*@from, *@until) (either may be
 * NULL): a function with another nested in it answers only around it. */
const struct symtab_sym *symtab_lookup_span(const struct symtab *s, uint64_t addr,
					    uint64_t *from, uint64_t *until);

/* Write "name+0xoff" ("name+0x0" at its start, as perf and ptxed-like
 * output show it) for @addr into @buf.
 * Returns the length written (cut to @size - 1), or 0 if no function
 * holds @addr (then @buf is ""). */
size_t symtab_format(const struct symtab *s, uint64_t addr, char *buf,
		     size_t size);

/* The source file and line of @addr from DWARF.  *@file stays valid while
 * @s lives.  Thread-safe (calls on one table take turns); the rest of
 * this file only reads a finished table.
 * Returns 0 and sets *@file and *@line.
 * Returns -pte_invalid if there is no line for @addr, no DWARF, or the
 * build has no libdw. */
int symtab_srcline(struct symtab *s, uint64_t addr, const char **file,
		   int *line);

#endif /* SYMTAB_H */
