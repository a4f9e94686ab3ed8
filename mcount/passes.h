/* passes.h - mcount/'s passes over loaded code: patchable mode's entries
 * (patch.c) and the PLT/GOT hooks (dynhook.c), which passes.c hands to the
 * runtime (ada_passes). */
#ifndef ADA_PASSES_H
#define ADA_PASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ada_internal.h"

/* Hooks the PLT/GOT slots of every loaded module (ADA_DYNHOOK=on). */
ADA_HIDDEN void ada_dynhook_start(void);
/* Patchable mode (mcount/patch.c): patches the chosen functions of every
 * module not patched yet (start-up, after a dlopen); safe while threads run. */
ADA_HIDDEN void ada_patch_modules(void);
/* Whether the module was built in patchable mode (patched by a pass, or
 * loaded since the last and its file says so): its functions record
 * themselves, like a module that calls the other modes' hooks (the dynamic
 * hooks leave calls into it alone). */
struct dl_phdr_info;
ADA_HIDDEN bool ada_patch_module_is(const struct dl_phdr_info *info);
/* The writer's, each pass: patched entries back to NOPs while recording is
 * off (ada_disable, ADA_TOGGLE_SIGNAL), the jumps again when it is on. */
ADA_HIDDEN void ada_patch_sync(void);
/* ada-ctl's filter / notrace (recorder/control.c): the plain patched
 * functions become those filter chooses less notrace's (NULL: that list
 * unchanged), patched and unpatched at once. Returns how many functions are
 * patched now, or -1 with one line in err (a glob matching no function:
 * nothing changed; no patchable module). */
ADA_HIDDEN int ada_patch_refilter(const char *filter, const char *notrace, char *err,
				  size_t errlen);
/* In a fork child: the records of the hooked functions into its new meta. */
ADA_HIDDEN void ada_dynhook_after_fork(void);

#endif
