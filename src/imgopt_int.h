/* imgopt_int -- the image set's insides, shared by imgopt.c (loading,
 * reading code) and imgopt_sym.c (names of the code). */
#ifndef IMGOPT_INT_H
#define IMGOPT_INT_H

#include <stddef.h>
#include <stdint.h>

struct elfimg;
struct kmod;
struct kmod_names;
struct mi;
struct sb;
struct symtab;

/* One file opened once, shared by every mapping of it. */
struct imgopt_obj {
	char *path;		/* where it was found */
	struct elfimg *e;
	struct symtab *st;
};

/* Where an object's symbols apply: [start, end) of @asid, at @bias. */
struct imgopt_symmap {
	uint64_t asid, start, end;
	uint64_t bias;		/* runtime address - the object's address */
	struct symtab *st;
};

/* A mapping whose code is missing, and the message saying why. */
struct imgopt_hole {
	uint64_t asid, start, end;
	size_t msg;
};

/* An --elf file: the object, and whether a BASE placed it. */
struct imgopt_given {
	size_t obj;		/* index into the objects */
	uint64_t bias;		/* where it was placed - its link address */
	uint8_t based;		/* FILE:BASE, the user's placement */
};

struct imgset {
	struct mi *mi;
	uint8_t own_mi;		/* made here: freed here */
	struct sb *sb;
	struct imgopt_obj *objs;
	size_t nobjs;
	struct imgopt_symmap *maps;
	size_t nmaps, maps_cap;
	struct symtab *kallsyms;	/* --kallsyms or the cache's */
	char **msgs;
	size_t nmsgs;
	char **told;		/* files a message was given for */
	size_t *told_msg;	/* and the index of that message */
	size_t ntold;
	struct imgopt_hole *holes;	/* mappings without code */
	size_t nholes;
	struct imgopt_given *elfs;	/* the --elf files, in order */
	size_t nelfs;
	struct kmod **kmods;	/* the kernel modules read */
	size_t nkmods;
	struct kmod_names *knames;	/* kallsyms by name, for them */
	const char *sysroot, *cache;	/* the build-ID cache directory */
	uint8_t user_only;	/* the kernel was not traced (exclude_kernel) */
	uint8_t same_host;	/* recorded on this machine, this kernel:
				 * a recorded inode means something here */
	char cache_buf[4096];
};

#endif /* IMGOPT_INT_H */
