/* fast.h (x86_64) - the steps the hooks' assembly fast paths share:
 * fentry.S's, returncall.S's and dynhook.S's entries, return.S's and
 * returncall.S's returns, cyg.S's two hooks. Each mirrors a piece of the C
 * path (mcount/hijack.c, runtime/thread.h), named where it is used.
 *
 * Registers, the same in every path: r11 = the thread's state, rcx = the
 * traced function's return-address slot (cyg: its frame position), rdi =
 * the ring's head, rsi = scratch unless a macro is given another. The
 * state's fields are at runtime/thread_layout.h's offsets.
 */
#ifndef ADA_FAST_H
#define ADA_FAST_H

#include "thread_layout.h"

/* r11 = the thread's state and rcx = the slot (at \slot(%rsp)), the guard
 * taken as the slot itself (ADA_BUSY_HOOK 0: thread.h's ada_hook_begin): to \slow if
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
	lea	\slot(%rsp), %rcx
	mov	%rcx, %fs:ADA_SELF_BUSY(\scratch)
	mov	%rcx, \scratch
	sub	ADA_TD_STACK_LO(%r11), \scratch
	cmp	ADA_TD_STACK_SPAN(%r11), \scratch
	jae	\slow_guarded
.endm

.macro FAST_RELEASE_GUARD scratch=%rsi
	mov	ada_self@gottpoff(%rip), \scratch
	movq	$0, %fs:ADA_SELF_BUSY(\scratch)
.endm

/* \frame = &shadow[\idx] (thread.h's struct ada_frame, 32 bytes); \idx
 * -1 is shadow[-1], the frame below the outermost, at no slot's position. */
.macro FAST_FRAME_AT idx, frame
.ifnc \idx,\frame
	mov	\idx, \frame
.endif
	shl	$ADA_FRAME_SHIFT, \frame
	add	ADA_TD_SHADOW(%r11), \frame
.endm

/* edi = depth and r8 = &shadow[depth - 1], the innermost frame, which a
 * return on slot rcx closes: to \slow unless it is within the shadow stack
 * and the recorded depth (fast_cap) and on that slot (with no frame open,
 * shadow[-1] is on none). */
.macro FAST_INNERMOST slow
	mov	ADA_TD_DEPTH(%r11), %edi
	cmp	ADA_TD_FAST_CAP(%r11), %edi
	ja	\slow
	lea	-1(%rdi), %r8
	FAST_FRAME_AT %r8, %r8
	cmp	ADA_FRAME_SP(%r8), %rcx
	jne	\slow
.endm

/* A new frame: \idx (32-bit \idx32) = the frames open, its index in the
 * shadow stack; \new32 = its depth; \frame = &shadow[\idx], the frame
 * below it at \frame - ADA_FRAME_SIZE (shadow[-1] for the outermost, above
 * every position). To \slow if it would be past the shadow stack or deeper
 * than recorded (fast_cap: thread.h's ada_record_enter, ada_call_room). */
.macro FAST_NEW_FRAME idx, idx32, new32, frame, slow
	mov	ADA_TD_DEPTH(%r11), \idx32
	lea	1(\idx), \new32
	cmp	ADA_TD_FAST_CAP(%r11), \new32
	ja	\slow
	FAST_FRAME_AT \idx, \frame
.endm

/* Whether the events up to position \last get detail records (hijack.c's
 * detail_put): falls through if so; to \none if ADA_DETAIL is off; to
 * \full with ADA_DETAIL=all when the writer has not consumed the records
 * these would overwrite, even after a look at its tail (ring.c's
 * ada_detail_room_slow): the events go without, and the caller counts them
 * (detail_full); to \slow if the first record is to map the ring (dlimit
 * is 0 until then), the position is past what the writer allows in window
 * or ring mode (dlimit), or the stack window is not the default one whole
 * from slot rcx (dwin_top: a clipped or another size). ADA_DETAIL is
 * asked first: it never changes, and off is the index lane's cheapest. */
.macro FAST_DETAIL_CHECK last, none, full, slow
	cmpb	$0, ada_rt_area+ADA_RT_CFG_DETAIL(%rip)
	je	\none
	cmp	ADA_TD_DLIMIT(%r11), \last
	jb	2f
	cmpq	$0, ADA_TD_DRING(%r11)
	je	\slow
	cmpb	$0, ada_rt_area+ADA_RT_CFG_DETAIL_WINDOW(%rip)
	jne	\slow
	cmpb	$0, ada_rt_area+ADA_RT_CFG_RING_MODE(%rip)
	jne	\slow
	mov	ADA_TD_RH(%r11), %rsi
	mov	ADA_RH_TAIL(%rsi), %rsi
	add	ADA_TD_DMASK(%r11), %rsi
	inc	%rsi				/* tail + records */
	mov	%rsi, ADA_TD_DLIMIT(%r11)
	cmp	%rsi, \last
	jae	\full
