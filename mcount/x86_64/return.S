/* return.S (x86_64) - ada_return_trampoline: where hijacked functions return.
 *
 * The entry hook replaced a traced function's return address with this
 * address and kept the real one on the thread's shadow stack. The function's
 * `ret` lands here with:
 *   rax, rdx        integer/pointer return value (rdx: the high half of a
 *                   128-bit or two-register struct return)
 *   xmm0, xmm1      float, double, complex and SSE struct returns
 *   st0, st1        long double returns: nothing here touches x87 (hijack.c
 *                   is built with -mgeneral-regs-only), so they pass through
 *   rsp             the function's return-address slot + 8 (any alignment:
 *                   see fentry.S)
 *   rcx, rsi, rdi, r8-r11, xmm2-15: dead (caller-saved, no return value)
 *
 * The fast path, first, does the common return without C and without a
 * save: a traced thread on its own stack, outside any hook, whose innermost
 * frame is on this slot alone (no tail call, no frame abandoned below it)
 * and recorded, not the thread's outermost, and not the ADA_GRAPH function's
 * own. It does what mcount/hijack.c's ada_fentry_return does then: write the
 * detail record (rax, rdx; the real return address; the stack window from
 * the slot, whose first word is given the real return address back), store
 * the slot and the head, pop the frame, and jump to the real address.
 *
 * Everything else goes through C, which records the RETURN with the return
 * registers and gives back the real return address:
 *
 *   uintptr_t ada_fentry_return(struct ada_return_regs *regs, uintptr_t *slot);
 *
 * (its stack realigned, the entry rsp kept in rbx, which the function has
 * restored to its caller's value). ada_return_trampoline_dl is that C path
 * alone, with ada_dynhook_return, for dlopen and dlclose called through a
 * hooked slot (mcount/dynhook.c).
 *
 * There is no caller frame to describe here: the return address column is
 * undefined, so an unwinder stops at this frame rather than read garbage
 * (exceptions and backtrace() see real return addresses: hijack.c restores
 * them first).
 */
#include "arch.h"
#include "asm.h"
#include "fast.h"

/* The C path: record through handler, then jump where it says. */
.macro RETURN_THROUGH_C handler
	ALIGNED_ENTER ADA_RETURN_REGS_SIZE	/* rbx = entry rsp = the slot */
	mov	%rax, ADA_RET_RAX(%rsp)
	mov	%rdx, ADA_RET_RDX(%rsp)
	movaps	%xmm0, ADA_RET_XMM0(%rsp)
	movaps	%xmm1, ADA_RET_XMM1(%rsp)
	mov	%rbp, ADA_RET_RBP(%rsp)

	mov	%rsp, %rdi			/* regs */
	lea	0(%rbx), %rsi			/* the slot the function returned through:
						 * where rbx is now saved */
	call	\handler
	mov	%rax, %r11			/* the real return address */

	movaps	ADA_RET_XMM1(%rsp), %xmm1
	movaps	ADA_RET_XMM0(%rsp), %xmm0
	mov	ADA_RET_RDX(%rsp), %rdx
	mov	ADA_RET_RAX(%rsp), %rax
	ALIGNED_LEAVE
	jmp	*%r11
.endm

/* Unwinders look a return address up at address - 1: keep that byte inside
 * the trampoline's unwind information, not in a neighbour's. */
.macro TRAMPOLINE_START name
	.text
	.p2align 4
	.cfi_startproc
	.cfi_undefined rip
	nop
	.globl \name
	.hidden \name
	.type \name, @function
\name:
.endm

TRAMPOLINE_START ada_return_trampoline
	/* r11 = the thread's state, rcx = the slot (rsp - 8), the guard taken. */
	FAST_BEGIN -8, .Lslow, .Lslow_guarded

	/* The innermost frame: depth 2 or more, within the shadow stack and
	 * the recorded depth; the frame left is not the graph function's
	 * (depth - 1 >= graph_depth: thread.h's ada_graph_left). */
	mov	ADA_TD_DEPTH(%r11), %edi
	cmp	$2, %edi
	jb	.Lslow_guarded
	cmp	ADA_TD_SHADOW_CAP(%r11), %edi
	ja	.Lslow_guarded
	cmp	ADA_TD_RECORD_LIMIT(%r11), %edi
	ja	.Lslow_guarded
	lea	-1(%rdi), %r8d
	cmp	ADA_TD_GRAPH_DEPTH(%r11), %r8d
	jb	.Lslow_guarded
	lea	(%r8,%r8,2), %r8
	shl	$3, %r8
	add	ADA_TD_SHADOW(%r11), %r8	/* r8 = &shadow[depth - 1] */
	/* ... on this slot, alone (the frame above it elsewhere: no tail
	 * call), holding the real return address (not a trampoline). */
	cmp	ADA_FRAME_SP(%r8), %rcx
	jne	.Lslow_guarded
	cmp	ADA_FRAME_SP-ADA_FRAME_SIZE(%r8), %rcx
	je	.Lslow_guarded
	mov	ADA_FRAME_SITE(%r8), %r9	/* r9 = the real return address */
	lea	ada_return_trampoline(%rip), %rsi
	cmp	%rsi, %r9
	je	.Lslow_guarded
	cmp	ada_dl_return_stub(%rip), %r9
	je	.Lslow_guarded

	mov	ADA_TD_RH(%r11), %rdi
	mov	ADA_RH_HEAD(%rdi), %rdi		/* rdi = head (the CALL reserved room) */
	mov	ADA_FRAME_FN(%r8), %r10
	bts	$ADA_SLOT_RETURN_BIT, %r10	/* r10 = the word: fn | RETURN */

	/* The detail record (r8): rax rdx and six zeros, the real return
	 * address, the caller's frame pointer (restored by the function), the
	 * slot, the stack window with the real return address in its first
	 * word (the slot holds this trampoline). */
	FAST_DETAIL_CHECK .Lput, .Lslow_guarded
	FAST_DETAIL_RECORD %r8
	pxor	%xmm8, %xmm8
	mov	%rax, ADA_DREC_OFF_REGS+0(%r8)
	mov	%rdx, ADA_DREC_OFF_REGS+8(%r8)
	movdqu	%xmm8, ADA_DREC_OFF_REGS+16(%r8)
	movdqu	%xmm8, ADA_DREC_OFF_REGS+32(%r8)
	movdqu	%xmm8, ADA_DREC_OFF_REGS+48(%r8)
	mov	%r9, ADA_DREC_OFF_LR(%r8)
	mov	%rbp, ADA_DREC_OFF_FP(%r8)
	mov	%rcx, ADA_DREC_OFF_SP(%r8)
	FAST_DETAIL_WINDOW %r8, %r9
	bts	$ADA_SLOT_DETAIL_BIT, %r10

.Lput:	/* The slot, rax and rdx kept in rcx and r8 meanwhile (rdtsc writes
	 * them); the frame popped, the guard released, the real return. */
	mov	%rax, %rcx
	mov	%rdx, %r8
	FAST_PUT %r10
	decl	ADA_TD_DEPTH(%r11)
	FAST_RELEASE_GUARD
	mov	%rcx, %rax
	mov	%r8, %rdx
	jmp	*%r9

.Lslow_guarded:
	FAST_RELEASE_GUARD
.Lslow:
	RETURN_THROUGH_C ada_fentry_return
	.cfi_endproc
END(ada_return_trampoline)

TRAMPOLINE_START ada_return_trampoline_dl
	RETURN_THROUGH_C ada_dynhook_return
	.cfi_endproc
END(ada_return_trampoline_dl)

	.section .note.GNU-stack, "", @progbits
