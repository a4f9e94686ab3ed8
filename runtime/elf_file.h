/* elf_file.h - a loaded module's file: sections and function symbols
 * (elf_file.c). */
#ifndef ADA_ELF_FILE_H
#define ADA_ELF_FILE_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "ada_internal.h"

struct ada_elf {
	const uint8_t *file; /* mapped read-only */
	size_t size;
	uint64_t bias;       /* the module's load bias: file address + bias = process address */
	bool in_memory;      /* file is an image in memory (the vDSO's): not unmapped */
};

/* Maps the module's file (path NULL: the executable); -1 if it is not a
 * readable 64-bit ELF file with section headers. */
ADA_HIDDEN int ada_elf_open(const char *path, uint64_t bias, struct ada_elf *e);
ADA_HIDDEN void ada_elf_close(struct ada_elf *e);
/* The calling process's vDSO, whose image in memory is a whole ELF file,
 * section headers included: the same for every process of the running
 * kernel. -1 if there is none or it does not read as one. */
ADA_HIDDEN int ada_elf_vdso(struct ada_elf *e);
/* The first section of that type (and name, unless NULL), or NULL. */
ADA_HIDDEN const Elf64_Shdr *ada_elf_section(const struct ada_elf *e, uint32_t type,
					     const char *name);
/* The section gcc's -fpatchable-function-entry fills with the address of
 * every site: a module built in patchable mode has one. */
#define ADA_PATCHABLE_SECTION "__patchable_function_entries"
/* The section header of that type and name, read with a few preads (no
 * mapping: every module is asked at start whether it is patchable); -1 if
 * there is none or the file is not a readable 64-bit ELF file. */
ADA_HIDDEN int ada_elf_find_section(const char *path, uint32_t type, const char *name,
				    Elf64_Shdr *out);
/* Calls fn for each defined function symbol of .symtab (.dynsym when the
 * file is stripped), with its process address and how it is bound (0
 * global, 1 weak, 2 local: which alias names a function); returns how many. */
typedef void (*ada_elf_func_fn)(const char *name, uint64_t addr, uint64_t size, int rank,
				void *arg);
ADA_HIDDEN size_t ada_elf_functions(const struct ada_elf *e, ada_elf_func_fn fn, void *arg);

#endif
