/* hookfloor.S - the hook floor (issue 22): the cheapest -finstrument-functions
 * hooks that still keep what no ada hook may drop, with nothing of ada's
 * shadow stack. Per event: the thread's state from TLS, a reentrancy guard
 * (a signal handler's hooks must not write into a half-written slot), the
 * stack-range check (a coroutine's or a signal stack's frames go elsewhere),
 * the thread's and the process's recording switches, the ring's room (a
 * lossless ring waits rather than overwrite), then the slot: tsc and the
 * function's address with the event's kind, and the head that publishes it.
 * What it leaves out is what the shadow stack gives ada at run time: exact
 * trees across longjmp, exceptions and stack switches closed as they
 * happen, depth limits, the graph gate, fork children that start balanced.
 * Timed beside the ring floor (rdtsc and a 16-byte store) and ada's own
 * rows by bench/funtrace.sh: the distance from the ring floor to this is
 * the price of the guarantees a hook cannot move offline; from this to
 * ada's cyg ring row, that of its shadow stack.
 */
#define TD 0
#define BUSY 8

	.text
	.globl	__cyg_profile_func_enter, __cyg_profile_func_exit
	.type	__cyg_profile_func_enter, @function
__cyg_profile_func_enter:		/* rdi = fn, rsi = call site */
	xor	%r8d, %r8d		/* kind 0: CALL */
	jmp	1f
	.type	__cyg_profile_func_exit, @function
__cyg_profile_func_exit:
	mov	$1, %r8d		/* kind 1: RETURN */
1:	mov	hf_self@gottpoff(%rip), %rsi
	mov	%fs:TD(%rsi), %r11	/* the thread's state */
	test	%r11, %r11
	jz	hf_slow
	cmpq	$0, %fs:BUSY(%rsi)	/* the guard */
	jne	hf_slow
	lea	8(%rsp), %rcx		/* the frame position */
	mov	%rcx, %fs:BUSY(%rsi)
	mov	%rcx, %rdx		/* on the thread's stack */
	sub	32(%r11), %rdx
	cmp	40(%r11), %rdx
	jae	hf_slow
	cmpw	$0, 48(%r11)		/* recording on: the thread's, */
	jne	hf_slow
	cmpl	$0, hf_recording_off(%rip)	/* the process's */
	jne	hf_slow
	mov	0(%r11), %r10		/* room for it */
	cmp	8(%r11), %r10
	jae	hf_slow
	mov	%r10, %r9		/* the slot */
	and	16(%r11), %r9
	shl	$4, %r9
	add	24(%r11), %r9
	shl	$62, %r8
	or	%r8, %rdi
	mov	%rdi, 8(%r9)
	rdtsc
	mov	%eax, 0(%r9)
	mov	%edx, 4(%r9)
	inc	%r10			/* published */
	mov	%r10, 0(%r11)
	movq	$0, %fs:BUSY(%rsi)
	ret

	.section .note.GNU-stack, "", @progbits
