/* fentry.S (x86_64) - __fentry__, called by functions built with -pg -mfentry.
 *
 * An instrumented function starts with the call, before its prologue:
 *
 *   compute:
 *     call  __fentry__        # 5 bytes; the first instruction
 *     push  %rbp              # the function proper
 *     ...
 *
 * So when __fentry__ runs:
 *   0(%rsp)   the return address into compute (compute + 5)
 *   8(%rsp)   compute's own return address, into its caller: the slot the
 *             C side may replace with ada_return_trampoline (the hijack)
 *   rdi, rsi, rdx, rcx, r8, r9, xmm0-7: compute's arguments, untouched
 *   rax       %al = number of vector registers used by a variadic call
 *   r10       static chain of a nested function
 *   rsp       not necessarily 16-byte aligned: gcc calls a function it
 *             knows needs no alignment (a leaf in the same unit) with rsp
 *             8 mod 16, and that function's __fentry__ call inherits it; so
 *             the stack is realigned here, with the entry rsp kept in rbx
 *
 * The function's start is found in C from the call instruction's bytes
 * (ada_arch_fentry_start: gcc emits a 5- or a 6-byte call).
 *
 * The C side (mcount/hijack.c) may call into libc on its slow paths, which
 * may use any caller-saved register, so all of them are saved: the argument
 * registers, rax, r10, r11 and xmm0-7, in the layout of struct
 * ada_entry_regs (arch.h). rbp is saved too, as the caller's frame pointer
 * for the detail record. Callee-saved registers are preserved by C.
 *
 *   void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot,
 *                         uintptr_t ret);
 */
#include "arch.h"
#include "asm.h"

	.text
GLOBAL(__fentry__)
	.cfi_startproc
	ALIGNED_ENTER ADA_ENTRY_REGS_SIZE	/* rbx = entry rsp */
	SAVE_ENTRY_REGS
	mov	%rbp, ADA_REG_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	16(%rbx), %rsi			/* slot = &compute's return address */
	mov	8(%rbx), %rdx			/* ret = just after the call in compute */
	call	ada_fentry_enter

	RESTORE_ENTRY_REGS
	ALIGNED_LEAVE
	ret
	.cfi_endproc
END(__fentry__)

	.section .note.GNU-stack, "", @progbits
