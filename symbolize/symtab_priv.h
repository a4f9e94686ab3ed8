/* symtab_priv.h - what the pieces of the function table share and nobody else
 * sees: symtab.c builds the table, elf_symbols.c reads ELF files (libelf),
 * dwarf_lines.c reads source lines (libdw), demangle.c wraps the C++ ABI.
 */
#ifndef ADA_SYMTAB_PRIV_H
#define ADA_SYMTAB_PRIV_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>

#include "symtab.h"

/* A synthetic entry not merged yet. Its name (NULL for "<module>+0x<vaddr>")
 * is owned here; the merge copies it into the table. */
struct ada_pending {
	uint64_t addr;
	char *name;
	size_t seq; /* order of adding: the first name given for an address wins */
};

struct ada_symtab_priv {
	/* reach[i] = highest end of funcs[0..i]. Lookup walks back from the
	 * last start <= vaddr only while an earlier entry can still reach
	 * vaddr, which keeps overlapping symbols exact and the walk O(1)
	 * in the usual case where nothing overlaps. */
	uint64_t *reach;
	struct ada_pending *pending; /* synthetic entries not merged yet */
	size_t npending;
	size_t pending_cap;
	size_t nadded; /* add_synthetic calls so far: the next seq */
	int err; /* add_synthetic cannot fail visibly: finalize returns this */
	char *dwarf_path; /* file holding the DWARF: the module, its separate debug file, or NULL */
};

/* One past the last byte of f; a size-0 entry covers its first byte only, so
 * that lookup matches it exactly and nowhere else. */
static inline uint64_t ada_func_end(const struct ada_func *f)
{
	return f->addr + (f->size ? f->size : 1);
}

/* symtab.c */
void ada_funcs_free(struct ada_func *funcs, size_t nfuncs);

/* elf_symbols.c */

/* A candidate symbol while aliases are sorted out; name points into the
 * ELF string table (or a kept symbols file's text), so only the survivors
 * are copied. */
struct raw_sym {
	GElf_Addr addr;
	GElf_Xword size;
	const char *name;
	size_t len;
	int rank; /* 0 global, 1 weak, 2 local, 3 other: the lowest names a function */
};

/* Sorts syms and keeps one entry per address (the preferred alias, the
 * largest size), names copied and demangled. */
int ada_funcs_from_syms(struct raw_sym *syms, size_t n, struct ada_func **funcs, size_t *nfuncs);
/* A file through libelf (runtime/elf_file.c is the traced program's own
 * reader, which links no libelf). */
int ada_libelf_open(const char *path, int *fd, Elf **elf);
void ada_libelf_close(int fd, Elf *elf);
Elf_Scn *ada_elf_find_scn(Elf *elf, GElf_Word type, const char *name);
bool ada_elf_has_dwarf(Elf *elf);
int ada_elf_read_funcs(Elf *elf, Elf_Scn *symtab, const char *path, struct ada_func **funcs,
		       size_t *nfuncs);
uint32_t ada_elf_read_build_id(Elf *elf, uint8_t out[32]);
char *ada_elf_find_debug_file(Elf *elf, const char *path, const uint8_t *build_id,
			      uint32_t build_id_len);

/* dwarf_lines.c: fills file/line of every funcs[i] with wanted[i] (all when
 * wanted is NULL) from the DWARF in dwarf_path. Missing or broken DWARF
 * leaves the fields empty: source lines are a nicety, never a failure. */
void ada_dwarf_fill_lines(struct ada_func *funcs, size_t nfuncs, const bool *wanted,
			  const char *dwarf_path);

/* demangle.c: a malloc'd demangled name for an Itanium-mangled name, else NULL. */
char *ada_demangle(const char *name);

/* dwarf_params.c: the signature of the function whose DIE is fn (sig.h);
 * NULL if memory ran out. */
struct ada_sig *ada_dwarf_sig(Dwarf_Die *fn);

#endif
