/* mcount.S (x86_64) - mcount, called by functions built with -pg (no -mfentry).
 *
 * The call comes after the prologue has set up the frame pointer:
 *
 *   compute:
 *     push  %rbp
 *     mov   %rsp, %rbp
 *     call  mcount            # somewhere in compute, before its body
 *     ...
 *
 * So when mcount runs:
 *   0(%rsp)   the return address into compute: an address inside compute,
 *             which is how compute is named (the symbolizer finds the
 *             function that contains it)
 *   8(%rbp)   compute's own return address: the slot to hijack
 *   argument registers as for __fentry__ (fentry.S); -pg keeps them intact
 *   rsp       any alignment (see fentry.S); realigned here
 *
 * Everything else is as in fentry.S.
 *
 *   void ada_mcount_enter(struct ada_entry_regs *regs, uintptr_t *slot,
 *                         uintptr_t site);
 */
#include "arch.h"
#include "asm.h"

	HOOKS_TEXT
GLOBAL(mcount)
	.cfi_startproc
	ALIGNED_ENTER ADA_ENTRY_REGS_SIZE	/* rbx = entry rsp */
	SAVE_ENTRY_REGS
	mov	0(%rbp), %rax			/* compute's caller's frame pointer */
	mov	%rax, ADA_REG_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	8(%rbp), %rsi			/* slot = &compute's return address */
	mov	8(%rbx), %rdx			/* fn = the call site inside compute */
	call	ada_mcount_enter

	RESTORE_ENTRY_REGS
	ALIGNED_LEAVE
	ret
	.cfi_endproc
END(mcount)

	.section .note.GNU-stack, "", @progbits
