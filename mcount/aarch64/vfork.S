/* vfork.S (aarch64) - vfork, a real one, whose child records nothing.
 *
 * The same contract as mcount/x86_64/vfork.S, which says why each step is
 * there: libada's vfork interposes libc's; ada_vfork_enter (thread.c),
 * first, in the parent, clears the thread's TLS state so that the child's
 * hooks find none (they record nothing and hijack nothing), and returns it
 * (struct ada_vfork_saved, in x0 and x1 by AAPCS64); in the parent,
 * ada_vfork_leave(ret, td, state) puts it back and returns the pid, or -1
 * with errno set. Without this, libc's vfork let the child's calls into
 * the parent's ring, and the child's _exit ended the parent's trace.
 *
 * What differs from x86_64:
 *   - there is no vfork system call: clone(CLONE_VM | CLONE_VFORK |
 *     SIGCHLD) with the caller's stack (newsp 0), as glibc's vfork does;
 *   - the return address is in x30, a register: the child's calls, which
 *     reuse the stack below the caller's sp, cannot overwrite it, so
 *     nothing is moved out of their way; the frame record pushed around
 *     the call to ada_vfork_enter is popped before the system call;
 *   - the saved state waits in x9 and x10: the system call leaves every
 *     register but x0 as it was, and the child's registers are its own.
 *
 * Argument registers: none. Returns w0: the child's pid, 0 in the child,
 * -1 (errno) on failure. Clobbers what a call may.
 */
#include <sys/syscall.h>

#include "asm.h"

#define VFORK_FLAGS 0x4111	/* CLONE_VM 0x100 | CLONE_VFORK 0x4000 | SIGCHLD 17 */

	.text
GLOBAL(vfork)
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	bl	ada_vfork_enter			/* x0:x1 = the thread's saved state */
	ldp	x29, x30, [sp], #16
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	mov	x9, x0
	mov	x10, x1
	mov	x0, #VFORK_FLAGS
	mov	x1, #0				/* newsp: the caller's stack */
	mov	x2, #0
	mov	x3, #0
	mov	x4, #0
	mov	x8, #SYS_clone
	svc	#0
	cbz	x0, 1f				/* if (child) return 0; untraced */
	mov	x1, x9
	mov	x2, x10
	b	ada_vfork_leave			/* return ada_vfork_leave(x0, x9, x10) */
1:	ret
	.cfi_endproc
END(vfork)

/* libc's other name for it. */
	.globl	__vfork
	.type	__vfork, %function
	.set	__vfork, vfork

	.section .note.GNU-stack, "", %progbits
