/* symtab.h - one ELF module's function table: symbols (libelf), source lines
 * (libdw) and C++ demangling.
 *
 * ATF v2 names a function by (module_id, symbol_index), where symbol_index is
 * a dense 1-based ordinal over the module's function table sorted by address.
 * Addresses that fall in no symbol get a synthetic entry ("name" = "<module
 * basename>+0x<vaddr hex>", or a name the trace gives the address), inserted
 * in address order, so every recorded IP keeps a name. Callers therefore add
 * every synthetic address before reading indices:
 * load → lookup/add_synthetic for all addresses → finalize → read.
 */
#ifndef ADA_SYMTAB_H
#define ADA_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ada_sig;

struct ada_func {
	uint64_t addr;        /* ELF virtual address (st_value) */
	uint64_t size;        /* st_size; 0 for synthetic entries */
	char *name;           /* symbol name as in the ELF file */
	char *demangled;      /* C++ demangled name, or NULL when not a mangled name */
	char *file;           /* source file of the function's entry, or NULL (no debug info) */
	uint32_t line;        /* 0 when unknown */
	bool synthetic;
	struct ada_sig *sig;  /* its parameters from DWARF (sig.h), NULL if unknown */
};

struct ada_symtab {
	char *path;
	uint8_t build_id[32];
	uint32_t build_id_len;
	uint16_t machine;     /* e_machine */
	struct ada_func *funcs; /* sorted by addr after finalize; index i ↔ symbol_index i+1 */
	size_t nfuncs;
	/* private state (libelf/libdw handles, pending synthetic entries) follows */
	void *priv;
};

/* Opens `path` and reads its function symbols: STT_FUNC and STT_GNU_IFUNC with
 * st_shndx != SHN_UNDEF from .symtab, else .dynsym. Aliases at one address keep
 * one entry (preferring GLOBAL over WEAK over LOCAL, a public name over one
 * reserved to the implementation (__x, _X) unless LOCAL, then the shortest name).
 * Returns 0 or a negative errno; on failure prints one line to stderr naming
 * the file and libelf's message, and *out is NULL. */
int ada_symtab_load(const char *path, struct ada_symtab **out);

/* A table of funcs (sorted, one per address; taken over, freed on failure)
 * with no file behind it: symbols kept with a trace (kept_symbols.c). */
int ada_symtab_of_funcs(const char *path, struct ada_func *funcs, size_t nfuncs,
			struct ada_symtab **out);

/* Whether any function has a source line. */
bool ada_symtab_has_lines(const struct ada_symtab *st);

/* ---- symbols kept with the trace (runtime/kept_symbols.h; kept_symbols.c) ---- */

struct ada_meta_file;

/* The kept file of a module for the trace whose raw/ directory is raw_dir
 * (<output>/session_…/pid_…/raw): by its build-id (id, len), or with len 0
 * by its file's FILE record (file, recorded at path). malloc'd, NULL if no
 * memory. */
char *ada_kept_path(const char *raw_dir, const uint8_t *id, uint32_t len, const char *path,
		    const struct ada_meta_file *file);
/* A table from a kept file, named module_path: its symbols and the source
 * lines it has; *hooks the module's hooks if the file says (else 0);
 * *completed whether ada-symbolize wrote it with the binary at hand (so it
 * holds every line the binary had), not only the runtime without lines.
 * -ENOENT if there is no such file, another negative errno if it is not
 * one (a line printed). */
int ada_kept_load(const char *file, const char *module_path, struct ada_symtab **out,
		  unsigned *hooks, bool *completed);
/* Writes the finalized table st, read from the module's own file, into
 * file: its functions with the source lines found, and the lines an
 * earlier file had for functions st has none for (another trace wanted
 * them). Silent if it cannot: the trace converts anyway. */
void ada_kept_save(const char *file, struct ada_symtab *st, unsigned hooks);

/* A table with no ELF file behind it (addresses in no loaded module): it
 * holds only the synthetic entries added to it. NULL if out of memory. */
struct ada_symtab *ada_symtab_empty(const char *name);

/* Index (0-based into funcs) of the function whose [addr, addr+size) holds
 * vaddr; for size-0 symbols only an exact match. -1 if none. Binary search. */
long ada_symtab_lookup(const struct ada_symtab *st, uint64_t vaddr);

/* Registers vaddr as a synthetic entry named `name` (copied; demangled like
 * a symbol), or "<module basename>+0x<vaddr hex>" when name is NULL. Unnamed,
 * only if ada_symtab_lookup finds no entry holding vaddr; named, if no entry
 * starts at vaddr: a function's real symbol keeps its name, but a named entry
 * point inside another symbol's range gets an entry of its own. An address
 * added several times keeps the first name it was given, a name rather than
 * none. */
void ada_symtab_add_synthetic(struct ada_symtab *st, uint64_t vaddr, const char *name);

/* Merges the synthetic entries into funcs in address order, and fills file and
 * line from DWARF (when present) for the entries listed in `want` (0-based
 * indices into the *final* table are not known yet, so `want` is a set of
 * vaddrs; NULL = all entries). After this, indices are final. Returns 0 or a
 * negative errno (DWARF problems are not errors: the fields stay empty). */
int ada_symtab_finalize(struct ada_symtab *st, const uint64_t *want, size_t nwant);

/* 64-bit FNV-1a over (addr, size, name) of every entry in final order, as 16
 * lowercase hex digits + NUL: the manifest's function_table_hash. */
void ada_symtab_hash(const struct ada_symtab *st, char out[17]);

/* Reads only the GNU build-id of an ELF file (for mismatch checks without a
 * full load). Returns its length (0 = none) or a negative errno. */
int ada_elf_build_id(const char *path, uint8_t out[32]);

void ada_symtab_free(struct ada_symtab *st);

/* dwarf_lines.c: a function's source path from its file entry and its
 * compilation unit's directory (NULL: none), malloc'ed: file where it is
 * absolute or already begins with a relative dir (glibc's "./malloc" and
 * "./malloc/malloc.c"), else dir/file; "." segments and doubled slashes
 * dropped ("malloc/malloc.c"). NULL if out of memory. */
char *ada_source_path(const char *dir, const char *file);

/* The instrumentation modes a module was built with (adacc --ada-mode), as
 * read from the hooks it imports; 0 if none (not built with adacc). */
enum { ADA_HOOK_CYG = 1, ADA_HOOK_FENTRY = 2, ADA_HOOK_MCOUNT = 4, ADA_HOOK_STATIC = 8,
       ADA_HOOK_PATCHABLE = 16 /* a __patchable_function_entries section */ };
unsigned ada_elf_hooks(const char *path);

#endif
