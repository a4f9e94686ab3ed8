/* return.S (aarch64) - ada_return_trampoline: where hijacked functions return.
 *
 * _mcount's C side (mcount/hijack.c) replaced a traced function's saved x30
 * in its frame record with this address and kept the real one on the
 * thread's shadow stack. The function's epilogue reloads x29 and x30 from
 * the record and pops its frame, and its `ret` (or, after a tail call's
 * `b`, the callee's) lands here with:
 *   x0, x1     integer/pointer return value (x1: the high half of a
 *              128-bit or two-register composite)
 *   x8         the indirect result's address, which callers may reuse
 *   v0-v3      float, double and homogeneous FP aggregate returns
 *   x29        the caller's frame pointer, restored: the frame's position
 *              (runtime/aarch64/arch.h)
 *   sp         the function's stack pointer at its call, 16-byte aligned
 *   x9-x18, x30, v4-v7, the high halves of v8-v31: dead (caller-saved, no
 *              return value)
 *
 * There is no fast path in assembly yet: the C side records the RETURN
 * with the return registers and gives back the real return address,
 *
 *   uintptr_t ada_fentry_return(struct ada_return_regs *regs, uintptr_t *slot);
 *
 * slot being the stack pointer on entry here (the guard's and the stack's
 * position; the frame's position is regs->fp). Everything saved is restored
 * and `ret` goes to the real address.
 *
 * There is no caller frame to describe here: the return address column is
 * undefined, so an unwinder stops at this frame rather than read garbage
 * (exceptions and backtrace() see real return addresses: mcount/unwind.c
 * restores them first).
 */
#include "arch.h"
#include "asm.h"

#define FRAME (ADA_RETURN_REGS_SIZE + 16)	/* the registers, then x29 x30 */

	HOOKS_TEXT
	.p2align 4
	.cfi_startproc
	.cfi_undefined x30
	/* Unwinders look a return address up at address - 4 (less than one
	 * instruction back): keep it inside the trampoline's unwind
	 * information, not in a neighbour's. */
	nop
	.globl ada_return_trampoline
	.hidden ada_return_trampoline
	.type ada_return_trampoline, %function
ada_return_trampoline:
	sub	sp, sp, #FRAME
	.cfi_def_cfa_offset FRAME
	stp	x0, x1, [sp, #ADA_RET_X0]
	stp	x8, x29, [sp, #ADA_RET_X8]	/* x8, then ADA_RET_FP */
	stp	q0, q1, [sp, #ADA_RET_Q0 + 0 * 16]
	stp	q2, q3, [sp, #ADA_RET_Q0 + 2 * 16]
	stp	x29, x30, [sp, #ADA_RETURN_REGS_SIZE]
	.cfi_rel_offset x29, ADA_RETURN_REGS_SIZE

	mov	x0, sp				/* regs */
	add	x1, sp, #FRAME			/* slot: the entry sp */
	add	x29, sp, #ADA_RETURN_REGS_SIZE
	bl	ada_fentry_return
	mov	x30, x0				/* the real return address */

	ldp	q2, q3, [sp, #ADA_RET_Q0 + 2 * 16]
	ldp	q0, q1, [sp, #ADA_RET_Q0 + 0 * 16]
	ldp	x8, x29, [sp, #ADA_RET_X8]
	.cfi_restore x29
	ldp	x0, x1, [sp, #ADA_RET_X0]
	add	sp, sp, #FRAME
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size ada_return_trampoline, .- ada_return_trampoline

	.section .note.GNU-stack, "", %progbits
