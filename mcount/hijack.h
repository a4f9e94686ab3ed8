/* hijack.h - what the return-hijacking pieces share: the trampolines a
 * hijacked slot may hold, and the cell a dynamic-hook stub hands over.
 *
 * mcount/hijack.c (entries, returns), mcount/unwind.c (exceptions) and
 * mcount/dynhook.c (PLT/GOT hooks) include it.
 */
#ifndef ADA_HIJACK_H
#define ADA_HIJACK_H

#include <stdint.h>

#include "ada_internal.h"

/* Where hijacked functions return (mcount/<arch>/return.S). */
ADA_HIDDEN void ada_return_trampoline(void);
/* The same, for dlopen/dlmopen/dlclose: reached through a stub outside every
 * module (dynhook.c), so that the dynamic linker, which looks at its
 * caller's address, takes the caller to be the executable rather than
 * libada; after the return it hooks the modules that came or went. */
ADA_HIDDEN void ada_return_trampoline_dl(void);
/* That stub's address, 0 until the first dynamic-hook pass maps it. */
ADA_HIDDEN extern uintptr_t ada_dl_return_stub;

/* Whether a return-address slot holding x was hijacked. */
static inline __attribute__((always_inline)) int ada_is_hijacked(uintptr_t x)
{
#if ADA_ARCH_HAS_DYNHOOK
	return x == (uintptr_t)ada_return_trampoline || (x == ada_dl_return_stub && x);
#else
	return x == (uintptr_t)ada_return_trampoline;
#endif
}

/* The address of a hijacked frame's return-address slot: its position on
 * x86_64, kept beside it where the position is elsewhere (aarch64: arch.h). */
static inline __attribute__((always_inline)) uintptr_t ada_frame_slot(const struct ada_frame *f)
{
#if ADA_ARCH_POS_IS_SLOT
	return f->sp;
#else
	return f->slot;
#endif
}

/* A frame's site (struct ada_frame) when its function calls __return__
 * before it returns (gcc's -minstrument-return=call; mcount/<arch>/
 * returncall.S): the real return address (the hijacked frame's, if one
 * tail-called it), marked so that nothing that restores or re-hijacks
 * slots (unwind.c) or keeps the real addresses of abandoned frames touches
 * it. No user address has the bit. */
#define ADA_SITE_NOHIJACK (1ull << ADA_SITE_NOHIJACK_BIT)

static inline __attribute__((always_inline)) bool ada_site_nohijack(uintptr_t site)
{
	return site & ADA_SITE_NOHIJACK;
}

/* What a dynamic-hook stub passes to the entry trampoline (in r11 on
 * x86_64): one cell per distinct target function. Written once, before any
 * slot points at its stub, and never changed afterwards. */
struct ada_dyn_cell {
	uintptr_t fn;   /* the function: what the CALL names */
	uintptr_t ret;  /* what its return-address slot is hijacked with */
	const char *name;
	uintptr_t jump; /* where the call goes: fn, or with ADA_ALLOC a wrapper
			 * that calls fn and records its blocks (alloc.c) */
};

/* C side of the dynamic-hook entry trampoline: records the CALL, hijacks the
 * return, and gives back the address to jump to. */
/* alloc.c: where a hooked call of function fn, named name, jumps: fn, or
 * with ADA_ALLOC the wrapper that records the blocks of the malloc
 * family's function of that name. Called by the hooking pass. */
ADA_HIDDEN uintptr_t ada_alloc_jump(const char *name, uintptr_t fn);

ADA_HIDDEN uintptr_t ada_dynhook_enter(struct ada_entry_regs *regs, uintptr_t *slot,
				       const struct ada_dyn_cell *cell);
ADA_HIDDEN uintptr_t ada_fentry_return(struct ada_return_regs *regs, uintptr_t *slot);
/* ada_fentry_return for dlopen/dlmopen/dlclose, then a hooking pass. */
ADA_HIDDEN uintptr_t ada_dynhook_return(struct ada_return_regs *regs, uintptr_t *slot);

#endif
