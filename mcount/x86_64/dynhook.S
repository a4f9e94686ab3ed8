/* dynhook.S (x86_64) - ada_dynhook_entry: where hooked PLT/GOT calls go.
 *
 * mcount/dynhook.c points a module's GOT slot at a 16-byte stub of its own
 * (one per target function, outside every module):
 *
 *   lea   cell(%rip), %r11      # the target's struct ada_dyn_cell
 *   jmp   *entry(%rip)          # here
 *
 * r11 is free at a call: the psABI reserves it as a scratch register that
 * PLT code may clobber. So when this runs:
 *   0(%rsp)   the caller's return address: the slot to hijack
 *   rdi..r9, xmm0-7, rax (%al), r10: the call's arguments, untouched
 *   rsp       8 mod 16 as after any call (realigned anyway: asm.h)
 *
 * The common case takes fentry.S's fast path (fast.h's FAST_ENTRY),
 * the slot hijacked with the common trampoline (dlopen's and dlclose's have
 * their own: C). Otherwise the C side records the CALL, hijacks the slot and
 * returns the function's address; either way every register but r11 is
 * restored, and the jump leaves the stack exactly as the caller's call made
 * it:
 *
 *   uintptr_t ada_dynhook_enter(struct ada_entry_regs *regs, uintptr_t *slot,
 *                               const struct ada_dyn_cell *cell);
 */
#include "arch.h"
#include "asm.h"
#include "fast.h"

	HOOKS_TEXT
LOCAL(ada_dynhook_entry)
	.cfi_startproc
	FAST_ENTRY dyn, -8

	/* The C path. */
	ALIGNED_ENTER ADA_ENTRY_REGS_SIZE	/* rbx = entry rsp - 8 */
	SAVE_ENTRY_REGS
	mov	%rbp, ADA_REG_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	8(%rbx), %rsi			/* slot = the caller's return address */
	mov	%r11, %rdx			/* cell */
	call	ada_dynhook_enter
	mov	%rax, ADA_REG_R11(%rsp)		/* restored into r11: the target */

	RESTORE_ENTRY_REGS
	ALIGNED_LEAVE
	jmp	*%r11
	.cfi_endproc
END(ada_dynhook_entry)

	.section .note.GNU-stack, "", @progbits