2:	cmp	ADA_TD_DWIN_TOP(%r11), %rcx
	ja	\slow
.endm

/* \rec = position \pos's record in the detail ring. */
.macro FAST_DETAIL_RECORD rec, pos=%rdi
	mov	ADA_TD_DMASK(%r11), \rec
	and	\pos, \rec
	imul	ADA_TD_DREC_BYTES(%r11), \rec
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

/* The record's stack size and window: 128 bytes from the slot up. With
 * \hijacked 1, the slot may hold the trampoline: the window's first word
 * is then the record's return address (the slot as the function found it,
 * before the hijack); a function that calls __return__ leaves its slot
 * alone. */
.macro FAST_DETAIL_WINDOW rec, hijacked=1
	mov	ADA_TD_STACK_BYTES(%r11), %esi
	mov	%rsi, ADA_DREC_OFF_STACK_SIZE(\rec)
	test	%esi, %esi
	jz	3f
	COPY128 %rcx, ADA_DREC_OFF_STACK, \rec
.if \hijacked
	mov	ADA_DREC_OFF_LR(\rec), %rsi
	mov	%rsi, ADA_DREC_OFF_STACK(\rec)
.endif
3:
.endm

/* A CALL's FP argument registers into the record at \rec: xmm0..xmm7's
 * low 64 bits, what a scalar float or double argument uses. The stores
 * leave the registers as they are: they are the function's arguments. */
.macro FAST_CALL_FREGS rec
	movq	%xmm0, ADA_DREC_OFF_FREGS+0(\rec)
	movq	%xmm1, ADA_DREC_OFF_FREGS+8(\rec)
	movq	%xmm2, ADA_DREC_OFF_FREGS+16(\rec)
	movq	%xmm3, ADA_DREC_OFF_FREGS+24(\rec)
	movq	%xmm4, ADA_DREC_OFF_FREGS+32(\rec)
	movq	%xmm5, ADA_DREC_OFF_FREGS+40(\rec)
	movq	%xmm6, ADA_DREC_OFF_FREGS+48(\rec)
	movq	%xmm7, ADA_DREC_OFF_FREGS+56(\rec)
.endm

/* A RETURN's detail record at \rec: the return values \v0 and \v1 (rax
 * and rdx, in registers or memory) and six zeros, the FP return values
 * (xmm0 and xmm1's low 64 bits, untouched until the function's caller has
 * them) and six zeros, the real return address (r9), the caller's frame
 * pointer (restored by the function), the slot, the stack window. */
.macro FAST_RETURN_DETAIL rec, v0, v1, hijacked=1
	mov	\v0, %rsi
	mov	%rsi, ADA_DREC_OFF_REGS+0(\rec)
	mov	\v1, %rsi
	mov	%rsi, ADA_DREC_OFF_REGS+8(\rec)
	pxor	%xmm8, %xmm8
	movdqu	%xmm8, ADA_DREC_OFF_REGS+16(\rec)
	movdqu	%xmm8, ADA_DREC_OFF_REGS+32(\rec)
	movdqu	%xmm8, ADA_DREC_OFF_REGS+48(\rec)
	movq	%xmm0, ADA_DREC_OFF_FREGS+0(\rec)
	movq	%xmm1, ADA_DREC_OFF_FREGS+8(\rec)
	movdqu	%xmm8, ADA_DREC_OFF_FREGS+16(\rec)
	movdqu	%xmm8, ADA_DREC_OFF_FREGS+32(\rec)
	movdqu	%xmm8, ADA_DREC_OFF_FREGS+48(\rec)
	mov	%r9, ADA_DREC_OFF_LR(\rec)
	mov	%rbp, ADA_DREC_OFF_FP(\rec)
	mov	%rcx, ADA_DREC_OFF_SP(\rec)
	FAST_DETAIL_WINDOW \rec, \hijacked
.endm

/* The ring slot at \head (rdi unless given: tsc, \word), its address in
 * \at, then head + 1, which publishes it (thread.h's ada_ring_put; a plain
 * store is a release on x86_64). The tsc is stored as rdtsc leaves it, in
 * two halves: nothing reads a slot before the head that publishes it.
 * \word may be rax or rdx, which rdtsc then clobbers. */
