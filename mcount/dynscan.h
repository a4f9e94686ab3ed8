/* dynscan.h - a loaded module's PLT/GOT slots, read from its dynamic
 * section in memory (dynscan.c). */
#ifndef ADA_DYNSCAN_H
#define ADA_DYNSCAN_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ada_dyn_module {
	uintptr_t bias;
	uintptr_t relro_lo, relro_hi; /* pages the loader made read-only, or 0 */
	const ElfW(Dyn) *dynamic;
	const ElfW(Sym) *symtab;
	const char *strtab;
	size_t strsz;
	const ElfW(Rela) *jmprel;     /* JUMP_SLOT relocations (the PLT) */
	size_t njmprel;
	const ElfW(Rela) *rela;       /* other relocations, GLOB_DAT among them */
	size_t nrela;
	const ElfW(Half) *versym;
	const ElfW(Verneed) *verneed;
	size_t nverneed;
	bool symbolic;                /* DT_SYMBOLIC / DF_SYMBOLIC: binds to itself first */
	/* GLOB_DAT slots that code calls through (call/jmp *slot(%rip)): one
	 * byte per 8-byte slot from called_lo, or NULL (ada_dyn_find_calls) */
	uint8_t *called;
	uintptr_t called_lo, called_hi;
	bool exec;                    /* ET_EXEC: a non-PIE executable */
};

/* One slot to hook: a GOT entry a call goes through. */
struct ada_dyn_slot {
	uintptr_t *got;
	const char *name;     /* the symbol, in the module's .dynstr */
	const char *version;  /* the version it needs (GLIBC_2.2.5), or NULL */
	uintptr_t own;        /* bias + st_value: the module's own definition, or
			       * an undefined symbol's canonical PLT address (non-PIE
			       * executable), or 0 */
	bool undefined;
};

/* Fills m from a dl_iterate_phdr entry. -1 if the module has no dynamic
 * section, or one this code cannot read. */
int ada_dyn_parse(const struct dl_phdr_info *info, struct ada_dyn_module *m);

/* Finds the GLOB_DAT slots of functions that the module's code calls or
 * jumps through (-fno-plt code: `call *slot(%rip)`), by scanning its
 * executable segments for those instructions. A GLOB_DAT slot nobody calls
 * through holds a function's address for the program to keep or compare:
 * it is not hooked, so that address stays the function's own. */
void ada_dyn_find_calls(const struct dl_phdr_info *info, struct ada_dyn_module *m, bool cached);
/* The scan's result kept per build-id (dyncache.c; cached: at start-up
 * only, when the program may still open a file of ada's): load fills
 * m->called (allocated, zero) and says whether it found it. */
bool ada_dyn_calls_load(const struct dl_phdr_info *info, struct ada_dyn_module *m);
void ada_dyn_calls_save(const struct dl_phdr_info *info, const struct ada_dyn_module *m);
void ada_dyn_release(struct ada_dyn_module *m);

/* Whether a relocation of the module refers to one of the n undefined
 * symbols named (the instrumentation hooks: a module built with adacc). */
bool ada_dyn_imports(const struct ada_dyn_module *m, const char *const *names, size_t n);

/* The module's hookable slots one by one: *cursor starts at 0. JUMP_SLOT
 * relocations, then the GLOB_DAT ones of functions that code calls through
 * (after ada_dyn_find_calls). false at the end. */
bool ada_dyn_next_slot(const struct ada_dyn_module *m, size_t *cursor, struct ada_dyn_slot *out);

#endif
