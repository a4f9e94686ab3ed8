/* asm.h (x86_64) - symbol macros for the trampolines. */
#ifndef ADA_ASM_H
#define ADA_ASM_H

/* A function symbol with its type and size; GLOBAL ones are what the
 * compiler's instrumentation calls, LOCAL ones stay inside libada. */
#define GLOBAL(name)              \
	.globl name;              \
	.type name, @function;    \
	.p2align 4;               \
	name:

#define LOCAL(name)               \
	.globl name;              \
	.hidden name;             \
	.type name, @function;    \
	.p2align 4;               \
	name:

#define END(name) .size name, .- name

/* The hooks' code goes in a section of its own, ada_hooks, whose bounds the
 * linker gives as __start_ada_hooks and __stop_ada_hooks: a counter sample
 * that interrupts a hook outside its guarded part is then known for ada's
 * own work, not the program's (runtime/counters.c). */
#define HOOKS_TEXT .section ada_hooks, "ax", @progbits

/* A trampoline cannot assume rsp is 16-byte aligned (gcc calls local leaf
 * functions with rsp 8 mod 16): keep the entry rsp in callee-saved rbx,
 * align, and make room for `size` bytes of saved registers at (%rsp). The
 * CFA follows rbx meanwhile. ALIGNED_LEAVE undoes it. */
.macro ALIGNED_ENTER size
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	mov	%rsp, %rbx
	.cfi_def_cfa_register rbx
	and	$-16, %rsp
	sub	$\size, %rsp
.endm

.macro ALIGNED_LEAVE
	mov	%rbx, %rsp
	.cfi_def_cfa_register rsp
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbx
.endm

/* The entry trampolines' register save area: struct ada_entry_regs (arch.h)
 * at (%rsp), which must be 16-byte aligned for movaps. rbp is saved by the
 * caller of the macro: where the caller's frame pointer is differs. The C
 * side takes the detail record's FP registers from the xmm saves
 * (arch.h's ada_arch_call_fregs), as RETURN_THROUGH_C's for a return. */
.macro SAVE_ENTRY_REGS
	mov	%rdi, ADA_REG_RDI(%rsp)
	mov	%rsi, ADA_REG_RSI(%rsp)
	mov	%rdx, ADA_REG_RDX(%rsp)
	mov	%rcx, ADA_REG_RCX(%rsp)
	mov	%r8, ADA_REG_R8(%rsp)
	mov	%r9, ADA_REG_R9(%rsp)
	mov	%rax, ADA_REG_RAX(%rsp)
	mov	%r10, ADA_REG_R10(%rsp)
	mov	%r11, ADA_REG_R11(%rsp)
	movaps	%xmm0, ADA_REG_XMM0+0*16(%rsp)
	movaps	%xmm1, ADA_REG_XMM0+1*16(%rsp)
	movaps	%xmm2, ADA_REG_XMM0+2*16(%rsp)
	movaps	%xmm3, ADA_REG_XMM0+3*16(%rsp)
	movaps	%xmm4, ADA_REG_XMM0+4*16(%rsp)
	movaps	%xmm5, ADA_REG_XMM0+5*16(%rsp)
	movaps	%xmm6, ADA_REG_XMM0+6*16(%rsp)
	movaps	%xmm7, ADA_REG_XMM0+7*16(%rsp)
.endm

.macro RESTORE_ENTRY_REGS
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
.endm

/* A return's C path: the return registers saved as struct ada_return_regs
 * (arch.h), rbp with them, handler(regs, slot = rsp + \slot on entry),
 * the registers restored; then \how: jump, to the address the handler
 * returned (the return trampolines), or ret (__return__). */
.macro RETURN_THROUGH_C handler, slot, how
	ALIGNED_ENTER ADA_RETURN_REGS_SIZE	/* rbx = entry rsp */
	mov	%rax, ADA_RET_RAX(%rsp)
	mov	%rdx, ADA_RET_RDX(%rsp)
	movaps	%xmm0, ADA_RET_XMM0(%rsp)
	movaps	%xmm1, ADA_RET_XMM1(%rsp)
	mov	%rbp, ADA_RET_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	\slot(%rbx), %rsi		/* the slot (rbx's save is where
						 * the entry rsp pointed) */
	call	\handler
.ifc \how,jump
	mov	%rax, %r11			/* the real return address */
.endif

	movaps	ADA_RET_XMM1(%rsp), %xmm1
	movaps	ADA_RET_XMM0(%rsp), %xmm0
	mov	ADA_RET_RDX(%rsp), %rdx
	mov	ADA_RET_RAX(%rsp), %rax
	ALIGNED_LEAVE
.ifc \how,jump
	jmp	*%r11
.else
	ret
.endif
.endm

/* An fentry hook's C path (after its fast path fell through), and
 * __return__'s before a tail call: every caller-saved register saved as
 * struct ada_entry_regs (arch.h), rbp with them, then handler(regs, slot =
 * &the function's return address, ret = just after the hook's call in the
 * function), everything restored. */
.macro FENTRY_THROUGH_C handler
	ALIGNED_ENTER ADA_ENTRY_REGS_SIZE	/* rbx = entry rsp */
	SAVE_ENTRY_REGS
	mov	%rbp, ADA_REG_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	16(%rbx), %rsi			/* slot */
	mov	8(%rbx), %rdx			/* ret */
	call	\handler

	RESTORE_ENTRY_REGS
	ALIGNED_LEAVE
	ret
.endm

#endif
