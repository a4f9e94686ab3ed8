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
 *             hook replaces with ada_return_trampoline (the hijack)
 *   rdi, rsi, rdx, rcx, r8, r9, xmm0-7: compute's arguments, untouched
 *   rax       %al = number of vector registers used by a variadic call
 *   r10       static chain of a nested function
 *   r11       the only register free to use
 *
 * The fast path, first, does the common case without C: a traced thread on
 * its own stack, outside any hook, recording on, a frame nested below the
 * innermost one or tail-called by it (on its slot, which that frame
 * hijacked: its real return address is the frame's), room in the shadow
 * stack and the ring, and a detail record that needs no set-up. It saves
 * the five registers it uses and nothing else, and does exactly what
 * mcount/hijack.c's hijack_enter does then: push the frame, write the
 * detail record (argument registers, real return address, frame pointer,
 * slot, 128 bytes of stack), store the slot (tsc, word) and the new head,
 * and hijack the return. Anything else jumps to the C path below,
 * which saves every caller-saved register and calls ada_fentry_enter with
 * them; it decides the same case the same way, so the two never disagree.
 *
 * The stack window is copied in xmm8-15: at a function's entry they are
 * dead (caller-saved, and neither arguments nor return values).
 *
 * The C path's stack pointer is not necessarily 16-byte aligned: gcc calls
 * a function it knows needs no alignment (a leaf in the same unit) with rsp
 * 8 mod 16, and that function's __fentry__ call inherits it; so the stack
 * is realigned there, with the entry rsp kept in rbx. The C side may call
 * into libc on its slow paths, which may use any caller-saved register, so
 * all of them are saved: the argument registers, rax, r10, r11 and
 * xmm0-7, in the layout of struct ada_entry_regs (arch.h). rbp is saved
 * too, as the caller's frame pointer for the detail record.
 *
 *   void ada_fentry_enter(struct ada_entry_regs *regs, uintptr_t *slot,
 *                         uintptr_t ret);
 */
#include "arch.h"
#include "asm.h"
#include "fast.h"

/* The fast path's frame: its five saves, in ATF v2's register order for
 * the first four, then what the call to __fentry__ left. */
#define F_RDI 0
#define F_RSI 8
#define F_RDX 16
#define F_RCX 24
#define F_RAX 32
#define F_RET 40	/* into compute, just after its call */
#define F_SLOT 48	/* compute's return-address slot */
#define F_LR (-8)	/* the real return address, in the red zone: this is a
			 * leaf while it uses it */

.macro POP_SAVES
	pop	%rdi
	.cfi_adjust_cfa_offset -8
	pop	%rsi
	.cfi_adjust_cfa_offset -8
	pop	%rdx
	.cfi_adjust_cfa_offset -8
	pop	%rcx
	.cfi_adjust_cfa_offset -8
	pop	%rax
	.cfi_adjust_cfa_offset -8
.endm

	.text
GLOBAL(__fentry__)
	.cfi_startproc
	push	%rax
	.cfi_adjust_cfa_offset 8
	push	%rcx
	.cfi_adjust_cfa_offset 8
	push	%rdx
	.cfi_adjust_cfa_offset 8
	push	%rsi
	.cfi_adjust_cfa_offset 8
	push	%rdi
	.cfi_adjust_cfa_offset 8

	/* r11 = the thread's state, rcx = the slot, the guard taken; then
	 * recording on for the thread (ignored), outside no graph function
	 * (graph_gate, the next byte) and for the process. */
	FAST_BEGIN F_SLOT, .Lslow, .Lslow_guarded
	cmpw	$0, ADA_TD_IGNORED(%r11)
	jne	.Lslow_guarded
	cmpl	$0, ada_recording_off(%rip)
	jne	.Lslow_guarded

	/* rdx = fn, the call's own address: 5 bytes back (call rel32), or 6
	 * (call through the GOT); a nested function's push/pop of r10 around
	 * the call is arch.h's ada_arch_fentry_start's to sort out. */
	mov	F_RET(%rsp), %rax
	cmpw	$0x5a41, (%rax)			/* pop %r10 */
	je	.Lslow_guarded
	lea	-5(%rax), %rdx
	cmpw	$0x15ff, -6(%rax)		/* call *rel32(%rip) */
	jne	1f
	dec	%rdx
1:
	/* The new frame: not the thread's outermost, within the shadow stack
	 * and the recorded depth, and not above the innermost frame's slot
	 * (frames left by a longjmp: C). */
	FAST_NEW_FRAME %rsi, %esi, %eax, %rax, .Lslow_guarded	/* rax = the frame */
	mov	F_SLOT(%rsp), %rdi		/* what the slot holds */
	cmp	ADA_FRAME_SP-ADA_FRAME_SIZE(%rax), %rcx
	ja	.Lslow_guarded
	jb	2f
	/* On the innermost frame's slot: a tail call. The slot holds the
	 * trampoline already, and that frame the real return address (a
	 * longer chain of tail calls, or a slot another hook hijacked: C). */
	cmp	ada_return_trampoline_addr(%rip), %rdi
	jne	.Lslow_guarded
	mov	ADA_FRAME_SITE-ADA_FRAME_SIZE(%rax), %rdi
	cmp	ada_return_trampoline_addr(%rip), %rdi
	je	.Lslow_guarded
	cmp	ada_dl_return_stub(%rip), %rdi
	je	.Lslow_guarded
2:	mov	%rdi, F_LR(%rsp)		/* the real return address */

	/* Room for this CALL and the RETURN of every open frame:
	 * head + depth + 1 <= limit (thread.h's ada_call_room). */
	mov	ADA_TD_RH(%r11), %rdi
	mov	ADA_RH_HEAD(%rdi), %rdi		/* rdi = head */
	lea	2(%rdi,%rsi), %rsi
	cmp	ADA_TD_LIMIT(%r11), %rsi
	ja	.Lslow_guarded

	/* The frame, past the shadow stack's top until depth counts it (the
	 * C path writes it again if a check below sends the hook there). */
	mov	%rdx, ADA_FRAME_FN(%rax)
	mov	F_SLOT(%rsp), %rsi
	mov	%rsi, ADA_FRAME_SITE(%rax)
	mov	%rcx, ADA_FRAME_SP(%rax)

	/* The detail record (rax): argument registers in ATF v2's order (rdi
	 * rsi rdx rcx from their saves, r8 r9, two zeros), the real return
	 * address, the caller's frame pointer, the slot, the stack window. */
	FAST_DETAIL_CHECK %rdi, .Lput, .Lslow_guarded
	FAST_DETAIL_RECORD %rax
	movdqu	F_RDI(%rsp), %xmm8
	movdqu	F_RDX(%rsp), %xmm9
	pxor	%xmm10, %xmm10
	movdqu	%xmm8, ADA_DREC_OFF_REGS+0(%rax)
	movdqu	%xmm9, ADA_DREC_OFF_REGS+16(%rax)
	mov	%r8, ADA_DREC_OFF_REGS+32(%rax)
	mov	%r9, ADA_DREC_OFF_REGS+40(%rax)
	movdqu	%xmm10, ADA_DREC_OFF_REGS+48(%rax)
	mov	F_LR(%rsp), %rsi
	mov	%rsi, ADA_DREC_OFF_LR(%rax)
	mov	%rbp, ADA_DREC_OFF_FP(%rax)
	mov	%rcx, ADA_DREC_OFF_SP(%rax)
	FAST_DETAIL_WINDOW %rax
	bts	$ADA_SLOT_DETAIL_BIT, %rdx	/* the word says a record goes with it */

.Lput:	/* The slot: tsc, word = fn | CALL. Then the depth, the hijack, and
	 * the guard released. */
	mov	%rdx, %rsi
	FAST_PUT %rsi
	incl	ADA_TD_DEPTH(%r11)
	lea	ada_return_trampoline(%rip), %rax
	mov	%rax, F_SLOT(%rsp)
	FAST_RELEASE_GUARD
	.cfi_remember_state
	POP_SAVES
	ret
	.cfi_restore_state

.Lslow_guarded:
	FAST_RELEASE_GUARD
.Lslow:
	POP_SAVES

	/* The C path. */
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
