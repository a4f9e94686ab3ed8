/* hijack.c - fentry/mcount mode: record calls, and see returns by hijacking.
 *
 * The entry trampolines (mcount/<arch>/fentry.S, mcount.S) call
 * ada_fentry_enter with the function's saved argument registers and the
 * address of its return-address slot. It pushes the frame on the thread's
 * shadow stack with the real return address and the slot's address, and
 * puts ada_return_trampoline in the slot, so that the function's return
 * comes back here (ada_fentry_return) and then goes where it should (the
 * kernel's function graph tracer does the same).
 *
 * The slot's address identifies a frame exactly: a frame below it that is
 * still on the shadow stack when a function returns was abandoned (longjmp),
 * and is closed with EXCEPTION; a tail call leaves two frames on one slot,
 * and both return together. A frame the shadow stack has no room for is not
 * hijacked, so its return could not be seen: it is not recorded (counted).
 *
 * Architecture-neutral: the register layouts are in mcount/<arch>/arch.h.
 * Built with -mgeneral-regs-only, so the return path cannot touch the x87 or
 * vector registers that carry return values.
 */
#include <stddef.h>
#include <stdlib.h>

#include "ada_internal.h"

_Static_assert(offsetof(struct ada_entry_regs, rdi) == ADA_REG_RDI, "rdi");
_Static_assert(offsetof(struct ada_entry_regs, r9) == ADA_REG_R9, "r9");
_Static_assert(offsetof(struct ada_entry_regs, rax) == ADA_REG_RAX, "rax");
_Static_assert(offsetof(struct ada_entry_regs, r11) == ADA_REG_R11, "r11");
_Static_assert(offsetof(struct ada_entry_regs, rbp) == ADA_REG_RBP, "rbp");
_Static_assert(offsetof(struct ada_entry_regs, xmm) == ADA_REG_XMM0, "xmm");
_Static_assert(sizeof(struct ada_entry_regs) == ADA_ENTRY_REGS_SIZE, "entry regs");
_Static_assert(offsetof(struct ada_return_regs, rdx) == ADA_RET_RDX, "ret rdx");
_Static_assert(offsetof(struct ada_return_regs, xmm0) == ADA_RET_XMM0, "ret xmm0");
_Static_assert(offsetof(struct ada_return_regs, xmm1) == ADA_RET_XMM1, "ret xmm1");
_Static_assert(sizeof(struct ada_return_regs) == ADA_RETURN_REGS_SIZE, "return regs");

ADA_HIDDEN void ada_return_trampoline(void);
ADA_HIDDEN void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn);
ADA_HIDDEN uintptr_t ada_fentry_return(struct ada_return_regs *regs, uintptr_t *slot);

#define TRAMPOLINE ((uintptr_t)ada_return_trampoline)

/* A new frame whose slot is at or above the innermost frame's: the frames
 * there were abandoned (longjmp). (The caller has ruled out a tail call: the
 * same slot, already hijacked.) Unlike cyg mode, an equal position is never
 * an inlined child: inlined functions have no fentry call. On another stack
 * (sigaltstack) the new frame simply nests. Returns the depth to nest under. */
static uint32_t entry_resync_slow(struct ada_thread *td, uintptr_t sp)
{
	if (!ada_on_thread_stack(td, sp) || !ada_on_thread_stack(td, td->shadow[td->depth - 1].sp))
		return td->depth;
	while (td->depth > 0 && td->depth <= td->shadow_cap && td->shadow[td->depth - 1].sp <= sp)
		ada_close_abandoned(td);
	return td->depth;
}

void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot, uintptr_t fn)
{
	struct ada_thread *td = ada_hook_begin();
	uintptr_t sp = (uintptr_t)slot, ret;
	uint32_t depth;

	(void)regs;
	if (!td)
		return;
	ret = *slot;
	depth = td->depth + 1;
	if (unlikely(depth > 1 && depth - 1 <= td->shadow_cap && sp >= td->shadow[depth - 2].sp) &&
	    !(sp == td->shadow[depth - 2].sp && ret == TRAMPOLINE))
		depth = entry_resync_slow(td, sp) + 1;
	if (unlikely(depth > td->shadow_cap)) {
		/* No room to keep its return address: untouched, unrecorded. */
		td->dropped[ADA_DROP_MAX_DEPTH] += 2;
		goto out;
	}
	td->depth = depth;
	td->shadow[depth - 1] = (struct ada_frame){ fn, ret, sp };
	*slot = TRAMPOLINE;
	ada_record_call(td, depth, fn);
out:
	ada_hook_end(td);
}

/* Nowhere to return to: the shadow stack has no frame for this slot. Only a
 * bug can get here; going on would jump to a wrong address. */
static void __attribute__((noreturn, cold)) lost(uintptr_t *slot)
{
	ada_warn("internal error: a function returned through slot %p, which holds no traced "
		 "frame; aborting rather than jump to a wrong address", (void *)slot);
	abort();
}

uintptr_t ada_fentry_return(struct ada_return_regs *regs, uintptr_t *slot)
{
	struct ada_thread *td = ada_td;
	uintptr_t sp = (uintptr_t)slot, real = 0;
	uint32_t busy;

	(void)regs;
	if (unlikely(!td))
		lost(slot);
	/* Returns are never skipped, even inside a hook (a signal handler's
	 * traced function returning): the address must be found. */
	busy = td->busy;
	td->busy = 1;
	__asm__ volatile("" ::: "memory");
	while (td->depth > 0 && td->depth <= td->shadow_cap && td->shadow[td->depth - 1].sp < sp)
		ada_close_abandoned(td);
	while (td->depth > 0 && td->depth <= td->shadow_cap && td->shadow[td->depth - 1].sp == sp) {
		const struct ada_frame *f = &td->shadow[td->depth - 1];

		if (f->site != TRAMPOLINE)
			real = f->site; /* the outermost frame of a tail-call chain */
		ada_record_return(td, td->depth, f->fn);
		td->depth--;
	}
	if (unlikely(!real))
		lost(slot);
	__asm__ volatile("" ::: "memory");
	td->busy = busy;
	return real;
}
