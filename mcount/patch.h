/* patch.h - patchable mode's code writing (patch_write.c), shared with the
 * choice of sites (patch.c). */
#ifndef ADA_PATCH_H
#define ADA_PATCH_H

#include <link.h>
#include <stdbool.h>
#include <stdint.h>

#include "ada_internal.h"

#define PATCH_PAD 5   /* NOP bytes before the entry: the call */
#define PATCH_STUB 16 /* bytes between a module's stubs */

/* What a site is patched as; each kind has its stub and entry (patch.S). */
enum { PATCH_NONE = 0, PATCH_PLAIN, PATCH_GRAPH, PATCH_TRACE_ON, PATCH_TRACE_OFF, PATCH_KINDS };

/* Code pages of one module opened for writing, inside an ada_modules_each
 * callback for it (which keeps dlclose from unmapping it meanwhile). */
struct patch_window {
	const struct dl_phdr_info *info;
	uintptr_t lo, hi; /* open: [lo, hi) */
};

/* A page of stubs within call reach of [lo, hi), NULL if none. */
ADA_HIDDEN uint8_t *ada_patch_stubs(uintptr_t lo, uintptr_t hi);
/* Patches site a as kind (its call, then its entry: the jump, or a 2-byte
 * NOP while recording is off); false if a holds neither the compiler's
 * NOPs nor our call to that stub. */
ADA_HIDDEN bool ada_patch_site(uint8_t *a, const uint8_t *stubs, unsigned kind, bool jump,
			       struct patch_window *w);
/* A patched site's entry: the jump, or the 2-byte NOP. */
ADA_HIDDEN void ada_patch_entry_set(uint8_t *a, bool jump, struct patch_window *w);
ADA_HIDDEN void ada_patch_window_close(struct patch_window *w);

#endif
