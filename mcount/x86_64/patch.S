/* patch.S (x86_64) - ada_patch_entry: where a patched function's entry
 * goes (mcount/patch.c).
 *
 * The function begins, once patched,
 *
 *   A:    call stub          # stub: jmp *ada_patch_entry
 *   A+5:  jmp A              # the function's entry
 *   A+7:  ...                # its body
 *
 * so when this runs, as when __fentry__ does:
 *   0(%rsp)   A+5: the function's entry, which names it
 *   8(%rsp)   the function's return address: the slot to hijack
 *   rdi..r9, xmm0-7, rax (%al): its arguments, untouched
 * It records the CALL on the fentry path and returns to A+7, past the
 * jump that brought the function here.
 */
#include "arch.h"
#include "asm.h"

	.text
LOCAL(ada_patch_entry)
	.cfi_startproc
	ALIGNED_ENTER ADA_ENTRY_REGS_SIZE	/* rbx = entry rsp - 8 */
	SAVE_ENTRY_REGS
	mov	%rbp, ADA_REG_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	16(%rbx), %rsi			/* slot = the function's return address */
	mov	8(%rbx), %rdx			/* fn = its entry */
	call	ada_patch_enter

	RESTORE_ENTRY_REGS
	ALIGNED_LEAVE
	addq	$2, (%rsp)			/* past the jump at the entry */
	ret
	.cfi_endproc
END(ada_patch_entry)

	.section .note.GNU-stack, "", @progbits
