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
 * frame is on this slot, alone or with the one frame that tail-called it
 * (no frame abandoned below), recorded, and not leaving the ADA_GRAPH function's call. It does what mcount/hijack.c's
 * ada_fentry_return does then, for each frame on the slot: write the detail
 * record (rax, rdx; xmm0 and xmm1's low halves, only read; the real return
 * address; the stack window from the
 * slot, whose first word is given the real return address back), store the
 * slot and the head, pop the frame; then it jumps to the real address. Its
 * scratch is the red zone: the returned function's frame is gone. Until it
 * writes, it leaves rax and rdx alone: the C path reads them.
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

/* Unwinders look a return address up at address - 1: keep that byte inside
 * the trampoline's unwind information, not in a neighbour's. */
.macro TRAMPOLINE_START name
	HOOKS_TEXT
	.p2align 4
	.cfi_startproc
	.cfi_undefined rip
	nop
	.globl \name
	.hidden \name
	.type \name, @function
\name:
.endm

/* The fast path's scratch, in the red zone under the slot: the returned
 * function's frame is gone, and this path calls nothing. */
#define R_RAX (-16)
#define R_RDX (-24)
#define R_LEFT (-32)	/* frames still to close on this slot */
#define R_DETAIL (-40)	/* 1: their detail records are written */

TRAMPOLINE_START ada_return_trampoline
	/* r11 = the thread's state, rcx = the slot (rsp - 8), the guard taken. */
	FAST_BEGIN -8, .Lslow, .Lslow_guarded

	/* The innermost frame (r8), on this slot. */
	FAST_INNERMOST .Lslow_guarded
	/* The frames on the slot, and r9 = the real return address: the
	 * innermost alone (the frame below it elsewhere), or a tail call's
	 * two, the inner holding the trampoline, the outer the real address,
	 * the frame below them elsewhere (longer chains: C; below the
	 * outermost is shadow[-1], at no slot). */
	mov	$1, %esi
	cmp	ADA_FRAME_SP-ADA_FRAME_SIZE(%r8), %rcx
	jne	1f
	cmp	$3, %edi
	jb	.Lslow_guarded
	cmp	ADA_FRAME_SP-2*ADA_FRAME_SIZE(%r8), %rcx
	je	.Lslow_guarded
	mov	ADA_FRAME_SITE(%r8), %r9
	cmp	ada_return_trampoline_addr(%rip), %r9
	jne	.Lslow_guarded
	mov	$2, %esi
1:	mov	%rsi, R_LEFT(%rsp)
	neg	%rsi
	shl	$ADA_FRAME_SHIFT-3, %rsi
	mov	ADA_FRAME_SITE+ADA_FRAME_SIZE(%r8,%rsi,8), %r9
	cmp	ada_return_trampoline_addr(%rip), %r9
	je	.Lslow_guarded
	cmp	ada_dl_return_stub(%rip), %r9
	je	.Lslow_guarded
	/* The frames left are not the graph function's: depth - n >=
	 * graph_depth (thread.h's ada_graph_left). */
	sub	R_LEFT(%rsp), %edi
	cmp	ADA_TD_GRAPH_DEPTH(%r11), %edi
	jb	.Lslow_guarded

	/* rdi = head (the CALLs reserved room); the detail check for the
	 * last position written. Until the loop rax and rdx are untouched:
	 * the C path takes them as the return values. */
	mov	%rax, R_RAX(%rsp)
	mov	%rdx, R_RDX(%rsp)
	mov	ADA_TD_RH(%r11), %rdi
	mov	ADA_RH_HEAD(%rdi), %rdi
	mov	R_LEFT(%rsp), %rsi
	lea	-1(%rdi,%rsi), %rsi
	FAST_DETAIL_CHECK %rsi, .Lnone, .Lfull, .Lslow_guarded
	movq	$1, R_DETAIL(%rsp)

	/* Each frame on the slot, innermost first (r8): its RETURN, with
	 * the same registers and real return address (hijack.c's
	 * return_slow). */
.Lclose:
	mov	ADA_FRAME_FN(%r8), %r10
	bts	$ADA_SLOT_RETURN_BIT, %r10	/* r10 = the word: fn | RETURN */
	cmpq	$0, R_DETAIL(%rsp)
	je	.Lput
	/* The detail record (rax): rax rdx and six zeros, the real return
	 * address, the caller's frame pointer (restored by the function), the
	 * slot, the stack window with the real return address in its first
	 * word (the slot holds this trampoline). */
	FAST_DETAIL_RECORD %rax
	FAST_RETURN_DETAIL %rax, R_RAX(%rsp), R_RDX(%rsp)
	bts	$ADA_SLOT_DETAIL_BIT, %r10
.Lput:	/* The slot, and the frame popped. */
	FAST_PUT %r10, %rsi
	decl	ADA_TD_DEPTH(%r11)
	sub	$ADA_FRAME_SIZE, %r8
	decq	R_LEFT(%rsp)
	jnz	.Lclose

	/* The guard released, the return values back, the real return. */
	FAST_RELEASE_GUARD
	mov	R_RAX(%rsp), %rax
	mov	R_RDX(%rsp), %rdx
	jmp	*%r9

.Lfull:	/* No record free (ADA_DETAIL=all): the frames' records counted, none
	 * written. Nothing goes to C from here: rax is free (saved above). */
	mov	ADA_TD_RH(%r11), %rax
	mov	R_LEFT(%rsp), %rsi
	add	%rsi, ADA_RH_DETAIL_FULL(%rax)
.Lnone:
	movq	$0, R_DETAIL(%rsp)
	jmp	.Lclose

.Lslow_guarded:
	FAST_RELEASE_GUARD
.Lslow:
	RETURN_THROUGH_C ada_fentry_return, 0, jump
	.cfi_endproc
END(ada_return_trampoline)

TRAMPOLINE_START ada_return_trampoline_dl
	RETURN_THROUGH_C ada_dynhook_return, 0, jump
	.cfi_endproc
END(ada_return_trampoline_dl)

/* The trampoline's address, for the fast paths to compare a slot with
 * (a position-independent cmp takes no address as an immediate). */
	.section .data.rel.ro, "aw"
	.p2align 3
	.globl ada_return_trampoline_addr
	.hidden ada_return_trampoline_addr
	.type ada_return_trampoline_addr, @object
ada_return_trampoline_addr:
	.quad ada_return_trampoline
	.size ada_return_trampoline_addr, 8

	.section .note.GNU-stack, "", @progbits
