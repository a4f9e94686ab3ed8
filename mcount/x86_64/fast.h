/* fast.h (x86_64) - the steps the hooks' assembly fast paths share:
 * fentry.S's entry, return.S's return, cyg.S's two hooks. Each mirrors a piece of the C
 * path (mcount/hijack.c, runtime/thread.h), named where it is used.
 *
 * Registers, the same in every path: r11 = the thread's state, rcx = the
 * traced function's return-address slot (cyg: its frame position), rdi =
 * the ring's head, rsi = scratch unless a macro is given another. The state's fields are at runtime/thread_layout.h's offsets.
 */
#ifndef ADA_FAST_H
#define ADA_FAST_H

#include "thread_layout.h"

/* r11 = the thread's state and rcx = the slot (at \slot(%rsp)), the guard
 * taken as slot | ADA_BUSY_HOOK (thread.h's ada_hook_begin): to \slow if
 * the thread has no state or is inside a hook already (nothing taken), to
 * \slow_guarded if the slot is not on the stack the state records (a
 * coroutine's, a signal stack: ada_stack_state). */
.macro FAST_BEGIN slot, slow, slow_guarded, scratch=%rsi
	mov	ada_self@gottpoff(%rip), \scratch
	mov	%fs:ADA_SELF_TD(\scratch), %r11
	test	%r11, %r11
	jz	\slow
	cmpq	$0, %fs:ADA_SELF_BUSY(\scratch)
	jne	\slow
	lea	\slot+1(%rsp), %rcx
	mov	%rcx, %fs:ADA_SELF_BUSY(\scratch)
	lea	\slot(%rsp), %rcx
	mov	%rcx, \scratch
	sub	ADA_TD_STACK_LO(%r11), \scratch
	cmp	ADA_TD_STACK_SPAN(%r11), \scratch
	jae	\slow_guarded
.endm

.macro FAST_RELEASE_GUARD scratch=%rsi
	mov	ada_self@gottpoff(%rip), \scratch
	movq	$0, %fs:ADA_SELF_BUSY(\scratch)
.endm

/* A new frame: \idx (32-bit \idx32) = the frames open, its index in the
 * shadow stack; \new32 = its depth; \frame = &shadow[\idx]. To \slow if
 * it would be the thread's outermost, past the shadow stack or deeper than
 * recorded (thread.h's ada_record_enter, ada_call_room). */
.macro FAST_NEW_FRAME idx, idx32, new32, frame, slow
	mov	ADA_TD_DEPTH(%r11), \idx32
	test	\idx32, \idx32
	jz	\slow
	lea	1(\idx), \new32
	cmp	ADA_TD_SHADOW_CAP(%r11), \new32
	ja	\slow
	cmp	ADA_TD_RECORD_LIMIT(%r11), \new32
	ja	\slow
	lea	(\idx,\idx,2), \frame
	shl	$3, \frame
	add	ADA_TD_SHADOW(%r11), \frame
.endm

/* Whether the events up to position \last get detail records (hijack.c's
 * detail_put): falls through if so; to \none if the thread has no detail
 * ring and ADA_DETAIL is off; to \slow if its first record is to map the
 * ring, a position is past what the writer allows (dlimit), or the stack
 * window is neither none nor the whole default (a clipped or another size). */
.macro FAST_DETAIL_CHECK last, none, slow
	cmpq	$0, ADA_TD_DRING(%r11)
	jne	1f
	cmpb	$0, ada_rt+ADA_RT_CFG_DETAIL(%rip)
	jne	\slow
	jmp	\none
1:	cmp	ADA_TD_DLIMIT(%r11), \last
	jae	\slow
	mov	ADA_TD_STACK_BYTES(%r11), %esi
	test	%esi, %esi
	jz	2f
	cmp	$ADA_STACK_DEFAULT, %esi
	jne	\slow
	mov	ADA_TD_STACK_LO(%r11), %rsi
	add	ADA_TD_STACK_SPAN(%r11), %rsi
	sub	%rcx, %rsi
	cmp	$ADA_STACK_DEFAULT, %rsi
	jb	\slow
2:
.endm

/* \rec = position rdi's record in the detail ring. */
.macro FAST_DETAIL_RECORD rec
	mov	ADA_TD_DMASK(%r11), \rec
	and	%rdi, \rec
	mov	ADA_TD_DREC_BYTES(%r11), %esi
	imul	%rsi, \rec
	add	ADA_TD_DRING(%r11), \rec
.endm

/* 128 bytes from 0(\src) to \off(\dst), 16 a move, in xmm8-15: dead
 * wherever a hook captures (at a function's entry, after its return, at a
 * PLT call), being caller-saved and neither arguments nor return values.
 * Both pointers need only 8-byte alignment. */
.macro COPY128 src, off, dst
	movdqu	0(\src), %xmm8
	movdqu	16(\src), %xmm9
	movdqu	32(\src), %xmm10
	movdqu	48(\src), %xmm11
	movdqu	64(\src), %xmm12
	movdqu	80(\src), %xmm13
	movdqu	96(\src), %xmm14
	movdqu	112(\src), %xmm15
	movdqu	%xmm8, \off+0(\dst)
	movdqu	%xmm9, \off+16(\dst)
	movdqu	%xmm10, \off+32(\dst)
	movdqu	%xmm11, \off+48(\dst)
	movdqu	%xmm12, \off+64(\dst)
	movdqu	%xmm13, \off+80(\dst)
	movdqu	%xmm14, \off+96(\dst)
	movdqu	%xmm15, \off+112(\dst)
.endm

/* The record's stack size and window: 128 bytes from the slot up, the
 * first word then the record's return address (the slot as the function
 * found it, before the hijack). */
.macro FAST_DETAIL_WINDOW rec
	mov	ADA_TD_STACK_BYTES(%r11), %esi
	mov	%rsi, ADA_DREC_OFF_STACK_SIZE(\rec)
	test	%esi, %esi
	jz	3f
	COPY128 %rcx, ADA_DREC_OFF_STACK, \rec
	mov	ADA_DREC_OFF_LR(\rec), %rsi
	mov	%rsi, ADA_DREC_OFF_STACK(\rec)
3:
.endm

/* The ring slot at head rdi (tsc, \word), then head + 1, which publishes it
 * (thread.h's ada_ring_put; a plain store is a release on x86_64).
 * Clobbers rax and rdx (rdtsc). */
.macro FAST_PUT word
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	mov	ADA_TD_MASK(%r11), %rdx
	and	%rdi, %rdx
	shl	$4, %rdx
	add	ADA_TD_RING(%r11), %rdx
	mov	%rax, 0(%rdx)
	mov	\word, 8(%rdx)
	inc	%rdi
	mov	ADA_TD_RH(%r11), %rdx
	mov	%rdi, ADA_RH_HEAD(%rdx)
.endm

#endif
