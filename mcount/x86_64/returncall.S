/* returncall.S (x86_64) - fentry mode with gcc: returns seen by a call.
 *
 * adacc compiles with -minstrument-return=call and -mfentry-name=
 * __ada_fentry_nohijack (cc-wrapper/mode.c): a function starts with
 * `call __ada_fentry_nohijack`, as with __fentry__, and calls __return__
 * just before each `ret` and before the jump of each tail call:
 *
 *   compute:
 *     call  *__ada_fentry_nohijack@GOTPCREL(%rip)
 *     ...                     # the function proper
 *     call  __return__        # its frame popped: rsp at the slot
 *     ret                     # (or jmp other: a tail call)
 *
 * So nothing is hijacked: the function's own `ret` goes where the CPU's
 * return predictor says, instead of to ada_return_trampoline and from
 * there through an indirect jump, a misprediction each. The entry pushes
 * the frame with its slot's address, as __fentry__ does, and marks it
 * (ADA_SITE_NOHIJACK) so that nothing ever writes its slot; __return__ sees
 * the same slot (rsp + 8 in it) and closes the innermost frame on it. A
 * frame that an exception or a longjmp leaves never calls __return__: it
 * is closed, as abandoned, by the next entry or return above its slot, as
 * cyg mode closes frames by stack position. A tail call is two frames one
 * after the other on the same slot (the caller's __return__ came first),
 * not one nested in the other as the hijacking modes see it.
 *
 * When __return__ runs:
 *   rax, rdx        integer/pointer return value (rdx: the high half)
 *   xmm0, xmm1      float, double, complex and SSE struct returns
 *   st0, st1        long double returns: untouched (hijack.c, the C path,
 *                   is built with -mgeneral-regs-only)
 *   rcx, rsi, rdi, r8-r11, xmm2-15: dead (caller-saved, no return value;
 *                   -pg turns off gcc's interprocedural register allocation,
 *                   so no caller keeps anything in them across the call)
 *   8(%rsp)         the function's return-address slot
 * That holds where the call is followed by `ret` (c3). Before a tail call's
 * jump every argument register is live (the next function's arguments),
 * as at __fentry__: such a return goes to C with all of them saved, and
 * its record's return registers are whatever they hold.
 *
 * The fast path does the common return without C: a traced thread on its
 * own stack, outside any hook, whose innermost frame is this function's (a
 * function that calls __return__, on this slot), recorded. It does
 * what hijack.c's ada_return_hook does then: the detail record (return
 * registers, xmm0 and xmm1's low halves, real return address, frame
 * pointer, slot, stack window), the
 * ring slot and head, the frame popped. Its scratch is the dead registers
 * and the red zone (a leaf); rax and rdx are kept there across rdtsc.
 * Everything else goes to C, which closes the frames abandoned below the
 * slot and records the return if its frame is there:
 *
 *   void ada_return_hook(struct ada_return_regs *regs, uintptr_t *slot);
 */
#include "arch.h"
#include "asm.h"
#include "fast.h"

	HOOKS_TEXT
GLOBAL(__ada_fentry_nohijack)
	.cfi_startproc
	FAST_ENTRY nohijack, 0

	FENTRY_THROUGH_C ada_fentry_nohijack_enter
	.cfi_endproc
END(__ada_fentry_nohijack)

/* The fast path's scratch, in the red zone. */
#define R_RAX (-8)
#define R_RDX (-16)

GLOBAL(__return__)
	.cfi_startproc
	mov	(%rsp), %r11
	cmpb	$0xc3, (%r11)			/* ret: the only live registers */
	jne	.Ltail				/* are the return values */

	/* r11 = the thread's state, rcx = the slot, the guard taken. */
	FAST_BEGIN 8, .Lslow, .Lslow_guarded

	/* The innermost frame (r8) on this slot, and a __return__ caller's
	 * (a hijacked frame there: one that tail-called this function: C). */
	FAST_INNERMOST .Lslow_guarded
	mov	ADA_FRAME_SITE(%r8), %r9
	btr	$ADA_SITE_NOHIJACK_BIT, %r9	/* r9 = the real return address */
	jnc	.Lslow_guarded
	/* (Such a frame is never the ADA_GRAPH function's, which is patched
	 * and hijacked, nor outside its call, where nothing is entered: the
	 * graph gate stays as it is, unlike after the trampoline.) */

	mov	%rax, R_RAX(%rsp)
	mov	%rdx, R_RDX(%rsp)
	mov	ADA_FRAME_FN(%r8), %r10
	bts	$ADA_SLOT_RETURN_BIT, %r10	/* r10 = the word: fn | RETURN */
	mov	ADA_TD_RH(%r11), %rdi
	mov	ADA_RH_HEAD(%rdi), %rdi		/* rdi = head (the CALL reserved room) */
	FAST_DETAIL_CHECK %rdi, .Lput, .Lfull, .Lslow_guarded
	/* The detail record (r8 no longer needed). */
	FAST_DETAIL_RECORD %r8
	FAST_RETURN_DETAIL %r8, %rax, %rdx
	bts	$ADA_SLOT_DETAIL_BIT, %r10
.Lput:	/* The slot, the frame popped, the guard released, rax and rdx back. */
	FAST_PUT %r10, %r8
	decl	ADA_TD_DEPTH(%r11)
	FAST_RELEASE_GUARD
	mov	R_RAX(%rsp), %rax
	mov	R_RDX(%rsp), %rdx
	ret

.Lfull:	/* No record free (ADA_DETAIL=all): counted, none written. */
	mov	ADA_TD_RH(%r11), %rsi
	incq	ADA_RH_DETAIL_FULL(%rsi)
	jmp	.Lput

.Lslow_guarded:
	FAST_RELEASE_GUARD
.Lslow:	/* The slot: above rbx's save and __return__'s own return address. */
	RETURN_THROUGH_C ada_return_hook, 16, ret

.Ltail:	/* Before a tail call: every argument register kept, as at an entry
	 * (the handler takes regs and the slot; the third argument is unused). */
	FENTRY_THROUGH_C ada_return_hook_tail
	.cfi_endproc
END(__return__)

	.section .note.GNU-stack, "", @progbits