.macro FAST_PUT word, at, head=%rdi
	mov	\head, \at
	and	ADA_TD_MASK(%r11), \at
	shl	$4, \at
	add	ADA_TD_RING(%r11), \at
	mov	\word, 8(\at)
	rdtsc
	mov	%eax, 0(\at)
	mov	%edx, 4(\at)
	inc	\head
	mov	ADA_TD_RH(%r11), %rdx
	mov	\head, ADA_RH_HEAD(%rdx)
.endm

/* ---- a function's entry: __fentry__, __ada_fentry_nohijack, PLT hooks ---- */

/* The fast path's frame: its five saves, in ATF v2's register order for
 * the first four, then what the call left: F_RET and the slot for the
 * fentry hooks (\slot 0), the slot alone for a PLT hook's entry (\slot -8).
 * In the red zone (the fast path is a leaf): the real return address, and
 * a PLT hook's cell. */
#define F_RDI 0
#define F_RSI 8
#define F_RDX 16
#define F_RCX 24
#define F_RAX 32
#define F_RET 40	/* __fentry__: into compute, just after its call */
#define F_SLOT 48	/* compute's return-address slot (+ \slot) */
#define F_LR (-8)
#define F_CELL (-16)

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

/* The fast path of hijack.c's hijack_enter (fentry.S says what it covers).
 * \kind fentry: the function is the call's own (ada_arch_fentry_start),
 * the hook returns into it; nohijack: the same, but the function calls
 * __return__ before it returns (returncall.S): its return is not hijacked,
 * and its frame says so (ADA_SITE_NOHIJACK in its site); dyn: a PLT hook's
 * entry, r11 = its cell (struct ada_dyn_cell), the hook jumps to the cell's
 * jump (its function, or ADA_ALLOC's wrapper of it). Falls through to what follows, the C path, with every register
 * as it came. */
.macro FAST_ENTRY kind, slot
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

.ifc \kind,dyn
	/* The cell, kept while r11 holds the state; a slot hijacked with
	 * another trampoline than the common one (dlopen's): C. */
	mov	%r11, F_CELL(%rsp)
	mov	ADA_DYN_CELL_RET(%r11), %rax
	cmp	ada_return_trampoline_addr(%rip), %rax
	jne	.Lslow\@
.endif

	/* r11 = the thread's state, rcx = the slot, the guard taken; then
	 * recording on for the thread (ignored), outside no graph function
	 * (graph_gate, the next byte) and for the process. */
	FAST_BEGIN \slot+F_SLOT, .Lslow\@, .Lslow_guarded\@
	cmpw	$0, ADA_TD_IGNORED(%r11)
	jne	.Lslow_guarded\@
	cmpl	$0, ada_recording_off_area(%rip)
	jne	.Lslow_guarded\@

.ifnc \kind,dyn
	/* rdx = fn, the call's own address: 5 bytes back (call rel32), or 6
	 * (call through the GOT); a nested function's push/pop of r10 around
	 * the call is arch.h's ada_arch_fentry_start's to sort out. */
	mov	F_RET(%rsp), %rax
	cmpw	$0x5a41, (%rax)			/* pop %r10 */
	je	.Lslow_guarded\@
	lea	-5(%rax), %rdx
	cmpw	$0x15ff, -6(%rax)		/* call *rel32(%rip) */
	jne	1f
	dec	%rdx
1:
.else
	/* rdx = fn, the cell's */
	mov	F_CELL(%rsp), %rdx
	mov	ADA_DYN_CELL_FN(%rdx), %rdx
.endif
	/* The new frame: within the shadow stack and the recorded depth,
	 * and not above the innermost frame's slot
	 * (frames left by a longjmp: C). */
	FAST_NEW_FRAME %rsi, %esi, %eax, %rax, .Lslow_guarded\@	/* rax = the frame */
	mov	\slot+F_SLOT(%rsp), %rdi		/* what the slot holds */
	cmp	ADA_FRAME_SP-ADA_FRAME_SIZE(%rax), %rcx
.ifc \kind,nohijack
	/* Below the innermost frame, or C: a function that calls __return__
	 * leaves its frame before its tail calls, so a frame on the slot was
	 * abandoned, or hijacked and tail-calling this one. */
	jae	.Lslow_guarded\@
