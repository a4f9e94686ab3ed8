/* patch.S (x86_64) - where a patched function's entry goes (mcount/patch.c).
 *
 * The function begins, once patched,
 *
 *   A:    call stub          # stub: jmp *<one of the entries below>
 *   A+5:  jmp A              # the function's entry
 *   A+7:  ...                # its body
 *
 * so when an entry runs, as when __fentry__ does:
 *   0(%rsp)   A+5: the function's entry, which names it
 *   8(%rsp)   the function's return address: the slot to hijack
 *   rdi..r9, xmm0-7, rax (%al): its arguments, untouched
 * It records the CALL on the fentry path and returns to A+7, past the
 * jump that brought the function here. One entry per kind of site (a
 * plain function, an ADA_GRAPH function, a trace_on or trace_off trigger):
 * the stub a site calls says which, so no hook looks anything up.
 */
#include "arch.h"
#include "asm.h"

.macro PATCH_ENTRY name, handler
LOCAL(\name)
	.cfi_startproc
	ALIGNED_ENTER ADA_ENTRY_REGS_SIZE	/* rbx = entry rsp - 8 */
	SAVE_ENTRY_REGS
	mov	%rbp, ADA_REG_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	16(%rbx), %rsi			/* slot = the function's return address */
	mov	8(%rbx), %rdx			/* fn = its entry */
	call	\handler

	RESTORE_ENTRY_REGS
	ALIGNED_LEAVE
	addq	$2, (%rsp)			/* past the jump at the entry */
	ret
	.cfi_endproc
END(\name)
.endm

	HOOKS_TEXT
PATCH_ENTRY ada_patch_entry, ada_patch_enter
PATCH_ENTRY ada_patch_graph_entry, ada_patch_graph_enter
PATCH_ENTRY ada_patch_on_entry, ada_patch_on_enter
PATCH_ENTRY ada_patch_off_entry, ada_patch_off_enter

	.section .note.GNU-stack, "", @progbits
