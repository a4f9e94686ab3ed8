/* cyg.S (x86_64) - the -finstrument-functions hooks: their fast path.
 *
 * gcc and clang call __cyg_profile_func_enter(fn, site) and
 * __cyg_profile_func_exit(fn, site) as ordinary functions: the instrumented
 * function keeps nothing it needs in caller-saved registers across them, so
 * the hooks save nothing. The fast path records the common case without C:
 * a traced thread on its own stack, outside any hook, recording on, outside
 * no ADA_GRAPH gate; at entry a frame within the shadow stack and the
 * recorded depth, below the innermost frame (or an
 * inlined child of it: the same position and return address), with room in
 * the ring; at exit the innermost frame's own exit, recorded. It does what
 * runtime/thread.h's ada_record_enter and ada_record_exit do then. Anything
 * else jumps to the C hooks (runtime/cyg.c) with the arguments and the
 * stack as they came, so they see the same frame position.
 *
 * The frame position is the instrumented function's stack pointer at the
 * call: rsp + 8 here (cyg.c's __builtin_dwarf_cfa()).
 */
#include "asm.h"
#include "fast.h"


	HOOKS_TEXT
GLOBAL(__cyg_profile_func_enter)	/* rdi = fn, rsi = site */
	.cfi_startproc
	/* r11 = the thread's state, rcx = the frame position, the guard
	 * taken; the thread recording (ignored) outside no graph gate (the
	 * next byte), and the process recording. rdi and rsi untouched. */
	FAST_BEGIN 8, .Lenter_slow, .Lenter_slow_guarded, %rax
	cmpw	$0, ADA_TD_IGNORED(%r11)
	jne	.Lenter_slow_guarded
	cmpl	$0, ada_recording_off_area(%rip)
	jne	.Lenter_slow_guarded

	/* The new frame (r9): within the shadow stack and the recorded
	 * depth; below the innermost frame, or at its position
	 * with its return address (an inlined child); else frames were left
	 * without their exits (longjmp, an exception): C closes them. */
	FAST_NEW_FRAME %rdx, %edx, %r8d, %r9, .Lenter_slow_guarded
	cmp	ADA_FRAME_SP-ADA_FRAME_SIZE(%r9), %rcx
	jb	1f
	ja	.Lenter_slow_guarded
	cmp	ADA_FRAME_SITE-ADA_FRAME_SIZE(%r9), %rsi
	jne	.Lenter_slow_guarded
1:
	/* Room for this CALL and the RETURN of every open frame. */
	mov	ADA_TD_RH(%r11), %r10
	mov	ADA_RH_HEAD(%r10), %r10		/* r10 = head */
	lea	2(%r10,%rdx), %rax
	cmp	ADA_TD_LIMIT(%r11), %rax
	ja	.Lenter_slow_guarded

	mov	%rdi, ADA_FRAME_FN(%r9)
	mov	%rsi, ADA_FRAME_SITE(%r9)
	mov	%rcx, ADA_FRAME_SP(%r9)
	mov	%r8d, ADA_TD_DEPTH(%r11)
	FAST_PUT %rdi, %r9, %r10		/* the word: fn | CALL */
	FAST_RELEASE_GUARD
	ret

.Lenter_slow_guarded:
	FAST_RELEASE_GUARD %rax
.Lenter_slow:
	jmp	ada_cyg_enter
	.cfi_endproc
END(__cyg_profile_func_enter)

GLOBAL(__cyg_profile_func_exit)		/* rdi = fn, rsi = site */
	.cfi_startproc
	/* As at the entry, but an ignored thread's exits are recorded: its
	 * frames opened before ada_thread_ignore close. */
	FAST_BEGIN 8, .Lexit_slow, .Lexit_slow_guarded, %rax
	cmpb	$0, ADA_TD_IGNORED+1(%r11)	/* graph_gate */
	jne	.Lexit_slow_guarded

	/* The innermost frame: recorded, within the shadow stack, and this
	 * function's (another's: frames above it were left, C closes them). */
	mov	ADA_TD_DEPTH(%r11), %edx
	cmp	ADA_TD_FAST_CAP(%r11), %edx
	ja	.Lexit_slow_guarded
	lea	-1(%rdx), %r8			/* depth 0: shadow[-1], fn 0: C counts it */
	FAST_FRAME_AT %r8, %r9
	cmp	ADA_FRAME_FN(%r9), %rdi
	jne	.Lexit_slow_guarded

	mov	%r8d, ADA_TD_DEPTH(%r11)
	bts	$ADA_SLOT_RETURN_BIT, %rdi	/* the word: fn | RETURN */
	mov	ADA_TD_RH(%r11), %r10
	mov	ADA_RH_HEAD(%r10), %r10		/* head (the CALL reserved room) */
	FAST_PUT %rdi, %r9, %r10
	FAST_RELEASE_GUARD
	ret

.Lexit_slow_guarded:
	FAST_RELEASE_GUARD %rax
.Lexit_slow:
	jmp	ada_cyg_exit
	.cfi_endproc
END(__cyg_profile_func_exit)

	.section .note.GNU-stack, "", @progbits
