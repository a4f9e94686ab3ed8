/* patch.h - patchable mode's code writing (patch_write.c), shared with the
 * choice of sites (patch.c). */
#ifndef ADA_PATCH_H
#define ADA_PATCH_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ada_internal.h"
#include "raw_format.h"
#include "shared.h"

#define PATCH_PAD 5   /* NOP bytes before the entry: the call */
#define PATCH_STUB 16 /* bytes between a module's stubs */

/* What a site is patched as; each kind has its stub and entry (patch.S). */
enum { PATCH_NONE = 0, PATCH_PLAIN, PATCH_GRAPH, PATCH_TRACE_ON, PATCH_TRACE_OFF, PATCH_KINDS };

#define GLOBS_MAX 64

/* A comma list of name globs, and how many functions each matched. */
struct globs {
	const char *var;   /* the variable it came from, for messages */
	char src[1024];    /* as given */
	char buf[1024];    /* split */
	const char *g[GLOBS_MAX];
	size_t matched[GLOBS_MAX];
	unsigned n;
};

/* Which functions are patched, as what (patch_choose.c). */
struct patch_choice {
	struct globs filter, notrace, graph, trace_on, trace_off;
};
/* gl holds list's globs (var names it in messages), none matched yet. */
ADA_HIDDEN void ada_globs_set(struct globs *gl, const char *var, const char *list);
/* The first glob of gl that matched nothing, or NULL. */
ADA_HIDDEN const char *ada_globs_unmatched(const struct globs *gl);
/* Each of the n sites' (sorted, of the module at path, bias) kind into out[]. */
ADA_HIDDEN void ada_patch_kinds(struct patch_choice *c, const char *path, uintptr_t bias,
				const uintptr_t *sites, size_t n, uint8_t *out);
/* Whether the module is one whose file is never worth opening (libada.so,
 * the libraries it calls itself, the vDSO); whether the file at path has a
 * site table (its header in *sh). patch_choose.c. */
ADA_HIDDEN bool ada_patch_never(const struct dl_phdr_info *info);
ADA_HIDDEN bool ada_patch_site_table(const char *path, Elf64_Shdr *sh);
/* qsort's order of addresses (a struct's first field). */
ADA_HIDDEN int ada_patch_by_addr(const void *a, const void *b);

/* Code pages of one module opened for writing, inside an ada_modules_each
 * callback for it (which keeps dlclose from unmapping it meanwhile). */
struct patch_window {
	const struct dl_phdr_info *info;
	uintptr_t lo, hi; /* open: [lo, hi) */
};

/* Whose code is read and written: this process's (fd -1), or, in a
 * recorder, the program's through fd, its /proc/<pid>/mem. */
ADA_HIDDEN void ada_patch_remote(int fd);
ADA_HIDDEN bool ada_patch_is_remote(void);
ADA_HIDDEN bool ada_code_read(uintptr_t a, void *buf, size_t len);
/* A page of stubs within call reach of [lo, hi), NULL if none (or none
 * can be made: a recorder's). Stub k is at PATCH_STUB * (k - PATCH_PLAIN). */
ADA_HIDDEN uint8_t *ada_patch_stubs(uintptr_t lo, uintptr_t hi);
/* The kind's entry in patch.S, which a stub jumps to. */
ADA_HIDDEN uintptr_t ada_patch_entry_of(unsigned kind);
/* The program, at its start-up pass: its entries into the shared section.
 * A recorder: each kind's entry in the program (patch_share.c). */
ADA_HIDDEN void ada_patch_entries_share(void);
ADA_HIDDEN uintptr_t ada_patch_entry_program(unsigned kind);
/* Patches site a with a call to target (its kind's stub or entry), then its
 * entry: the jump, or a 2-byte NOP while recording is off; false if a holds
 * neither the compiler's NOPs nor that call. */
ADA_HIDDEN bool ada_patch_site(uint8_t *a, uintptr_t target, bool jump, struct patch_window *w);
/* What site a holds: 0 the compiler's NOPs (or anything but our call), 1
 * our call with a NOP entry, 2 our call and the jump to it (*target: where
 * it calls); -1 if it cannot be read. */
ADA_HIDDEN int ada_patch_site_read(uintptr_t a, uintptr_t *target);
/* A patched site's entry: the jump, or the 2-byte NOP. */
ADA_HIDDEN void ada_patch_entry_set(uint8_t *a, bool jump, struct patch_window *w);
ADA_HIDDEN void ada_patch_window_close(struct patch_window *w);

/* ---- shared by the program and its recorder (patch_share.c) ---- */
#define STUB_PAGES_MAX 256
struct patch_shared {
	uint32_t lock;      /* the pid of the process writing code, or 0 */
	uint32_t ready;     /* the program's start-up pass is done */
	uint32_t filter_gen; /* a refilter's: filter and notrace below are new */
	char filter[1024], notrace[1024];
	struct ada_meta_patched stats; /* what process.meta is told */
	/* Each kind's entry in the program's libada, set with ready: a
	 * recorder that is no fork of the program (`ada record`'s) has its
	 * own elsewhere. */
	uint64_t entry[PATCH_KINDS];
	uint32_t npages;
	struct {
		uint64_t base;  /* a module the program patched */
		uint64_t stubs; /* its stub page, 0 if none */
		uint64_t nopped; /* its entries left NOPs (recording was off) */
	} pages[STUB_PAGES_MAX];
};
ADA_SHARED_TYPE(ada_patch_shared_area, struct patch_shared);
ADA_HIDDEN extern union ada_patch_shared_area ada_patch_shared_area;
#define PS (ada_patch_shared_area.v)
/* The program's passes and its recorder's take turns at the code (a
 * process without a recorder takes no lock). False: a recorder whose
 * program ended. */
ADA_HIDDEN bool ada_code_lock(void);
ADA_HIDDEN void ada_code_unlock(void);
/* The program's modules and their stub pages, for its recorder: whether
 * the program patched the module at base, its page (0: none) and whether
 * it left the entries NOPs; noted by the program; forgotten when it is gone,
 * unless another module took its base in the same pass (its own page). */
ADA_HIDDEN bool ada_page_find(uintptr_t base, uintptr_t *stubs, bool *nopped);
ADA_HIDDEN void ada_page_note(uintptr_t base, uintptr_t stubs, bool nopped);
ADA_HIDDEN void ada_page_forget(uintptr_t base, uintptr_t stubs);

#endif
