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
 * The C side (mcount/hijack.c) may call into libc on its slow paths, which
 * may use any caller-saved register, so all of them are saved: the argument
 * registers, rax, r10, r11 and xmm0-7, in the layout of struct
 * ada_entry_regs (arch.h). rbp is saved too, as the caller's frame pointer
 * for the detail record. Callee-saved registers are preserved by C.
 *
 *   void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot,
 *                         uintptr_t fn);
 */
#include "arch.h"
#include "asm.h"

	.text
GLOBAL(__fentry__)
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
	mov	%rbp, ADA_REG_RBP(%rsp)
	movaps	%xmm0, ADA_REG_XMM0+0*16(%rsp)
	movaps	%xmm1, ADA_REG_XMM0+1*16(%rsp)
	movaps	%xmm2, ADA_REG_XMM0+2*16(%rsp)
	movaps	%xmm3, ADA_REG_XMM0+3*16(%rsp)
	movaps	%xmm4, ADA_REG_XMM0+4*16(%rsp)
	movaps	%xmm5, ADA_REG_XMM0+5*16(%rsp)
	movaps	%xmm6, ADA_REG_XMM0+6*16(%rsp)
	movaps	%xmm7, ADA_REG_XMM0+7*16(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	16(%rbx), %rsi			/* slot = &compute's return address */
	mov	8(%rbx), %rdx			/* fn = (compute + 5) - 5 */
	sub	$ADA_FENTRY_CALL_SIZE, %rdx
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
END(__fentry__)

	.section .note.GNU-stack, "", @progbits