.else
	ja	.Lslow_guarded\@
	jb	2f
	/* On the innermost frame's slot: a tail call. The slot holds the
	 * trampoline already, and that frame the real return address (a
	 * longer chain of tail calls, or a slot another hook hijacked: C). */
	cmp	ada_return_trampoline_addr(%rip), %rdi
	jne	.Lslow_guarded\@
	mov	ADA_FRAME_SITE-ADA_FRAME_SIZE(%rax), %rdi
	cmp	ada_return_trampoline_addr(%rip), %rdi
	je	.Lslow_guarded\@
	cmp	ada_dl_return_stub(%rip), %rdi
	je	.Lslow_guarded\@
.endif
2:
.ifnc \kind,nohijack
	mov	%rdi, F_LR(%rsp)		/* the real return address */
.endif

	/* Room for this CALL and the RETURN of every open frame:
	 * head + depth + 1 <= limit (thread.h's ada_call_room). */
	mov	ADA_TD_RH(%r11), %rdi
	mov	ADA_RH_HEAD(%rdi), %rdi		/* rdi = head */
	lea	2(%rdi,%rsi), %rsi
	cmp	ADA_TD_LIMIT(%r11), %rsi
	ja	.Lslow_guarded\@

	/* The frame, past the shadow stack's top until depth counts it (the
	 * C path writes it again if a check below sends the hook there). */
	mov	%rdx, ADA_FRAME_FN(%rax)
	mov	\slot+F_SLOT(%rsp), %rsi
.ifc \kind,nohijack
	bts	$ADA_SITE_NOHIJACK_BIT, %rsi
.endif
	mov	%rsi, ADA_FRAME_SITE(%rax)
	mov	%rcx, ADA_FRAME_SP(%rax)

	/* The detail record (rax): argument registers in ATF v2's order (rdi
	 * rsi rdx rcx from their saves, r8 r9, two zeros), the FP argument
	 * registers, the real return address, the caller's frame pointer, the
	 * slot, the stack window. */
	FAST_DETAIL_CHECK %rdi, .Lput\@, .Lfull\@, .Lslow_guarded\@
	FAST_DETAIL_RECORD %rax
	movdqu	F_RDI(%rsp), %xmm8
	movdqu	F_RDX(%rsp), %xmm9
	pxor	%xmm10, %xmm10
	movdqu	%xmm8, ADA_DREC_OFF_REGS+0(%rax)
	movdqu	%xmm9, ADA_DREC_OFF_REGS+16(%rax)
	mov	%r8, ADA_DREC_OFF_REGS+32(%rax)
	mov	%r9, ADA_DREC_OFF_REGS+40(%rax)
	movdqu	%xmm10, ADA_DREC_OFF_REGS+48(%rax)
	FAST_CALL_FREGS %rax
.ifc \kind,nohijack
	mov	\slot+F_SLOT(%rsp), %rsi	/* the real return address */
	mov	%rsi, ADA_DREC_OFF_LR(%rax)
	mov	%rbp, ADA_DREC_OFF_FP(%rax)
	mov	%rcx, ADA_DREC_OFF_SP(%rax)
	FAST_DETAIL_WINDOW %rax, 0
.else
	mov	F_LR(%rsp), %rsi
	mov	%rsi, ADA_DREC_OFF_LR(%rax)
	mov	%rbp, ADA_DREC_OFF_FP(%rax)
	mov	%rcx, ADA_DREC_OFF_SP(%rax)
	FAST_DETAIL_WINDOW %rax
.endif
	bts	$ADA_SLOT_DETAIL_BIT, %rdx	/* the word says a record goes with it */

.Lput\@:	/* The slot: tsc, word = fn | CALL. Then the depth, the hijack, and
	 * the guard released. */
	FAST_PUT %rdx, %rcx
	incl	ADA_TD_DEPTH(%r11)
.ifnc \kind,nohijack
	lea	ada_return_trampoline(%rip), %rax
	mov	%rax, \slot+F_SLOT(%rsp)
.endif
	FAST_RELEASE_GUARD
	.cfi_remember_state
	POP_SAVES
.ifc \kind,dyn
	mov	F_CELL-40(%rsp), %r11
	jmp	*ADA_DYN_CELL_JUMP(%r11)
.else
	ret
.endif
	.cfi_restore_state

.Lfull\@:	/* No record free (ADA_DETAIL=all): counted, none written. */
	mov	ADA_TD_RH(%r11), %rsi
	incq	ADA_RH_DETAIL_FULL(%rsi)
	jmp	.Lput\@

.Lslow_guarded\@:
	FAST_RELEASE_GUARD
.Lslow\@:
.ifc \kind,dyn
	mov	F_CELL(%rsp), %r11		/* the C path's cell */
.endif
	POP_SAVES

.endm

#endif
