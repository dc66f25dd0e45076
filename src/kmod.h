/*
 * kmod -- a kernel module (.ko, a relocatable ELF file) as the code the
 * kernel runs: its executable sections laid out as the module loader lays
 * them out, its relocations applied, its ftrace call sites made NOPs.
 *
 * The loader puts a module's text -- its SHF_ALLOC|SHF_EXECINSTR
 * sections but the .init ones, in section-header order, each aligned to
 * its sh_addralign -- at the module's text address: the one
 * /proc/modules gives and perf's MMAP record of the module starts at.
 * Relocations in that text are applied against the module's own text
 * symbols and, for the kernel's, against kallsyms (--kallsyms); a
 * `call __fentry__` becomes the 5-byte NOP the kernel leaves there while
 * no tracer runs.  A branch to a kernel symbol kallsyms does not name
 * refuses the module: its target would be a guess.  What the kernel
 * patches at run time besides (alternatives, static keys) is as the file
 * has it: perf reads modules the same way (its --kcore records the live
 * code instead).
 */
#ifndef KMOD_H
#define KMOD_H

#include <stddef.h>
#include <stdint.h>

struct symtab;
struct kmod;
struct kmod_names;

/* The kernel's symbols by name, from kallsyms @ksyms (which must outlive
 * the index), for kmod_load().
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid. */
int kmod_names_new(struct kmod_names **out, const struct symtab *ksyms);

/* Free @n (NULL is fine). */
void kmod_names_free(struct kmod_names *n);

/* Load module @path for its text at @base, resolving kernel symbols with
 * @ksyms (NULL: any branch into the kernel refuses it).  With
 * @bid (@bid_len bytes, 0: none), the file's GNU build ID must match.
 * On failure writes one line (naming the file) into @err.
 * Returns 0 and sets *@out.
 * Returns -pte_io if the file cannot be read, -pte_bad_file if it is no
 * relocatable ELF file, has another build ID or a branch to a symbol
 * @ksyms does not name, -pte_nomem, -pte_invalid for NULL arguments. */
int kmod_load(struct kmod **out, const char *path, uint64_t base,
	      const struct kmod_names *ksyms, const uint8_t *bid, size_t bid_len,
	      char *err, size_t errlen);

/* Free @k (NULL is fine). */
void kmod_free(struct kmod *k);

/* The text: @k's bytes for [*@addr, *@addr + return value). */
size_t kmod_text(const struct kmod *k, uint64_t *addr, const uint8_t **bytes);

/* The address of the module's text symbol @name, or 0 if it has none. */
uint64_t kmod_symbol(const struct kmod *k, const char *name);

#endif /* KMOD_H */
