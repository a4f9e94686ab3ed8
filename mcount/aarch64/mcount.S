/* mcount.S (aarch64) - _mcount, called by functions built with -pg.
 *
 * gcc has no -mfentry on aarch64: the call comes after the prologue has
 * stored the frame record and set the frame pointer (gcc 12, -O2):
 *
 *   compute:
 *     stp   x29, x30, [sp, -32]!
 *     mov   x29, sp
 *     ...                     # arguments moved to callee-saved registers
 *     hint  7                 # xpaclri: x30 without its PAC, if any
 *     mov   x0, x30
 *     bl    _mcount
 *
 * So when _mcount runs:
 *   x30        the return address into compute: an address inside compute,
 *              which is how compute is named (the symbolizer finds the
 *              function that contains it)
 *   x0         compute's own return address, as x30 held it
 *   [x29]      compute's caller's frame pointer: the frame's position on
 *              the shadow stack (runtime/aarch64/arch.h says why)
 *   [x29 + 8]  the saved x30 compute reloads before its `ret`, or before
 *              the `b` of a tail call: the slot to hijack
 *   sp         16-byte aligned, as AAPCS64 keeps it everywhere
 *
 * gcc treats the call as an ordinary one, keeping nothing live in the
 * registers AAPCS64 lets a call clobber (runtime/aarch64/arch.h): the C
 * side, a normal function, may clobber them. x0-x8 are saved in struct
 * ada_entry_regs all the same (x0 for the C side to check the slot with),
 * under a frame record of _mcount's own so that a backtrace from the C
 * side walks on into compute.
 *
 *   void ada_mcount_enter(struct ada_entry_regs *regs, uintptr_t *slot,
 *                         uintptr_t site);
 */
#include "arch.h"
#include "asm.h"

#define FRAME (ADA_ENTRY_REGS_SIZE + 16)	/* the registers, then x29 x30 */

	HOOKS_TEXT
GLOBAL(_mcount)
	.cfi_startproc
	sub	sp, sp, #FRAME
	.cfi_def_cfa_offset FRAME
	stp	x29, x30, [sp, #ADA_ENTRY_REGS_SIZE]
	.cfi_rel_offset x29, ADA_ENTRY_REGS_SIZE
	.cfi_rel_offset x30, ADA_ENTRY_REGS_SIZE + 8
	stp	x0, x1, [sp, #ADA_REG_X0 + 0 * 8]
	stp	x2, x3, [sp, #ADA_REG_X0 + 2 * 8]
	stp	x4, x5, [sp, #ADA_REG_X0 + 4 * 8]
	stp	x6, x7, [sp, #ADA_REG_X0 + 6 * 8]
	ldr	x9, [x29]			/* compute's caller's frame pointer */
	stp	x8, x9, [sp, #ADA_REG_X0 + 8 * 8]	/* x8, then ADA_REG_FP */

	mov	x0, sp				/* regs */
	add	x1, x29, #8			/* slot = &compute's saved x30 */
	mov	x2, x30				/* site = the call's return, in compute */
	add	x29, sp, #ADA_ENTRY_REGS_SIZE	/* _mcount's own frame record */
	bl	ada_mcount_enter

	ldr	x8, [sp, #ADA_REG_X0 + 8 * 8]
	ldp	x6, x7, [sp, #ADA_REG_X0 + 6 * 8]
	ldp	x4, x5, [sp, #ADA_REG_X0 + 4 * 8]
	ldp	x2, x3, [sp, #ADA_REG_X0 + 2 * 8]
	ldp	x0, x1, [sp, #ADA_REG_X0 + 0 * 8]
	ldp	x29, x30, [sp, #ADA_ENTRY_REGS_SIZE]
	.cfi_restore x29
	.cfi_restore x30
	add	sp, sp, #FRAME
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
END(_mcount)

	.section .note.GNU-stack, "", %progbits
