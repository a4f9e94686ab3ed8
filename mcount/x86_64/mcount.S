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
 * Everything else is as in fentry.S, whose C entry point is shared.
 */
#include "arch.h"
#include "asm.h"

	.text
GLOBAL(mcount)
	.cfi_startproc
	push	%rbx				/* callee-saved: holds the entry rsp */
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	mov	%rsp, %rbx
	.cfi_def_cfa_register rbx
	and	$-16, %rsp
	sub	$ADA_ENTRY_REGS_SIZE, %rsp
	mov	%rdi, ADA_REG_RDI(%rsp)
	mov	%rsi, ADA_REG_RSI(%rsp)
	mov	%rdx, ADA_REG_RDX(%rsp)
	mov	%rcx, ADA_REG_RCX(%rsp)
	mov	%r8, ADA_REG_R8(%rsp)
	mov	%r9, ADA_REG_R9(%rsp)
	mov	%rax, ADA_REG_RAX(%rsp)
	mov	%r10, ADA_REG_R10(%rsp)
	mov	%r11, ADA_REG_R11(%rsp)
	mov	0(%rbp), %rax			/* compute's caller's frame pointer */
	mov	%rax, ADA_REG_RBP(%rsp)
	movaps	%xmm0, ADA_REG_XMM0+0*16(%rsp)
	movaps	%xmm1, ADA_REG_XMM0+1*16(%rsp)
	movaps	%xmm2, ADA_REG_XMM0+2*16(%rsp)
	movaps	%xmm3, ADA_REG_XMM0+3*16(%rsp)
	movaps	%xmm4, ADA_REG_XMM0+4*16(%rsp)
	movaps	%xmm5, ADA_REG_XMM0+5*16(%rsp)
	movaps	%xmm6, ADA_REG_XMM0+6*16(%rsp)
	movaps	%xmm7, ADA_REG_XMM0+7*16(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	8(%rbp), %rsi			/* slot = &compute's return address */
	mov	8(%rbx), %rdx			/* fn = the call site inside compute */
	call	ada_fentry_enter

	movaps	ADA_REG_XMM0+0*16(%rsp), %xmm0
	movaps	ADA_REG_XMM0+1*16(%rsp), %xmm1
	movaps	ADA_REG_XMM0+2*16(%rsp), %xmm2
	movaps	ADA_REG_XMM0+3*16(%rsp), %xmm3
	movaps	ADA_REG_XMM0+4*16(%rsp), %xmm4
	movaps	ADA_REG_XMM0+5*16(%rsp), %xmm5
	movaps	ADA_REG_XMM0+6*16(%rsp), %xmm6
	movaps	ADA_REG_XMM0+7*16(%rsp), %xmm7
	mov	ADA_REG_R11(%rsp), %r11
	mov	ADA_REG_R10(%rsp), %r10
	mov	ADA_REG_RAX(%rsp), %rax
	mov	ADA_REG_R9(%rsp), %r9
	mov	ADA_REG_R8(%rsp), %r8
	mov	ADA_REG_RCX(%rsp), %rcx
	mov	ADA_REG_RDX(%rsp), %rdx
	mov	ADA_REG_RSI(%rsp), %rsi
	mov	ADA_REG_RDI(%rsp), %rdi
	mov	%rbx, %rsp
	.cfi_def_cfa_register rsp
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbx
	ret
	.cfi_endproc
END(mcount)

	.section .note.GNU-stack, "", @progbits
